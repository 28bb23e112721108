package servercheck_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/client/transport"
	"github.com/mcptestkit/mcptestkit/mcptest/servercheck"
)

// The legacy transport's rules (issue 39): sessions, streams, resumption
// and authorization, on go-sdk's streamable HTTP handler, correct or with one
// planted defect.

// sessionIDs plants session ids of its own on go-sdk's stateful handler:
// each id the server gives out becomes fake(n) for the client, and back.
func sessionIDs(next http.Handler, fake func(n int) string) http.Handler {
	var mu sync.Mutex
	toReal, toFake := map[string]string{}, map[string]string{}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		if real, ok := toReal[r.Header.Get("Mcp-Session-Id")]; ok {
			r.Header.Set("Mcp-Session-Id", real)
		}
		mu.Unlock()
		if r.Method == http.MethodGet {
			next.ServeHTTP(w, r) // a stream: not held in a recorder
			return
		}
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		if real := rec.Header().Get("Mcp-Session-Id"); real != "" {
			mu.Lock()
			f, ok := toFake[real]
			if !ok {
				f = fake(len(toFake))
				toFake[real], toReal[f] = f, real
			}
			mu.Unlock()
			rec.Header().Set("Mcp-Session-Id", f)
		}
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		w.Write(rec.Body.Bytes())
	})
}

// A session id that is not visible ASCII: the client's transport refuses
// it at initialize, and the run says so.
func TestHTTPSessionIDNotVisibleASCII(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v0"}, nil)
	h := sessionIDs(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{JSONResponse: true}),
		func(n int) string { return "session number " + strings.Repeat("x", n+1) })
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	t.Cleanup(func() {
		for ss := range s.Sessions() {
			_ = ss.Close()
		}
	})
	err := servercheck.Run(t.Context(), url(srv.URL), &servercheck.Options{Run: "http/sessions"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `the server's Mcp-Session-Id "session number x" is not visible ASCII`)
}

func TestHTTPSessionIDPlanted(t *testing.T) {
	for _, tc := range []struct {
		name   string
		fake   func(n int) string
		status servercheck.Status
		detail string
	}{
		{"correct", nil, servercheck.Pass, ""},
		{"short", func(n int) string { return string(rune('1' + n)) }, servercheck.Warn, `at initialize: 1 characters, too few`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v0"}, nil)
			var wrap func(http.Handler) http.Handler
			if tc.fake != nil {
				wrap = func(h http.Handler) http.Handler { return sessionIDs(h, tc.fake) }
			}
			got := runOnly(t, url(serveGoSDK(t, s, &mcp.StreamableHTTPOptions{JSONResponse: true}, wrap)), "http/sessions")["http/sessions"]
			assert.Equal(t, tc.status, got.Status, "%s", got)
			assert.Contains(t, got.Detail, tc.detail)
		})
	}
}

func TestHTTPBadInputPlanted(t *testing.T) {
	for _, tc := range []struct {
		name      string
		stateless bool
		planted   bool
		status    servercheck.Status
	}{
		{"correct-stateful", false, false, servercheck.Pass},
		{"correct-stateless", true, false, servercheck.Pass},
		{"answered-200", true, true, servercheck.Fail},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v0"}, nil)
			var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
				&mcp.StreamableHTTPOptions{Stateless: tc.stateless, JSONResponse: true})
			if tc.planted {
				next := h
				h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					b, _ := io.ReadAll(r.Body)
					if r.Method == http.MethodPost && !json.Valid(b) {
						w.Header().Set("Content-Type", "application/json")
						io.WriteString(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`)
						return
					}
					r.Body = io.NopCloser(bytes.NewReader(b))
					next.ServeHTTP(w, r)
				})
			}
			srv := httptest.NewServer(h)
			t.Cleanup(srv.Close)
			t.Cleanup(func() {
				for ss := range s.Sessions() {
					_ = ss.Close()
				}
			})
			got := runOnly(t, url(srv.URL), "http/bad-input")["http/bad-input"]
			require.NotEmpty(t, got.Name, "http/bad-input did not run")
			assert.Equal(t, tc.status, got.Status, "%s", got)
			if tc.planted {
				assert.Contains(t, got.Detail, "got HTTP 200 OK")
			}
		})
	}
}

// authorized plants a server that asks for authorization: its MCP endpoint
// serves a request with the bearer token "good" (or, with anyToken, any
// bearer token), and answers others 401 with challenge as its
// WWW-Authenticate (resource_metadata=%s names the metadata's URL); the
// metadata, when prm is not nil, is served at the well-known URI.
func authorized(t *testing.T, challenge string, prm map[string]any, anyToken bool) string {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v0"}, nil)
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		const wellKnown = "/.well-known/oauth-protected-resource"
		if strings.HasPrefix(r.URL.Path, wellKnown) {
			if prm == nil {
				http.NotFound(w, r)
				return
			}
			doc := map[string]any{"resource": srv.URL + "/mcp"}
			for k, v := range prm {
				doc[k] = v
			}
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(doc)
			return
		}
		a := r.Header.Get("Authorization")
		if a == "Bearer good" || anyToken && strings.HasPrefix(a, "Bearer ") {
			mcpHandler.ServeHTTP(w, r)
			return
		}
		if challenge != "" {
			w.Header().Set("WWW-Authenticate", strings.ReplaceAll(challenge, "%s", srv.URL+"/.well-known/oauth-protected-resource/mcp"))
		}
		http.Error(w, "unauthorized", http.StatusUnauthorized)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

func TestHTTPAuthorizationPlanted(t *testing.T) {
	good := map[string]any{"authorization_servers": []string{"https://auth.example.com"}, "scopes_supported": []string{"files:read"}}
	const challenge = `Bearer resource_metadata="%s", scope="files:read"`
	for _, tc := range []struct {
		name      string
		challenge string
		prm       map[string]any
		anyToken  bool
		status    servercheck.Status
		detail    string
	}{
		{"correct", challenge, good, false, servercheck.Pass, ""},
		{"well-known-only", `Bearer`, good, false, servercheck.Pass, ""},
		{"made-up-token-served", challenge, good, true, servercheck.Fail, "a token no authorization server issued; got HTTP 200"},
		{"no-discovery", `Bearer`, nil, false, servercheck.Fail, "no Protected Resource Metadata was found"},
		{"pointer-to-nothing", challenge, nil, false, servercheck.Fail, "a GET of it got HTTP 404"},
		{"no-authorization-servers", challenge, map[string]any{"scopes_supported": []string{"files:read"}}, false, servercheck.Fail, "names no authorization_servers"},
		{"offline-access", `Bearer resource_metadata="%s", scope="files:read offline_access"`, good, false, servercheck.Warn, "offline_access among them"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := authorized(t, tc.challenge, tc.prm, tc.anyToken)
			dial := func(context.Context) (client.Transport, error) {
				return transport.HTTP(u, transport.WithHeader("Authorization", "Bearer good")), nil
			}
			got := runOnly(t, dial, "http/authorization")["http/authorization"]
			assert.Equal(t, tc.status, got.Status, "%s", got)
			assert.Contains(t, got.Detail, tc.detail)
		})
	}
	// A server that asks for no authorization is skipped.
	got := runOnly(t, url(goSDKHeaders(t, nil, nil, nil)), "http/authorization")["http/authorization"]
	assert.Equal(t, servercheck.Skip, got.Status, "%s", got)
	assert.Contains(t, got.Detail, "the server asks for no authorization")
}

// sseIDs watches the event ids of the SSE streams a handler writes, and
// rewrites them with edit (nil: unchanged).
type sseIDs struct {
	http.ResponseWriter
	edit  func(id string) string
	first func(id string) // called with the stream's first id
	seen  bool
}

func (w *sseIDs) Write(p []byte) (int, error) {
	lines := strings.SplitAfter(string(p), "\n")
	for i, l := range lines {
		id, ok := strings.CutPrefix(l, "id: ")
		if !ok {
			continue
		}
		id = strings.TrimRight(id, "\r\n")
		if !w.seen && w.first != nil {
			w.seen = true
			w.first(id)
		}
		if w.edit != nil {
			lines[i] = "id: " + w.edit(id) + "\n"
		}
	}
	if _, err := w.ResponseWriter.Write([]byte(strings.Join(lines, ""))); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (w *sseIDs) Flush() { w.ResponseWriter.(http.Flusher).Flush() }

func TestHTTPStreamsPlanted(t *testing.T) {
	for _, tc := range []struct {
		name   string
		wrap   func(http.Handler) http.Handler
		status servercheck.Status
		detail string
	}{
		{"correct", nil, servercheck.Pass, ""},
		// Event ids without the stream they belong to: each stream's
		// first is "0".
		{"ids-per-stream", func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				next.ServeHTTP(&sseIDs{ResponseWriter: w, edit: func(id string) string {
					return id[strings.LastIndexByte(id, '_')+1:]
				}}, r)
			})
		}, servercheck.Fail, "both carry event id"},
		// A resumption served from the newest stream, whatever
		// Last-Event-ID names.
		{"resumes-the-newest-stream", func(next http.Handler) http.Handler {
			var mu sync.Mutex
			newest := ""
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodGet && r.Header.Get("Last-Event-ID") != "" {
					mu.Lock()
					r.Header.Set("Last-Event-ID", newest)
					mu.Unlock()
				}
				next.ServeHTTP(&sseIDs{ResponseWriter: w, first: func(id string) {
					if r.Method == http.MethodPost {
						mu.Lock()
						newest = id
						mu.Unlock()
					}
				}}, r)
			})
		}, servercheck.Fail, "of the second stream"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v0"}, nil)
			srvURL := serveGoSDK(t, s, &mcp.StreamableHTTPOptions{EventStore: mcp.NewMemoryEventStore(nil)}, tc.wrap)
			got := runOnly(t, url(srvURL), "http/streams")["http/streams"]
			assert.Equal(t, tc.status, got.Status, "%s", got)
			assert.Contains(t, got.Detail, tc.detail)
			if tc.status == servercheck.Pass {
				assert.Empty(t, got.Detail, "the resumption replayed the first stream's response: nothing to note")
			}
		})
	}
}

// holdOpen plants a server that keeps each POST's SSE stream open after
// its response, until the client goes.
func holdOpen(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r)
		if r.Method == http.MethodPost && strings.HasPrefix(w.Header().Get("Content-Type"), "text/event-stream") {
			<-r.Context().Done()
		}
	})
}

func TestHTTPStreamEndsPlanted(t *testing.T) {
	accel := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Accel-Buffering", "no")
			next.ServeHTTP(w, r)
		})
	}
	for _, tc := range []struct {
		name      string
		stateless bool
		wrap      func(http.Handler) http.Handler
		status    servercheck.Status
		detail    string
	}{
		{"legacy-correct", false, nil, servercheck.Pass, ""},
		{"legacy-held-open", false, holdOpen, servercheck.Warn, "carried its response and was still open"},
		{"modern-correct", true, accel, servercheck.Pass, ""},
		{"modern-held-open", true, func(next http.Handler) http.Handler { return accel(holdOpen(next)) }, servercheck.Warn,
			"the SSE stream answering server/discover carried its response and was still open"},
		// go-sdk v1.8.0 sets no X-Accel-Buffering on its SSE answers.
		{"go-sdk-no-accel", true, nil, servercheck.Warn, `has X-Accel-Buffering: ""`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v0"}, &mcp.ServerOptions{SupportedProtocolVersions: []string{"2026-07-28", "2025-11-25"}})
			srvURL := serveGoSDK(t, s, &mcp.StreamableHTTPOptions{Stateless: tc.stateless, EventStore: mcp.NewMemoryEventStore(nil)}, tc.wrap)
			results := map[string]servercheck.Result{}
			_ = servercheck.Run(t.Context(), url(srvURL), &servercheck.Options{Run: "http/streams", Timeout: 5 * time.Second,
				OnResult: func(r servercheck.Result) { results[r.Name] = r }})
			got := results["http/streams"]
			assert.Equal(t, tc.status, got.Status, "%s", got)
			assert.Contains(t, got.Detail, tc.detail)
		})
	}
}

func TestHTTPAssumesOldestPlanted(t *testing.T) {
	for _, tc := range []struct {
		name   string
		wrap   func(http.Handler) http.Handler
		status servercheck.Status
	}{
		{"correct", nil, servercheck.Pass},
		{"header-required", func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				r.Body = io.NopCloser(bytes.NewReader(b))
				if r.Method == http.MethodPost && r.Header.Get("Mcp-Protocol-Version") == "" && !bytes.Contains(b, []byte(`"initialize"`)) {
					http.Error(w, "MCP-Protocol-Version required", http.StatusBadRequest)
					return
				}
				next.ServeHTTP(w, r)
			})
		}, servercheck.Warn},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v0"}, nil)
			srvURL := serveGoSDK(t, s, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true}, tc.wrap)
			got := runOnly(t, url(srvURL), "http/protocol-version")["http/protocol-version"]
			assert.Equal(t, tc.status, got.Status, "%s", got)
			if tc.status == servercheck.Warn {
				assert.Contains(t, got.Detail, "sent ping without an MCP-Protocol-Version header to a stateless server")
			}
		})
	}
}

// broadcast plants a server that sends each POSTed request's JSON response
// on the session's GET stream as well.
func broadcast(next http.Handler) http.Handler {
	var mu sync.Mutex
	streams := map[string]*lockedStream{}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sid := r.Header.Get("Mcp-Session-Id")
		if r.Method == http.MethodGet {
			ls := &lockedStream{ResponseWriter: w}
			mu.Lock()
			streams[sid] = ls
			mu.Unlock()
			next.ServeHTTP(ls, r)
			ls.mu.Lock()
			ls.done = true
			ls.mu.Unlock()
			return
		}
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		w.Write(rec.Body.Bytes())
		mu.Lock()
		ls := streams[sid]
		mu.Unlock()
		if ls != nil && bytes.Contains(rec.Body.Bytes(), []byte(`"result"`)) {
			ls.event(bytes.TrimSpace(rec.Body.Bytes()))
		}
	})
}

type lockedStream struct {
	http.ResponseWriter
	mu   sync.Mutex
	done bool
}

func (l *lockedStream) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.ResponseWriter.Write(p)
}

func (l *lockedStream) Flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ResponseWriter.(http.Flusher).Flush()
}

func (l *lockedStream) event(data []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.done {
		fmt.Fprintf(l.ResponseWriter, "event: message\ndata: %s\n\n", data)
		l.ResponseWriter.(http.Flusher).Flush()
	}
}

func TestHTTPGetStreamPlanted(t *testing.T) {
	for _, tc := range []struct {
		name   string
		wrap   func(http.Handler) http.Handler
		status servercheck.Status
	}{
		{"correct", nil, servercheck.Pass},
		{"broadcast", broadcast, servercheck.Fail},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v0"}, nil)
			srvURL := serveGoSDK(t, s, &mcp.StreamableHTTPOptions{JSONResponse: true}, tc.wrap)
			got := runOnly(t, url(srvURL), "http/get-stream")["http/get-stream"]
			assert.Equal(t, tc.status, got.Status, "%s", got)
			if tc.status == servercheck.Fail {
				assert.Contains(t, got.Detail, "the GET stream carried its response")
				assert.Contains(t, got.Detail, "the message went on two streams")
			} else {
				assert.Empty(t, got.Detail)
			}
		})
	}
}

// serveGoSDK serves s with go-sdk's streamable HTTP handler and opts, behind
// wrap (the planted defect) if given, on 127.0.0.1 for the length of the
// test, and returns its URL. The sessions the checks leave open are closed
// at the end, so no handler goroutine outlives the test.
func serveGoSDK(t *testing.T, s *mcp.Server, opts *mcp.StreamableHTTPOptions, wrap func(http.Handler) http.Handler) string {
	t.Helper()
	var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, opts)
	if wrap != nil {
		h = wrap(h)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	t.Cleanup(func() {
		for ss := range s.Sessions() {
			_ = ss.Close()
		}
	})
	return srv.URL
}
