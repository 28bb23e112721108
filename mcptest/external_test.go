package mcptest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/client/transport"
	"github.com/mcptestkit/mcptestkit/internal/npx"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

// echoes checks that c's echo tool answers.
func echoes(t testing.TB, c *client.Client, text string) {
	t.Helper()
	res, err := c.CallTool(t.Context(), "echo", map[string]any{"text": text})
	require.NoError(t, err)
	Assert(t).Text(res, text)
}

// One Command server serves every connection, in parallel: each starts a
// copy of its command.
func TestCommandEveryVersion(t *testing.T) {
	t.Parallel()
	srv := Command(cmdServer(t, ""))
	EachVersion(t, func(t *testing.T, version string) {
		t.Parallel()
		c := Connect(t, srv, WithProtocolVersion(version))
		assert.Equal(t, version, c.ProtocolVersion())
		assert.Equal(t, "cmdserver", c.ServerInfo().Name)
		echoes(t, c, "over stdio at "+version)
	})
}

func TestCommandEraNeutral(t *testing.T) {
	t.Parallel()
	var tr Transcript
	f := runFake(t, func(tb testing.TB) {
		c := Connect(tb, Command(cmdServer(tb, "")), WithTranscript(&tr))
		assert.True(tb, c.IsModern(), "the server answers server/discover on stdio")
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
// the server's stderr. Only the call that never answers has a short bound:
// the process's start and handshake keep the default one, so a loaded
// machine cannot turn them into the failure.
func TestCommandHungToolFailsNamingTheMethod(t *testing.T) {
	t.Parallel()
	f := runFake(t, func(tb testing.TB) {
		c := Connect(tb, Command(cmdServer(tb, "")))
		_, err := c.CallTool(tb.Context(), "hang", nil, client.WithTimeout(time.Second))
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
func TestCommandCrashFailsWithStderr(t *testing.T) {
	t.Parallel()
	var callErr error
	f := runFake(t, func(tb testing.TB) {
		c := Connect(tb, Command(cmdServer(tb, "")))
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

func TestCommandCrashCanBeExpected(t *testing.T) {
	t.Parallel()
	f := runFake(t, func(tb testing.TB) {
		c := Connect(tb, Command(cmdServer(tb, "")), WithoutExitCheck())
		_, err := c.CallTool(tb.Context(), "crash", nil)
		assert.ErrorIs(tb, err, transport.ErrProcessExited)
	})
	f.expectPass(t)
}

func TestCommandExitAtStart(t *testing.T) {
	t.Parallel()
	f := runFake(t, func(tb testing.TB) { Connect(tb, Command(cmdServer(tb, "exit"))) })
	f.expectFailure(t,
		"mcptest.Connect: client: Connect:",
		"server process exited",
		"exit status 3",
		"no such file /nonexistent/cmdserver.toml",
	)
	assert.NotContains(t, f.output(), "exited during the test", "the handshake failure already said it")
}

// A line over the limit breaks the stream. The harness reports that alone,
// not the exit status the server ends with afterwards (fail-on-exit exits 1),
// and the server is not left blocked writing the rest of its line.
func TestCommandLineTooLongIsReportedAlone(t *testing.T) {
	t.Parallel()
	f := runFake(t, func(tb testing.TB) {
		c := Connect(tb, Command(cmdServer(tb, "fail-on-exit"), transport.WithMaxLineSize(64<<10)))
		_, err := c.CallTool(tb.Context(), "big", nil)
		assert.ErrorIs(tb, err, transport.ErrLineTooLong)
	})
	f.expectFailure(t, "mcptest: the connection to the server process cmdserver broke:", "longer than the limit", "more than 65536 bytes")
	assert.NotContains(t, f.output(), "after its stdin closed")
	assert.NotContains(t, f.output(), "stopped with a signal")
}

func TestCommandNonZeroExit(t *testing.T) {
	t.Parallel()
	f := runFake(t, func(tb testing.TB) {
		c := Connect(tb, Command(cmdServer(tb, "fail-on-exit")))
		echoes(tb, c, "x")
	})
	f.expectFailure(t, "the server process cmdserver exited with exit status 1 after its stdin closed")
}

func TestCommandLogStderr(t *testing.T) {
	t.Parallel()
	f := runFake(t, func(tb testing.TB) {
		c := Connect(tb, Command(cmdServer(tb, "")), LogStderr())
		echoes(tb, c, "logged")
	})
	f.expectPass(t)
	assert.Contains(t, f.output(), `mcptest: server stderr: cmdserver: echo "logged"`)
}

func TestCommandBadCommand(t *testing.T) {
	t.Parallel()
	runFake(t, func(tb testing.TB) { Connect(tb, Command(nil)) }).expectFailure(t, "mcptest.Connect: mcptest.Command: the command is nil")
	runFake(t, func(tb testing.TB) {
		Connect(tb, Command(exec.Command(filepath.Join(t.TempDir(), "no-such-server"))))
	}).expectFailure(t, "mcptest.Connect:", `starting stdio server "no-such-server"`)
}

// TestCommandServerEverything runs the reference TypeScript server
// through npx. It is skipped where npx is not on PATH or the npm registry
// is out of reach, unless MCPTEST_NPM=1 (see internal/npx).
func TestCommandServerEverything(t *testing.T) {
	t.Parallel()
	npx := npx.Path(t, "@modelcontextprotocol/server-everything@2026.8.31")
	// The first run may download the package; later ones start in a second
	// or two.
	c := Connect(t, Command(exec.Command(npx, "-y", "@modelcontextprotocol/server-everything@2026.8.31"), transport.WithGracePeriod(2*time.Second)), WithClient(client.Options{Timeout: 3 * time.Minute}))
	assert.False(t, c.IsModern(), "this release is a legacy server: the client fell back to initialize")
	assert.Equal(t, "mcp-servers/everything", c.ServerInfo().Name)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	res, err := c.CallTool(ctx, "echo", map[string]any{"message": "from mcptest"})
	require.NoError(t, err)
	Assert(t).ToolSuccess(res)
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

// The HTTP tests serve the fake statelessly (fakeServer.handler), at every
// version; the SDKs' handlers are served in the integration module.

func TestHandlerEveryVersion(t *testing.T) {
	t.Parallel()
	h := probeServer().handler()
	hs := httptest.NewServer(h) // 127.0.0.1
	t.Cleanup(hs.Close)
	EachVersion(t, func(t *testing.T, version string) {
		t.Parallel()
		c := Connect(t, Handler(h))
		assert.Equal(t, version, c.ProtocolVersion())
		echoes(t, c, "in process at "+version)
		c = Connect(t, URL(hs.URL))
		assert.Equal(t, version, c.ProtocolVersion())
		echoes(t, c, "over a socket at "+version)
	})
}

// A server that never answers fails Connect to its URL within its timeout, for the
// probe and for a pinned legacy initialize alike, instead of hanging.
func TestURLNeverAnswering(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body) // net/http sees the client go away only once the body is read
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	for _, opts := range [][]Option{nil, {WithProtocolVersion("2025-06-18")}} {
		opts = append(opts, WithClient(client.Options{Timeout: 300 * time.Millisecond}))
		f := runFake(t, func(tb testing.TB) { Connect(tb, URL(srv.URL), opts...) })
		f.expectFailure(t, "mcptest.Connect: the server did not complete the handshake within 300ms")
	}
}

func TestHandlerEraNeutral(t *testing.T) {
	t.Parallel()
	h := probeServer().handler()
	c := Connect(t, Handler(h))
	assert.Equal(t, client.LatestVersion, c.ProtocolVersion(), "the newest version both sides speak")
	echoes(t, c, "era-neutral")
	hs := httptest.NewServer(h)
	t.Cleanup(hs.Close)
	c = Connect(t, URL(hs.URL))
	assert.Equal(t, client.LatestVersion, c.ProtocolVersion())
	echoes(t, c, "era-neutral over a socket")

	// A legacy server: the probe falls back to initialize.
	c = Connect(t, Handler(versionsServer(client.LatestLegacyVersion).handler()))
	assert.Equal(t, client.LatestLegacyVersion, c.ProtocolVersion())
}

func TestHandlerHungToolFailsNamingTheMethod(t *testing.T) {
	t.Parallel()
	h := probeServer(hangingTool()).handler()
	for _, version := range []string{client.LatestVersion, client.LatestLegacyVersion} {
		hs := httptest.NewServer(h)
		t.Cleanup(hs.Close)
		for name, connect := range map[string]func(tb testing.TB, opts ...Option) *client.Client{
			"handler": func(tb testing.TB, opts ...Option) *client.Client { return Connect(tb, Handler(h), opts...) },
			"url":     func(tb testing.TB, opts ...Option) *client.Client { return Connect(tb, URL(hs.URL), opts...) },
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
func TestHandlerSilentHandler(t *testing.T) {
	t.Parallel()
	silent := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	f := runFake(t, func(tb testing.TB) {
		Connect(tb, Handler(silent), WithClient(client.Options{Timeout: 300 * time.Millisecond}))
	})
	f.expectFailure(t, "mcptest.Connect: the server did not complete the handshake within 300ms", "no response to server/discover")
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

func TestHandlerHandlerPanicFailsTheTest(t *testing.T) {
	t.Parallel()
	h := panicOn(`"tools/call"`, probeServer().handler())
	var callErr error
	f := runFake(t, func(tb testing.TB) {
		c := Connect(tb, Handler(h))
		_, callErr = c.CallTool(tb.Context(), "echo", map[string]any{"text": "x"})
	})
	f.expectFailure(t, "mcptest: the HTTP handler panicked serving a POST request: handler exploded on \"tools/call\"", "Install the crash guard", "panicOn.func")
	Assert(t).ProtocolError(callErr, transport.CodeHTTPError)

	f = runFake(t, func(tb testing.TB) {
		c := Connect(tb, Handler(h), WithoutCrashReports())
		_, err := c.CallTool(tb.Context(), "echo", map[string]any{"text": "x"})
		Assert(tb).ProtocolError(err, transport.CodeHTTPError)
	})
	f.expectPass(t)
	assert.Contains(t, f.output(), "handler exploded", "the panic is still logged")
}

// A server that runs a tool handler on the HTTP handler's goroutine (the
// fake, as mcp-go does): its panic reaches the transport's recovery, and the
// harness fails the test.
func TestHandlerToolPanicFailsTheTest(t *testing.T) {
	t.Parallel()
	h := probeServer(boomTool()).handler()
	for _, version := range []string{client.LatestVersion, client.LatestLegacyVersion} {
		f := runFake(t, func(tb testing.TB) {
			c := Connect(tb, Handler(h), WithProtocolVersion(version))
			_, err := c.CallTool(tb.Context(), "boom", nil)
			Assert(tb).ProtocolError(err, transport.CodeHTTPError)
		})
		f.expectFailure(t, "the HTTP handler panicked serving a POST request: kaboom", "mcpgo.Guard(logger)(srv)", "mcptest.explode")
	}
}

// What the HTTP transport reports by itself reaches the test's log, and is
// not a failure: here a tool with an x-mcp-header annotation inside array
// items, which a server may list (go-sdk does) and the transport must drop
// from tools/list at 2026-07-28 (a header can only carry a top-level
// primitive). The server breaks a MUST doing so, which the protocol monitor
// reports: here it only logs.
func TestHandlerTransportWarningsGoToTheLog(t *testing.T) {
	t.Parallel()
	hidden := newTool("hidden", func(context.Context, *fakeCall) (*fakeResult, error) { return fakeText(""), nil })
	hidden.input = `{"type":"object","properties":{"a":{"type":"array","items":{"type":"string","x-mcp-header":"Item"}}}}`
	s := probeServer(hidden)
	var names []string
	f := runFake(t, func(tb testing.TB) {
		c := Connect(tb, Handler(s.handler()), WithProtocolVersion(client.LatestVersion), Monitor(MonitorLog))
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
	assert.Contains(t, f.output(), `monitor/header-annotation (MUST`)
}

// The leak check sees a goroutine that a tool started while serving an
// HTTP request, in both eras: the handler goroutines carry the
// connection's label even for calls made after Connect returned.
func TestHandlerLeakCheckReachesHandlers(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	t.Cleanup(func() { close(release) }) // after the subtests
	h := spawnServer(release).handler()
	for _, version := range []string{client.LatestVersion, client.LatestLegacyVersion} {
		t.Run(version, func(t *testing.T) {
			t.Parallel() // each waits leakedWait out
			f := runFake(t, func(tb testing.TB) {
				c := Connect(tb, Handler(h), WithProtocolVersion(version), withLeakWait(leakedWait))
				_, err := c.CallTool(tb.Context(), "spawn", nil)
				require.NoError(tb, err)
			})
			f.expectFailure(t, "goroutine leak", "1 goroutine(s) started by the connection", "mcptest.blockForever")
		})
	}
}

func TestConnectBadArguments(t *testing.T) {
	t.Parallel()
	runFake(t, func(tb testing.TB) { Connect(tb, Handler(nil)) }).expectFailure(t, "mcptest.Connect: mcptest.Handler: the handler is nil")
	runFake(t, func(tb testing.TB) { Connect(tb, Transport(nil)) }).expectFailure(t, "mcptest.Connect: mcptest.Transport: the dial function is nil")
	runFake(t, func(tb testing.TB) {
		Connect(tb, Transport(func(context.Context) (client.Transport, error) { return nil, nil }))
	}).expectFailure(t, "mcptest.Connect: mcptest.Transport: the dial function returned neither a transport nor an error")
	for _, bad := range []string{"", "localhost:8080/mcp", "ftp://127.0.0.1/mcp", "http://", "http://[::1"} {
		runFake(t, func(tb testing.TB) { Connect(tb, URL(bad)) }).expectFailure(t, fmt.Sprintf("mcptest.Connect: mcptest.URL: bad URL %q", bad))
	}
}

// A Transport server takes any transport: here one end of an in-memory
// pair whose other end a server serves.
func TestTransportAnyTransport(t *testing.T) {
	t.Parallel()
	cliEnd, srvEnd := memtransport.Pair()
	served := make(chan error, 1)
	go func() { served <- probeServer().Serve(context.Background(), srvEnd) }()
	t.Cleanup(func() {
		srvEnd.Close()
		assert.NoError(t, <-served)
	})
	var tr Transcript
	dial := func(context.Context) (client.Transport, error) { return cliEnd, nil }
	c := Connect(t, Transport(dial), WithProtocolVersion(client.LatestLegacyVersion), WithTranscript(&tr))
	echoes(t, c, "any transport")
	assert.Len(t, tr.Snapshot().Entries, 5, "initialize, its result, initialized, the call, its result")
	assert.Equal(t, srvEnd.Transcript().Entries[4].Data, tr.Snapshot().Entries[4].Data, "the recorder saw what crossed")
}

// A Transport server's dial function runs inside the connection's label
// and with the harness's crash reporter: a server it starts in the process,
// as CheckServer does, has its leaks and its recovered panics
// reported as Connect reports them for a Server served in memory.
func TestTransportDialReachesLeaksAndCrashes(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	f := runFake(t, func(tb testing.TB) {
		c := Connect(tb, Transport(memDialer(spawnServer(release))), withLeakWait(leakedWait))
		_, err := c.CallTool(tb.Context(), "spawn", nil)
		require.NoError(tb, err)
	})
	f.expectFailure(t, "goroutine leak", "mcptest.blockForever")

	f = runFake(t, func(tb testing.TB) {
		c := Connect(tb, Transport(memDialer(probeServer(boomTool()))))
		_, err := c.CallTool(tb.Context(), "boom", nil)
		assert.Error(tb, err)
	})
	f.expectFailure(t, "mcptest: the server panicked in tools/call \"boom\": kaboom", "Install the crash guard")
}

// A failing assertion on an external connection prints its transcript.
func TestExternalTranscriptOnFailure(t *testing.T) {
	t.Parallel()
	h := probeServer().handler()
	for name, connect := range map[string]func(tb testing.TB, opts ...Option) *client.Client{
		"command": func(tb testing.TB, opts ...Option) *client.Client {
			return Connect(tb, Command(cmdServer(tb, "")), opts...)
		},
		"http": func(tb testing.TB, opts ...Option) *client.Client { return Connect(tb, Handler(h), opts...) },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := runFake(t, func(tb testing.TB) {
				res, err := connect(tb).CallTool(tb.Context(), "echo", map[string]any{"text": "marker-text"})
				require.NoError(tb, err)
				Assert(tb).Text(res, "something else")
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
			return Connect(tb, cmdserverFake(io.Discard), opts...)
		},
		"command": func(tb testing.TB, opts ...Option) *client.Client {
			return Connect(tb, Command(cmdServer(tb, "")), opts...)
		},
		"http": func(tb testing.TB, opts ...Option) *client.Client {
			return Connect(tb, Handler(cmdserverFake(io.Discard).handler()), opts...)
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, version := range []string{client.LatestVersion, client.LatestLegacyVersion} {
				var tr Transcript
				c := connect(t, WithProtocolVersion(version), WithTranscript(&tr))
				echoes(t, c, "golden")
				Assert(t).Golden("external/session-"+version, tr.Messages())
			}
		})
	}
}
