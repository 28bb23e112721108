package servercheck

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcptestkit/mcptestkit/client"
)

// The answers real servers gave to a read of a URI they do not have (the
// error's code, message and data as sent), judged at the version of the
// connection they came on.
func TestJudgeNotFoundOnRealAnswers(t *testing.T) {
	const uri = "mcptestkit-check://no/such/resource"
	const legacy, modern = client.Version20251125, client.Version20260728
	withURI := `{"uri":"` + uri + `"}`
	for _, tc := range []struct {
		server  string
		version string
		code    int64
		message string
		data    string
		fail    bool
		warn    bool
		noteHas string // "" for no note
	}{
		{"mcp-grafana (mcp-go) at 2025-11-25", legacy, -32002, "resource not found", withURI, false, false, ""},
		{"mcp-go v1.2.1 at 2025-11-25", legacy, -32002, "handler not found for resource URI '" + uri + "': resource not found", "", false, false, "no data.uri"},
		{"mcp-go v1.2.1 at 2026-07-28", modern, -32602, "handler not found for resource URI '" + uri + "': resource not found", "", false, false, "no data.uri"},
		{"TypeScript SDK v1 (server-memory) at 2025-11-25", legacy, -32602, "Resource " + uri + " not found", "", false, false, "-32602, the code of 2026-07-28"},
		{"TypeScript SDK v2 at 2026-07-28", modern, -32602, "Resource " + uri + " not found", withURI, false, false, ""},
		{"go-sdk v1.8.0 at 2025-11-25", legacy, -32602, "Resource not found", withURI, false, false, "-32602, the code of 2026-07-28"},
		{"go-sdk v1.8.0 at 2026-07-28", modern, -32602, "Resource not found", withURI, false, false, ""},
		{"Python SDK at 2026-07-28", modern, -32602, "Resource not found", withURI, false, false, ""},
		{"-32002 at 2026-07-28 (retired there)", modern, -32002, "Resource not found", withURI, true, false, ""},
		{"an internal error", legacy, -32603, "Internal error", "", false, true, ""},
		{"-32602 that does not say which resource", modern, -32602, "Invalid params", "", false, true, ""},
		{"data.uri naming another resource", modern, -32602, "Resource not found", `{"uri":"other://x"}`, true, false, ""},
		{"-32002 naming no resource (issue 31.3)", legacy, -32002, "resource not found", "", false, true, ""},
		{"-32602 naming no resource (issue 31.3)", modern, -32602, "Resource not found", "", false, true, ""},
	} {
		t.Run(tc.server, func(t *testing.T) {
			e := &client.Error{Code: tc.code, Message: tc.message, Method: "resources/read", Name: uri}
			if tc.data != "" {
				e.Data = json.RawMessage(tc.data)
			}
			failure, warning, note := judgeNotFound(tc.version, uri, e)
			if got := failure != ""; got != tc.fail {
				t.Fatalf("failure = %q, want a failure: %v", failure, tc.fail)
			}
			if got := warning != ""; got != tc.warn {
				t.Fatalf("warning = %q, want a warning: %v", warning, tc.warn)
			}
			if tc.fail || tc.warn {
				return
			}
			switch {
			case tc.noteHas == "" && note != "":
				t.Errorf("note = %q, want none", note)
			case tc.noteHas != "" && !strings.Contains(note, tc.noteHas):
				t.Errorf("note = %q, want one saying %q", note, tc.noteHas)
			}
			// The assertion and the client's recogniser agree with the check.
			if !client.IsResourceNotFound(e) {
				t.Errorf("client.IsResourceNotFound rejects what the check accepts")
			}
		})
	}
}
