package servercheck_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/mcptest/servercheck"
)

// goSDKOverHTTP serves a small go-sdk server with go-sdk's streamable HTTP
// handler on 127.0.0.1 and returns its URL.
func goSDKOverHTTP(t *testing.T, opts *mcp.StreamableHTTPOptions) string {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "note", Description: "Takes a note."}, func(context.Context, *mcp.CallToolRequest, noteIn) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "noted"}}}, nil, nil
	})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, opts))
	t.Cleanup(srv.Close)
	return srv.URL
}

func runAll(t *testing.T, dial servercheck.Dialer) (map[string]servercheck.Result, error) {
	t.Helper()
	results := map[string]servercheck.Result{}
	err := servercheck.Run(t.Context(), dial, &servercheck.Options{
		Calls:    4,
		OnResult: func(r servercheck.Result) { results[r.Name] = r },
	})
	return results, err
}

// go-sdk's stateful handler answers server/discover with a result that
// lists only legacy versions: the 2026-07-28 handshake is skipped, saying
// what the server offers, and the checks run at the newest version it
// speaks. An unknown method gets HTTP 400 with a text body: a real finding,
// described as what came and what was expected.
func TestGoSDKStatefulHTTP(t *testing.T) {
	results, err := runAll(t, url(goSDKOverHTTP(t, nil)))
	require.EqualError(t, err, "1 check(s) failed: unknown-method")

	hs := results["handshake/2026-07-28"]
	assert.Equal(t, servercheck.Skip, hs.Status, "%s", hs.Detail)
	assert.Equal(t, "the server does not speak protocol version 2026-07-28: its server/discover answer offers 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05", hs.Detail)
	for _, name := range []string{"handshake/2025-11-25", "handshake/2024-11-05", "ping", "capabilities", "tools/calls/note"} {
		assert.Equal(t, servercheck.Pass, results[name].Status, "%s: %s", name, results[name].Detail)
	}

	um := results["unknown-method"]
	assert.Equal(t, servercheck.Fail, um.Status)
	assert.Contains(t, um.Detail, `got an HTTP 400 Bad Request response with the body "JSON RPC not handled:`)
	assert.Contains(t, um.Detail, "not a JSON-RPC response")
	assert.Contains(t, um.Detail, "expected: a JSON-RPC response with error -32601 (Method not found)")
	assert.NotEmpty(t, um.Transcript)
}

// go-sdk's stateless handler passes every check that applies.
func TestGoSDKStatelessHTTP(t *testing.T) {
	results, err := runAll(t, url(goSDKOverHTTP(t, &mcp.StreamableHTTPOptions{Stateless: true})))
	require.NoError(t, err)
	for name, r := range results {
		assert.NotEqual(t, servercheck.Fail, r.Status, "%s: %s", name, r.Detail)
	}
	assert.Equal(t, servercheck.Pass, results["tools/calls/note"].Status)
	assert.Equal(t, servercheck.Pass, results["unknown-method"].Status)
}

// legacyTSLike answers every server/discover POST the way the TypeScript
// SDK's legacy HTTP servers do (server-everything, server-memory over
// streamable HTTP): HTTP 400 with a legacy JSON-RPC error, and passes
// everything else to next.
func legacyTSLike(next http.Handler, message string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			// A legacy server knows nothing of 2026-07-28: it refuses
			// server/discover, and any request at that version, as one
			// that comes before initialize.
			modern := bytes.Contains(body, []byte(`"io.modelcontextprotocol/protocolVersion":"2026-07-28"`))
			if json.Unmarshal(body, &m) == nil && (m.Method == "server/discover" || modern) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32000,"message":%q}}`, m.ID, message)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		next.ServeHTTP(w, r)
	})
}

// A legacy server that answers server/discover over HTTP with 400 and its
// own -32000 error is legacy, as the client's fallback reads it: the
// 2026-07-28 handshake is skipped (it failed), naming what the server
// speaks, and every other check runs as before. (It failed the run before.)
func TestLegacyHTTPServerRefusingDiscoverIsSkipped(t *testing.T) {
	for _, message := range []string{"Bad Request: Server not initialized", "Unsupported protocol version"} {
		t.Run(message, func(t *testing.T) {
			s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v0"}, nil)
			mcp.AddTool(s, &mcp.Tool{Name: "note", Description: "Takes a note."}, func(context.Context, *mcp.CallToolRequest, noteIn) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "noted"}}}, nil, nil
			})
			h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true})
			srv := httptest.NewServer(legacyTSLike(h, message))
			t.Cleanup(srv.Close)

			// go-sdk's stateless handler answers an unknown legacy method
			// with HTTP 400 and a text body, a finding of its own
			// (TestGoSDKStatefulHTTP): nothing else fails.
			results, err := runAll(t, url(srv.URL))
			require.EqualError(t, err, "1 check(s) failed: unknown-method")
			hs := results["handshake/2026-07-28"]
			assert.Equal(t, servercheck.Skip, hs.Status, "%s", hs.Detail)
			assert.Contains(t, hs.Detail, "the server speaks only the legacy protocol")
			assert.Contains(t, hs.Detail, message)
			assert.Contains(t, hs.Detail, "agreed on 2025-11-25")
			assert.Equal(t, servercheck.Pass, results["tools/calls/note"].Status)
		})
	}
}
