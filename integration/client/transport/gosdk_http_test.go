package transport_test

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client/transport"
	"github.com/mcptestkit/mcptestkit/internal/jsonrpc"
	"github.com/mcptestkit/mcptestkit/logcapture"
)

func TestGoSDKLegacySession(t *testing.T) {
	for _, cn := range connectors {
		t.Run(cn.name, func(t *testing.T) {
			f := newGoSDKFixture(t)
			rec := record(gosdkHandler(f, nil))
			tr := cn.connect(t, rec)

			init := legacyHandshake(t, tr, "2025-11-25")
			assert.Equal(t, "2025-11-25", init["protocolVersion"])
			sid := tr.SessionID()
			require.NotEmpty(t, sid, "a stateful go-sdk server gives a session id")

			assert.Equal(t, "echo: hi", callText(t, tr, 2, map[string]any{"name": "echo", "arguments": map[string]any{"text": "hi"}}))

			initPost := rec.requests(posts("initialize"))[0]
			assert.Empty(t, initPost.Header.Get("Mcp-Session-Id"), "initialize carries no session id")
			assert.Empty(t, initPost.Header.Get("Mcp-Protocol-Version"))
			assert.Equal(t, "application/json, text/event-stream", initPost.Header.Get("Accept"))
			call := rec.requests(posts("tools/call"))[0]
			assert.Equal(t, sid, call.Header.Get("Mcp-Session-Id"))
			assert.Equal(t, "2025-11-25", call.Header.Get("Mcp-Protocol-Version"))
			assert.Empty(t, call.Header.Get("Mcp-Method"), "legacy requests carry no Mcp-Method")

			// The standalone GET stream opens after notifications/initialized and
			// carries notifications that belong to no request.
			get := rec.waitRequest(t, method(http.MethodGet))
			assert.Equal(t, sid, get.Header.Get("Mcp-Session-Id"))
			assert.Equal(t, "text/event-stream", get.Header.Get("Accept"))
			f.server.AddTool(&mcp.Tool{Name: "late", InputSchema: objectSchema(`{}`)},
				func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return textResult("late"), nil
				})
			m := recv(t, tr)
			assert.Equal(t, "notifications/tools/list_changed", m.Method)

			require.NoError(t, tr.Close())
			del := rec.requests(method(http.MethodDelete))
			require.Len(t, del, 1, "Close ends the session")
			assert.Equal(t, sid, del[0].Header.Get("Mcp-Session-Id"))
		})
	}
}

func TestGoSDKLegacyProgressAndServerRequests(t *testing.T) {
	for _, cn := range connectors {
		t.Run(cn.name, func(t *testing.T) {
			f := newGoSDKFixture(t)
			tr := cn.connect(t, gosdkHandler(f, nil))
			p := initializeParams("2025-06-18")
			p["capabilities"] = map[string]any{"roots": map[string]any{}}
			send(t, tr, request(t, 1, "initialize", p))
			recvResponse(t, tr, jsonrpc.Int64ID(1))
			send(t, tr, notification(t, "notifications/initialized", nil))

			// Progress rides the POST's SSE stream before the response.
			send(t, tr, request(t, 2, "tools/call", map[string]any{"name": "progress", "_meta": map[string]any{"progressToken": "tok"}}))
			resp, before := recvResponse(t, tr, jsonrpc.Int64ID(2))
			assert.Equal(t, "done", result(t, resp)["content"].([]any)[0].(map[string]any)["text"])
			var progress int
			for _, m := range before {
				if m.Method == "notifications/progress" {
					progress++
				}
			}
			assert.Equal(t, 3, progress)

			// A server request inside a tool call; the client answers by POST.
			send(t, tr, request(t, 3, "tools/call", map[string]any{"name": "roots"}))
			ask := recv(t, tr)
			require.Equal(t, "roots/list", ask.Method)
			send(t, tr, &jsonrpc.Message{ID: ask.ID, Result: []byte(`{"roots":[{"uri":"file:///srv/data"}]}`)})
			resp, _ = recvResponse(t, tr, jsonrpc.Int64ID(3))
			assert.Equal(t, "roots: file:///srv/data", result(t, resp)["content"].([]any)[0].(map[string]any)["text"])
		})
	}
}

func TestGoSDKLegacyResumption(t *testing.T) {
	for _, cn := range connectors {
		t.Run(cn.name, func(t *testing.T) {
			f := newGoSDKFixture(t)
			rec := record(gosdkHandler(f, &mcp.StreamableHTTPOptions{EventStore: mcp.NewMemoryEventStore(nil)}))
			tr := cn.connect(t, rec)
			legacyHandshake(t, tr, "2025-11-25")

			// The server closes the POST's stream after one event; the result
			// arrives on the GET that resumes it.
			send(t, tr, request(t, 2, "tools/call", map[string]any{"name": "interrupt", "_meta": map[string]any{"progressToken": 7}}))
			resp, before := recvResponse(t, tr, jsonrpc.Int64ID(2))
			assert.Equal(t, "finished after the stream closed", result(t, resp)["content"].([]any)[0].(map[string]any)["text"])
			require.NotEmpty(t, before)
			assert.Equal(t, "notifications/progress", before[0].Method)

			resumes := rec.requests(func(q recorded) bool { return q.Method == http.MethodGet && q.Header.Get("Last-Event-Id") != "" })
			require.NotEmpty(t, resumes, "the transport resumed with GET and Last-Event-ID")
			assert.Equal(t, tr.SessionID(), resumes[0].Header.Get("Mcp-Session-Id"))
		})
	}
}

func TestGoSDKLegacyCancellationIsPosted(t *testing.T) {
	f := newGoSDKFixture(t)
	rec := record(gosdkHandler(f, nil))
	tr := connectors[0].connect(t, rec)
	legacyHandshake(t, tr, "2025-11-25")

	send(t, tr, request(t, 2, "tools/call", map[string]any{"name": "slow"}))
	<-f.started
	send(t, tr, notification(t, "notifications/cancelled", map[string]any{"requestId": 2, "reason": "test"}))
	<-f.cancelled // the server heard it
	require.Len(t, rec.requests(posts("notifications/cancelled")), 1, "legacy cancellation is a POSTed notification")

	// The connection goes on; nothing is reported for the cancelled call.
	assert.Equal(t, "echo: after", callText(t, tr, 3, map[string]any{"name": "echo", "arguments": map[string]any{"text": "after"}}))
}

func TestGoSDKSessionExpired(t *testing.T) {
	for _, cn := range connectors {
		t.Run(cn.name, func(t *testing.T) {
			f := newGoSDKFixture(t)
			// A server restart: the handler is replaced by one that knows no
			// sessions.
			var current atomic.Pointer[http.Handler]
			first := gosdkHandler(f, nil)
			current.Store(&first)
			logs := logcapture.New(t) // the GET stream may log the expiry
			tr := cn.connect(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { (*current.Load()).ServeHTTP(w, r) }),
				transport.WithLogger(logs.Logger()))
			legacyHandshake(t, tr, "2025-11-25")
			old := tr.SessionID()

			second := gosdkHandler(f, nil)
			current.Store(&second)
			t.Cleanup(func() { // the first server still holds the old session
				req := httptest.NewRequest(http.MethodDelete, "http://localhost/mcp", nil)
				req.Header.Set("Mcp-Session-Id", old)
				first.ServeHTTP(httptest.NewRecorder(), req)
			})
			send(t, tr, request(t, 2, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": "x"}}))
			resp, _ := recvResponse(t, tr, jsonrpc.Int64ID(2))
			require.NotNil(t, resp.Error)
			assert.Equal(t, transport.CodeSessionExpired, resp.Error.Code)
			assert.Contains(t, resp.Error.Message, "session "+old+" expired")
			assert.Contains(t, resp.Error.Message, "404")
			assert.Empty(t, tr.SessionID(), "the expired session is forgotten")

			// Initializing again starts a new session on the same transport.
			send(t, tr, request(t, 3, "initialize", initializeParams("2025-11-25")))
			resp, _ = recvResponse(t, tr, jsonrpc.Int64ID(3))
			result(t, resp)
			send(t, tr, notification(t, "notifications/initialized", nil))
			assert.NotEmpty(t, tr.SessionID())
			assert.NotEqual(t, old, tr.SessionID())
			assert.Equal(t, "echo: again", callText(t, tr, 4, map[string]any{"name": "echo", "arguments": map[string]any{"text": "again"}}))
		})
	}
}

func TestGoSDKStatefulAnswersModernProbeWithItsCode(t *testing.T) {
	for _, cn := range connectors {
		t.Run(cn.name, func(t *testing.T) {
			tr := cn.connect(t, gosdkHandler(newGoSDKFixture(t), nil))
			// A dual-era client's probe: the HTTP 400 body is read and handed
			// over as the error response to the probe.
			send(t, tr, request(t, 1, "tools/list", modern(nil)))
			resp, _ := recvResponse(t, tr, jsonrpc.Int64ID(1))
			require.NotNil(t, resp.Error)
			assert.Equal(t, int64(-32022), resp.Error.Code)
			assert.Contains(t, string(resp.Error.Data), "2025-11-25", "the supported versions come along")

			// The fallback works on the same transport.
			legacyHandshake(t, tr, "2025-11-25")
			assert.NotEmpty(t, tr.SessionID())
		})
	}
}

func statelessHandler(f *gosdkFixture) http.Handler {
	return gosdkHandler(f, &mcp.StreamableHTTPOptions{Stateless: true, PropagateRequestCancellation: true})
}

func TestGoSDKModern(t *testing.T) {
	for _, cn := range connectors {
		t.Run(cn.name, func(t *testing.T) {
			f := newGoSDKFixture(t)
			rec := record(statelessHandler(f))
			tr := cn.connect(t, rec)

			send(t, tr, request(t, 1, "server/discover", modern(nil)))
			resp, _ := recvResponse(t, tr, jsonrpc.Int64ID(1))
			assert.Contains(t, result(t, resp)["supportedVersions"], "2026-07-28")
			d := rec.requests(posts("server/discover"))[0]
			assert.Equal(t, "2026-07-28", d.Header.Get("Mcp-Protocol-Version"))
			assert.Equal(t, "server/discover", d.Header.Get("Mcp-Method"))
			assert.Empty(t, d.Header.Get("Mcp-Name"))

			send(t, tr, request(t, 2, "tools/list", modern(nil)))
			resp, _ = recvResponse(t, tr, jsonrpc.Int64ID(2))
			assert.Len(t, result(t, resp)["tools"], 6)
			assert.Len(t, learnTools(t, tr, resp), 6)

			// go-sdk checks Mcp-Name and each Mcp-Param-* against the body and
			// refuses a mismatch, so an answer proves the headers right.
			got := callText(t, tr, 3, modern(map[string]any{"name": "lookup", "arguments": map[string]any{
				"region": "Zürich", "limit": 25, "opts": map[string]any{"dry": true},
			}}))
			assert.Equal(t, strings.Join([]string{
				"Mcp-Method: tools/call",
				"Mcp-Name: lookup",
				"Mcp-Param-Dry-Run: true",
				"Mcp-Param-Limit: 25",
				"Mcp-Param-Region: =?base64?" + base64.StdEncoding.EncodeToString([]byte("Zürich")) + "?=",
			}, "\n"), got)

			// Absent and null arguments send no header.
			got = callText(t, tr, 4, modern(map[string]any{"name": "lookup", "arguments": map[string]any{"region": nil}}))
			assert.Equal(t, "Mcp-Method: tools/call\nMcp-Name: lookup", got)

			// Progress rides the request's own stream.
			send(t, tr, request(t, 5, "tools/call", modern(map[string]any{"name": "progress", "_meta": map[string]any{
				"progressToken": "p",
				"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
				"io.modelcontextprotocol/clientCapabilities": map[string]any{},
			}})))
			resp, before := recvResponse(t, tr, jsonrpc.Int64ID(5))
			result(t, resp)
			assert.Len(t, before, 3)

			// No session, so no GET stream and no DELETE.
			require.NoError(t, tr.Close())
			assert.Empty(t, rec.requests(func(q recorded) bool { return q.Method != http.MethodPost }))
			for _, q := range rec.requests(method(http.MethodPost)) {
				assert.Empty(t, q.Header.Get("Mcp-Session-Id"))
			}
		})
	}
}

func TestGoSDKModernErrorsArriveAsResponses(t *testing.T) {
	for _, cn := range connectors {
		t.Run(cn.name, func(t *testing.T) {
			tr := cn.connect(t, statelessHandler(newGoSDKFixture(t)))

			// Unknown method: HTTP 404 with a -32601 body.
			send(t, tr, request(t, 1, "no/such/method", modern(nil)))
			resp, _ := recvResponse(t, tr, jsonrpc.Int64ID(1))
			require.NotNil(t, resp.Error)
			assert.Equal(t, jsonrpc.CodeMethodNotFound, resp.Error.Code)

			// A header-annotated tool called before tools/list: the transport
			// cannot know the headers, and the server's -32020 comes through
			// so the client can list tools and retry.
			send(t, tr, request(t, 2, "tools/call", modern(map[string]any{"name": "lookup", "arguments": map[string]any{"region": "eu"}})))
			resp, _ = recvResponse(t, tr, jsonrpc.Int64ID(2))
			require.NotNil(t, resp.Error)
			assert.Equal(t, int64(-32020), resp.Error.Code)

			send(t, tr, request(t, 3, "tools/list", modern(nil)))
			list, _ := recvResponse(t, tr, jsonrpc.Int64ID(3))
			learnTools(t, tr, list)
			assert.Equal(t, "Mcp-Method: tools/call\nMcp-Name: lookup\nMcp-Param-Region: eu",
				callText(t, tr, 4, modern(map[string]any{"name": "lookup", "arguments": map[string]any{"region": "eu"}})))
		})
	}
}

func TestGoSDKModernCancellationClosesTheStream(t *testing.T) {
	for _, cn := range connectors {
		t.Run(cn.name, func(t *testing.T) {
			f := newGoSDKFixture(t)
			rec := record(statelessHandler(f))
			tr := cn.connect(t, rec)

			send(t, tr, request(t, 1, "tools/call", modern(map[string]any{"name": "slow"})))
			<-f.started
			send(t, tr, notification(t, "notifications/cancelled", map[string]any{"requestId": 1}))
			<-f.cancelled // closing the POST cancelled the handler
			assert.Empty(t, rec.requests(posts("notifications/cancelled")), "2026 HTTP cancels by closing the stream, not by a notification")

			// Nothing is reported for the cancelled request: the next message
			// is the next call's response.
			send(t, tr, request(t, 2, "tools/call", modern(map[string]any{"name": "echo", "arguments": map[string]any{"text": "next"}})))
			m := recv(t, tr)
			assert.Equal(t, jsonrpc.Int64ID(2), m.ID)
		})
	}
}

func TestGoSDKLegacyOnStatelessServer(t *testing.T) {
	f := newGoSDKFixture(t)
	rec := record(statelessHandler(f))
	tr := connectors[0].connect(t, rec)
	legacyHandshake(t, tr, "2025-06-18")
	assert.Empty(t, tr.SessionID(), "a stateless server gives no session")
	assert.Equal(t, "echo: x", callText(t, tr, 2, map[string]any{"name": "echo", "arguments": map[string]any{"text": "x"}}))
	rec.waitRequest(t, method(http.MethodGet)) // tried, and got 405: no stream
	require.NoError(t, tr.Close())
	assert.Empty(t, rec.requests(method(http.MethodDelete)), "no session, no DELETE")
	assert.Len(t, rec.requests(method(http.MethodGet)), 1, "a 405 is final: no reconnection")
}

// A cancellation sent just before Close still reaches the server: the
// background POST is not cut short by Close, so a tool waiting to be
// cancelled does not outlive the connection.
func TestGoSDKLegacyCancellationThenClose(t *testing.T) {
	f := newGoSDKFixture(t)
	tr := connectors[0].connect(t, gosdkHandler(f, nil))
	legacyHandshake(t, tr, "2025-11-25")
	send(t, tr, request(t, 2, "tools/call", map[string]any{"name": "slow"}))
	<-f.started
	send(t, tr, notification(t, "notifications/cancelled", map[string]any{"requestId": 2, "reason": "test"}))
	require.NoError(t, tr.Close())
	select {
	case <-f.cancelled:
	case <-time.After(10 * time.Second):
		t.Fatal("the server never heard of the cancellation")
	}
}
