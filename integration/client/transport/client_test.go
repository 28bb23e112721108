package transport_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/client/transport"
)

// connectClient runs client.Connect over tr and closes the client at
// cleanup (which closes tr).
func connectClient(t testing.TB, tr client.Transport, opts *client.Options) *client.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	c, err := client.Connect(ctx, tr, opts)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return c
}

// firstText returns the text of a tool result's first content block.
func firstText(t testing.TB, res *client.CallToolResult) string {
	t.Helper()
	require.NotEmpty(t, res.Content)
	tc, ok := res.Content[0].(*client.TextContent)
	require.True(t, ok, "first content block is %T", res.Content[0])
	return tc.Text
}

func toolNames(t testing.TB, c *client.Client) []string {
	t.Helper()
	res, err := c.ListTools(t.Context(), "")
	require.NoError(t, err)
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	return names
}

// Compile-time proof that both transports are client transports.
var (
	_ client.Transport = (*transport.Stdio)(nil)
	_ client.Transport = (*transport.StreamableHTTP)(nil)
)

func TestClientOverHTTP(t *testing.T) {
	type server struct {
		name   string
		h      func(t testing.TB) http.Handler
		modern bool
	}
	servers := []server{
		{"go-sdk stateful", func(t testing.TB) http.Handler { return gosdkHandler(newGoSDKFixture(t), nil) }, false},
		{"go-sdk stateless", func(t testing.TB) http.Handler { return statelessHandler(newGoSDKFixture(t)) }, true},
		{"mcp-go", func(t testing.TB) http.Handler { return quietMCPGo(mcpgoServer(t)) }, true},
	}
	for _, s := range servers {
		for _, cn := range connectors {
			t.Run(s.name+"/"+cn.name, func(t *testing.T) {
				tr := cn.connect(t, s.h(t))
				c := connectClient(t, tr, nil)
				assert.Equal(t, s.modern, c.IsModern(), "version %s", c.ProtocolVersion())
				if !s.modern {
					assert.NotEmpty(t, tr.SessionID(), "the stateful server's probe answer led to a legacy session")
				}
				assert.Contains(t, toolNames(t, c), "lookup")

				res, err := c.CallTool(t.Context(), "echo", map[string]any{"text": "hi"})
				require.NoError(t, err)
				assert.Equal(t, "echo: hi", firstText(t, res))

				// On a modern connection the annotated argument travels in a
				// header too, which both servers check against the body.
				res, err = c.CallTool(t.Context(), "lookup", map[string]any{"region": "ap-south-1", "limit": 3})
				require.NoError(t, err)
				if s.modern {
					assert.Contains(t, firstText(t, res), "Mcp-Param-Region: ap-south-1")
					assert.Contains(t, firstText(t, res), "Mcp-Param-Limit: 3")
				} else {
					assert.NotContains(t, firstText(t, res), "Mcp-Param-")
				}
			})
		}
	}
}

func TestClientCancelsOverModernHTTP(t *testing.T) {
	for _, cn := range connectors {
		t.Run(cn.name, func(t *testing.T) {
			f := newGoSDKFixture(t)
			rec := record(statelessHandler(f))
			c := connectClient(t, cn.connect(t, rec), nil)
			require.True(t, c.IsModern())

			ctx, cancel := context.WithCancel(t.Context())
			errc := make(chan error, 1)
			go func() {
				_, err := c.CallTool(ctx, "slow", nil)
				errc <- err
			}()
			<-f.started
			cancel()
			assert.ErrorIs(t, <-errc, context.Canceled)
			<-f.cancelled // the server's handler saw the stream close
			assert.Empty(t, rec.requests(posts("notifications/cancelled")))
		})
	}
}

func TestClientOverHTTPWithServerRequests(t *testing.T) {
	// Legacy sessions let the server ask the client things mid-call; the
	// question arrives on the POST's stream and the answer goes by POST.
	f := newGoSDKFixture(t)
	tr := connectors[0].connect(t, gosdkHandler(f, nil))
	c := connectClient(t, tr, &client.Options{
		ProtocolVersion: "2025-11-25",
		ListRoots: func(context.Context) ([]*client.Root, error) {
			return []*client.Root{{URI: "file:///workspace"}}, nil
		},
	})
	res, err := c.CallTool(t.Context(), "roots", nil)
	require.NoError(t, err)
	assert.Equal(t, "roots: file:///workspace", firstText(t, res))
}

func TestClientResumesLikeTheConformanceSuite(t *testing.T) {
	// The sse-retry scenario's mock: no path, session, version 2025-03-26,
	// {} for anything it does not know (server/discover included), and a
	// tools/call stream that closes after a priming event. The result goes
	// to the first GET that finds the call pending. The suite's mock runs on
	// Node's single thread, so a GET handler's priming event and its look at
	// the pending call happen as one step; mu gives this mock the same
	// atomicity. Without it, a standalone GET answered before tools/call was
	// sent could still see the call pending (its handler descheduled between
	// its flush and its look) and carry the result, without Last-Event-ID.
	var (
		mu          sync.Mutex
		pending     string // the id of the tools/call awaiting its result
		lastEventID *string
	)
	tr, _ := rawServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Mcp-Session-Id", "session-1")
		if r.Method == http.MethodGet {
			mu.Lock()
			if id := r.Header.Get("Last-Event-Id"); id != "" {
				lastEventID = &id
			}
			events := []string{"id: get-1\nretry: 200\ndata: \n\n"}
			if pending != "" {
				events = append(events, fmt.Sprintf("event: message\nid: get-2\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"Reconnection test completed successfully\"}]}}\n\n", pending))
				pending = ""
			}
			writeSSE(w, events...)
			mu.Unlock()
			<-r.Context().Done()
			return
		}
		if r.Method != http.MethodPost {
			http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
			return
		}
		m := rpcOf(t, r)
		switch {
		case m.Method == "initialize":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-03-26","serverInfo":{"name":"sse-retry-test-server","version":"1.0.0"},"capabilities":{"tools":{}}}}`, m.ID)
		case m.Method == "tools/list":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"test_reconnection","inputSchema":{"type":"object","properties":{}}}]}}`, m.ID)
		case m.Method == "tools/call":
			mu.Lock()
			pending = m.ID.String()
			writeSSE(w, "id: event-1\nretry: 500\ndata: \n\n")
			mu.Unlock()
		case m.IsNotification():
			w.WriteHeader(http.StatusAccepted)
		default:
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{}}`, m.ID)
		}
	})
	c := connectClient(t, tr, &client.Options{ClientInfo: client.Implementation{Name: "test-client", Version: "1.0.0"}})
	assert.Equal(t, "2025-03-26", c.ProtocolVersion())
	assert.Equal(t, []string{"test_reconnection"}, toolNames(t, c))
	res, err := c.CallTool(t.Context(), "test_reconnection", nil)
	require.NoError(t, err)
	assert.Equal(t, "Reconnection test completed successfully", firstText(t, res))
	mu.Lock()
	defer mu.Unlock()
	require.NotNil(t, lastEventID, "the result came without a GET carrying Last-Event-ID")
	assert.Equal(t, "event-1", *lastEventID)
}

func TestClientOverHTTPGoSDKResumption(t *testing.T) {
	f := newGoSDKFixture(t)
	rec := record(gosdkHandler(f, &mcp.StreamableHTTPOptions{EventStore: mcp.NewMemoryEventStore(nil)}))
	tr := transport.Handler(rec)
	c := connectClient(t, tr, nil)
	var progress atomic.Int32
	res, err := c.CallTool(t.Context(), "interrupt", nil, client.WithProgress(func(client.Progress) { progress.Add(1) }))
	require.NoError(t, err)
	assert.Equal(t, "finished after the stream closed", firstText(t, res))
	assert.EqualValues(t, 1, progress.Load())
	assert.True(t, slices.ContainsFunc(rec.requests(method(http.MethodGet)), func(q recorded) bool {
		return q.Header.Get("Last-Event-Id") != ""
	}))
}
