package mcptest_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/client/transport"
	"github.com/mcptestkit/mcptestkit/mcptest"
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
