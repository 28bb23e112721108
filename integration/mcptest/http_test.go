package mcptest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/client/transport"
	"github.com/mcptestkit/mcptestkit/mcptest"
	"github.com/mcptestkit/mcptestkit/mcptest/servercheck"
)

// The SDKs' streamable HTTP handlers meet Connect and CheckServer as
// Handler and URL servers.

func gosdkHTTP(s *mcp.Server) http.Handler {
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
}

func gosdkStateless(s *mcp.Server) http.Handler {
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{Stateless: true, PropagateRequestCancellation: true})
}

// httpServers are both SDKs' streamable HTTP handlers, each serving an echo
// tool, and the protocol versions each serves. go-sdk's stateful handler
// (sessions) serves the legacy versions only; its stateless one serves
// 2026-07-28 too.
func httpServers() []struct {
	name     string
	handler  func() http.Handler
	versions []string
} {
	legacy := client.SupportedVersions()[1:]
	return []struct {
		name     string
		handler  func() http.Handler
		versions []string
	}{
		{"gosdk-stateful", func() http.Handler { return gosdkHTTP(probeServer(nil)) }, legacy},
		{"gosdk-stateless", func() http.Handler { return gosdkStateless(probeServer(nil)) }, client.SupportedVersions()},
		{"mcpgo", mcpgoHTTP, client.SupportedVersions()},
	}
}

// Every SDK handler at every version it serves, in process and over a
// socket, and era-neutral.
func TestHandlerSDKs(t *testing.T) {
	t.Parallel()
	for _, srv := range httpServers() {
		t.Run(srv.name, func(t *testing.T) {
			t.Parallel()
			h := srv.handler()
			hs := httptest.NewServer(h) // 127.0.0.1
			t.Cleanup(hs.Close)
			for _, version := range srv.versions {
				t.Run(version, func(t *testing.T) {
					t.Parallel()
					c := mcptest.Connect(t, mcptest.Handler(h), mcptest.WithProtocolVersion(version))
					assert.Equal(t, version, c.ProtocolVersion())
					echoes(t, c, srv.name+" in process at "+version)
					c = mcptest.Connect(t, mcptest.URL(hs.URL), mcptest.WithProtocolVersion(version))
					assert.Equal(t, version, c.ProtocolVersion())
					echoes(t, c, srv.name+" over a socket at "+version)
				})
			}
			t.Run("era-neutral", func(t *testing.T) {
				t.Parallel()
				c := mcptest.Connect(t, mcptest.Handler(h))
				assert.Equal(t, srv.versions[0], c.ProtocolVersion(), "the newest version both sides speak")
				echoes(t, c, "era-neutral")
			})
		})
	}
}

// hangingTool adds a tool that answers only when its request is cancelled.
func hangingTool(s *mcp.Server) {
	mcp.AddTool(s, &mcp.Tool{Name: "hang"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		<-ctx.Done()
		return nil, nil, ctx.Err()
	})
}

func TestHandlerGoSDKHungToolFailsNamingTheMethod(t *testing.T) {
	t.Parallel()
	for version, h := range map[string]http.Handler{
		client.LatestVersion:       gosdkStateless(probeServer(hangingTool)),
		client.LatestLegacyVersion: gosdkHTTP(probeServer(hangingTool)),
	} {
		t.Run(version, func(t *testing.T) {
			t.Parallel()
			f := runFake(t, func(tb testing.TB) {
				c := mcptest.Connect(tb, mcptest.Handler(h), mcptest.WithClient(client.Options{Timeout: time.Second}), mcptest.WithProtocolVersion(version))
				_, err := c.CallTool(tb.Context(), "hang", nil)
				require.NoError(tb, err)
			})
			f.ExpectFailure(t, `tools/call "hang": no response within 1s`, "transcript of the connection", `the client cancelled tools/call "hang"`)
		})
	}
}

// mcp-go runs a tool handler on the HTTP handler's goroutine: its panic
// reaches the transport's recovery, and the harness fails the test.
func TestHandlerMCPGoToolPanicFailsTheTest(t *testing.T) {
	t.Parallel()
	for _, version := range []string{client.LatestVersion, client.LatestLegacyVersion} {
		f := runFake(t, func(tb testing.TB) {
			c := mcptest.Connect(tb, mcptest.Handler(mcpgoHTTP()), mcptest.WithProtocolVersion(version))
			_, err := c.CallTool(tb.Context(), "boom", nil)
			mcptest.Assert(tb).ProtocolError(err, transport.CodeHTTPError)
		})
		f.ExpectFailure(t, "the HTTP handler panicked serving a POST request: kaboom", "mcpgo.Guard(logger)(srv)", "mcptest_test.explode")
	}
}

// blockForever is what a leaked goroutine runs.
func blockForever(release <-chan struct{}) { <-release }

// The leak check sees a goroutine that a go-sdk tool started while serving
// an HTTP request, in both eras. Its connections must be alone in their
// process (see runAlone).
func TestHandlerLeakCheckReachesGoSDKHandlers(t *testing.T) {
	if child, out := runAlone(t); !child {
		assert.Contains(t, out, "--- PASS: TestHandlerLeakCheckReachesGoSDKHandlers/2026-07-28")
		assert.Contains(t, out, "--- PASS: TestHandlerLeakCheckReachesGoSDKHandlers/2025-11-25")
		return
	}
	// What runs now: the test binary's main goroutine and this test's.
	base := runtime.NumGoroutine()
	for version, handler := range map[string]func(*mcp.Server) http.Handler{
		client.LatestVersion:       gosdkStateless,
		client.LatestLegacyVersion: gosdkHTTP,
	} {
		t.Run(version, func(t *testing.T) {
			// Alone means that no goroutine counted when the connection is
			// made exits before it closes: one that did would hide the
			// leaked one from the count that lets a lone connection skip
			// its profile read (see mcptest's leak check). The previous
			// subtest's fake test and released goroutine have been told
			// to end but may still be exiting, more so on a loaded
			// machine: wait until only this subtest's goroutine is new.
			// (Not require.Eventually: it counts as a goroutine of its own.)
			for i := 0; runtime.NumGoroutine() > base+1; i++ {
				require.Less(t, i, 10000, "the previous subtest's goroutines did not end")
				time.Sleep(time.Millisecond)
			}
			// The leaked goroutine ends with this subtest, so that the
			// next one starts alone.
			release := make(chan struct{})
			t.Cleanup(func() { close(release) })
			h := handler(probeServer(func(s *mcp.Server) {
				mcp.AddTool(s, &mcp.Tool{Name: "spawn"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
					go blockForever(release)
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "started"}}}, nil, nil
				})
			}))
			f := runFake(t, func(tb testing.TB) {
				c := mcptest.Connect(tb, mcptest.Handler(h), mcptest.WithProtocolVersion(version))
				_, err := c.CallTool(tb.Context(), "spawn", nil)
				require.NoError(tb, err)
			})
			f.ExpectFailure(t, "goroutine leak", "1 goroutine(s) started by the connection", "mcptest_test.blockForever")
		})
	}
}

// go-sdk's stateless handler in the process passes every check.
func TestCheckServerGoSDKHTTPHandler(t *testing.T) {
	t.Parallel()
	f := runFake(t, func(tb testing.TB) {
		mcptest.CheckServer(tb, mcptest.Handler(gosdkStateless(probeServer(nil))))
	})
	f.ExpectPass(t)
}

// Issue 31: the transport checks (http/...) on both SDKs' handlers, over a
// socket on 127.0.0.1 and in process: none fails but http/delete on mcp-go
// (v1.2.1 answers DELETE 200 and goes on serving the session, where the
// specification requires 404); what each SDK chose where the specification
// allows a choice is noted.
func TestHTTPTransportChecksOnTheSDKs(t *testing.T) {
	t.Parallel()
	for _, s := range httpServers() {
		for _, where := range []string{"socket", "in-process"} {
			t.Run(s.name+"/"+where, func(t *testing.T) {
				t.Parallel()
				var dial servercheck.Dialer
				if where == "socket" {
					srv := httptest.NewServer(s.handler())
					t.Cleanup(srv.Close)
					dial = func(context.Context) (client.Transport, error) { return transport.HTTP(srv.URL), nil }
				} else {
					h := s.handler()
					dial = func(context.Context) (client.Transport, error) { return transport.Handler(h), nil }
				}
				ran := 0
				err := servercheck.Run(t.Context(), dial, &servercheck.Options{Run: "http", OnResult: func(r servercheck.Result) {
					t.Logf("%s", r)
					if r.Status != servercheck.Skip {
						ran++
					}
					if s.name == "mcpgo" && r.Name == "http/delete" {
						assert.Equal(t, servercheck.Fail, r.Status, "%s", r)
						assert.Contains(t, r.Detail, "ended the session with DELETE (HTTP 200 OK), then sent ping in it; got HTTP 200 OK")
						return
					}
					assert.NotEqual(t, servercheck.Fail, r.Status, "%s", r)
				}})
				if s.name != "mcpgo" {
					assert.NoError(t, err)
				}
				if slices.ContainsFunc(s.versions, client.IsLegacy) {
					assert.NotZero(t, ran, "no http/ check ran")
				}
			})
		}
	}
}

// Issue 31: a server with one transport defect each, planted in go-sdk's
// stateful handler by a middleware, fails the check of that rule (they all
// passed CheckServer before the http/ checks).
func TestHTTPTransportChecksCatchPlantedDefects(t *testing.T) {
	t.Parallel()
	var first sync.Map // the first session id the server gave out, by server
	planted := map[string]struct {
		wrap   func(name string, h http.Handler) http.Handler
		opts   *mcp.StreamableHTTPOptions
		detail string
	}{
		"http/sessions": {wrap: func(name string, h http.Handler) http.Handler { // an unknown session served as the first one
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if sid := r.Header.Get("Mcp-Session-Id"); strings.HasPrefix(sid, "mcptestkit") {
					known, _ := first.Load(name)
					r.Header.Set("Mcp-Session-Id", known.(string))
				}
				rec := &sessionSeen{ResponseWriter: w, seen: func(sid string) { first.LoadOrStore(name, sid) }}
				h.ServeHTTP(rec, r)
			})
		}, detail: "sent ping with an Mcp-Session-Id the server never gave out; it was served: HTTP 200 OK"},
		"http/protocol-version": {wrap: func(_ string, h http.Handler) http.Handler { // any version header accepted
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("MCP-Protocol-Version") != "" {
					r.Header.Set("MCP-Protocol-Version", client.Version20251125)
				}
				h.ServeHTTP(w, r)
			})
		}, detail: "sent ping with MCP-Protocol-Version: 1999-01-01, a version no server speaks; it was served: HTTP 200 OK"},
		"http/notifications": {wrap: func(_ string, h http.Handler) http.Handler { // 200 with a body for a notification
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				r.Body = io.NopCloser(bytes.NewReader(body))
				if r.Method == http.MethodPost && !bytes.Contains(body, []byte(`"id"`)) {
					h.ServeHTTP(httptest.NewRecorder(), r)
					w.Header().Set("Content-Type", "application/json")
					_, _ = w.Write([]byte(`{"ok":true}`))
					return
				}
				h.ServeHTTP(w, r)
			})
		}, detail: `POSTed a notification (notifications/cancelled for a request that does not exist); got HTTP 200 OK (application/json) {"ok":true}`},
		"http/origin": {opts: &mcp.StreamableHTTPOptions{DisableLocalhostProtection: true},
			detail: "sent ping with Host: evil.example.com and Origin: http://evil.example.com to a server on localhost; got HTTP 200 OK"},
		"http/delete": {wrap: func(_ string, h http.Handler) http.Handler { // DELETE acknowledged, the session kept
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodDelete {
					w.WriteHeader(http.StatusOK)
					return
				}
				h.ServeHTTP(w, r)
			})
		}, detail: "ended the session with DELETE (HTTP 200 OK), then sent ping in it; got HTTP 200 OK"},
	}
	for check, p := range planted {
		t.Run(check, func(t *testing.T) {
			t.Parallel()
			s := probeServer(nil)
			var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, p.opts)
			if p.wrap != nil {
				h = p.wrap(check, h)
			}
			// A planted defect may keep a session the checks ended: close them.
			t.Cleanup(func() {
				for ss := range s.Sessions() {
					_ = ss.Close()
				}
			})
			srv := httptest.NewServer(h)
			t.Cleanup(srv.Close)
			results := map[string]servercheck.Result{}
			err := servercheck.Run(t.Context(), func(context.Context) (client.Transport, error) { return transport.HTTP(srv.URL), nil },
				&servercheck.Options{Run: "http", OnResult: func(r servercheck.Result) { results[r.Name] = r }})
			require.Error(t, err)
			for name, r := range results {
				if name == check {
					assert.Equal(t, servercheck.Fail, r.Status, "%s", r)
					assert.Contains(t, r.Detail, p.detail)
				} else {
					assert.NotEqual(t, servercheck.Fail, r.Status, "only %s should fail: %s", check, r)
				}
			}
		})
	}
}

// sessionSeen reports the session id a response gives out.
type sessionSeen struct {
	http.ResponseWriter
	seen func(sid string)
}

func (s *sessionSeen) WriteHeader(code int) {
	if sid := s.Header().Get("Mcp-Session-Id"); sid != "" {
		s.seen(sid)
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *sessionSeen) Write(b []byte) (int, error) {
	if sid := s.Header().Get("Mcp-Session-Id"); sid != "" {
		s.seen(sid)
	}
	return s.ResponseWriter.Write(b)
}

func (s *sessionSeen) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Issue 31: a handler panic that kills an HTTP server is reported once, on
// the call it died in; the checks after it are skipped saying why, instead
// of each failing on a server that is gone.
func TestCheckServerHTTPServerDies(t *testing.T) {
	t.Parallel()
	s := probeServer(boomTool)
	inner := gosdkStateless(s)
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if bytes.Contains(body, []byte(`"name":"boom"`)) {
			// The process dies: the request gets no response, and nothing
			// listens any more.
			_ = srv.Listener.Close()
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				_ = conn.Close()
			}
			return
		}
		inner.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	results := map[string]servercheck.Result{}
	var order []string
	err := servercheck.Run(t.Context(), func(context.Context) (client.Transport, error) { return transport.HTTP(srv.URL), nil },
		&servercheck.Options{OnResult: func(r servercheck.Result) { results[r.Name] = r; order = append(order, r.Name) }})
	require.Error(t, err)
	boom := results["tools/calls/boom"]
	assert.Equal(t, servercheck.Fail, boom.Status, "%s", boom)
	assert.Contains(t, boom.Detail, "the server died on this call: no HTTP response came")
	assert.Contains(t, boom.Detail, "the server stopped answering during tools/calls/boom")
	after := false
	for _, name := range order {
		r := results[name]
		if name == "tools/calls/boom" {
			after = true
			continue
		}
		if after && name != "shutdown" {
			assert.Equal(t, servercheck.Skip, r.Status, "%s", r)
			assert.Contains(t, r.Detail, "not run: the server stopped answering during tools/calls/boom")
		}
	}
	assert.True(t, after)
}

// Issue 31: go-sdk's stateful handler answers an unknown method with HTTP
// 400 "JSON RPC not handled": the check still fails (JSON-RPC wants
// -32601), and says it is the SDK's doing and how to leave it out.
func TestCheckServerGoSDKStatefulUnknownMethod(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(gosdkHTTP(probeServer(nil)))
	t.Cleanup(srv.Close)
	var got servercheck.Result
	_ = servercheck.Run(t.Context(), func(context.Context) (client.Transport, error) { return transport.HTTP(srv.URL), nil },
		&servercheck.Options{Run: "unknown-method", OnResult: func(r servercheck.Result) { got = r }})
	assert.Equal(t, servercheck.Fail, got.Status, "%s", got)
	assert.Contains(t, got.Detail, `this is go-sdk's streamable HTTP handler`)
	assert.Contains(t, got.Detail, `mcptest.SkipChecks("unknown-method")`)
}

// Issue 31: a 2026-07-28 server that serves a request whose Mcp-Method
// header contradicts its body fails http/headers; go-sdk's stateless
// handler, which refuses it, passes.
func TestHTTPHeadersCheck(t *testing.T) {
	t.Parallel()
	run := func(h http.Handler) servercheck.Result {
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		var got servercheck.Result
		_ = servercheck.Run(t.Context(), func(context.Context) (client.Transport, error) { return transport.HTTP(srv.URL), nil },
			&servercheck.Options{Run: "http/headers", OnResult: func(r servercheck.Result) { got = r }})
		return got
	}
	good := run(gosdkStateless(probeServer(nil)))
	assert.Equal(t, servercheck.Pass, good.Status, "%s", good)

	// The planted defect: the headers are made to agree with the body
	// before the SDK sees them, as a server that never reads them would.
	inner := gosdkStateless(probeServer(nil))
	lax := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var m struct {
			Method string `json:"method"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		if json.Unmarshal(body, &m) == nil && m.Method != "" && r.Header.Get("MCP-Protocol-Version") == client.Version20260728 {
			r.Header.Set("Mcp-Method", m.Method)
			if m.Params.Name != "" {
				r.Header.Set("Mcp-Name", m.Params.Name)
			}
		}
		inner.ServeHTTP(w, r)
	})
	bad := run(lax)
	assert.Equal(t, servercheck.Fail, bad.Status, "%s", bad)
	assert.Contains(t, bad.Detail, "sent Mcp-Method: prompts/list on a tools/list request; got HTTP 200 OK")
}
