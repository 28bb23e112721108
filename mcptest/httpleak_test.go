package mcptest

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// upstream is an HTTP API a tool handler calls: 127.0.0.1, answering 200.
// Closing it at the end of the test also closes http.DefaultTransport's
// idle connections to it.
func upstream(t *testing.T, http2 bool) *httptest.Server {
	t.Helper()
	hs := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, `{"weather":"sunny"}`)
	}))
	if http2 {
		hs.EnableHTTP2 = true
		hs.StartTLS()
	} else {
		hs.Start()
	}
	t.Cleanup(hs.Close)
	return hs
}

// fetchTool adds a tool that GETs url with hc, and, unless keepBody is
// set, reads and closes the body. A kept body is sent on keepBody, for
// the test to close. The request has no context, as with http.Get: one
// that ended with the call would close a connection whose body is kept.
func fetchTool(hc *http.Client, url string, keepBody chan<- io.Closer) *fakeTool {
	return newTool("fetch", func(context.Context, *fakeCall) (*fakeResult, error) {
		resp, err := hc.Get(url)
		if err != nil {
			return nil, err
		}
		if keepBody != nil {
			keepBody <- resp.Body
			return fakeText(resp.Status), nil
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		return fakeText(string(body)), err
	})
}

// A handler's request through a pooled HTTP client leaves the connection
// idle in the client's pool, with net/http's goroutines carrying the
// connection's label: they belong to the pool, not to the MCP connection,
// so the check, made at once with the default wait, neither reports them
// nor waits for them to end (they would not, within the wait).
func TestIdleHTTPClientConnectionsAreNotLeaks(t *testing.T) {
	t.Parallel()
	own := &http.Transport{}
	t.Cleanup(own.CloseIdleConnections)
	plain, secure := upstream(t, false), upstream(t, true)
	for name, tc := range map[string]struct {
		hc  *http.Client
		url string
	}{
		"http.DefaultClient": {http.DefaultClient, plain.URL},
		"own Transport":      {&http.Client{Transport: own}, plain.URL},
		"HTTP/2":             {secure.Client(), secure.URL},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := probeServer(fetchTool(tc.hc, tc.url, nil))
			f := runFake(t, func(tb testing.TB) {
				c := Connect(tb, srv, withLeakWait(defaultLeakWait))
				res, err := c.CallTool(tb.Context(), "fetch", nil)
				require.NoError(tb, err)
				Assert(tb).Text(res, `{"weather":"sunny"}`)
			})
			f.expectPass(t)
		})
	}
}

// ignoreLeaksHint matches the IgnoreLeaks call a leak report suggests.
var ignoreLeaksHint = regexp.MustCompile(`mcptest\.IgnoreLeaks\(([^)]*)\)`)

// suggestedIgnores returns the functions the IgnoreLeaks call in out
// names, failing t unless there is exactly one such call.
func suggestedIgnores(t *testing.T, out string) []string {
	t.Helper()
	calls := ignoreLeaksHint.FindAllStringSubmatch(out, -1)
	require.Len(t, calls, 1, "one IgnoreLeaks suggestion in:\n%s", out)
	var fns []string
	for arg := range strings.SplitSeq(calls[0][1], ", ") {
		fn, err := strconv.Unquote(arg)
		require.NoError(t, err, "argument %s of the suggestion in:\n%s", arg, out)
		fns = append(fns, fn)
	}
	return fns
}

// A real leak beside an idle HTTP connection is reported alone, and the
// hint names the leaked goroutine's function, so that the suggested
// IgnoreLeaks call, used as written, makes the test pass.
func TestLeakHintNamesTheLeakedFunction(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	defer close(release)
	hs := upstream(t, false)
	// A pool of its own: httptest.Server.Close closes every idle connection
	// of http.DefaultTransport, and another test's doing so while this leak
	// is waited out could add a closing reader to the report.
	pool := &http.Transport{}
	t.Cleanup(pool.CloseIdleConnections)
	fetch := fetchTool(&http.Client{Transport: pool}, hs.URL, nil)
	srv := probeServer(fetch, newTool("spawn", func(context.Context, *fakeCall) (*fakeResult, error) {
		go blockForever(release)
		return fakeText("started"), nil
	}))
	leaky := func(opts ...Option) *fakeTB {
		return runFake(t, func(tb testing.TB) {
			c := Connect(tb, srv, opts...)
			for _, tool := range []string{"fetch", "spawn"} {
				_, err := c.CallTool(tb.Context(), tool, nil)
				require.NoError(tb, err)
			}
		})
	}
	f := leaky(withLeakWait(leakedWait))
	f.expectFailure(t, "mcptest: goroutine leak: 1 goroutine(s) started by the connection",
		`mcptest.IgnoreLeaks("github.com/mcptestkit/mcptestkit/mcptest.blockForever")`)
	assert.NotContains(t, f.output(), "persistConn")
	assert.NotContains(t, f.output(), "<function>")

	leaky(withLeakWait(leakedWait), IgnoreLeaks(suggestedIgnores(t, f.output())...)).expectPass(t)
}

// A response body never closed keeps its HTTP/1 connection out of the
// pool, net/http's reader waiting for it: a leak of the handler, reported
// with what to fix.
func TestUnclosedHTTPResponseBodyIsALeak(t *testing.T) {
	t.Parallel()
	hs := upstream(t, false)
	bodies := make(chan io.Closer, 1)
	srv := probeServer(fetchTool(http.DefaultClient, hs.URL, bodies))
	f := runFake(t, func(tb testing.TB) {
		c := Connect(tb, srv, withLeakWait(leakedWait))
		_, err := c.CallTool(tb.Context(), "fetch", nil)
		require.NoError(tb, err)
	})
	require.NoError(t, (<-bodies).Close()) // the connection can go back to the pool
	f.expectFailure(t, "mcptest: goroutine leak: 1 goroutine(s) started by the connection",
		"net/http.(*persistConn).readLoop", "holds an HTTP response whose body was never closed",
		`mcptest.IgnoreLeaks("net/http.(*persistConn).readLoop")`)
}
