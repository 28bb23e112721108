package transport_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/client/transport"
	"github.com/mcptestkit/mcptestkit/internal/jsonrpc"
	"github.com/mcptestkit/mcptestkit/logcapture"
)

// rawServer serves handler on 127.0.0.1 and returns a transport to it, with
// the requests recorded.
func rawServer(t testing.TB, handler http.HandlerFunc, opts ...transport.HTTPOption) (*transport.StreamableHTTP, *recorder) {
	t.Helper()
	rec := record(handler)
	srv := httptest.NewServer(rec)
	t.Cleanup(srv.Close)
	tr := transport.HTTP(srv.URL, opts...)
	t.Cleanup(func() { tr.Close() })
	return tr, rec
}

// rpcOf decodes a request body.
func rpcOf(t testing.TB, r *http.Request) *jsonrpc.Message {
	t.Helper()
	b, err := io.ReadAll(r.Body)
	if err != nil {
		return nil
	}
	m, err := jsonrpc.Decode(b)
	if err != nil {
		return nil
	}
	return m
}

func writeSSE(w http.ResponseWriter, events ...string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	for _, e := range events {
		io.WriteString(w, e)
		w.(http.Flusher).Flush()
	}
}

// legacyServer answers initialize (session "s1", version v) and
// notifications, refuses the GET stream, and hands tools/call to call.
func legacyServer(t testing.TB, v string, call func(w http.ResponseWriter, r *http.Request, m *jsonrpc.Message)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.Header.Get("Last-Event-Id") == "" {
			http.Error(w, "no standalone stream", http.StatusMethodNotAllowed)
			return
		}
		if r.Method == http.MethodDelete {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		if r.Method == http.MethodGet {
			call(w, r, nil)
			return
		}
		m := rpcOf(t, r)
		switch {
		case m == nil:
			http.Error(w, "bad body", http.StatusBadRequest)
		case m.Method == "initialize":
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Mcp-Session-Id", "s1")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":%q,"capabilities":{},"serverInfo":{"name":"raw","version":"1"}}}`, m.ID, v)
		case m.IsNotification():
			w.WriteHeader(http.StatusAccepted)
		default:
			call(w, r, m)
		}
	}
}

// TestHTTPResumesAfterRetryHint is the conformance suite's sse-retry
// scenario: a 2025-03-26 session, a tools/call whose SSE stream sends a
// priming event (id and retry, no data) and closes; the client must wait the
// retry time and resume with GET and Last-Event-ID, and the result arrives
// there.
func TestHTTPResumesAfterRetryHint(t *testing.T) {
	const retry = 300 * time.Millisecond
	var closedAt, resumedAt atomic.Pointer[time.Time]
	var callID atomic.Pointer[string]
	tr, rec := rawServer(t, legacyServer(t, "2025-03-26", func(w http.ResponseWriter, r *http.Request, m *jsonrpc.Message) {
		if m != nil { // the POST
			id := m.ID.String()
			callID.Store(&id)
			writeSSE(w, fmt.Sprintf("id: event-1\nretry: %d\ndata: \n\n", retry.Milliseconds()))
			now := time.Now()
			closedAt.Store(&now)
			return
		}
		now := time.Now() // the resuming GET
		resumedAt.Store(&now)
		writeSSE(w, fmt.Sprintf("event: message\nid: event-2\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"resumed\"}]}}\n\n", *callID.Load()))
	}))
	init := legacyHandshake(t, tr, "2025-11-25")
	assert.Equal(t, "2025-03-26", init["protocolVersion"], "the server negotiated down")

	assert.Equal(t, "resumed", callText(t, tr, 2, map[string]any{"name": "test_reconnection"}))

	gets := rec.requests(func(q recorded) bool { return q.Method == http.MethodGet && q.Header.Get("Last-Event-Id") != "" })
	require.Len(t, gets, 1)
	assert.Equal(t, "event-1", gets[0].Header.Get("Last-Event-Id"))
	assert.Equal(t, "s1", gets[0].Header.Get("Mcp-Session-Id"))
	assert.Equal(t, "text/event-stream", gets[0].Header.Get("Accept"))
	assert.Empty(t, gets[0].Header.Get("Mcp-Protocol-Version"), "2025-03-26 has no version header")
	// The client sleeps the hint after it sees the stream end, which is after
	// the server ended it: the gap cannot be shorter (an upper bound would
	// be a timing assertion; BenchmarkResumeDelay measures the overshoot).
	gap := resumedAt.Load().Sub(*closedAt.Load())
	assert.GreaterOrEqual(t, gap, retry, "the retry hint was honoured")
	t.Logf("reconnected %v after the stream closed (retry: %v)", gap, retry)
}

func TestHTTPResumptionGivesUp(t *testing.T) {
	var gets atomic.Int32
	tr, _ := rawServer(t, legacyServer(t, "2025-11-25", func(w http.ResponseWriter, r *http.Request, m *jsonrpc.Message) {
		if m == nil {
			gets.Add(1)
		}
		writeSSE(w, "id: e\nretry: 1\ndata: \n\n") // never the response
	}))
	legacyHandshake(t, tr, "2025-11-25")
	send(t, tr, request(t, 2, "tools/call", map[string]any{"name": "x"}))
	resp, _ := recvResponse(t, tr, jsonrpc.Int64ID(2))
	require.NotNil(t, resp.Error)
	assert.Equal(t, transport.CodeHTTPError, resp.Error.Code)
	assert.Contains(t, resp.Error.Message, "ended before its response 5 times in a row")
	assert.EqualValues(t, 5, gets.Load())
}

func TestHTTPStreamEndsEarly(t *testing.T) {
	t.Run("legacy without an event id", func(t *testing.T) {
		tr, _ := rawServer(t, legacyServer(t, "2025-11-25", func(w http.ResponseWriter, r *http.Request, m *jsonrpc.Message) {
			writeSSE(w, `data: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`+"\n\n")
		}))
		legacyHandshake(t, tr, "2025-11-25")
		send(t, tr, request(t, 2, "tools/call", map[string]any{"name": "x"}))
		resp, before := recvResponse(t, tr, jsonrpc.Int64ID(2))
		require.Len(t, before, 1, "what came before the end is delivered")
		require.NotNil(t, resp.Error)
		assert.Equal(t, transport.CodeHTTPError, resp.Error.Code)
		assert.Contains(t, resp.Error.Message, "no event id to resume from")
	})
	t.Run("legacy, resumption refused", func(t *testing.T) {
		tr, _ := rawServer(t, legacyServer(t, "2025-11-25", func(w http.ResponseWriter, r *http.Request, m *jsonrpc.Message) {
			if m == nil {
				http.Error(w, "no replay here", http.StatusMethodNotAllowed)
				return
			}
			writeSSE(w, "id: e1\nretry: 1\ndata: \n\n")
		}))
		legacyHandshake(t, tr, "2025-11-25")
		send(t, tr, request(t, 2, "tools/call", map[string]any{"name": "x"}))
		resp, _ := recvResponse(t, tr, jsonrpc.Int64ID(2))
		require.NotNil(t, resp.Error)
		assert.Contains(t, resp.Error.Message, `resuming the SSE stream of tools/call (GET with Last-Event-ID "e1") failed: HTTP 405 Method Not Allowed`)
		assert.Contains(t, string(resp.Error.Data), "no replay here")
	})
	t.Run("modern", func(t *testing.T) {
		var gets atomic.Int32
		tr, _ := rawServer(t, func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet {
				gets.Add(1)
			}
			writeSSE(w, "id: e1\nretry: 1\ndata: \n\n")
		})
		send(t, tr, request(t, 1, "tools/call", modern(map[string]any{"name": "x"})))
		resp, _ := recvResponse(t, tr, jsonrpc.Int64ID(1))
		require.NotNil(t, resp.Error)
		assert.Contains(t, resp.Error.Message, "2026-07-28 has no resumption")
		assert.Zero(t, gets.Load(), "no GET in 2026-07-28")
	})
}

// TestHTTPErrorReplies covers the replies that are not a normal answer. Each
// request must still get exactly one response, and it must say what went
// wrong.
func TestHTTPErrorReplies(t *testing.T) {
	cases := []struct {
		name    string
		reply   func(w http.ResponseWriter, id string)
		opts    []transport.HTTPOption
		code    int64
		message string // a substring of the error message
		data    string // a substring of the error data
	}{
		{"plain 500", func(w http.ResponseWriter, id string) {
			http.Error(w, "database down", http.StatusInternalServerError)
		}, nil, transport.CodeHTTPError, "HTTP 500 Internal Server Error from POST tools/list", `"body":"database down"`},
		{"400 with a JSON-RPC error without id", func(w http.ResponseWriter, id string) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Bad Request: no session"}}`)
		}, nil, -32600, "Bad Request: no session", ""},
		{"400 with a modern error", func(w http.ResponseWriter, id string) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2025-11-25"],"requested":"2026-07-28"}}}`, id)
		}, nil, -32022, "Unsupported protocol version", `"supported":["2025-11-25"]`},
		{"404 without a body", func(w http.ResponseWriter, id string) {
			w.WriteHeader(http.StatusNotFound)
		}, nil, transport.CodeHTTPError, "HTTP 404 Not Found", `"status":404`},
		{"garbage JSON", func(w http.ResponseWriter, id string) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":`)
		}, nil, transport.CodeHTTPError, "not a JSON-RPC 2.0 message", ""},
		{"garbage SSE data", func(w http.ResponseWriter, id string) {
			writeSSE(w, "data: Internal error, please retry\n\n")
		}, nil, transport.CodeHTTPError, `the SSE stream of tools/list: jsonrpc: not a JSON-RPC 2.0 message`, ""},
		{"HTML", func(w http.ResponseWriter, id string) {
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, "<html>login</html>")
		}, nil, transport.CodeHTTPError, `Content-Type "text/html"`, "login"},
		{"202 to a request", func(w http.ResponseWriter, id string) {
			w.WriteHeader(http.StatusAccepted)
		}, nil, transport.CodeHTTPError, "HTTP 202 Accepted to tools/list carries no response", ""},
		{"the wrong id", func(w http.ResponseWriter, id string) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":999,"result":{}}`)
		}, nil, transport.CodeHTTPError, "does not answer request 1", ""},
		{"body over the limit", func(w http.ResponseWriter, id string) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"pad":%q}}`, id, strings.Repeat("x", 2000))
		}, []transport.HTTPOption{transport.WithMaxBodySize(1000)}, transport.CodeHTTPError, "larger than 1000 bytes", ""},
		{"event over the limit", func(w http.ResponseWriter, id string) {
			writeSSE(w, fmt.Sprintf("data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"pad\":%q}}\n\n", id, strings.Repeat("x", 2000)))
		}, []transport.HTTPOption{transport.WithMaxBodySize(1000)}, transport.CodeHTTPError, "more than 1000 bytes", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr, _ := rawServer(t, func(w http.ResponseWriter, r *http.Request) {
				m := rpcOf(t, r)
				if m == nil {
					http.Error(w, "unexpected", http.StatusBadRequest)
					return
				}
				tc.reply(w, m.ID.String())
			}, tc.opts...)
			send(t, tr, request(t, 1, "tools/list", nil))
			resp, before := recvResponse(t, tr, jsonrpc.Int64ID(1)) // the error answers the request
			for _, m := range before {
				assert.Equal(t, jsonrpc.Int64ID(999), m.ID, "only the misaddressed response comes before")
			}
			require.NotNil(t, resp.Error, "got %s", resp.Result)
			assert.Equal(t, tc.code, resp.Error.Code)
			assert.Contains(t, resp.Error.Message, tc.message)
			assert.Contains(t, string(resp.Error.Data), tc.data)

			// And nothing else arrives for it.
			ctx, cancel := context.WithCancel(t.Context())
			cancel()
			_, err := tr.Receive(ctx)
			assert.ErrorIs(t, err, context.Canceled)
		})
	}
}

func TestHTTPBatchReply(t *testing.T) {
	tr, _ := rawServer(t, func(w http.ResponseWriter, r *http.Request) {
		m := rpcOf(t, r)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `[{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}},{"jsonrpc":"2.0","id":%s,"result":{"tools":[]}}]`, m.ID)
	})
	send(t, tr, request(t, 1, "tools/list", nil))
	resp, before := recvResponse(t, tr, jsonrpc.Int64ID(1))
	result(t, resp)
	require.Len(t, before, 1)
	assert.Equal(t, "notifications/message", before[0].Method)
}

func TestHTTPUnreachableServer(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens there now
	tr := transport.HTTP(url)
	t.Cleanup(func() { tr.Close() })

	send(t, tr, request(t, 1, "server/discover", modern(nil)))
	resp := recv(t, tr)
	require.NotNil(t, resp.Error)
	assert.Equal(t, transport.CodeHTTPError, resp.Error.Code, "not a modern code: a probing client falls back")
	assert.Contains(t, resp.Error.Message, "POST server/discover failed")
	assert.Contains(t, resp.Error.Message, "connection refused")

	err := tr.Send(t.Context(), []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	assert.ErrorContains(t, err, "connection refused")
}

func TestHTTPNotificationErrors(t *testing.T) {
	tr2, _ := rawServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "notifications are not welcome", http.StatusBadRequest)
	})
	err := tr2.Send(t.Context(), []byte(`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`))
	var se *transport.StatusError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, http.StatusBadRequest, se.Status)
	assert.Equal(t, "notifications/roots/list_changed", se.Method)
	assert.Equal(t, "notifications are not welcome", se.Body)
	assert.EqualError(t, err, "transport: POST notifications/roots/list_changed: HTTP 400 Bad Request: notifications are not welcome")
}

func TestHTTPSessionExpiredForNotifications(t *testing.T) {
	var gone atomic.Bool
	base := legacyServer(t, "2025-11-25", nil)
	tr, _ := rawServer(t, func(w http.ResponseWriter, r *http.Request) {
		if gone.Load() && r.Header.Get("Mcp-Session-Id") != "" {
			http.Error(w, "session not found", http.StatusNotFound)
			return
		}
		base(w, r)
	})
	legacyHandshake(t, tr, "2025-11-25")
	gone.Store(true)

	err := tr.Send(t.Context(), []byte(`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`))
	assert.ErrorIs(t, err, transport.ErrSessionExpired)
	assert.Empty(t, tr.SessionID())

	// Until a new initialize, everything fails the same way, without being
	// sent to the server as a stranger.
	err = tr.Send(t.Context(), []byte(`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`))
	assert.ErrorIs(t, err, transport.ErrSessionExpired)
	send(t, tr, request(t, 5, "tools/list", nil))
	resp, _ := recvResponse(t, tr, jsonrpc.Int64ID(5))
	require.NotNil(t, resp.Error)
	assert.Equal(t, transport.CodeSessionExpired, resp.Error.Code)
	assert.Contains(t, resp.Error.Message, "session s1 expired")
}

func TestHTTPCustomHeadersAndClient(t *testing.T) {
	var trips atomic.Int32
	client := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		trips.Add(1)
		return http.DefaultTransport.RoundTrip(r)
	})}
	tr, rec := rawServer(t, legacyServer(t, "2025-11-25", func(w http.ResponseWriter, r *http.Request, m *jsonrpc.Message) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{}}`, m.ID)
	}),
		transport.WithHTTPClient(client),
		transport.WithHeader("Authorization", "Bearer t0k3n"),
		transport.WithHeaders(http.Header{"X-Tenant": {"acme"}, "Accept": {"text/plain"}}))
	legacyHandshake(t, tr, "2025-11-25")
	send(t, tr, request(t, 2, "ping", nil))
	recvResponse(t, tr, jsonrpc.Int64ID(2))
	rec.waitRequest(t, method(http.MethodGet)) // the stream attempt, refused with 405
	require.NoError(t, tr.Close())

	all := rec.requests(func(recorded) bool { return true })
	require.NotEmpty(t, all)
	for _, q := range all {
		assert.Equal(t, "Bearer t0k3n", q.Header.Get("Authorization"), "%s", q.Method)
		assert.Equal(t, "acme", q.Header.Get("X-Tenant"))
		if q.Method != http.MethodDelete { // DELETE has no body to negotiate
			assert.NotEqual(t, "text/plain", q.Header.Get("Accept"), "the transport's own headers win")
		}
	}
	assert.EqualValues(t, len(all), trips.Load(), "every request went through the caller's client")
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// The client drops tools whose x-mcp-header annotations are invalid, as
// the spec requires, and the transport sends the valid ones' headers: the
// client hands them over with LearnToolHeaders as it lists tools.
func TestHTTPDropsToolsWithInvalidHeaderAnnotations(t *testing.T) {
	tools := `[
		{"name":"good","inputSchema":{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}},
		{"name":"plain","inputSchema":{"type":"object","properties":{"q":{"type":"string"}}}},
		{"name":"spaced","inputSchema":{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"Bad Name"}}}},
		{"name":"number","inputSchema":{"type":"object","properties":{"a":{"type":"number","x-mcp-header":"A"}}}},
		{"name":"dupe","inputSchema":{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"X"},"b":{"type":"string","x-mcp-header":"x"}}}},
		{"name":"hidden","inputSchema":{"type":"object","properties":{"a":{"type":"array","items":{"type":"string","x-mcp-header":"Item"}}}}},
		{"name":"empty","inputSchema":{"type":"object","properties":{"a":{"type":"string","x-mcp-header":""}}}}
	]`
	logs := logcapture.New(t)
	tr, rec := rawServer(t, func(w http.ResponseWriter, r *http.Request) {
		m := rpcOf(t, r)
		w.Header().Set("Content-Type", "application/json")
		switch m.Method {
		case "server/discover":
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"raw","version":"1"}}}}`, m.ID)
		case "tools/list":
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete","ttlMs":0,"tools":%s}}`, m.ID, tools)
		default:
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete","content":[]}}`, m.ID)
		}
	}, transport.WithLogger(logs.Logger()))
	c := connectClient(t, tr, nil)
	require.True(t, c.IsModern())
	assert.Equal(t, []string{"good", "plain"}, toolNames(t, c))
	dropped := logcapture.All(logcapture.Level(slog.LevelWarn), logcapture.MessageContains("dropping a tool"))
	logs.AssertCount(t, 5, dropped)
	for _, name := range []string{"spaced", "number", "dupe", "hidden", "empty"} {
		logs.AssertLogged(t, dropped, logcapture.Attr("tool", name))
	}

	_, err := c.CallTool(t.Context(), "good", map[string]any{"region": "eu-west-1"})
	require.NoError(t, err)
	call := rec.requests(posts("tools/call"))[0]
	assert.Equal(t, "eu-west-1", call.Header.Get("Mcp-Param-Region"))
	assert.Equal(t, "good", call.Header.Get("Mcp-Name"))

}

func TestHTTPStandaloneStreamReconnects(t *testing.T) {
	var gets atomic.Int32
	tr, rec := rawServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet:
			switch gets.Add(1) {
			case 1: // one event with an id, then the server ends the stream
				writeSSE(w, "retry: 5\nid: g1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n\n")
			default:
				writeSSE(w, "id: g2\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/prompts/list_changed\"}\n\n")
				<-r.Context().Done() // stays open until Close
			}
		case http.MethodDelete:
			w.WriteHeader(http.StatusMethodNotAllowed)
		default:
			legacyServer(t, "2025-06-18", nil)(w, r)
		}
	})
	legacyHandshake(t, tr, "2025-06-18")
	assert.Equal(t, "notifications/tools/list_changed", recv(t, tr).Method)
	assert.Equal(t, "notifications/prompts/list_changed", recv(t, tr).Method)
	second := rec.requests(method(http.MethodGet))[1]
	assert.Equal(t, "g1", second.Header.Get("Last-Event-Id"))
	assert.Equal(t, "2025-06-18", second.Header.Get("Mcp-Protocol-Version"))
	assert.NoError(t, tr.Close(), "a 405 to DELETE is fine")
}

func TestHTTPCloseEndsHangingRequests(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	for _, cn := range connectors {
		t.Run(cn.name, func(t *testing.T) {
			started := make(chan struct{}, 1)
			tr := cn.connect(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				writeSSE(w, ": keep-alive\n\n")
				started <- struct{}{}
				select { // never answers
				case <-r.Context().Done():
				case <-release:
				}
			}))
			send(t, tr, request(t, 1, "tools/call", map[string]any{"name": "forever"}))
			<-started
			done := make(chan error)
			go func() {
				_, err := tr.Receive(context.Background())
				done <- err
			}()
			require.NoError(t, tr.Close())
			assert.ErrorIs(t, <-done, client.ErrClosed, "Close wakes a pending Receive")
			assert.ErrorIs(t, tr.Send(t.Context(), []byte(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)), client.ErrClosed)
		})
	}
}

func TestHTTPDeleteFailureIsReported(t *testing.T) {
	tr, _ := rawServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodDelete {
			http.Error(w, "cannot end it", http.StatusInternalServerError)
			return
		}
		legacyServer(t, "2025-11-25", nil)(w, r)
	})
	legacyHandshake(t, tr, "2025-11-25")
	err := tr.Close()
	assert.EqualError(t, err, "transport: ending session s1 with DELETE: HTTP 500 Internal Server Error: cannot end it")
	assert.Equal(t, err, tr.Close(), "Close reports the same on every call")
}

func TestHTTPRefusesBadInput(t *testing.T) {
	tr := transport.HTTP("localhost:8080/mcp")
	t.Cleanup(func() { tr.Close() })
	err := tr.Send(t.Context(), []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	assert.ErrorContains(t, err, `must start with http:// or https://`)

	tr2 := transport.HTTP("http://127.0.0.1:1/mcp")
	t.Cleanup(func() { tr2.Close() })
	err = tr2.Send(t.Context(), []byte(`not json`))
	assert.ErrorIs(t, err, jsonrpc.ErrNotMessage)
}

func TestHandlerPanicBecomes500(t *testing.T) {
	logs := logcapture.New(t)
	tr := transport.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		panic("boom")
	}), transport.WithLogger(logs.Logger()))
	t.Cleanup(func() { tr.Close() })
	send(t, tr, request(t, 1, "tools/list", nil))
	resp := recv(t, tr)
	require.NotNil(t, resp.Error)
	assert.Contains(t, resp.Error.Message, "HTTP 500")
	assert.Contains(t, string(resp.Error.Data), "handler panicked: boom")
	rec := logs.RequireLogged(t, logcapture.Level(slog.LevelError), logcapture.MessageContains("panicked"))
	assert.Contains(t, fmt.Sprint(rec), "boom")
}

func TestHandlerIsHTTP(t *testing.T) {
	// What a handler sees in-process is an ordinary request.
	var got *http.Request
	var body []byte
	tr := transport.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r
		body, _ = io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	}))
	t.Cleanup(func() { tr.Close() })
	send(t, tr, request(t, 1, "ping", nil))
	recv(t, tr)
	require.NoError(t, tr.Close()) // waits for the handler: got is ours now
	assert.Equal(t, http.MethodPost, got.Method)
	assert.Equal(t, "/mcp", got.RequestURI)
	assert.Equal(t, "localhost", got.Host)
	assert.Equal(t, "application/json", got.Header.Get("Content-Type"))
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, string(body))
	assert.True(t, errors.Is(got.Context().Err(), context.Canceled), "the request context ends with the handler")
	var m map[string]any
	assert.NoError(t, json.Unmarshal(body, &m))
}

func TestHTTPStandaloneStreamIsUpWhenInitializedReturns(t *testing.T) {
	// A server may push a request on the GET stream as soon as the session
	// starts (the conformance suite's elicitation scenario does); Send of
	// notifications/initialized returns only once the GET was answered.
	tr, rec := rawServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			writeSSE(w, "data: {\"jsonrpc\":\"2.0\",\"id\":\"srv-1\",\"method\":\"roots/list\"}\n\n")
			<-r.Context().Done()
			return
		}
		legacyServer(t, "2025-11-25", nil)(w, r)
	})
	legacyHandshake(t, tr, "2025-11-25")
	assert.Len(t, rec.requests(method(http.MethodGet)), 1, "the GET was answered before Send returned")
	m := recv(t, tr)
	assert.Equal(t, "roots/list", m.Method)
}
