package transport_test

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"testing"

	mcpgoserver "github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/internal/jsonrpc"
)

// quietMCPGo is mcp-go's streamable HTTP server with its logs discarded
// (it logs to slog.Default otherwise).
func quietMCPGo(s *mcpgoserver.MCPServer, opts ...mcpgoserver.StreamableHTTPOption) *mcpgoserver.StreamableHTTPServer {
	opts = append([]mcpgoserver.StreamableHTTPOption{mcpgoserver.WithStreamableHTTPLogger(slog.New(slog.DiscardHandler))}, opts...)
	return mcpgoserver.NewStreamableHTTPServer(s, opts...)
}

func TestMCPGoLegacyStatefulSession(t *testing.T) {
	for _, cn := range connectors {
		t.Run(cn.name, func(t *testing.T) {
			hs := quietMCPGo(mcpgoServer(t), mcpgoserver.WithStateful(true))
			rec := record(hs)
			tr := cn.connect(t, rec)

			init := legacyHandshake(t, tr, "2025-11-25")
			assert.Equal(t, "2025-11-25", init["protocolVersion"])
			sid := tr.SessionID()
			require.NotEmpty(t, sid)

			assert.Equal(t, "echo: mcp-go", callText(t, tr, 2, map[string]any{"name": "echo", "arguments": map[string]any{"text": "mcp-go"}}))
			call := rec.requests(posts("tools/call"))[0]
			assert.Equal(t, sid, call.Header.Get("Mcp-Session-Id"))
			assert.Equal(t, "2025-11-25", call.Header.Get("Mcp-Protocol-Version"))

			// In a stateful session mcp-go may send a request's progress on the
			// GET stream as well as the POST's, so only the response is certain.
			send(t, tr, request(t, 3, "tools/call", map[string]any{"name": "progress", "_meta": map[string]any{"progressToken": "t"}}))
			resp, before := recvResponse(t, tr, jsonrpc.Int64ID(3))
			result(t, resp)
			for _, m := range before {
				assert.Equal(t, "notifications/progress", m.Method)
			}

			rec.waitRequest(t, method(http.MethodGet))
			require.NoError(t, tr.Close())
			del := rec.requests(method(http.MethodDelete))
			require.Len(t, del, 1)
			assert.Equal(t, sid, del[0].Header.Get("Mcp-Session-Id"))
		})
	}
}

func TestMCPGoModern(t *testing.T) {
	for _, cn := range connectors {
		t.Run(cn.name, func(t *testing.T) {
			rec := record(quietMCPGo(mcpgoServer(t)))
			tr := cn.connect(t, rec)

			send(t, tr, request(t, 1, "server/discover", modern(nil)))
			resp, _ := recvResponse(t, tr, jsonrpc.Int64ID(1))
			assert.Contains(t, result(t, resp)["supportedVersions"], "2026-07-28")

			send(t, tr, request(t, 2, "tools/list", modern(nil)))
			resp, _ = recvResponse(t, tr, jsonrpc.Int64ID(2))
			assert.Len(t, result(t, resp)["tools"], 3)
			assert.Len(t, learnTools(t, tr, resp), 3)

			// mcp-go validates the standard headers against the body as well.
			got := callText(t, tr, 3, modern(map[string]any{"name": "lookup", "arguments": map[string]any{"region": " padded ", "limit": 7}}))
			assert.Equal(t, "Mcp-Method: tools/call\nMcp-Name: lookup\nMcp-Param-Limit: 7\nMcp-Param-Region: =?base64?IHBhZGRlZCA=?=", got)

			send(t, tr, request(t, 4, "tools/call", modern(map[string]any{"name": "progress", "_meta": map[string]any{
				"progressToken": 9,
				"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
				"io.modelcontextprotocol/clientCapabilities": map[string]any{},
			}})))
			resp, before := recvResponse(t, tr, jsonrpc.Int64ID(4))
			result(t, resp)
			assertProgressBefore(t, before)

			require.NoError(t, tr.Close())
			for _, q := range rec.requests(method(http.MethodPost)) {
				assert.Equal(t, "2026-07-28", q.Header.Get("Mcp-Protocol-Version"))
				assert.NotEmpty(t, q.Header.Get("Mcp-Method"))
			}
			assert.Empty(t, rec.requests(func(q recorded) bool { return q.Method != http.MethodPost }), "no GET, no DELETE")
		})
	}
}

func TestMCPGoLegacyWithoutSessions(t *testing.T) {
	// mcp-go's default session manager mints ids but does not check them.
	rec := record(quietMCPGo(mcpgoServer(t), mcpgoserver.WithStateLess(true)))
	tr := connectors[0].connect(t, rec)
	legacyHandshake(t, tr, "2025-06-18")
	assert.Empty(t, tr.SessionID())
	assert.Equal(t, "echo: x", callText(t, tr, 2, map[string]any{"name": "echo", "arguments": map[string]any{"text": "x"}}))
	assert.Equal(t, "2025-06-18", rec.requests(posts("tools/call"))[0].Header.Get("Mcp-Protocol-Version"))
}

// assertProgressBefore checks the progress notifications mcp-go's progress
// tool sent before its response. mcp-go v1.2.1 over streamable HTTP now and
// then loses one of a request's notifications, sends it after the response,
// or (in stateful sessions) sends it on the GET stream, so it can overtake
// the others: seen in the raw response bytes, independent of this
// transport. So this asks for at least one, and nothing else.
func assertProgressBefore(t *testing.T, before []*jsonrpc.Message) {
	t.Helper()
	require.NotEmpty(t, before, "progress notifications arrive before the response")
	for _, m := range before {
		require.Equal(t, "notifications/progress", m.Method)
		var p struct{ Progress float64 }
		require.NoError(t, json.Unmarshal(m.Params, &p))
		assert.Contains(t, []float64{1, 2, 3}, p.Progress)
	}
}
