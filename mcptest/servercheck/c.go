package servercheck

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/client/transport"
)

// errStop ends a check early (failed or skipped), as t.FailNow does.
var errStop = errors.New("check stopped")

// Excerpt limits: enough of the connection to see what was sent and what
// came back, not the whole session.
const (
	excerptFrames = 12
	excerptLine   = 600
)

// state is the state of one running check.
type state struct {
	s      *suite
	fam    *family // the check's row in the table; nil for the fuzzer
	name   string
	status Status
	fails  []string
	warns  []string
	notes  []string
	skip   string
	marks  []connMark
}

type connMark struct {
	c         *conn
	mark, end int // end < 0: up to now
}

// use notes that the check talks over c, so its excerpt goes in the
// result.
func (c *state) use(cn *conn) *conn {
	for _, m := range c.marks {
		if m.c == cn {
			return cn
		}
	}
	c.marks = append(c.marks, connMark{cn, cn.tap.mark(), -1})
	return cn
}

// useSpan puts the messages of an earlier span of cn in the check's
// excerpt: a check on what a list returned shows the listing.
func (c *state) useSpan(sp span) {
	if sp.c != nil {
		c.marks = append(c.marks, connMark{sp.c, sp.from, sp.to})
	}
}

// span is a stretch of a connection's messages.
type span struct {
	c        *conn
	from, to int
}

// main returns the main connection, stopping the check if it cannot be
// had.
func (c *state) main() *conn {
	cn, err := c.s.mainConn()
	if err != nil {
		c.fatalf("%v", err)
	}
	return c.use(cn)
}

// breakf reports that the server breaks the rule of the check: a failure
// or a warning, as the check's row in the table says.
func (c *state) breakf(format string, args ...any) {
	if c.fam.level == Warn {
		c.warns = append(c.warns, fmt.Sprintf(format, args...))
		return
	}
	c.failf(format, args...)
}

// warnf reports that the server breaks a SHOULD beside the MUST of the
// check, one its row names (warns): the check warns unless it also fails.
func (c *state) warnf(format string, args ...any) {
	if c.fam.level != Fail || c.fam.warns == "" {
		// A bug of this package: a row says what its check warns about,
		// so that the package documentation lists it.
		panic(fmt.Sprintf("servercheck: check %s warns, but its row in the table names no warning", c.name))
	}
	c.warns = append(c.warns, fmt.Sprintf(format, args...))
}

// failf reports a broken MUST that fails any check, whatever its row's
// level: a crash, crash text shown to the client, a tool call that broke
// the contract (callTool).
func (c *state) failf(format string, args ...any) {
	c.status = Fail
	c.fails = append(c.fails, fmt.Sprintf(format, args...))
}

// fatalf fails the check and stops it: it cannot go on (the connection
// broke, a request it needs failed or got no answer).
func (c *state) fatalf(format string, args ...any) {
	c.failf(format, args...)
	panic(errStop)
}

func (c *state) skipf(format string, args ...any) {
	if c.status != Fail {
		c.status = Skip
	}
	c.skip = fmt.Sprintf(format, args...)
	panic(errStop)
}

func (c *state) notef(format string, args ...any) {
	c.notes = append(c.notes, fmt.Sprintf(format, args...))
}

// ctx is the context of one request: bounded by the suite's timeout (plus
// a margin, so the client's own timeout, which names the method, fires
// first).
func (c *state) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(c.s.ctx, c.s.timeout+c.s.timeout/2)
}

// maxProgressTimeouts bounds a call that keeps reporting progress: at most
// this many times the timeout in all.
const maxProgressTimeouts = 6

// progressCtx is the context of a call that may report progress: it ends
// after the suite's timeout without an answer, each progress notification
// (reported to the returned func) restarting the clock, as the protocol lets
// a client do ("Timeouts": MAY reset on progress, SHOULD keep a maximum), and
// after maxProgressTimeouts times the timeout whatever comes; without reset,
// after the timeout, progress or not. stop releases it and returns how many
// progress notifications came, and whether the call reached the bound of
// maxProgressTimeouts timeouts (still at work, reporting progress).
func (c *state) progressCtx(reset bool) (ctx context.Context, progress func(client.Progress), stop func() (int, bool)) {
	ctx, cancel := context.WithTimeout(c.s.ctx, c.s.timeout*maxProgressTimeouts)
	idle, cancelIdle := context.WithCancelCause(ctx)
	var mu sync.Mutex
	n := 0
	idled := false
	timer := time.AfterFunc(c.s.timeout, func() {
		mu.Lock()
		idled = true
		mu.Unlock()
		cancelIdle(context.DeadlineExceeded)
	})
	progress = func(client.Progress) {
		mu.Lock()
		n++
		mu.Unlock()
		if reset {
			timer.Reset(c.s.timeout)
		}
	}
	return idle, progress, func() (int, bool) {
		timer.Stop()
		capped := errors.Is(ctx.Err(), context.DeadlineExceeded)
		cancelIdle(nil)
		cancel()
		mu.Lock()
		defer mu.Unlock()
		return n, capped && !idled
	}
}

// claimCrashes fails the check for each panic an in-process adapter
// recovered while it ran: the server has no crash guard.
func (c *state) claimCrashes() {
	for _, r := range c.s.takeCrashes() {
		c.failf("the server panicked in %s and has no crash guard of its own: the harness's adapter recovered it; in production this panic crashes the server process.\n%s", r, guardHint)
	}
}

// guardHint says how to install the crash guard.
const guardHint = `Install the crash guard, which turns a handler panic into the bare error "Error executing tool <name>" for the client and one ERROR log record with the stack:
	go-sdk:  srv.AddReceivingMiddleware(gosdk.Guard(logger))
	mcp-go:  server.NewMCPServer(name, version, mcpgo.Guard(logger))
(packages github.com/mcptestkit/mcptestkit/gosdk and .../mcpgo)`

func (c *state) result() Result {
	r := Result{Name: c.name, Status: c.status}
	if c.status == Pass && len(c.warns) > 0 {
		r.Status = Warn
	}
	switch r.Status {
	case Fail, Warn:
		// A failing check's warnings follow its failures, marked as such.
		r.Detail = strings.Join(c.fails, "\n\n")
		for _, w := range c.warns {
			if r.Detail != "" {
				r.Detail += "\n\n"
			}
			if r.Status == Fail {
				w = "warning: " + w
			}
			r.Detail += w
		}
		for _, m := range c.marks {
			r.Transcript = append(r.Transcript, m.c.tap.excerpt(m.mark, m.end, excerptFrames, excerptLine)...)
		}
	case Skip:
		r.Detail = c.skip
	default:
		r.Detail = strings.Join(c.notes, "\n")
	}
	return r
}

// leakPatterns find what a crash may leak to the client: the panic's
// words, a goroutine dump, source file positions (checked further by
// sourcePosition), other runtimes' stack traces.
var leakPatterns = regexp.MustCompile(`(?i)` + strings.Join([]string{
	`\bpanic\b`, `goroutine \d+`, // Go
	`\bpanicked at\b`, `stack backtrace:`, // Rust
	`Traceback \(most recent call last\)`, `File "[^"\n]+\.py", line \d+`, // Python
	`\n\s+at \S.*\(.*:\d+:\d+\)`,                       // Node
	`\bat [\w$.<>]+\([\w$-]+\.(?:java|kt|scala):\d+\)`, // the JVM
	`\.(?:go|js|mjs|cjs|ts|py|rb|java|kt|rs):\d+`,      // a file position, if sourcePosition agrees
}, "|"))

// leak returns the first piece of s that looks like crash text, or "".
// Text the client sent itself (echoed back in a message) does not count.
func leak(s string, sent ...string) string {
	for at := 0; at < len(s); {
		loc := leakPatterns.FindStringIndex(s[at:])
		if loc == nil {
			return ""
		}
		start, end := at+loc[0], at+loc[1]
		at = end
		if echoed(s[start:end], sent) || !sourcePosition(s, start, end) {
			continue
		}
		from, to := max(start-40, 0), min(end+40, len(s))
		return strings.TrimSpace(s[from:to])
	}
	return ""
}

// sourcePosition reports whether the match s[start:end] of leakPatterns is
// crash text: any match but a file position (".rs:443") is; a file position
// is when it has a column ("main.rs:12:5"), a path ("src/main.rs:12",
// "/app/server.py:40") or a bare file name ("handler.go:42"), not when the
// name is a host's ("api.example.rs:443", "https://shop.example.py:8443/x").
func sourcePosition(s string, start, end int) bool {
	if s[start] != '.' {
		return true
	}
	if rest := s[end:]; len(rest) > 1 && rest[0] == ':' && rest[1] >= '0' && rest[1] <= '9' {
		return true // line and column
	}
	from := strings.LastIndexAny(s[:start], " \t\r\n\"'`()[]<>,;=") + 1
	name := s[from:start]
	if i := strings.Index(name, "://"); i >= 0 {
		return strings.Contains(name[i+3:], "/") // in a URL: a path has a file, a host does not
	}
	switch {
	case strings.ContainsAny(name, "/\\"):
		return true
	case strings.ContainsAny(name, ".@"):
		return false // a dotted or user@ name: a host
	}
	return name != ""
}

// errorCode returns the JSON-RPC error in err, if it is one.
func errorCode(err error) (*client.Error, bool) {
	var e *client.Error
	if errors.As(err, &e) {
		return e, true
	}
	return nil, false
}

// brokeConnection reports whether err means the connection ended.
func brokeConnection(cn *conn, err error) bool {
	var pe *transport.ProcessError // the stdio server's process is gone, whether the client has seen it yet or not
	return errors.Is(err, client.ErrClosed) || errors.As(err, &pe) || !cn.alive()
}

// timedOut reports whether err is a request that got no answer in time.
func timedOut(err error) bool { return errors.Is(err, context.DeadlineExceeded) }

// describe words what came back from a request for a failure message.
func describe(v any, err error) string {
	if err != nil {
		if e, ok := errorCode(err); ok && e.Code == transport.CodeHTTPError {
			return describeHTTP(e)
		}
		if e, ok := errorCode(err); ok {
			s := fmt.Sprintf("JSON-RPC error %d %q", e.Code, e.Message)
			if len(e.Data) > 0 {
				s += " data " + string(e.Data)
			}
			return s
		}
		return "error: " + err.Error()
	}
	if r, ok := v.(fmt.Stringer); ok {
		return cut(r.String(), 800)
	}
	b, _ := json.Marshal(v)
	return cut(string(b), 800)
}

// describeHTTP describes the error the HTTP transport makes of a response
// that was no JSON-RPC message: the status and the body that came, so that
// no one mistakes the transport's stand-in code for the server's answer.
func describeHTTP(e *client.Error) string {
	var status int
	var body string
	e.DataField("status", &status)
	e.DataField("body", &body)
	s := fmt.Sprintf("an HTTP %d %s response", status, http.StatusText(status))
	if body = strings.TrimSpace(body); body != "" {
		s += fmt.Sprintf(" with the body %q", cut(body, 400))
	} else {
		s += " with an empty body"
	}
	return s + fmt.Sprintf(", not a JSON-RPC response (the transport reports it as error %d)", e.Code)
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + fmt.Sprintf("... (%d bytes)", len(s))
}

func compactJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return cut(string(b), 800)
}

func echoed(match string, sent []string) bool {
	for _, s := range sent {
		if strings.Contains(strings.ToLower(s), strings.ToLower(match)) {
			return true
		}
	}
	return false
}
