package mcptest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/client/transport"
)

// stderrLines is how many of the last lines a server process wrote on
// stderr a failing test prints (see [ConnectCommand]).
const stderrLines = 40

// ConnectTransport connects a real [client.Client] over tr, any
// [client.Transport], and returns it after the handshake, with everything
// [Connect] gives an in-memory server that a transport allows: the
// per-request timeout, the transcript printed when the test fails (recorded
// between the client and tr, so it shows what the client sent and
// received), [WithTranscript], and the cleanup, which closes the client and
// with it tr, and fails the test if closing fails.
//
// The leak check covers the client's goroutines and those tr starts while
// sending a message (each Send runs on a goroutine carrying the
// connection's label); goroutines tr started before ConnectTransport was
// called carry no label and are not checked. [ConnectCommand], [ConnectHTTP]
// and [ConnectURL] make the transport themselves, so the check sees all of
// theirs.
//
// The server is not in this process's hands, so a panic in it is not
// reported by the harness: use ConnectHTTP for an in-process HTTP handler.
//
// If tr is nil or the handshake fails, ConnectTransport stops the test with
// t.Fatalf.
func ConnectTransport(t testing.TB, tr client.Transport, opts ...Option) *client.Client {
	t.Helper()
	if tr == nil {
		t.Fatalf("mcptest.ConnectTransport: the transport is nil")
		return nil
	}
	h := newHarness(t, newConfig(opts), "mcptest.ConnectTransport")
	return h.connect(context.Background(), true, func(context.Context) (client.Transport, error) { return tr, nil })
}

// ConnectCommand starts cmd as an MCP server speaking the stdio transport
// (newline-delimited JSON on its stdin and stdout, as
// [transport.Command] does), connects a real [client.Client] to it and
// returns it after the handshake. The server may be written in any
// language; build a Go one into t.TempDir first, or run it with go run.
//
//	c := mcptest.ConnectCommand(t, exec.Command("python", "server.py"))
//
// Make cmd with exec.Command, not exec.CommandContext(t.Context(), ...): the
// test's context ends before the cleanup runs, which would kill the server
// before the harness can close it properly.
//
// Besides what [ConnectTransport] gives any transport:
//   - What the server writes on stderr is kept, and its last
//     [stderrLines] lines are printed when the test fails, after the
//     transcript; [LogStderr] sends every line to t.Log as it arrives
//     instead.
//   - The cleanup closes the server's stdin, which a stdio server must take
//     as the signal to exit, and fails the test unless the process then
//     exits with status 0 by itself. One that does not exit within the
//     transport's grace period ([transport.DefaultGracePeriod], set with
//     [WithCommandOptions] and [transport.WithGracePeriod]) is sent SIGTERM,
//     then SIGKILL, and the test fails saying so; one that exited (crashed)
//     during the test fails it with its exit status and stderr. Turn this
//     check off with [WithoutExitCheck] for a test that makes the server
//     fail on purpose.
//   - The leak check covers the transport's and the client's goroutines;
//     the server's own are in another process.
//
// If cmd is nil, cannot be started, or the handshake fails, ConnectCommand
// stops the test with t.Fatalf; the message names the command and, when it
// exited, its status and stderr.
func ConnectCommand(t testing.TB, cmd *exec.Cmd, opts ...Option) *client.Client {
	t.Helper()
	if cmd == nil {
		t.Fatalf("mcptest.ConnectCommand: the command is nil")
		return nil
	}
	cfg := newConfig(opts)
	h := newHarness(t, cfg, "mcptest.ConnectCommand")
	var stdio *transport.Stdio
	copts := []transport.CommandOption{}
	if cfg.logStderr {
		copts = append(copts, transport.WithStderrLines(func(line string) {
			h.logf(false, "mcptest: server stderr: %s", line)
		}))
	}
	copts = append(copts, cfg.commandOptions...)
	h.closeErrOK = func(err error) bool { return errors.Is(err, transport.ErrClosed) }
	h.afterClose = append(h.afterClose, func() { h.checkExit(cmd) })
	if !cfg.logStderr {
		h.failureNotes = append(h.failureNotes, func() string {
			if stdio == nil {
				return ""
			}
			return renderStderr(commandName(cmd), stdio.Stderr(), stderrLines, cfg.lineMax)
		})
	}
	return h.connect(context.Background(), true, func(context.Context) (client.Transport, error) {
		s, err := transport.Command(cmd, copts...)
		stdio = s
		if err != nil {
			return nil, err
		}
		return s, nil
	})
}

// ConnectHTTP connects a real [client.Client] to h, an MCP server's
// streamable HTTP handler (go-sdk's mcp.NewStreamableHTTPHandler, mcp-go's
// server.NewStreamableHTTPServer, or your own), called in this process with
// no socket through [transport.Handler], and returns it after the
// handshake. The test sees the server exactly as a remote client would:
// sessions, headers, SSE streams, both protocol eras.
//
// Besides what [ConnectTransport] gives any transport:
//   - A panic in the handler's goroutine (mcp-go runs tool handlers there)
//     fails the test with the panic value and the stack, as [Connect] does
//     for a handler panic; [WithoutCrashReports] turns it into a log line.
//     go-sdk runs tool handlers on goroutines of its own, which nothing
//     outside the server can guard: a panic there ends the test binary, as
//     it would end the server process. Install the crash guard
//     (gosdk, mcpgo) to have the server recover it.
//   - What the transport reports by itself (a tool dropped for an invalid
//     x-mcp-header annotation, a failed GET stream) goes to t.Log;
//     [WithHTTPOptions] with [transport.WithLogger] sends it elsewhere.
//   - The leak check covers the client's goroutines, the transport's, and
//     the handler calls with whatever they start, such as the server's
//     sessions: they must all end when the client closes (which ends a
//     legacy session with DELETE).
//   - The cleanup fails the test if a handler call is still running 5
//     seconds (or the connection's timeout, if shorter) after the client
//     closed (it ignores its request's context).
//
// If h is nil or the handshake fails, ConnectHTTP stops the test with
// t.Fatalf.
func ConnectHTTP(t testing.TB, handler http.Handler, opts ...Option) *client.Client {
	t.Helper()
	if handler == nil {
		t.Fatalf("mcptest.ConnectHTTP: the handler is nil")
		return nil
	}
	cfg := newConfig(opts)
	h := newHarness(t, cfg, "mcptest.ConnectHTTP")
	h.closeErrOK = func(err error) bool { return errors.Is(err, transport.ErrClosed) }
	hopts := append([]transport.HTTPOption{transport.WithLogger(slog.New(&testLog{h: h}))}, cfg.httpOptions...)
	return h.connect(context.Background(), true, func(context.Context) (client.Transport, error) {
		return transport.Handler(handler, hopts...), nil
	})
}

// ConnectURL connects a real [client.Client] to the MCP endpoint at rawURL
// over the streamable HTTP transport ([transport.HTTP]) and returns it after
// the handshake: a server in another process, or an httptest.Server of your
// own. Prefer [ConnectHTTP] for a handler in the test's process: it needs no
// socket, and the leak check and crash reports reach into the server.
//
//	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(getServer, nil))
//	t.Cleanup(srv.Close)
//	c := mcptest.ConnectURL(t, srv.URL)
//
// The connection uses an HTTP client of its own (a clone of
// http.DefaultTransport), whose idle connections the cleanup closes, so
// that no keep-alive connection outlives the test; [WithHTTPOptions] with
// [transport.WithHTTPClient] sets another. The leak check covers the
// client's goroutines and the transport's; goroutines net/http keeps for
// idle connections in a pool are not counted as leaks, and the server's
// goroutines, even in this process, are not seen (net/http starts them).
// What the transport reports by itself goes to t.Log, as with ConnectHTTP.
//
// If rawURL is not an absolute http or https URL, or the handshake fails,
// ConnectURL stops the test with t.Fatalf.
func ConnectURL(t testing.TB, rawURL string, opts ...Option) *client.Client {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		why := "it is not an absolute http or https URL"
		if err != nil {
			why = err.Error()
		}
		t.Fatalf("mcptest.ConnectURL: bad URL %q: %s", rawURL, why)
		return nil
	}
	cfg := newConfig(opts)
	cfg.leakIgnores = append(cfg.leakIgnores, httpPoolFunctions()...)
	h := newHarness(t, cfg, "mcptest.ConnectURL")
	h.closeErrOK = func(err error) bool { return errors.Is(err, transport.ErrClosed) }
	pool := &http.Transport{}
	if dt, ok := http.DefaultTransport.(*http.Transport); ok {
		pool = dt.Clone()
	}
	own := &http.Client{Transport: pool}
	h.afterClose = append(h.afterClose, own.CloseIdleConnections)
	hopts := append([]transport.HTTPOption{
		transport.WithHTTPClient(own),
		transport.WithLogger(slog.New(&testLog{h: h})),
	}, cfg.httpOptions...)
	return h.connect(context.Background(), true, func(context.Context) (client.Transport, error) {
		return transport.HTTP(rawURL, hopts...), nil
	})
}

// httpPoolFunctions are the goroutines net/http keeps for a pooled
// connection: they belong to the http.Transport, not to one MCP
// connection, and end when the pool closes the connection.
func httpPoolFunctions() []string {
	return []string{
		"net/http.(*persistConn).readLoop",
		"net/http.(*persistConn).writeLoop",
		"net/http.(*http2ClientConn).readLoop",
	}
}

// WithCommandOptions passes options to the stdio transport of
// [ConnectCommand] ([transport.Command]): the grace period before the
// server is signalled, the line size limit, a copy of stderr.
func WithCommandOptions(opts ...transport.CommandOption) Option {
	return func(c *config) {
		c.commandOptions = append(c.commandOptions, opts...)
		c.restrict("WithCommandOptions", "mcptest.ConnectCommand")
	}
}

// WithHTTPOptions passes options to the streamable HTTP transport of
// [ConnectHTTP] and [ConnectURL] ([transport.Handler], [transport.HTTP]):
// headers such as Authorization, an *http.Client, a logger, a body size
// limit.
func WithHTTPOptions(opts ...transport.HTTPOption) Option {
	return func(c *config) {
		c.httpOptions = append(c.httpOptions, opts...)
		c.restrict("WithHTTPOptions", "mcptest.ConnectHTTP", "mcptest.ConnectURL")
	}
}

// LogStderr makes [ConnectCommand] send every line the server writes on
// stderr to t.Log as it arrives, instead of printing the last lines only
// when the test fails.
func LogStderr() Option {
	return func(c *config) { c.logStderr = true; c.restrict("LogStderr", "mcptest.ConnectCommand") }
}

// WithoutExitCheck stops [ConnectCommand] from failing the test when the
// server process exits with a status other than 0, crashes during the
// test, or has to be signalled because it did not exit when its stdin
// closed.
func WithoutExitCheck() Option {
	return func(c *config) { c.exitCheck = false; c.restrict("WithoutExitCheck", "mcptest.ConnectCommand") }
}

// checkExit fails the test unless the server process exited cleanly by
// itself once its stdin closed. The transport has reaped it by now.
func (h *harness) checkExit(cmd *exec.Cmd) {
	ps := cmd.ProcessState
	if !h.cfg.exitCheck || h.handshakeFailed || ps == nil {
		return
	}
	name := commandName(cmd)
	var pe *transport.ProcessError
	if errors.As(h.endErr, &pe) && (errors.Is(pe, transport.ErrLineTooLong) || errors.Is(pe, transport.ErrInvalidOutput)) {
		// The stream broke first; how the process ended after that is no news.
		h.t.Errorf("mcptest: the connection to the server process %s broke: %v", name, pe)
		return
	}
	if ps.Success() {
		return
	}
	switch {
	case errors.As(h.endErr, &pe) && errors.Is(pe, transport.ErrProcessExited):
		h.t.Errorf("mcptest: the server process %s exited during the test (%s).%s", name, ps, exitCheckHint)
	case ps.ExitCode() == -1: // ended by a signal
		msg := fmt.Sprintf("mcptest: the server process %s did not exit by itself after its stdin closed and was stopped with a signal (%s). A stdio server must exit when its stdin closes.", name, ps)
		if cmd.Cancel != nil {
			msg += " If cmd was made with exec.CommandContext, its context may have killed it: use exec.Command, the harness stops the process."
		}
		h.t.Errorf("%s%s", msg, exitCheckHint)
	default:
		h.t.Errorf("mcptest: the server process %s exited with %s after its stdin closed; a clean shutdown exits with status 0.%s", name, ps, exitCheckHint)
	}
}

const exitCheckHint = " Its stderr is printed below when not logged already; mcptest.WithoutExitCheck() turns this check off."

func commandName(cmd *exec.Cmd) string {
	if len(cmd.Args) > 0 {
		return filepath.Base(cmd.Args[0])
	}
	return filepath.Base(cmd.Path)
}

// renderStderr prints the last max lines of a server's stderr, each cut to
// lineMax bytes.
func renderStderr(name, stderr string, max, lineMax int) string {
	stderr = strings.TrimRight(stderr, "\r\n")
	if stderr == "" {
		return fmt.Sprintf("the server process %s wrote nothing on stderr", name)
	}
	lines := strings.Split(stderr, "\n")
	var b strings.Builder
	if len(lines) > max {
		fmt.Fprintf(&b, "the last %d lines the server process %s wrote on stderr:", max, name)
		lines = lines[len(lines)-max:]
	} else {
		fmt.Fprintf(&b, "what the server process %s wrote on stderr:", name)
	}
	for _, l := range lines {
		b.WriteString("\n\t")
		b.WriteString(cutLine(strings.TrimRight(l, "\r"), lineMax))
	}
	return b.String()
}

// testLog is the slog.Handler the HTTP transports log to: records go to
// t.Log, and an in-process handler's panic (which the transport logs at
// ERROR with the panic value and the stack) fails the test like a panic
// Connect catches.
type testLog struct {
	h   *harness
	ops []func(slog.Handler) slog.Handler // WithAttrs and WithGroup, in order
}

func (l *testLog) Enabled(_ context.Context, level slog.Level) bool { return level >= slog.LevelInfo }

func (l *testLog) WithAttrs(attrs []slog.Attr) slog.Handler {
	return l.with(func(h slog.Handler) slog.Handler { return h.WithAttrs(attrs) })
}

func (l *testLog) WithGroup(name string) slog.Handler {
	return l.with(func(h slog.Handler) slog.Handler { return h.WithGroup(name) })
}

func (l *testLog) with(op func(slog.Handler) slog.Handler) slog.Handler {
	return &testLog{h: l.h, ops: append(append([]func(slog.Handler) slog.Handler(nil), l.ops...), op)}
}

func (l *testLog) Handle(ctx context.Context, r slog.Record) error {
	if r.Level >= slog.LevelError {
		var panicValue, method, stack string
		r.Attrs(func(a slog.Attr) bool {
			switch a.Key {
			case "panic":
				panicValue = a.Value.String()
			case "method":
				method = a.Value.String()
			case "stack":
				stack = a.Value.String()
			}
			return true
		})
		if panicValue != "" {
			event := "the HTTP handler panicked serving a " + method + " request"
			if !l.h.cfg.crashCatcher {
				l.h.logf(false, "%s", crashNote(event, panicValue))
				return nil
			}
			l.h.logf(true, "mcptest: %s: %s\n\n%s\n%s", event, panicValue, httpCrashHint, panicStack([]byte(stack)))
			return nil
		}
	}
	var buf bytes.Buffer
	var th slog.Handler = slog.NewTextHandler(&buf, &slog.HandlerOptions{
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) == 0 && a.Key == slog.TimeKey {
				return slog.Attr{} // t.Log has its own order; a time adds noise
			}
			return a
		},
	})
	for _, op := range l.ops {
		th = op(th)
	}
	_ = th.Handle(ctx, r)
	l.h.logf(false, "mcptest: %s", strings.TrimRight(buf.String(), "\n"))
	return nil
}

// httpCrashHint tells the reader what a handler panic means over HTTP.
const httpCrashHint = `The handler has no panic recovery of its own. The transport recovered the panic
as net/http does, so the client got a broken response (HTTP 500) instead of
an error it can read; a panic on a goroutine of the server's own would have
crashed the process. Install the crash guard, which turns a handler panic
into an error for the client and an ERROR log record with the stack:
	go-sdk:  srv.AddReceivingMiddleware(gosdk.Guard(logger))
	mcp-go:  mcpgo.Guard(logger)(srv)   (or pass it to server.NewMCPServer)
(packages github.com/mcptestkit/mcptestkit/gosdk and .../mcpgo)
Stack of the panicking goroutine:`
