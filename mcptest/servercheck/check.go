package servercheck

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/internal/toolschema"
	"github.com/mcptestkit/mcptestkit/mcptest/crash"
	"github.com/mcptestkit/mcptestkit/mcptest/internal/monitor"
	"github.com/mcptestkit/mcptestkit/mcptest/internal/sdk"
)

// Dialer opens a fresh connection to the server under test. Run calls it
// once per connection it needs (one per protocol version for the handshake
// checks, one for a check that may break the connection, one more after a
// connection broke), and closes each transport it got.
//
// ctx carries what the in-process adapters need to report a recovered
// panic (package crash); a Dialer that starts a server in the process should
// hand ctx, or a context derived from it, to the server. Package mcptest's
// CheckServer and Fuzz make such Dialers for any mcptest.Server.
type Dialer func(ctx context.Context) (client.Transport, error)

// MarshalText makes a Status "pass", "fail", "skip" or "warn" in JSON.
func (s Status) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Status is the outcome of one check.
type Status uint8

const (
	// Pass: the server did what the protocol and the contract expect.
	Pass Status = iota
	// Fail: it broke a rule the specification states with MUST (or the
	// JSON-RPC 2.0 rules MCP is built on, or the error contract's crash
	// rules); Result.Detail says how and cites the rule.
	Fail
	// Skip: the check does not apply (the server does not declare the
	// capability, has nothing to check) or was left out by Options.Skip.
	Skip
	// Warn: the server works, but against a SHOULD of the specification
	// or a convention clients rely on (a tool name with spaces, an error
	// code the specification recommends another one for); Result.Detail
	// says which. A warning fails nothing unless Options.Strict.
	Warn
)

func (s Status) String() string {
	switch s {
	case Pass:
		return "pass"
	case Fail:
		return "fail"
	case Skip:
		return "skip"
	case Warn:
		return "warn"
	}
	return fmt.Sprintf("Status(%d)", uint8(s))
}

// Result is the outcome of one check.
type Result struct {
	// Name is the check's path, elements separated by "/":
	// "tools/call/get_author". Names contain no spaces.
	Name string
	// Status says whether it passed, failed or was skipped.
	Status Status
	// Detail says why a check failed or was skipped: what was sent, what
	// came back, what the specification or the error contract expects. A
	// passing check may carry a note (which of two allowed answers the
	// server chose).
	Detail string
	// Transcript is the excerpt of the connection the check used: one
	// message per line, "→ " for client to server, "← " for server to
	// client; set for failures.
	Transcript []string
	// Duration is how long the check took.
	Duration time.Duration
	// Rule is the row of the check table the check belongs to; zero for
	// a check Options.Skip left out.
	Rule Rule
}

// Rule is one row of the check table: the rule a check judges, for reports
// that group findings by rule (SARIF) or key them (baselines).
type Rule struct {
	// ID is the row's name: a check's name, or a family's with a
	// placeholder for its item ("tools/calls/<tool>").
	ID string
	// Level is what breaking the rule makes a check: Fail for a MUST,
	// Warn for a SHOULD or a convention.
	Level Status
	// Spec is where the rule is written: a specification page as named on
	// modelcontextprotocol.io, "JSON-RPC 2.0", or "a convention".
	Spec string
	// Doc says what the rule requires, in one paragraph.
	Doc string
}

// String formats r as one line, and its detail and transcript on the
// indented lines after it.
func (r Result) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s (%v)", strings.ToUpper(r.Status.String()), r.Name, r.Duration.Round(time.Millisecond))
	if r.Detail != "" {
		b.WriteString("\n" + indent(r.Detail, "\t"))
	}
	if len(r.Transcript) > 0 {
		b.WriteString("\n\ttranscript:\n" + indent(strings.Join(r.Transcript, "\n"), "\t\t"))
	}
	return b.String()
}

// LogRecord is one log record of the server, as [Options.Logs] returns it.
type LogRecord struct {
	Level   slog.Level
	Message string
	// Stack is the stack trace attached to the record, "" for none.
	Stack string
}

// DefaultCalls is how many calls with generated arguments each tool gets
// when Options.Calls is zero.
const DefaultCalls = 24

// DefaultTimeout bounds each request when Options.Timeout is zero.
const DefaultTimeout = 10 * time.Second

// Options configure [Run]. The zero value runs every check.
type Options struct {
	// Version is the protocol version of every check but the handshake ones.
	// Empty starts era-neutrally: 2026-07-28 if the server speaks it, else
	// the newest legacy version.
	Version string
	// Versions are the versions the handshake checks try, one check each.
	// Nil: every version the client supports.
	Versions []string
	// Run and Skip select checks by name, as go test's -run and -skip do:
	// a pattern is split at "/" and each element is an unanchored regular
	// expression matched against the name's element at that depth. A check
	// runs if it matches Run (or Run is empty) and no pattern of Skip; a
	// check Skip leaves out is reported as skipped, with the Detail "left
	// out by Options.Skip".
	Run  string
	Skip []string
	// Calls is how many calls with generated arguments each tool gets
	// (default [DefaultCalls]); negative: none.
	Calls int
	// Seed seeds the argument generator; the same seed gives the same calls.
	Seed uint64
	// Timeout bounds each request (default [DefaultTimeout]). A request
	// that gets no answer in time fails its check.
	Timeout time.Duration
	// Client is the base of the client's options for every connection:
	// callbacks (sampling, elicitation, roots) and identity. Run sets the
	// protocol version and the timeout, and answers what the server asks
	// for with the callbacks left unset, so that a tool that asks is
	// checked, not skipped: a form elicitation accepted with content its
	// schema allows (a URL one declined), sampling with a canned text,
	// roots/list with one empty directory Run makes and removes.
	Client client.Options
	// Logs, when set, returns the server's log records so far. The crash
	// checks then require one ERROR record with a stack for each crash.
	Logs func() []LogRecord
	// Runner, when set, runs each check: it must call check at most once
	// and return after it returns. mcptest.CheckServer passes one that runs
	// the check as a subtest; not calling check leaves it out.
	Runner func(name string, check func() Result)
	// OnResult, when set, receives each check's result as it finishes.
	OnResult func(Result)
	// Strict makes warnings count as failures: Run's error names the
	// checks that warned too.
	Strict bool
	// Tokens, when set, counts the tokens of a text as a model's tokenizer
	// does; the lint/tokens check then reports what tools/list costs the
	// model's context, per tool and in all, and warns past TokenBudget
	// (default [DefaultTokenBudget]). Nil skips it: this module embeds no
	// tokenizer (their vocabularies are megabytes); mcptestkit check has one.
	Tokens      func(text string) int
	TokenBudget int
}

// ErrConnect is wrapped by the error [Run] returns when it could not open
// and initialize its first connection, so no check could run. That error
// wraps the connection's error too: errors.As finds its cause.
var ErrConnect = errors.New("could not connect to the server")

// Run runs the checks against the server dial reaches and returns nil if
// none failed, or an error naming those that failed; each result also goes
// to Options.OnResult as it finishes. It returns an error wrapping
// [ErrConnect] when the first connection fails: then no check ran.
//
// Run is the engine of mcptest.CheckServer for use outside package testing,
// as testing/fstest.TestFS is.
func Run(ctx context.Context, dial Dialer, opts *Options) error {
	if opts == nil {
		opts = &Options{}
	}
	s, err := newSuite(ctx, dial, opts)
	if err != nil {
		return err
	}
	if dial == nil {
		return errors.New("servercheck: Run: the Dialer is nil")
	}
	// A server's lookahead pattern starts regexp2's timing goroutine, which
	// would outlive the checks by a second: a leak to a user's goleak.
	defer toolschema.StopClock()
	defer s.close()
	if err := s.answerInput(); err != nil {
		return fmt.Errorf("servercheck: %w", err)
	}
	if err := s.start(); err != nil {
		return err
	}
	s.all()
	if len(s.failed) == 0 {
		return nil
	}
	return fmt.Errorf("%d check(s) failed: %s", len(s.failed), strings.Join(s.failed, ", "))
}

// suite is the state of one Run.
type suite struct {
	ctx     context.Context
	dial    Dialer
	opts    Options
	run     []*regexp.Regexp
	skip    [][]*regexp.Regexp
	timeout time.Duration

	mu      sync.Mutex
	crashes []crash.Report // reported by in-process adapters, not yet claimed

	main   *conn                     // the connection most checks use; reopened when it breaks
	caps   client.ServerCapabilities // what the server declared on the first connection
	inv    inventory
	failed []string

	shutdowns shutdowns // stdio: how the server processes ended
	http      httpState // the http/ checks' connection
	dead      string    // why the server answers nothing any more; "" while it does
	// tasksAt says, by protocol version, whether a handshake check's
	// connection found the server declaring tasks.
	tasksAt map[string]bool
	wire    wireLog // messages that break the protocol's schema
	lint    lintState
	// monitors are the protocol monitors of the connections (guarded by mu).
	monitors []*monitor.Monitor

	// sdk names the SDK release serving the server ("go-sdk v1.4.0"), when
	// mcptest knows it, for the hints of the checks a release fails.
	sdk string

	matchTimeout time.Duration // of a pattern regexp2 runs (toolschema)
	schemaMu     sync.Mutex
	schemas      map[string]compileResult // by name and schema: compiled once per run
	rootDir      string                   // the empty directory the check client lists as its root; removed by close
	legacy       *conn                    // tools/calls' connection in the legacy era of a dual-era server
}

func newSuite(ctx context.Context, dial Dialer, opts *Options) (*suite, error) {
	s := &suite{dial: dial, opts: *opts, timeout: opts.Timeout, matchTimeout: toolschema.Timeout(ctx), tasksAt: map[string]bool{}}
	if s.timeout <= 0 {
		s.timeout = DefaultTimeout
	}
	if s.opts.Calls == 0 {
		s.opts.Calls = DefaultCalls
	}
	if s.opts.Versions == nil {
		s.opts.Versions = client.SupportedVersions()
	}
	var err error
	if s.run, err = compilePattern(opts.Run); err != nil {
		return nil, fmt.Errorf("check: Options.Run: %w", err)
	}
	for _, p := range opts.Skip {
		re, err := compilePattern(p)
		if err != nil {
			return nil, fmt.Errorf("check: Options.Skip %q: %w", p, err)
		}
		s.skip = append(s.skip, re)
	}
	s.ctx = crash.WithReporter(ctx, s.reportCrash)
	s.sdk = sdk.From(ctx)
	return s, nil
}

func (s *suite) reportCrash(r crash.Report) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.crashes = append(s.crashes, r)
}

// takeCrashes returns the crash reports since the last call.
func (s *suite) takeCrashes() []crash.Report {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.crashes
	s.crashes = nil
	return c
}

// start opens the main connection.
func (s *suite) start() error {
	c, err := s.open(s.opts.Version)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrConnect, err)
	}
	s.main = c
	if caps := c.cl.ServerCapabilities(); caps != nil {
		s.caps = *caps
	}
	return nil
}

func (s *suite) close() {
	s.closeHTTP()
	if s.main != nil {
		s.main.close()
	}
	if s.legacy != nil {
		s.legacy.close()
	}
	if s.rootDir != "" {
		_ = os.RemoveAll(s.rootDir)
	}
}

// mainConn returns the main connection, reopened if it broke.
func (s *suite) mainConn() (*conn, error) {
	if s.main != nil && s.main.alive() {
		return s.main, nil
	}
	if s.main != nil {
		s.main.close()
		s.main = nil
	}
	c, err := s.open(s.opts.Version)
	if err != nil {
		return nil, fmt.Errorf("could not reconnect after the connection broke: %v", err)
	}
	s.main = c
	return c, nil
}

// check runs one named check through the Runner, if selected.
func (s *suite) check(name string, fn func(c *state)) {
	name = cleanName(name)
	elems := strings.Split(name, "/")
	if len(s.run) > 0 && !matchPrefix(s.run, elems, true) {
		return
	}
	for _, p := range s.skip {
		if matchPrefix(p, elems, false) {
			fn = func(c *state) { c.skipf(SkippedDetail) }
			break
		}
	}
	run := fn
	fn = func(c *state) {
		if c.s.dead != "" && name != "shutdown" {
			c.skipf("not run: %s", c.s.dead)
		}
		run(c)
	}
	body := func() Result {
		s.wire.setCheck(name)
		start := time.Now()
		c := &state{s: s, name: name}
		s.takeCrashes() // a crash before this check is not this check's
		func() {
			defer func() {
				if r := recover(); r != nil && r != errStop {
					panic(r)
				}
			}()
			fn(c)
		}()
		c.claimCrashes()
		c.claimIDMismatches()
		res := c.result()
		if c.fam != nil {
			res.Rule = c.fam.rule()
		}
		res.Duration = time.Since(start)
		return res
	}
	report := func(r Result) {
		if r.Status == Fail || r.Status == Warn && s.opts.Strict {
			s.failed = append(s.failed, r.Name)
		}
		if s.opts.OnResult != nil {
			s.opts.OnResult(r)
		}
	}
	if s.opts.Runner == nil {
		report(body())
		return
	}
	s.opts.Runner(name, func() Result {
		r := body()
		report(r)
		return r
	})
}

// matchPrefix reports whether the pattern elements match name's elements.
// For Run (partial), a name shorter than the pattern matches if its
// elements do, as go test runs a parent whose subtests may match; for Skip,
// every pattern element must match.
func matchPrefix(pat []*regexp.Regexp, elems []string, partial bool) bool {
	for i, re := range pat {
		if i >= len(elems) {
			return partial
		}
		if !re.MatchString(elems[i]) {
			return false
		}
	}
	return true
}

func compilePattern(p string) ([]*regexp.Regexp, error) {
	if p == "" {
		return nil, nil
	}
	var out []*regexp.Regexp
	for _, e := range strings.Split(p, "/") {
		re, err := regexp.Compile(e)
		if err != nil {
			return nil, err
		}
		out = append(out, re)
	}
	return out, nil
}

// cleanName makes a name safe as a check path element the way go test
// rewrites subtest names: spaces become underscores.
func cleanName(name string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == ' ':
			return '_'
		case r < ' ' || r == 0x7f:
			return -1
		}
		return r
	}, name)
}

// elem makes one path element from a server-given name (a tool, a prompt, a
// resource): no "/" inside it.
func elem(name string) string {
	if name == "" {
		return "(empty)"
	}
	return strings.ReplaceAll(cleanName(name), "/", "_")
}

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+prefix)
}

// SkippedDetail is the Detail of the Result of a check that Options.Skip
// left out: a caller compares with it to reword the reason for its own
// option (mcptest.SkipChecks, mcptestkit check --skip).
const SkippedDetail = "left out by Options.Skip"
