package servercheck

import (
	"strings"
	"testing"
)

// Each rule of the schema check, with a message that keeps it and one that
// breaks it, at the version where the rule applies.
func TestValidateWire(t *testing.T) {
	t.Parallel()
	const legacy, modern, old = "2025-11-25", "2026-07-28", "2024-11-05"
	hundredOne := strings.TrimSuffix(strings.Repeat(`"v",`, 101), ",")
	for _, tc := range []struct {
		name, version, method string
		good, bad             string
		path                  string // where the bad one breaks
	}{
		{"jsonrpc version", legacy, "ping", `{"jsonrpc":"2.0","id":1,"result":{}}`, `{"jsonrpc":"1.0","id":1,"result":{}}`, "jsonrpc"},
		{"result xor error", legacy, "ping", `{"jsonrpc":"2.0","id":1,"result":{}}`, `{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}`, ""},
		{"id type", legacy, "ping", `{"jsonrpc":"2.0","id":"a","result":{}}`, `{"jsonrpc":"2.0","id":true,"result":{}}`, "id"},
		{"error code integer", legacy, "ping", `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"x"}}`, `{"jsonrpc":"2.0","id":1,"error":{"code":"-32601","message":"x"}}`, "error.code"},
		{"error message", legacy, "ping", `{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"x"}}`, `{"jsonrpc":"2.0","id":1,"error":{"code":1}}`, "error.message"},
		{"initialize serverInfo", "", "initialize", `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s"}}}`, "result.serverInfo.version"},
		{"tool inputSchema", legacy, "tools/list", `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"t","inputSchema":{"type":"object"}}]}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"t"}]}}`, "result.tools[0].inputSchema"},
		{"tool inputSchema type", legacy, "tools/list", `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"t","inputSchema":{"type":"object"}}]}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"t","inputSchema":{"type":"array"}}]}}`, "result.tools[0].inputSchema.type"},
		{"text content", legacy, "tools/call", `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"x"}]}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text"}]}}`, "result.content[0].text"},
		{"content required", legacy, "tools/call", `{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`, `{"jsonrpc":"2.0","id":1,"result":{"isError":true}}`, "result.content"},
		{"audio before 2025-03-26", old, "tools/call", `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"image","data":"AA==","mimeType":"image/png"}]}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"audio","data":"AA==","mimeType":"audio/wav"}]}}`, "result.content[0].type"},
		{"structuredContent object", legacy, "tools/call", `{"jsonrpc":"2.0","id":1,"result":{"content":[],"structuredContent":{"a":1}}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"content":[],"structuredContent":[1]}}`, "result.structuredContent"},
		{"resource text xor blob", legacy, "resources/read", `{"jsonrpc":"2.0","id":1,"result":{"contents":[{"uri":"a://b","text":"x"}]}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"contents":[{"uri":"a://b"}]}}`, "result.contents[0]"},
		{"prompt role", legacy, "prompts/get", `{"jsonrpc":"2.0","id":1,"result":{"messages":[{"role":"user","content":{"type":"text","text":"x"}}]}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"messages":[{"role":"system","content":{"type":"text","text":"x"}}]}}`, "result.messages[0].role"},
		{"completion values", legacy, "completion/complete", `{"jsonrpc":"2.0","id":1,"result":{"completion":{"values":["a"]}}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"completion":{"values":[` + hundredOne + `]}}}`, "result.completion.values"},
		{"resultType at 2026-07-28", modern, "tools/call", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[]}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`, "result.resultType"},
		{"caching hints at 2026-07-28", modern, "tools/list", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[],"ttlMs":0,"cacheScope":"public"}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[],"ttlMs":0}}`, "result.cacheScope"},
		{"progress", legacy, "", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}`,
			`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":"half"}}`, "params.progress"},
		{"log level", legacy, "", `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`,
			`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"verbose","data":"x"}}`, "params.level"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, problems := validateWire(tc.version, tc.method, []byte(tc.good)); len(problems) > 0 {
				t.Errorf("the good message broke: %v", problems)
			}
			_, problems := validateWire(tc.version, tc.method, []byte(tc.bad))
			if len(problems) == 0 || problems[0].path != tc.path {
				t.Errorf("the bad message: got %v, want a problem at %q", problems, tc.path)
			}
		})
	}
	// A rule of one version is not applied at another.
	if _, p := validateWire("2025-11-25", "tools/list", []byte(`{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`)); len(p) > 0 {
		t.Errorf("caching hints asked for at 2025-11-25: %v", p)
	}
	if _, p := validateWire("2025-06-18", "tools/call", []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"audio","data":"AA==","mimeType":"audio/wav"}]}}`)); len(p) > 0 {
		t.Errorf("audio refused at 2025-06-18: %v", p)
	}
}

func BenchmarkValidateWire(b *testing.B) {
	msg := []byte(`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"The author of Dune is Frank Herbert."}],` +
		`"structuredContent":{"author":"Frank Herbert","title":"Dune"},"isError":false}}`)
	b.ReportAllocs()
	for b.Loop() {
		validateWire("2025-11-25", "tools/call", msg)
	}
}
