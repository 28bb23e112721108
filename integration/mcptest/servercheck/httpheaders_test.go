package servercheck_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"

	"github.com/mcptestkit/mcptestkit/mcptest/servercheck"
)

// The HTTP transport's rules (issue 39): each planted server is go-sdk's
// streamable HTTP handler on 127.0.0.1, correct, or behind a wrapper that
// plants one defect; the check of the rule passes the one and not the
// other.

// lookupSchema binds two top-level arguments to headers (x-mcp-header), a
// string and an integer, and puts extra on the schema's properties.
func lookupSchema(extra map[string]any) map[string]any {
	props := map[string]any{
		"region": map[string]any{"type": "string", "x-mcp-header": "Region"},
		"count":  map[string]any{"type": "integer", "x-mcp-header": "Count"},
	}
	for k, v := range extra {
		props[k] = v
	}
	return map[string]any{"type": "object", "properties": props}
}

// goSDKHeaders serves a go-sdk server with the lookup tool (its schema
// from lookupSchema(extra)) over go-sdk's stateless streamable HTTP
// handler, which speaks 2026-07-28, wrapped by wrap, and returns its URL.
func goSDKHeaders(t *testing.T, extra map[string]any, opts *mcp.ServerOptions, wrap func(http.Handler) http.Handler) string {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v0"}, opts)
	s.AddTool(&mcp.Tool{Name: "lookup", Description: "Looks up a region.", InputSchema: lookupSchema(extra)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "found"}}}, nil
		})
	var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	if wrap != nil {
		h = wrap(h)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

// runOnly runs the checks named and returns their results.
func runOnly(t *testing.T, dial servercheck.Dialer, run string) map[string]servercheck.Result {
	t.Helper()
	results := map[string]servercheck.Result{}
	err := servercheck.Run(t.Context(), dial, &servercheck.Options{
		Run: run, Calls: 1,
		OnResult: func(r servercheck.Result) { results[r.Name] = r },
	})
	t.Logf("%s: %v", run, err) // the checks' error, for a failure's log
	return results
}

// strictParams is what go-sdk v1.8.0 leaves out: an Mcp-Param-* value that
// is not visible ASCII (raw UTF-8) is refused with 400 and -32020, as
// basic/transports at 2026-07-28 requires ("Servers MUST reject requests
// with a recognized Mcp-Param-{Name} header that contains invalid
// characters").
func strictParams(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for k, vs := range r.Header {
			if !strings.HasPrefix(k, "Mcp-Param-") {
				continue
			}
			for _, v := range vs {
				if strings.ContainsFunc(v, func(c rune) bool { return c > 0x7e || c < 0x20 && c != '\t' }) {
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(http.StatusBadRequest)
					io.WriteString(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32020,"message":"invalid characters in `+k+`"}}`)
					return
				}
			}
		}
		next.ServeHTTP(w, r)
	})
}

func TestHTTPHeadersPlanted(t *testing.T) {
	for _, tc := range []struct {
		name   string
		wrap   func(http.Handler) http.Handler
		status servercheck.Status
		detail string
	}{
		{"correct", strictParams, servercheck.Pass, ""},
		// go-sdk as it is serves a raw UTF-8 Mcp-Param-* value.
		{"go-sdk-raw-utf8-served", nil, servercheck.Fail, "Mcp-Param-Region: mcptestkit-ñ (raw UTF-8"},
		{"protocol-version-header-ignored", func(next http.Handler) http.Handler {
			return strictParams(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("Mcp-Protocol-Version") != "" {
					r.Header.Set("Mcp-Protocol-Version", "2026-07-28")
				}
				next.ServeHTTP(w, r)
			}))
		}, servercheck.Fail, "MCP-Protocol-Version: 2025-11-25 on a tools/list request whose _meta says 2026-07-28"},
		{"param-header-always-required", func(next http.Handler) http.Handler {
			return strictParams(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("Mcp-Method") == "tools/call" && r.Header.Get("Mcp-Name") == "lookup" && r.Header.Get("Mcp-Param-Region") == "" {
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(http.StatusBadRequest)
					io.WriteString(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32020,"message":"missing Mcp-Param-Region"}}`)
					return
				}
				next.ServeHTTP(w, r)
			}))
		}, servercheck.Fail, "no Mcp-Param-Region header on a tools/call of lookup without the argument region"},
		{"upper-case-markers-decoded", func(next http.Handler) http.Handler {
			return strictParams(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				v := r.Header.Get("Mcp-Name")
				if strings.HasPrefix(strings.ToLower(v), "=?base64?") && strings.HasSuffix(v, "?=") {
					if b, err := base64.StdEncoding.DecodeString(v[len("=?base64?") : len(v)-2]); err == nil {
						r.Header.Set("Mcp-Name", string(b))
					}
				}
				next.ServeHTTP(w, r)
			}))
		}, servercheck.Fail, "Mcp-Name: =?BASE64?bWNwdGVzdGtpdA==?= on a tools/call"},
		{"integer-compared-as-text", func(next http.Handler) http.Handler {
			return strictParams(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if v := r.Header.Get("Mcp-Param-Count"); strings.Contains(v, ".") {
					r.Header.Set("Mcp-Param-Count", "mismatch-"+v)
				}
				next.ServeHTTP(w, r)
			}))
		}, servercheck.Warn, "Mcp-Param-Count: 7.0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := goSDKHeaders(t, nil, nil, tc.wrap)
			got := runOnly(t, url(u), "http/headers")["http/headers"]
			assert.Equal(t, tc.status, got.Status, "%s", got)
			assert.Contains(t, got.Detail, tc.detail)
		})
	}
}

// caseSensitive plants a server that matches header names in one case
// only: a header line whose name is written in another case than the
// canonical one (mcp-method, MCP-NAME) loses its name on the way in
// (mcp- and MCP- become xcp- and MXP-), as if the server had not seen it.
type caseSensitive struct{ net.Listener }

func (l caseSensitive) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &caseConn{Conn: c, lineStart: true}, nil
}

type caseConn struct {
	net.Conn
	mu        sync.Mutex
	lineStart bool // the next byte begins a line
	afterM    bool // the last byte was an M that began a line
}

func (c *caseConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range p[:n] {
		b := p[i]
		switch {
		case c.afterM && b == 'C':
			p[i] = 'X'
		case c.lineStart && b == 'm':
			p[i] = 'x'
		}
		c.afterM = c.lineStart && b == 'M'
		c.lineStart = b == '\n'
	}
	return n, err
}

func TestHTTPHeaderNamesPlanted(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v0"}, nil)
	s.AddTool(&mcp.Tool{Name: "lookup", Description: "Looks up a region.", InputSchema: lookupSchema(nil)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "found"}}}, nil
		})
	srv := httptest.NewUnstartedServer(strictParams(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})))
	srv.Listener = caseSensitive{srv.Listener}
	srv.Start()
	t.Cleanup(srv.Close)

	got := runOnly(t, url(srv.URL), "http/headers")["http/headers"]
	assert.Equal(t, servercheck.Fail, got.Status, "%s", got)
	assert.Contains(t, got.Detail, "named in lower case (mcp-method, mcp-protocol-version)")
	assert.Contains(t, got.Detail, "named in upper case (MCP-METHOD, MCP-NAME)")
}

// rewrite plants a defect in the JSON bodies a handler answers with:
// old becomes new.
func rewrite(next http.Handler, old, new string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		body := bytes.ReplaceAll(rec.Body.Bytes(), []byte(old), []byte(new))
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.Header().Del("Content-Length")
		w.WriteHeader(rec.Code)
		w.Write(body)
	})
}

func TestToolHeaderAnnotationsPlanted(t *testing.T) {
	for _, tc := range []struct {
		name   string
		extra  map[string]any
		wrap   func(http.Handler) http.Handler
		status servercheck.Status
		detail string
	}{
		{"correct", map[string]any{"nested": map[string]any{"type": "object", "properties": map[string]any{
			"zone": map[string]any{"type": "string", "x-mcp-header": "Zone"}}}}, nil, servercheck.Pass, ""},
		// go-sdk's AddTool looks only down properties keys: it takes this.
		{"under-items", map[string]any{"tags": map[string]any{"type": "array",
			"items": map[string]any{"type": "string", "x-mcp-header": "Tag"}}}, nil, servercheck.Fail,
			`tool "lookup": the x-mcp-header annotation at /properties/tags/items is reached through properties/tags/items`},
		{"not-a-token", nil, func(next http.Handler) http.Handler {
			return rewrite(next, `"x-mcp-header":"Region"`, `"x-mcp-header":"Re gion"`)
		},
			servercheck.Fail, `is "Re gion", not an HTTP field-name token`},
		{"duplicate", nil, func(next http.Handler) http.Handler {
			return rewrite(next, `"x-mcp-header":"Count"`, `"x-mcp-header":"REGION"`)
		},
			servercheck.Fail, `("REGION") and /properties/region ("Region") name one header, ignoring case`},
		{"number", nil, func(next http.Handler) http.Handler {
			return rewrite(next, `"type":"integer","x-mcp-header"`, `"type":"number","x-mcp-header"`)
		}, servercheck.Fail, `annotates a property of type "number"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := goSDKHeaders(t, tc.extra, nil, tc.wrap)
			got := runOnly(t, url(u), "tools/x-mcp-header")["tools/x-mcp-header"]
			assert.Equal(t, tc.status, got.Status, "%s", got)
			assert.Contains(t, got.Detail, tc.detail)
		})
	}
}

func TestHTTPLegacyTrafficPlanted(t *testing.T) {
	only := &mcp.ServerOptions{SupportedProtocolVersions: []string{"2026-07-28"}}
	for _, tc := range []struct {
		name   string
		opts   *mcp.ServerOptions
		wrap   func(http.Handler) http.Handler
		status servercheck.Status
		detail string
	}{
		{"correct", only, nil, servercheck.Pass, ""},
		{"dual-era", nil, nil, servercheck.Skip, "these are of a server that speaks only 2026-07-28"},
		{"get-served", only, func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodGet {
					w.WriteHeader(http.StatusNoContent)
					return
				}
				next.ServeHTTP(w, r)
			})
		}, servercheck.Warn, "sent GET to the MCP endpoint; got HTTP 204"},
		{"session-echoed", only, func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if sid := r.Header.Get("Mcp-Session-Id"); sid != "" {
					w.Header().Set("Mcp-Session-Id", sid)
				}
				next.ServeHTTP(w, r)
			})
		}, servercheck.Warn, "carries Mcp-Session-Id: mcptestkit-check-session"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := goSDKHeaders(t, nil, tc.opts, tc.wrap)
			got := runOnly(t, url(u), "http/legacy-traffic")["http/legacy-traffic"]
			assert.Equal(t, tc.status, got.Status, "%s", got)
			assert.Contains(t, got.Detail, tc.detail)
		})
	}
}
