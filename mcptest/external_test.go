package mcptest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/mcptestkit/mcptestkit/internal/npx"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	mcpgoserver "github.com/mark3labs/mcp-go/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/client/transport"
	"github.com/mcptestkit/mcptestkit/gosdk/gosdktest"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

// cmdServerBuild builds testdata/cmdserver into buildDir, once per test
// binary: linking the go-sdk takes a few seconds, and many tests start it.
var cmdServerBuild = sync.OnceValues(func() (string, error) {
	bin := filepath.Join(buildDir, "cmdserver")
	out, err := exec.Command("go", "build", "-o", bin, "./testdata/cmdserver").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build ./testdata/cmdserver: %v\n%s", err, out)
	}
	return bin, nil
})

// cmdServer returns a command that runs testdata/cmdserver in mode (see
// its package doc).
func cmdServer(t testing.TB, mode string) *exec.Cmd {
	t.Helper()
	bin, err := cmdServerBuild()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "CMDSERVER_MODE="+mode)
	return cmd
}

// cmdserverTwin is an in-process go-sdk server declared exactly as
// testdata/cmdserver's echo tool is, so that a session with either gives
// the same messages.
func cmdserverTwin() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "cmdserver", Version: "1.0.0"}, nil)
	type echoIn struct {
		Text string `json:"text" jsonschema:"the text to echo"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo the text."},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
		})
	return s
}

func gosdkHTTP(s *mcp.Server) http.Handler {
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
}

func mcpgoHTTP(s *mcpgoserver.MCPServer) http.Handler {
	return mcpgoserver.NewStreamableHTTPServer(s)
}

// echoes checks that c's echo tool answers.
func echoes(t testing.TB, c *client.Client, text string) {
	t.Helper()
	res, err := c.CallTool(t.Context(), "echo", map[string]any{"text": text})
	require.NoError(t, err)
	AssertText(t, res, text)
}

func TestConnectCommandEveryVersion(t *testing.T) {
	t.Parallel()
	EachVersion(t, func(t *testing.T, version string) {
		t.Parallel()
		c := ConnectCommand(t, cmdServer(t, ""), WithProtocolVersion(version))
		assert.Equal(t, version, c.ProtocolVersion())
		assert.Equal(t, "cmdserver", c.ServerInfo().Name)
		echoes(t, c, "over stdio at "+version)
	})
}

func TestConnectCommandEraNeutral(t *testing.T) {
	t.Parallel()
	var tr Transcript
	f := runFake(t, func(tb testing.TB) {
		c := ConnectCommand(tb, cmdServer(tb, ""), WithTranscript(&tr))
		assert.True(tb, c.IsModern(), "go-sdk answers server/discover on stdio")
		echoes(tb, c, "hello")
	})
	f.expectPass(t)
	assert.NotContains(t, f.output(), "stderr", "a passing test prints nothing of the server's stderr")
	assert.NotContains(t, f.output(), "transcript")
	msgs := tr.Messages()
	require.Len(t, msgs, 4, "discover and its answer, the call and its answer:\n%s", tr.String())
	assert.Contains(t, string(msgs[0]), `"method":"server/discover"`)
	assert.Contains(t, string(msgs[2]), `"method":"tools/call"`)
	assert.Contains(t, string(msgs[3]), `"text":"hello"`)
}

// A server that never answers a call: the call fails naming the method,
// and the failing test prints the transcript (the cancelled request) and
// the server's stderr.
func TestConnectCommandHungToolFailsNamingTheMethod(t *testing.T) {
	t.Parallel()
	f := runFake(t, func(tb testing.TB) {
		c := ConnectCommand(tb, cmdServer(tb, ""), WithClient(client.Options{Timeout: time.Second}))
		_, err := c.CallTool(tb.Context(), "hang", nil)
		require.NoError(tb, err)
	})
	f.expectFailure(t,
		`tools/call "hang": no response within 1s`,
		"transcript of the connection",
		`the client cancelled tools/call "hang"`,
		"what the server process cmdserver wrote on stderr:",
		"cmdserver: hang: waiting for cancellation",
	)
	assert.NotContains(t, f.output(), "exit", "the server exited cleanly once its stdin closed")
}

// A server that crashes in the middle of a call: the call's error and the
// failed test both carry its exit status and the end of its stderr.
func TestConnectCommandCrashFailsWithStderr(t *testing.T) {
	t.Parallel()
	var callErr error
	f := runFake(t, func(tb testing.TB) {
		c := ConnectCommand(tb, cmdServer(tb, ""))
		_, callErr = c.CallTool(tb.Context(), "crash", nil)
	})
	require.Error(t, callErr)
	assert.ErrorIs(t, callErr, transport.ErrProcessExited)
	assert.Contains(t, callErr.Error(), "the database handle is gone", "the error quotes stderr")
	f.expectFailure(t,
		"the server process cmdserver exited during the test (exit status 3)",
		"what the server process cmdserver wrote on stderr:",
		"cmdserver: crash: the database handle is gone",
		`no response to tools/call "crash"`,
	)
}

func TestConnectCommandCrashCanBeExpected(t *testing.T) {
	t.Parallel()
	f := runFake(t, func(tb testing.TB) {
		c := ConnectCommand(tb, cmdServer(tb, ""), WithoutExitCheck())
		_, err := c.CallTool(tb.Context(), "crash", nil)
		assert.ErrorIs(tb, err, transport.ErrProcessExited)
	})
	f.expectPass(t)
}

func TestConnectCommandExitAtStart(t *testing.T) {
	t.Parallel()
	f := runFake(t, func(tb testing.TB) { ConnectCommand(tb, cmdServer(tb, "exit")) })
	f.expectFailure(t,
		"mcptest.ConnectCommand: client: Connect:",
		"server process exited",
		"exit status 3",
		"no such file /nonexistent/cmdserver.toml",
	)
	assert.NotContains(t, f.output(), "exited during the test", "the handshake failure already said it")
}

// A line over the limit breaks the stream. The harness reports that alone,
// not the exit status the server ends with afterwards (fail-on-exit exits 1),
// and the server is not left blocked writing the rest of its line.
func TestConnectCommandLineTooLongIsReportedAlone(t *testing.T) {
	t.Parallel()
	f := runFake(t, func(tb testing.TB) {
		c := ConnectCommand(tb, cmdServer(tb, "fail-on-exit"), WithCommandOptions(transport.WithMaxLineSize(64<<10)))
		_, err := c.CallTool(tb.Context(), "big", nil)
		assert.ErrorIs(tb, err, transport.ErrLineTooLong)
	})
	f.expectFailure(t, "mcptest: the connection to the server process cmdserver broke:", "longer than the limit", "more than 65536 bytes")
	assert.NotContains(t, f.output(), "after its stdin closed")
	assert.NotContains(t, f.output(), "stopped with a signal")
}

func TestConnectCommandNonZeroExit(t *testing.T) {
	t.Parallel()
	f := runFake(t, func(tb testing.TB) {
		c := ConnectCommand(tb, cmdServer(tb, "fail-on-exit"))
		echoes(tb, c, "x")
	})
	f.expectFailure(t, "the server process cmdserver exited with exit status 1 after its stdin closed")
}

func TestConnectCommandLogStderr(t *testing.T) {
	t.Parallel()
	f := runFake(t, func(tb testing.TB) {
		c := ConnectCommand(tb, cmdServer(tb, ""), LogStderr())
		echoes(tb, c, "logged")
	})
	f.expectPass(t)
	assert.Contains(t, f.output(), `mcptest: server stderr: cmdserver: echo "logged"`)
}

func TestConnectCommandBadCommand(t *testing.T) {
	t.Parallel()
	runFake(t, func(tb testing.TB) { ConnectCommand(tb, nil) }).expectFailure(t, "mcptest.ConnectCommand: the command is nil")
	runFake(t, func(tb testing.TB) {
		ConnectCommand(tb, exec.Command(filepath.Join(t.TempDir(), "no-such-server")))
	}).expectFailure(t, "mcptest.ConnectCommand:", `starting stdio server "no-such-server"`)
}

// TestConnectCommandServerEverything runs the reference TypeScript server
// through npx. It is skipped where npx is not on PATH or the npm registry
// is out of reach, unless MCPTEST_NPM=1 (see internal/npx).
func TestConnectCommandServerEverything(t *testing.T) {
	t.Parallel()
	npx := npx.Path(t, "@modelcontextprotocol/server-everything@2026.8.31")
	// The first run may download the package; later ones start in a second
	// or two.
	c := ConnectCommand(t, exec.Command(npx, "-y", "@modelcontextprotocol/server-everything@2026.8.31"),
		WithClient(client.Options{Timeout: 3 * time.Minute}), WithCommandOptions(transport.WithGracePeriod(2*time.Second)))
	assert.False(t, c.IsModern(), "this release is a legacy server: the client fell back to initialize")
	assert.Equal(t, "mcp-servers/everything", c.ServerInfo().Name)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	res, err := c.CallTool(ctx, "echo", map[string]any{"message": "from mcptest"})
	require.NoError(t, err)
	AssertToolSuccess(t, res)
	assert.Contains(t, resultText(res), "from mcptest")
}

func resultText(res *client.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*client.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// httpServer is a streamable HTTP handler the HTTP tests run against, and
// the protocol versions it serves.
type httpServer struct {
	name     string
	handler  func() http.Handler
	versions []string
}

// httpServers are both SDKs' streamable HTTP handlers, each serving an echo
// tool. go-sdk's stateful handler (sessions) serves the legacy versions
// only; its stateless one serves 2026-07-28 too.
func httpServers() []httpServer {
	legacy := client.SupportedVersions()[1:]
	return []httpServer{
		{"gosdk-stateful", func() http.Handler { return gosdkHTTP(probeServer(nil)) }, legacy},
		{"gosdk-stateless", func() http.Handler { return gosdkStateless(probeServer(nil)) }, client.SupportedVersions()},
		{"mcpgo", func() http.Handler { return mcpgoHTTP(mcpgoServer()) }, client.SupportedVersions()},
	}
}

func gosdkStateless(s *mcp.Server) http.Handler {
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{Stateless: true, PropagateRequestCancellation: true})
}

func TestConnectHTTPEveryVersion(t *testing.T) {
	t.Parallel()
	for _, srv := range httpServers() {
		t.Run(srv.name, func(t *testing.T) {
			t.Parallel()
			h := srv.handler()
			for _, version := range srv.versions {
				t.Run(version, func(t *testing.T) {
					t.Parallel()
					c := ConnectHTTP(t, h, WithProtocolVersion(version))
					assert.Equal(t, version, c.ProtocolVersion())
					echoes(t, c, srv.name+" in process at "+version)
				})
			}
		})
	}
}

// A server that never answers fails ConnectURL within its timeout, for the
// probe and for a pinned legacy initialize alike, instead of hanging.
func TestConnectURLNeverAnswering(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body) // net/http sees the client go away only once the body is read
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	for _, opts := range [][]Option{nil, {WithProtocolVersion("2025-06-18")}} {
		opts = append(opts, WithClient(client.Options{Timeout: 300 * time.Millisecond}))
		f := runFake(t, func(tb testing.TB) { ConnectURL(tb, srv.URL, opts...) })
		f.expectFailure(t, "mcptest.ConnectURL: the server did not complete the handshake within 300ms")
	}
}

func TestConnectURLEveryVersion(t *testing.T) {
	t.Parallel()
	for _, srv := range httpServers() {
		t.Run(srv.name, func(t *testing.T) {
			t.Parallel()
			hs := httptest.NewServer(srv.handler()) // 127.0.0.1
			t.Cleanup(hs.Close)
			for _, version := range srv.versions {
				t.Run(version, func(t *testing.T) {
					t.Parallel()
					c := ConnectURL(t, hs.URL, WithProtocolVersion(version))
					assert.Equal(t, version, c.ProtocolVersion())
					echoes(t, c, srv.name+" over a socket at "+version)
				})
			}
		})
	}
}

func TestConnectHTTPEraNeutral(t *testing.T) {
	t.Parallel()
	for _, srv := range httpServers() {
		t.Run(srv.name, func(t *testing.T) {
			t.Parallel()
			c := ConnectHTTP(t, srv.handler())
			assert.Equal(t, srv.versions[0], c.ProtocolVersion(), "the newest version both sides speak")
			echoes(t, c, "era-neutral")
			hs := httptest.NewServer(srv.handler())
			t.Cleanup(hs.Close)
			c = ConnectURL(t, hs.URL)
			assert.Equal(t, srv.versions[0], c.ProtocolVersion())
			echoes(t, c, "era-neutral over a socket")
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

func TestConnectHTTPHungToolFailsNamingTheMethod(t *testing.T) {
	t.Parallel()
	servers := map[string]http.Handler{
		client.LatestVersion:       gosdkStateless(probeServer(hangingTool)),
		client.LatestLegacyVersion: gosdkHTTP(probeServer(hangingTool)),
	}
	for version, h := range servers {
		hs := httptest.NewServer(h)
		t.Cleanup(hs.Close)
		for name, connect := range map[string]func(tb testing.TB, opts ...Option) *client.Client{
			"handler": func(tb testing.TB, opts ...Option) *client.Client { return ConnectHTTP(tb, h, opts...) },
			"url":     func(tb testing.TB, opts ...Option) *client.Client { return ConnectURL(tb, hs.URL, opts...) },
		} {
			t.Run(version+"/"+name, func(t *testing.T) {
				t.Parallel()
				f := runFake(t, func(tb testing.TB) {
					c := connect(tb, WithClient(client.Options{Timeout: time.Second}), WithProtocolVersion(version))
					_, err := c.CallTool(tb.Context(), "hang", nil)
					require.NoError(tb, err)
				})
				f.expectFailure(t, `tools/call "hang": no response within 1s`, "transcript of the connection", `the client cancelled tools/call "hang"`)
			})
		}
	}
}

// A handler that never answers at all: the handshake fails within the
// timeout, naming the method it waited for.
func TestConnectHTTPSilentHandler(t *testing.T) {
	t.Parallel()
	silent := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	f := runFake(t, func(tb testing.TB) {
		ConnectHTTP(tb, silent, WithClient(client.Options{Timeout: 300 * time.Millisecond}))
	})
	f.expectFailure(t, "mcptest.ConnectHTTP: the server did not complete the handshake within 300ms", "no response to server/discover")
}

// panicOn wraps h with a handler that panics on any request whose body
// mentions word, as a server with a bug on one path does.
func panicOn(word string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if strings.Contains(string(body), word) {
			panic("handler exploded on " + word)
		}
		h.ServeHTTP(w, r)
	})
}

func TestConnectHTTPHandlerPanicFailsTheTest(t *testing.T) {
	t.Parallel()
	h := panicOn(`"tools/call"`, gosdkHTTP(probeServer(nil)))
	var callErr error
	f := runFake(t, func(tb testing.TB) {
		c := ConnectHTTP(tb, h)
		_, callErr = c.CallTool(tb.Context(), "echo", map[string]any{"text": "x"})
	})
	f.expectFailure(t, "mcptest: the HTTP handler panicked serving a POST request: handler exploded on \"tools/call\"", "Install the crash guard", "panicOn.func")
	AssertProtocolError(t, callErr, transport.CodeHTTPError)

	f = runFake(t, func(tb testing.TB) {
		c := ConnectHTTP(tb, h, WithoutCrashReports())
		_, err := c.CallTool(tb.Context(), "echo", map[string]any{"text": "x"})
		AssertProtocolError(tb, err, transport.CodeHTTPError)
	})
	f.expectPass(t)
	assert.Contains(t, f.output(), "handler exploded", "the panic is still logged")
}

// mcp-go runs a tool handler on the HTTP handler's goroutine: its panic
// reaches the transport's recovery, and the harness fails the test.
func TestConnectHTTPMCPGoToolPanicFailsTheTest(t *testing.T) {
	t.Parallel()
	for _, version := range []string{client.LatestVersion, client.LatestLegacyVersion} {
		f := runFake(t, func(tb testing.TB) {
			c := ConnectHTTP(tb, mcpgoHTTP(mcpgoServer()), WithProtocolVersion(version))
			_, err := c.CallTool(tb.Context(), "boom", nil)
			AssertProtocolError(tb, err, transport.CodeHTTPError)
		})
		f.expectFailure(t, "the HTTP handler panicked serving a POST request: kaboom", "mcpgo.Guard(logger)(srv)", "mcptest.explode")
	}
}

// What the HTTP transport reports by itself reaches the test's log, and is
// not a failure: here a tool with an x-mcp-header annotation inside array
// items, which go-sdk accepts and the transport must drop from tools/list at
// 2026-07-28 (a header can only carry a top-level primitive).
func TestConnectHTTPTransportWarningsGoToTheLog(t *testing.T) {
	t.Parallel()
	s := probeServer(func(s *mcp.Server) {
		s.AddTool(&mcp.Tool{Name: "hidden", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"array","items":{"type":"string","x-mcp-header":"Item"}}}}`)},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{}, nil
			})
	})
	var names []string
	f := runFake(t, func(tb testing.TB) {
		c := ConnectHTTP(tb, gosdkStateless(s), WithProtocolVersion(client.LatestVersion))
		list, err := c.ListTools(tb.Context(), "")
		require.NoError(tb, err)
		for _, tool := range list.Tools {
			names = append(names, tool.Name)
		}
	})
	f.expectPass(t)
	assert.NotContains(t, names, "hidden")
	assert.Contains(t, names, "echo")
	assert.Contains(t, f.output(), `mcptest: level=WARN msg="transport: dropping a tool from tools/list: invalid x-mcp-header annotation" tool=hidden`)
}

// The leak check sees a goroutine that a tool started while serving an
// HTTP request, in both eras: the handler goroutines carry the
// connection's label even for calls made after Connect returned.
func TestConnectHTTPLeakCheckReachesHandlers(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	t.Cleanup(func() { close(release) }) // after the subtests
	spawner := spawnServer(release)
	for version, h := range map[string]http.Handler{
		client.LatestVersion:       gosdkStateless(spawner),
		client.LatestLegacyVersion: gosdkHTTP(spawner),
	} {
		t.Run(version, func(t *testing.T) {
			t.Parallel() // each waits leakedWait out
			f := runFake(t, func(tb testing.TB) {
				c := ConnectHTTP(tb, h, WithProtocolVersion(version), withLeakWait(leakedWait))
				_, err := c.CallTool(tb.Context(), "spawn", nil)
				require.NoError(tb, err)
			})
			f.expectFailure(t, "goroutine leak", "1 goroutine(s) started by the connection", "mcptest.blockForever")
		})
	}
}

func TestConnectBadArguments(t *testing.T) {
	t.Parallel()
	runFake(t, func(tb testing.TB) { ConnectHTTP(tb, nil) }).expectFailure(t, "mcptest.ConnectHTTP: the handler is nil")
	runFake(t, func(tb testing.TB) { ConnectTransport(tb, nil) }).expectFailure(t, "mcptest.ConnectTransport: the transport is nil")
	for _, bad := range []string{"", "localhost:8080/mcp", "ftp://127.0.0.1/mcp", "http://", "http://[::1"} {
		runFake(t, func(tb testing.TB) { ConnectURL(tb, bad) }).expectFailure(t, fmt.Sprintf("mcptest.ConnectURL: bad URL %q", bad))
	}
}

// ConnectTransport takes any transport: here one end of an in-memory pair
// whose other end a go-sdk server serves.
func TestConnectTransportAnyTransport(t *testing.T) {
	t.Parallel()
	cliEnd, srvEnd := memtransport.Pair()
	served := make(chan error, 1)
	go func() { served <- gosdktest.Server(probeServer(nil)).Serve(context.Background(), srvEnd) }()
	t.Cleanup(func() {
		srvEnd.Close()
		assert.NoError(t, <-served)
	})
	var tr Transcript
	c := ConnectTransport(t, cliEnd, WithProtocolVersion(client.LatestLegacyVersion), WithTranscript(&tr))
	echoes(t, c, "any transport")
	assert.Len(t, tr.Snapshot().Entries, 5, "initialize, its result, initialized, the call, its result")
	assert.Equal(t, srvEnd.Transcript().Entries[4].Data, tr.Snapshot().Entries[4].Data, "the recorder saw what crossed")
}

// A failing assertion on an external connection prints its transcript.
func TestExternalTranscriptOnFailure(t *testing.T) {
	t.Parallel()
	h := gosdkHTTP(probeServer(nil))
	for name, connect := range map[string]func(tb testing.TB, opts ...Option) *client.Client{
		"command": func(tb testing.TB, opts ...Option) *client.Client {
			return ConnectCommand(tb, cmdServer(tb, ""), opts...)
		},
		"http": func(tb testing.TB, opts ...Option) *client.Client { return ConnectHTTP(tb, h, opts...) },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := runFake(t, func(tb testing.TB) {
				res, err := connect(tb).CallTool(tb.Context(), "echo", map[string]any{"text": "marker-text"})
				require.NoError(tb, err)
				AssertText(tb, res, "something else")
			})
			f.expectFailure(t, "transcript of the connection", "client→server", "server→client", `"method":"tools/call"`, "marker-text")
			assert.NotContains(t, f.output(), "no response to")
		})
	}
}

// The same session, pinned to one version, gives the same messages in
// memory, over stdio and over HTTP: one golden file for all three.
func TestSessionGoldenAcrossTransports(t *testing.T) {
	t.Parallel()
	for name, connect := range map[string]func(tb testing.TB, opts ...Option) *client.Client{
		"memory": func(tb testing.TB, opts ...Option) *client.Client {
			return Connect(tb, gosdktest.Server(cmdserverTwin()), opts...)
		},
		"command": func(tb testing.TB, opts ...Option) *client.Client {
			return ConnectCommand(tb, cmdServer(tb, ""), opts...)
		},
		"http": func(tb testing.TB, opts ...Option) *client.Client {
			return ConnectHTTP(tb, gosdkHTTP(cmdserverTwin()), opts...)
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, version := range []string{client.LatestVersion, client.LatestLegacyVersion} {
				if name == "http" && version == client.LatestVersion {
					continue // go-sdk serves 2026-07-28 over HTTP only when stateless
				}
				var tr Transcript
				c := connect(t, WithProtocolVersion(version), WithTranscript(&tr))
				echoes(t, c, "golden")
				Golden(t, "external/session-"+version, tr.Messages())
			}
		})
	}
}
