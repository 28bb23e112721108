package monitor

import "testing"

const (
	modernDiscover = `> {"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + modernMeta + `}}}
< {"jsonrpc":"2.0","id":1,"result":{` + serverInfo + `"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{"listChanged":true},"resources":{"listChanged":true},"logging":{}}}}
`
	modernListen = modernDiscover + `> {"jsonrpc":"2.0","id":2,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},` + modernMeta + `}}}
`
	ack = `< {"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{"toolsListChanged":true},"_meta":{"io.modelcontextprotocol/subscriptionId":2}}}
`
	onSub2 = `"params":{"_meta":{"io.modelcontextprotocol/subscriptionId":2}}`
)

func init() {
	cases = append(cases, []struct {
		rule           string
		broken, passes string
		want           string
	}{
		{"monitor/meta-key",
			legacyInit + `> {"jsonrpc":"2.0","id":2,"method":"tools/list"}
< {"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"},"_meta":{"com.-example/x":1}}]}}`,
			legacyInit + `> {"jsonrpc":"2.0","id":2,"method":"tools/list"}
< {"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"a","inputSchema":{"type":"object","properties":{"_meta":{"type":"object","properties":{"-x-":{}}}}},"_meta":{"com.example/x-1":1,"plain_name":2,"":3}}]}}`,
			`prefix label "-example" does not start with a letter`},
		{"monitor/meta-key",
			legacyInit + `> {"jsonrpc":"2.0","id":2,"method":"ping"}
< {"jsonrpc":"2.0","id":2,"result":{"_meta":{"trailing-":true}}}`,
			legacyInit + `> {"jsonrpc":"2.0","id":2,"method":"ping"}
< {"jsonrpc":"2.0","id":2,"result":{"_meta":{"a.b-c.d9/x_y":true}}}`, `name "trailing-" does not begin and end`},
		{"monitor/meta-key",
			`> {"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + modernMeta + `}}}
< {"jsonrpc":"2.0","id":1,"result":{` + serverInfo + `"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"extensions":{"tasks":{}}}}}`,
			`> {"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + modernMeta + `}}}
< {"jsonrpc":"2.0","id":1,"result":{` + serverInfo + `"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}},"extensions":{"not-an-id":1}}}`,
			`extension identifier "tasks": no prefix`},
		{"monitor/error-code",
			`> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t",` + modernMeta + `}}}
< {"jsonrpc":"2.0","id":1,"error":{"code":-32042,"message":"URL elicitation required"}}`,
			`> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t",` + modernMeta + `}}}
< {"jsonrpc":"2.0","id":1,"error":{"code":-32021,"message":"missing capability","data":{"requiredCapabilities":{"elicitation":{}}}}}`, `error -32042`},
		{"monitor/error-code",
			`> {"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + modernMeta + `}}}
< {"jsonrpc":"2.0","id":1,"error":{"code":-32050,"message":"mine"}}`,
			// A legacy session may use the range as it likes (no new allocations, but no ban).
			legacyInit + `> {"jsonrpc":"2.0","id":2,"method":"tools/list"}
< {"jsonrpc":"2.0","id":2,"error":{"code":-32050,"message":"mine"}}`, `error -32050 to tools/list`},
		{"monitor/server-request-id",
			legacyElicit + `< {"jsonrpc":"2.0","id":7,"method":"elicitation/create","params":{"message":"?","requestedSchema":{"type":"object"}}}
> {"jsonrpc":"2.0","id":7,"result":{"action":"decline"}}
< {"jsonrpc":"2.0","id":7,"method":"elicitation/create","params":{"message":"?","requestedSchema":{"type":"object"}}}`,
			legacyElicit + `< {"jsonrpc":"2.0","id":7,"method":"elicitation/create","params":{"message":"?","requestedSchema":{"type":"object"}}}
> {"jsonrpc":"2.0","id":7,"result":{"action":"decline"}}
< {"jsonrpc":"2.0","id":"7","method":"elicitation/create","params":{"message":"?","requestedSchema":{"type":"object"}}}`, `with the id 7, which an earlier request`},
		{"monitor/server-cancelled",
			`> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t",` + modernMeta + `}}}
< {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"too slow"}}`,
			modernListen + ack + `< {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"shutting down"}}`,
			`notifications/cancelled for the client's tools/call request`},
		{"monitor/subscription",
			modernListen + `< {"jsonrpc":"2.0","method":"notifications/tools/list_changed",` + onSub2 + `}
` + ack,
			modernListen + ack + `< {"jsonrpc":"2.0","method":"notifications/tools/list_changed",` + onSub2 + `}`, `before notifications/subscriptions/acknowledged`},
		{"monitor/subscription",
			modernListen + ack + `< {"jsonrpc":"2.0","method":"notifications/resources/list_changed",` + onSub2 + `}`,
			modernListen + ack + `< {"jsonrpc":"2.0","method":"notifications/tools/list_changed",` + onSub2 + `}`, `did not ask for resourcesListChanged`},
		{"monitor/subscription",
			modernListen + ack + `< {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`,
			modernListen + ack + `< {"jsonrpc":"2.0","method":"notifications/tools/list_changed",` + onSub2 + `}`, `without _meta "io.modelcontextprotocol/subscriptionId"`},
		{"monitor/subscription",
			modernListen + ack + `> {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"t",` + modernMeta + `,"io.modelcontextprotocol/logLevel":"info"}}}
< {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"error","data":"x","_meta":{"io.modelcontextprotocol/subscriptionId":2}}}`,
			modernListen + ack + `> {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"t",` + modernMeta + `,"io.modelcontextprotocol/logLevel":"info"}}}
< {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"error","data":"x"}}`, `never goes on a subscriptions/listen stream`},
		{"monitor/server-info",
			`> {"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + modernMeta + `}}}
< {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[],"_meta":{"com.example/x":1}}}`,
			`> {"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + modernMeta + `}}}
< {"jsonrpc":"2.0","id":1,"result":{` + serverInfo + `"resultType":"complete","tools":[]}}`, `no _meta "io.modelcontextprotocol/serverInfo"`},
		{"monitor/cache-scope",
			`> {"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + modernMeta + `}}}
< {"jsonrpc":"2.0","id":1,"result":{` + serverInfo + `"resultType":"complete","tools":[{"name":"a"}],"nextCursor":"p2","ttlMs":0,"cacheScope":"private"}}
> {"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"p2",` + modernMeta + `}}}
< {"jsonrpc":"2.0","id":2,"result":{` + serverInfo + `"resultType":"complete","tools":[{"name":"b"}],"ttlMs":0,"cacheScope":"public"}}`,
			`> {"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + modernMeta + `}}}
< {"jsonrpc":"2.0","id":1,"result":{` + serverInfo + `"resultType":"complete","tools":[{"name":"a"}],"nextCursor":"p2","ttlMs":0,"cacheScope":"private"}}
> {"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"p2",` + modernMeta + `}}}
< {"jsonrpc":"2.0","id":2,"result":{` + serverInfo + `"resultType":"complete","tools":[{"name":"b"}],"ttlMs":0,"cacheScope":"private"}}
> {"jsonrpc":"2.0","id":3,"method":"tools/list","params":{` + modernMeta + `}}}
< {"jsonrpc":"2.0","id":3,"result":{` + serverInfo + `"resultType":"complete","tools":[{"name":"a"},{"name":"b"}],"ttlMs":0,"cacheScope":"public"}}`,
			`cacheScope "public" after an earlier page of the same listing had "private"`},
		{"monitor/list-order",
			`> {"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + modernMeta + `}}}
< {"jsonrpc":"2.0","id":1,"result":{` + serverInfo + `"resultType":"complete","tools":[{"name":"a"},{"name":"b"}]}}
> {"jsonrpc":"2.0","id":2,"method":"tools/list","params":{` + modernMeta + `}}}
< {"jsonrpc":"2.0","id":2,"result":{` + serverInfo + `"resultType":"complete","tools":[{"name":"b"},{"name":"a"}]}}`,
			`> {"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + modernMeta + `}}}
< {"jsonrpc":"2.0","id":1,"result":{` + serverInfo + `"resultType":"complete","tools":[{"name":"a"},{"name":"b"}]}}
> {"jsonrpc":"2.0","id":2,"method":"tools/list","params":{` + modernMeta + `}}}
< {"jsonrpc":"2.0","id":2,"result":{` + serverInfo + `"resultType":"complete","tools":[{"name":"c"},{"name":"a"}]}}
> {"jsonrpc":"2.0","id":3,"method":"tools/list","params":{` + modernMeta + `}}}
< {"jsonrpc":"2.0","id":3,"result":{` + serverInfo + `"resultType":"complete","tools":[{"name":"c"},{"name":"a"}]}}`, `another order than before (first "a", "b"; then "b", "a")`},
		{"monitor/structured-text",
			legacyInit + `> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t"}}
< {"jsonrpc":"2.0","id":2,"result":{"content":[],"structuredContent":{"n":1}}}`,
			legacyInit + `> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t"}}
< {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"{\"n\":1}"}],"structuredContent":{"n":1}}}
> {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"t",` + modernMeta + `}}}
< {"jsonrpc":"2.0","id":3,"result":{` + serverInfo + `"resultType":"complete","content":[],"structuredContent":{"n":1}}}`, `structuredContent and no text block`},
		{"monitor/embedded-resource",
			legacyElicit + `> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t"}}
< {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"resource","resource":{"uri":"file:///a","text":"a"}}]}}`,
			legacyInit + `> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t"}}
< {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"resource","resource":{"uri":"file:///a","text":"a"}}]}}`, `did not declare the resources capability`},
		{"monitor/uri-syntax",
			legacyInit + `> {"jsonrpc":"2.0","id":2,"method":"resources/list"}
< {"jsonrpc":"2.0","id":2,"result":{"resources":[{"uri":"file:///my notes.txt","name":"n"}]}}`,
			legacyInit + `> {"jsonrpc":"2.0","id":2,"method":"resources/list"}
< {"jsonrpc":"2.0","id":2,"result":{"resources":[{"uri":"file:///my%20notes.txt","name":"n"},{"uri":"my-app+v1.2:/a/b?c=d#e","name":"m"},{"uri":"urn:isbn:0451450523","name":"i"}]}}`,
			`the character ' '`},
		{"monitor/header-annotation",
			`> {"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + modernMeta + `}}}
< {"jsonrpc":"2.0","id":1,"result":{` + serverInfo + `"resultType":"complete","tools":[{"name":"t","inputSchema":{"type":"object","properties":{"ids":{"type":"array","items":{"type":"string","x-mcp-header":"Id"}}}}}]}}`,
			`> {"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + modernMeta + `}}}
< {"jsonrpc":"2.0","id":1,"result":{` + serverInfo + `"resultType":"complete","tools":[{"name":"t","inputSchema":{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"o":{"type":"object","properties":{"k":{"type":"integer","x-mcp-header":"K"}}}}}}]}}`,
			`at /properties/ids/items/x-mcp-header`},
		{"monitor/header-annotation",
			`> {"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + modernMeta + `}}}
< {"jsonrpc":"2.0","id":1,"result":{` + serverInfo + `"resultType":"complete","tools":[{"name":"t","inputSchema":{"type":"object","anyOf":[{"properties":{"a":{"type":"string","x-mcp-header":"A"}}}]}}]}}`,
			legacyInit, `at /anyOf/0/properties/a/x-mcp-header`},
		{"monitor/progress-after-response",
			legacyInit + `> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t","task":{},"_meta":{"progressToken":5}}}
< {"jsonrpc":"2.0","id":2,"result":{"task":{"taskId":"x","status":"working"}}}
< {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":5,"progress":1}}
< {"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"taskId":"x","status":"completed"}}
< {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":5,"progress":2}}`,
			legacyInit + `> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t","task":{},"_meta":{"progressToken":5}}}
< {"jsonrpc":"2.0","id":2,"result":{"task":{"taskId":"x","status":"working"}}}
< {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":5,"progress":1}}
> {"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"taskId":"x"}}
< {"jsonrpc":"2.0","id":3,"result":{"taskId":"x","status":"working"}}
< {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":5,"progress":2}}
< {"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"taskId":"x","status":"failed"}}`,
			`after the server gave its task the terminal status completed`},
		{"monitor/progress-after-response",
			legacyInit + `> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t","task":{},"_meta":{"progressToken":5}}}
< {"jsonrpc":"2.0","id":2,"result":{"task":{"taskId":"x","status":"working"}}}
> {"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"taskId":"x"}}
< {"jsonrpc":"2.0","id":3,"result":{"taskId":"x","status":"cancelled"}}
< {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":5,"progress":2}}`,
			legacyInit, `terminal status cancelled`},
		{"monitor/uri-syntax",
			legacyInit + `> {"jsonrpc":"2.0","id":2,"method":"resources/list"}
< {"jsonrpc":"2.0","id":2,"result":{"resources":[{"uri":"notes.txt","name":"n"}]}}`,
			legacyInit, `no scheme`},
	}...)
}

func TestMetaKeyRules(t *testing.T) {
	for key, bad := range map[string]bool{
		"x": false, "": false, "a1": false, "io.modelcontextprotocol/serverInfo": false, "com.example/": false, "a-b.c/d_e.f": false,
		"-x": true, "x_": true, "/x": true, "a..b/x": true, "1a/x": true, "a-/x": true, "a_b/x": true, "com.example/x.": true,
	} {
		if got := metaKeyProblem(key, false) != ""; got != bad {
			t.Errorf("metaKeyProblem(%q) broken = %v, want %v (%s)", key, got, bad, metaKeyProblem(key, false))
		}
	}
}
