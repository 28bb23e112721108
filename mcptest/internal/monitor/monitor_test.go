package monitor

import (
	"strings"
	"testing"
)

// A script is a session, one message a line: "> " from the client, "< "
// from the server.
const (
	legacyInit = `> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
< {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true},"logging":{},"resources":{}},"serverInfo":{"name":"s","version":"1"}}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
`
	legacyElicit = `> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"c","version":"1"}}}
< {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}
`
	modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}`
	serverInfo = `"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}},`
)

func run(script string) *Monitor {
	m := New()
	for _, line := range strings.Split(strings.TrimSpace(script), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		m.Observe(strings.HasPrefix(line, "<"), []byte(strings.TrimSpace(line[1:])))
	}
	return m
}

var cases = []struct {
	rule           string
	broken, passes string
	want           string // in the broken session's finding
}{
	{"monitor/jsonrpc",
		legacyInit + `> {"jsonrpc":"2.0","id":2,"method":"ping"}
< {"jsonrpc":"1.0","id":2,"result":{}}`,
		legacyInit + `> {"jsonrpc":"2.0","id":2,"method":"ping"}
< {"jsonrpc":"2.0","id":2,"result":{}}`, `"jsonrpc" member`},
	{"monitor/id-echo",
		legacyInit + `> {"jsonrpc":"2.0","id":"7","method":"ping"}
< {"jsonrpc":"2.0","id":7,"result":{}}`,
		legacyInit + `> {"jsonrpc":"2.0","id":"7","method":"ping"}
< {"jsonrpc":"2.0","id":"7","result":{}}`, `carries the id 7, a number`},
	{"monitor/id-echo",
		legacyInit + `> {"jsonrpc":"2.0","id":2,"method":"ping"}
< {"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"bad"}}`,
		legacyInit + `> {"jsonrpc":"2.0","id":2,"method":"ping"
< {"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`, `id null`},
	{"monitor/one-response",
		legacyInit + `> {"jsonrpc":"2.0","id":2,"method":"ping"}
< {"jsonrpc":"2.0","id":2,"result":{}}
< {"jsonrpc":"2.0","id":2,"result":{}}`,
		legacyInit + `> {"jsonrpc":"2.0","id":2,"method":"ping"}
< {"jsonrpc":"2.0","id":2,"result":{}}`, `second response`},
	{"monitor/one-response",
		legacyInit + `< {"jsonrpc":"2.0","id":99,"result":{}}`,
		legacyInit, `no request of the client carries`},
	{"monitor/progress-token",
		legacyInit + `> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t","_meta":{"progressToken":"a"}}}
< {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"b","progress":1}}`,
		legacyInit + `> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t","_meta":{"progressToken":"a"}}}
< {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"a","progress":1}}`, `token "b"`},
	{"monitor/progress-increasing",
		legacyInit + `> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t","_meta":{"progressToken":5}}}
< {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":5,"progress":2}}
< {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":5,"progress":2}}`,
		legacyInit + `> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t","_meta":{"progressToken":5}}}
< {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":5,"progress":0.5}}
< {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":5,"progress":2}}`, `progress 2 for the token 5 after progress 2`},
	{"monitor/progress-after-response",
		legacyInit + `> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t","_meta":{"progressToken":5}}}
< {"jsonrpc":"2.0","id":2,"result":{"content":[]}}
< {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":5,"progress":2}}`,
		legacyInit + `> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t","task":{},"_meta":{"progressToken":5}}}
< {"jsonrpc":"2.0","id":2,"result":{"task":{"taskId":"x","status":"working"}}}
< {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":5,"progress":2}}`, `after the response`},
	{"monitor/log-level",
		legacyInit + `> {"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"warning"}}
< {"jsonrpc":"2.0","id":2,"result":{}}
< {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`,
		legacyInit + `< {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"debug","data":"before any level"}}
> {"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"warning"}}
< {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"debug","data":"the change is in flight"}}
< {"jsonrpc":"2.0","id":2,"result":{}}
< {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"error","data":"x"}}`, `info log notification after logging/setLevel set warning`},
	{"monitor/log-level",
		`> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t",` + modernMeta + `}}}
< {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"error","data":"x"}}
< {"jsonrpc":"2.0","id":1,"result":{` + serverInfo + `"resultType":"complete","content":[]}}`,
		`> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t",` + modernMeta + `,"io.modelcontextprotocol/logLevel":"info"}}}
< {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"error","data":"x"}}
< {"jsonrpc":"2.0","id":1,"result":{` + serverInfo + `"resultType":"complete","content":[]}}`, `no request in flight set _meta`},
	{"monitor/log-level",
		legacyElicit + `< {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"error","data":"x"}}`,
		legacyInit + `< {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"error","data":"x"}}`, `did not declare the logging capability`},
	{"monitor/server-request-era",
		`> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t",` + modernMeta + `}}}
< {"jsonrpc":"2.0","id":"s1","method":"roots/list"}`,
		`> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t",` + modernMeta + `}}}
< {"jsonrpc":"2.0","id":1,"result":{` + serverInfo + `"resultType":"complete","content":[]}}`, `roots/list request on a 2026-07-28 connection`},
	{"monitor/input-capability",
		legacyInit + `< {"jsonrpc":"2.0","id":"s1","method":"elicitation/create","params":{"message":"?","requestedSchema":{"type":"object"}}}`,
		legacyElicit + `< {"jsonrpc":"2.0","id":"s1","method":"elicitation/create","params":{"message":"?","requestedSchema":{"type":"object"}}}`, `declared no elicitation`},
	{"monitor/input-capability",
		`> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t",` + modernMeta + `}}}
< {"jsonrpc":"2.0","id":1,"result":{` + serverInfo + `"resultType":"input_required","inputRequests":{"k":{"method":"sampling/createMessage","params":{"messages":[],"maxTokens":9}}}}}`,
		`> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"sampling":{}}}}}
< {"jsonrpc":"2.0","id":1,"result":{` + serverInfo + `"resultType":"input_required","inputRequests":{"k":{"method":"sampling/createMessage","params":{"messages":[],"maxTokens":9}}}}}`, `inputRequests["k"]`},
	{"monitor/list-changed",
		legacyInit + `< {"jsonrpc":"2.0","method":"notifications/resources/list_changed"}`,
		legacyInit + `< {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`, `did not declare resources.listChanged`},
	{"monitor/list-changed",
		legacyInit + `> {"jsonrpc":"2.0","id":2,"method":"tools/list"}
< {"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"a"}]}}
> {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"a"}}
< {"jsonrpc":"2.0","id":3,"result":{"content":[]}}
> {"jsonrpc":"2.0","id":4,"method":"tools/list"}
< {"jsonrpc":"2.0","id":4,"result":{"tools":[{"name":"a"},{"name":"b"}]}}`,
		legacyInit + `> {"jsonrpc":"2.0","id":2,"method":"tools/list"}
< {"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"a"}]}}
> {"jsonrpc":"2.0","id":4,"method":"tools/list"}
< {"jsonrpc":"2.0","id":4,"result":{"tools":[{"name":"a"},{"name":"b"}]}}
< {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`, `new: "b"`},
	{"monitor/list-changed",
		`> {"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + modernMeta + `}}}
< {"jsonrpc":"2.0","id":1,"result":{` + serverInfo + `"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{"listChanged":true}}}}
< {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`,
		`> {"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + modernMeta + `}}}
< {"jsonrpc":"2.0","id":1,"result":{` + serverInfo + `"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{"listChanged":true}}}}
> {"jsonrpc":"2.0","id":2,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},` + modernMeta + `}}}
< {"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{"toolsListChanged":true},"_meta":{"io.modelcontextprotocol/subscriptionId":2}}}
< {"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":2}}}`, `no subscriptions/listen in flight`},
	{"monitor/list-changed", // 2026-07-28: a change while a listen stream that asked for it was open
		modernListen + ack + `> {"jsonrpc":"2.0","id":3,"method":"tools/list","params":{` + modernMeta + `}}}
< {"jsonrpc":"2.0","id":3,"result":{` + serverInfo + `"resultType":"complete","tools":[{"name":"a"}]}}
> {"jsonrpc":"2.0","id":4,"method":"tools/list","params":{` + modernMeta + `}}}
< {"jsonrpc":"2.0","id":4,"result":{` + serverInfo + `"resultType":"complete","tools":[{"name":"a"},{"name":"b"}]}}`,
		modernListen + ack + `> {"jsonrpc":"2.0","id":3,"method":"tools/list","params":{` + modernMeta + `}}}
< {"jsonrpc":"2.0","id":3,"result":{` + serverInfo + `"resultType":"complete","tools":[{"name":"a"}]}}
< {"jsonrpc":"2.0","method":"notifications/tools/list_changed",` + onSub2 + `}
> {"jsonrpc":"2.0","id":4,"method":"tools/list","params":{` + modernMeta + `}}}
< {"jsonrpc":"2.0","id":4,"result":{` + serverInfo + `"resultType":"complete","tools":[{"name":"a"},{"name":"b"}]}}`,
		`on the subscriptions/listen stream that asked for toolsListChanged`},
	{"monitor/cursor",
		legacyInit + `> {"jsonrpc":"2.0","id":2,"method":"tools/list"}
< {"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"a"}],"nextCursor":"p2"}}
> {"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"cursor":"p2"}}
< {"jsonrpc":"2.0","id":3,"result":{"tools":[{"name":"b"}],"nextCursor":"p2"}}`,
		legacyInit + `> {"jsonrpc":"2.0","id":2,"method":"tools/list"}
< {"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"a"}],"nextCursor":"p2"}}
> {"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"cursor":"p2"}}
< {"jsonrpc":"2.0","id":3,"result":{"tools":[{"name":"b"}]}}
> {"jsonrpc":"2.0","id":4,"method":"tools/list"}
< {"jsonrpc":"2.0","id":4,"result":{"tools":[{"name":"a"}],"nextCursor":"p2"}}`, `nextCursor "p2" a second time`},
	{"monitor/resource-uri",
		legacyInit + `> {"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"file:///a.txt"}}
< {"jsonrpc":"2.0","id":2,"result":{"contents":[{"uri":"file:///b.txt","text":"b"}]}}`,
		legacyInit + `> {"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"file:///dir"}}
< {"jsonrpc":"2.0","id":2,"result":{"contents":[{"uri":"file:///dir/a.txt","text":"a"}]}}`, `"file:///b.txt"`},
	{"monitor/result-type",
		`> {"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + modernMeta + `}}}
< {"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`,
		`> {"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + modernMeta + `}}}
< {"jsonrpc":"2.0","id":1,"result":{` + serverInfo + `"resultType":"complete","tools":[]}}`, `has no resultType`},
	{"monitor/task-extension",
		`> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow",` + modernMeta + `}}}
< {"jsonrpc":"2.0","id":1,"result":{` + serverInfo + `"resultType":"task","taskId":"t1","status":"working","createdAt":"x","lastUpdatedAt":"x","ttlMs":null}}`,
		`> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
			`"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}
< {"jsonrpc":"2.0","id":1,"result":{` + serverInfo + `"resultType":"task","taskId":"t1","status":"working","createdAt":"x","lastUpdatedAt":"x","ttlMs":null}}`,
		`a CreateTaskResult (task "t1") to tools/call, whose request did not declare the io.modelcontextprotocol/tasks extension`},
	{"monitor/cancelled",
		legacyInit + `> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow"}}
> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}
> {"jsonrpc":"2.0","id":3,"method":"ping"}
< {"jsonrpc":"2.0","id":3,"result":{}}
< {"jsonrpc":"2.0","id":2,"result":{"content":[]}}`,
		// The response crossed the cancellation: no evidence the server had read it.
		legacyInit + `> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow"}}
> {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}
< {"jsonrpc":"2.0","id":2,"result":{"content":[]}}
> {"jsonrpc":"2.0","id":3,"method":"ping"}
< {"jsonrpc":"2.0","id":3,"result":{}}`, `after its notifications/cancelled`},
}

func TestRulesCatchAndPass(t *testing.T) {
	for _, c := range cases {
		t.Run(c.rule, func(t *testing.T) {
			fs := run(c.broken).Findings()
			caught := false
			for _, f := range fs {
				if f.Rule.ID == c.rule && strings.Contains(f.String(), c.want) {
					caught = true
				}
			}
			if !caught {
				t.Errorf("broken session: no %s finding containing %q; got %v", c.rule, c.want, fs)
			}
			if fs := run(c.passes).Findings(); len(fs) > 0 {
				t.Errorf("correct session: findings %v", fs)
			}
		})
	}
}

// At 2026-07-28 a listing that changed is not judged unless one listen
// stream asking for the change was open across both listings: without one,
// the server had nowhere to announce it.
func TestListChangedModernNeedsAListenAcrossBothListings(t *testing.T) {
	listings := `> {"jsonrpc":"2.0","id":3,"method":"tools/list","params":{` + modernMeta + `}}}
< {"jsonrpc":"2.0","id":3,"result":{` + serverInfo + `"resultType":"complete","tools":[{"name":"a"}]}}
> {"jsonrpc":"2.0","id":4,"method":"tools/list","params":{` + modernMeta + `}}}
< {"jsonrpc":"2.0","id":4,"result":{` + serverInfo + `"resultType":"complete","tools":[{"name":"a"},{"name":"b"}]}}`
	noListen := strings.Join(strings.Split(modernListen, "\n")[:2], "\n") + "\n" + listings
	closedBetween := modernListen + strings.Replace(listings, `> {"jsonrpc":"2.0","id":4,`,
		`< {"jsonrpc":"2.0","id":2,"result":{`+serverInfo+`"resultType":"complete"}}`+"\n"+`> {"jsonrpc":"2.0","id":4,`, 1)
	for name, script := range map[string]string{"no listen": noListen, "listen closed between": closedBetween} {
		m := run(script)
		if fs := m.Findings(); len(fs) > 0 {
			t.Errorf("%s: findings %v", name, fs)
		}
		if _, judged := m.Count("monitor/list-changed"); judged != 0 {
			t.Errorf("%s: judged %d listing(s)", name, judged)
		}
	}
	if _, judged := run(modernListen + listings).Count("monitor/list-changed"); judged != 1 {
		t.Errorf("with a listen open across both listings: judged %d, want 1", judged)
	}
}

func TestEveryRuleHasACase(t *testing.T) {
	have := map[string]bool{}
	for _, c := range cases {
		have[c.rule] = true
	}
	for _, r := range Rules() {
		if !have[r.ID] {
			t.Errorf("rule %s has no planted case", r.ID)
		}
		if !strings.HasPrefix(r.Citation, "https://modelcontextprotocol.io/specification/") || r.Doc == "" {
			t.Errorf("rule %s: citation %q, doc %q", r.ID, r.Citation, r.Doc)
		}
	}
}

func TestFindingNamesRuleCitationAndMessages(t *testing.T) {
	fs := run(legacyInit + `> {"jsonrpc":"2.0","id":"7","method":"ping"}
< {"jsonrpc":"2.0","id":7,"result":{}}`).Findings()
	if len(fs) != 1 {
		t.Fatalf("findings: %v", fs)
	}
	got := fs[0].String()
	for _, want := range []string{"monitor/id-echo (MUST, https://modelcontextprotocol.io/specification/2025-11-25/basic#responses)",
		`→ #4 {"jsonrpc":"2.0","id":"7","method":"ping"}`, `← #5 {"jsonrpc":"2.0","id":7,"result":{}}`, "a string"} {
		if !strings.Contains(got, want) {
			t.Errorf("finding %q\nlacks %q", got, want)
		}
	}
	if n, judged := run(legacyInit).Count("monitor/progress-token"); n != 0 || judged != 0 {
		t.Errorf("progress-token judged %d events with %d findings in a session without progress", judged, n)
	}
}

func BenchmarkObserveCall(b *testing.B) {
	req := []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"},"_meta":{"progressToken":2}}}`)
	res := []byte(`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"hello"}]}}`)
	m := run(legacyInit)
	b.ReportAllocs()
	for b.Loop() {
		m.Observe(false, req)
		m.Observe(true, res)
	}
}
