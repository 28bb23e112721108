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

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/client/transport"
	"github.com/mcptestkit/mcptestkit/internal/cmdcopy"
	"github.com/mcptestkit/mcptestkit/mcptest/crash"
	"github.com/mcptestkit/mcptestkit/mcptest/servercheck"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

// stderrLines is how many of the last lines a server process wrote on
// stderr a failing test prints (see [Command]).
const stderrLines = 40

// external is a [Server] that is not served in memory: the harness reaches
// it through a transport instead of calling its Serve. [Command],
// [Handler], [URL] and [Transport] return one.
type external interface {
	Server
	// kind names the constructor, for messages: "mcptest.Command".
	kind() string
	// check reports what was wrong with the constructor's arguments (a nil
	// command, a bad URL), which Connect, CheckServer and Fuzz report.
	check() error
	// connect connects h's client to the server (Connect).
	connect(h *harness) *client.Client
	// dial returns the Dialer of the connections of the checks and the
	// fuzzer, made with h, their harness.
	dial(h *harness) servercheck.Dialer
}

// inMemory describes every other Server (an SDK adapter, a ServerFunc),
// in messages.
const inMemory = "a Server served in memory"

// kindOf describes srv's kind, in messages.
func kindOf(srv Server) string {
	if x, ok := srv.(external); ok {
		return "a " + x.kind() + " server"
	}
	return inMemory
}

// notServed is the Serve method of the external servers: there is nothing
// in the process to serve conn with. It closes conn, so that a client on its
// other end fails at once instead of waiting out its timeout.
func notServed(conn *memtransport.Conn, kind, instead string) error {
	if conn != nil {
		_ = conn.Close()
	}
	return fmt.Errorf("%s returns a Server for mcptest.Connect, CheckServer and Fuzz, which reach it through its transport; "+
		"its Serve method serves nothing (without package mcptest, use %s)", kind, instead)
}

// Command returns a Server for the MCP server program cmd describes,
// speaking the stdio transport to it (newline-delimited JSON on its stdin
// and stdout, as [transport.Command] does). The program may be written in
// any language; build a Go one into t.TempDir first, or run it with go run.
//
//	c := mcptest.Connect(t, mcptest.Command(exec.Command("python", "server.py")))
//
// cmd is a template, never started itself: every connection starts a copy
// of it (its Path, Args, Env, Dir and the rest of its configuration), so
// one Command server serves any number of connections, [EachVersion]'s and
// [CheckServer]'s among them. The context of exec.CommandContext does not
// carry over: the harness stops each process itself. opts configure the
// transport: the grace period before the program is signalled
// ([transport.WithGracePeriod]), the line size limit, a copy of stderr.
//
// A connection [Connect] makes to it has, besides what every connection
// has:
//   - What the server writes on stderr is kept, and its last
//     40 lines are printed when the test fails, after the
//     transcript; [LogStderr] sends every line to t.Log as it arrives
//     instead.
//   - The cleanup closes the server's stdin, which a stdio server must take
//     as the signal to exit, and fails the test unless the process then
//     exits with status 0 by itself. One that does not exit within the
//     transport's grace period ([transport.DefaultGracePeriod]) is sent
//     SIGTERM, then SIGKILL, and the test fails saying so; one that exited
//     (crashed) during the test fails it with its exit status and stderr.
//     Turn this check off with [WithoutExitCheck] for a test that makes the
//     server fail on purpose.
//   - The leak check covers the transport's and the client's goroutines;
//     the server's own are in another process.
//
// If cmd is nil or cannot be started, Connect stops the test with
// t.Fatalf; the message names the command and, when it exited, its status
// and stderr.
func Command(cmd *exec.Cmd, opts ...transport.CommandOption) Server {
	return &commandServer{cmd: cmd, opts: opts}
}

type commandServer struct {
	cmd  *exec.Cmd
	opts []transport.CommandOption
}

func (s *commandServer) Serve(_ context.Context, conn *memtransport.Conn) error {
	return notServed(conn, s.kind(), "servercheck.Command or transport.Command")
}

func (s *commandServer) kind() string { return "mcptest.Command" }

func (s *commandServer) check() error {
	if s.cmd == nil {
		return errors.New("mcptest.Command: the command is nil")
	}
	return nil
}

// dial starts a copy of the command for each connection, as Connect does;
// servercheck.Command's transport tells the shutdown check how the process
// ended.
func (s *commandServer) dial(*harness) servercheck.Dialer {
	return servercheck.Command(s.cmd, s.opts...)
}

func (s *commandServer) connect(h *harness) *client.Client {
	h.t.Helper()
	cfg := h.cfg
	cmd := cmdcopy.Of(s.cmd)
	var stdio *transport.Stdio
	copts := []transport.CommandOption{}
	if cfg.logStderr {
		copts = append(copts, transport.WithStderrLines(func(line string) {
			h.logf(false, "mcptest: server stderr: %s", line)
		}))
	}
	copts = append(copts, s.opts...)
	h.closeErrOK = func(err error) bool { return errors.Is(err, client.ErrClosed) }
	h.afterClose = append(h.afterClose, func() {
		h.t.Helper()
		h.checkExit(cmd)
	})
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

// Handler returns a Server for h, an MCP server's streamable HTTP handler
// (go-sdk's mcp.NewStreamableHTTPHandler, mcp-go's
// server.NewStreamableHTTPServer, or your own), called in this process
// with no socket through [transport.Handler]. The test sees the server
// exactly as a remote client would: sessions, headers, SSE streams, both
// protocol eras. opts configure the transport: headers such as
// Authorization, a logger, a body size limit.
//
//	c := mcptest.Connect(t, mcptest.Handler(mcp.NewStreamableHTTPHandler(getServer, nil)))
//
// A connection [Connect] makes to it has, besides what every connection
// has:
//   - A panic in the handler's goroutine (mcp-go runs tool handlers there)
//     fails the test with the panic value and the stack, as for a Server
//     served in memory; [WithoutCrashReports] turns it into a log line.
//     go-sdk runs tool handlers on goroutines of its own, which nothing
//     outside the server can guard: a panic there ends the test binary, as
//     it would end the server process. Install the crash guard
//     (gosdk, mcpgo) to have the server recover it.
//   - What the transport reports by itself (a tool dropped for an invalid
//     x-mcp-header annotation, a failed GET stream) goes to t.Log;
//     [transport.WithLogger] in opts sends it elsewhere.
//   - The leak check covers the client's goroutines, the transport's, and
//     the handler calls with whatever they start, such as the server's
//     sessions: they must all end when the client closes (which ends a
//     legacy session with DELETE).
//   - The cleanup fails the test if a handler call is still running 5
//     seconds (or the connection's timeout, if shorter) after the client
//     closed (it ignores its request's context).
//
// If h is nil, Connect stops the test with t.Fatalf.
func Handler(h http.Handler, opts ...transport.HTTPOption) Server {
	return &handlerServer{h: h, opts: opts}
}

type handlerServer struct {
	h    http.Handler
	opts []transport.HTTPOption
}

func (s *handlerServer) Serve(_ context.Context, conn *memtransport.Conn) error {
	return notServed(conn, s.kind(), "transport.Handler")
}

func (s *handlerServer) kind() string { return "mcptest.Handler" }

func (s *handlerServer) check() error {
	if s.h == nil {
		return errors.New("mcptest.Handler: the handler is nil")
	}
	return nil
}

func (s *handlerServer) dial(h *harness) servercheck.Dialer {
	hopts := s.options(h)
	return func(context.Context) (client.Transport, error) { return transport.Handler(s.h, hopts...), nil }
}

func (s *handlerServer) connect(h *harness) *client.Client {
	h.t.Helper()
	h.closeErrOK = func(err error) bool { return errors.Is(err, client.ErrClosed) }
	return h.connect(context.Background(), true, s.dial(h))
}

// options are the transport's: what it reports by itself goes to t.Log,
// unless the user's options say otherwise.
func (s *handlerServer) options(h *harness) []transport.HTTPOption {
	return append([]transport.HTTPOption{transport.WithLogger(slog.New(&testLog{h: h}))}, s.opts...)
}

// URL returns a Server for the MCP endpoint at rawURL, spoken to over the
// streamable HTTP transport ([transport.HTTP]): a server in another
// process, or an httptest.Server of your own. Prefer [Handler] for a
// handler in the test's process: it needs no socket, and the leak check
// and crash reports reach into the server. opts configure the transport:
// headers such as Authorization, an *http.Client, a logger.
//
//	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(getServer, nil))
//	t.Cleanup(srv.Close)
//	c := mcptest.Connect(t, mcptest.URL(srv.URL))
//
// A connection [Connect] makes to it uses an HTTP client of its own (a
// clone of http.DefaultTransport), whose idle connections the cleanup
// closes, so that no keep-alive connection outlives the test;
// [transport.WithHTTPClient] in opts sets another. The leak check covers
// the client's goroutines and the transport's; goroutines net/http keeps
// for idle connections in a pool are not counted as leaks, and the
// server's goroutines, even in this process, are not seen (net/http starts
// them). What the transport reports by itself goes to t.Log, as with
// Handler.
//
// If rawURL is not an absolute http or https URL, Connect stops the test
// with t.Fatalf.
func URL(rawURL string, opts ...transport.HTTPOption) Server {
	return &urlServer{raw: rawURL, opts: opts}
}

type urlServer struct {
	raw  string
	opts []transport.HTTPOption
}

func (s *urlServer) Serve(_ context.Context, conn *memtransport.Conn) error {
	return notServed(conn, s.kind(), "transport.HTTP")
}

func (s *urlServer) kind() string { return "mcptest.URL" }

func (s *urlServer) check() error {
	u, err := url.Parse(s.raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		why := "it is not an absolute http or https URL"
		if err != nil {
			why = err.Error()
		}
		return fmt.Errorf("mcptest.URL: bad URL %q: %s", s.raw, why)
	}
	return nil
}

// dial gives the connections an HTTP client of their own, whose idle
// connections h closes once they have closed. The leak check leaves idle
// connections' goroutines out (they end once closed) and reports a
// connection still holding a response.
func (s *urlServer) dial(h *harness) servercheck.Dialer {
	pool := &http.Transport{}
	if dt, ok := http.DefaultTransport.(*http.Transport); ok {
		pool = dt.Clone()
	}
	own := &http.Client{Transport: pool}
	h.afterClose = append(h.afterClose, own.CloseIdleConnections)
	hopts := append([]transport.HTTPOption{
		transport.WithHTTPClient(own),
		transport.WithLogger(slog.New(&testLog{h: h})),
	}, s.opts...)
	return func(context.Context) (client.Transport, error) { return transport.HTTP(s.raw, hopts...), nil }
}

func (s *urlServer) connect(h *harness) *client.Client {
	h.t.Helper()
	h.closeErrOK = func(err error) bool { return errors.Is(err, client.ErrClosed) }
	return h.connect(context.Background(), true, s.dial(h))
}

// Transport returns a Server reached through any [client.Transport]: dial
// opens a fresh connection each time it is called (once per [Connect],
// once per connection of [CheckServer] and [Fuzz]), and closing the
// transport closes that connection. dial has the type of a
// [servercheck.Dialer], so any of that package's Dialers fits.
//
//	c := mcptest.Connect(t, mcptest.Transport(func(ctx context.Context) (client.Transport, error) {
//		return websocket.Dial(ctx, addr) // a transport of your own
//	}))
//
// A connection [Connect] makes to it has the per-request timeout, the
// transcript (recorded between the client and the transport, so it shows
// what the client sent and received), and the cleanup, which closes the
// client and with it the transport, and fails the test if closing fails.
// dial runs inside the connection's label, so the leak check covers the
// goroutines the transport starts, as well as the client's. The ctx dial
// gets carries the harness's crash reporter (package crash): a server that
// dial starts in the process, handed ctx (or a context derived from it),
// has its recovered panics reported as [Connect] reports them for a Server
// served in memory. The same holds for the connections of [CheckServer]
// and [Fuzz], which call dial once each.
//
// If dial is nil, returns an error, or returns no transport, Connect stops
// the test with t.Fatalf.
func Transport(dial func(ctx context.Context) (client.Transport, error)) Server {
	return &transportServer{dialFunc: dial}
}

type transportServer struct {
	dialFunc func(ctx context.Context) (client.Transport, error)
}

func (s *transportServer) Serve(_ context.Context, conn *memtransport.Conn) error {
	return notServed(conn, s.kind(), "the dial function with servercheck.Run")
}

func (s *transportServer) kind() string { return "mcptest.Transport" }

func (s *transportServer) check() error {
	if s.dialFunc == nil {
		return errors.New("mcptest.Transport: the dial function is nil")
	}
	return nil
}

func (s *transportServer) dial(*harness) servercheck.Dialer { return s.open }

// open calls dial, making sure of a transport or an error.
func (s *transportServer) open(ctx context.Context) (client.Transport, error) {
	tr, err := s.dialFunc(ctx)
	if err == nil && tr == nil {
		err = errors.New("mcptest.Transport: the dial function returned neither a transport nor an error")
	}
	return tr, err
}

func (s *transportServer) connect(h *harness) *client.Client {
	h.t.Helper()
	return h.connect(crash.WithReporter(context.Background(), h.reportCrash), true, s.open)
}

// LogStderr makes a connection to a [Command] server send every line the
// server writes on stderr to t.Log as it arrives, instead of printing the
// last lines only when the test fails. It applies to Connect.
func LogStderr() Option {
	return option("LogStderr", connectCall, func(c *config) { c.logStderr = true; c.restrict("LogStderr", commandKind) })
}

// WithoutExitCheck stops a connection to a [Command] server from failing
// the test when the server process exits with a status other than 0,
// crashes during the test, or has to be signalled because it did not exit
// when its stdin closed. It applies to Connect ([CheckServer] has a
// shutdown check of its own, which warns).
func WithoutExitCheck() Option {
	return option("WithoutExitCheck", connectCall, func(c *config) { c.exitCheck = false; c.restrict("WithoutExitCheck", commandKind) })
}

// commandKind describes a [Command] server, in messages.
const commandKind = "a mcptest.Command server"

// checkExit fails the test unless the server process exited cleanly by
// itself once its stdin closed. The transport has reaped it by now.
func (h *harness) checkExit(cmd *exec.Cmd) {
	h.t.Helper()
	ps := cmd.ProcessState
	if !h.cfg.exitCheck || h.handshakeFailed || ps == nil {
		return
	}
	name := commandName(cmd)
	var pe *transport.ProcessError
	if errors.As(h.endErr, &pe) && (errors.Is(pe, transport.ErrLineTooLong) || errors.Is(pe, transport.ErrInvalidOutput)) {
		// The stream broke first; how the process ended after that is no news.
		h.report(true, "mcptest: the connection to the server process %s broke: %v", name, pe)
		return
	}
	if ps.Success() {
		return
	}
	switch {
	case errors.As(h.endErr, &pe) && errors.Is(pe, transport.ErrProcessExited):
		h.report(true, "mcptest: the server process %s exited during the test (%s).%s", name, ps, exitCheckHint)
	case ps.ExitCode() == -1: // ended by a signal
		h.report(true, "mcptest: the server process %s did not exit by itself after its stdin closed and was stopped with a signal (%s). "+
			"A stdio server must exit when its stdin closes.%s", name, ps, exitCheckHint)
	default:
		h.report(true, "mcptest: the server process %s exited with %s after its stdin closed; a clean shutdown exits with status 0.%s", name, ps, exitCheckHint)
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
			l.h.mu.Lock()
			defer l.h.mu.Unlock()
			if !l.h.over {
				l.h.failCrash(fmt.Sprintf("mcptest: %s: %s", event, panicValue), "\n"+httpCrashHint, []byte(stack))
			}
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
