package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/mcptest/servercheck"
	"github.com/mcptestkit/mcptestkit/mcptest/surface"
)

var cmdCheck = &command{
	usageLine: "check [flags] [SERVER]",
	short:     "run the checks of mcptest.CheckServer",
	reach:     oneServer,
	long: `Check runs the checks of mcptest.CheckServer against SERVER (see the documentation
of package mcptest/servercheck for the list): the handshake at every protocol
version, capabilities, lists and schemas, every tool called with arguments
generated from its input schema and with invalid ones, resources, prompts.
It prints a line per check as it finishes, each failure's detail and the
messages around it, and a summary. Check names are paths such as
tools/calls/get_author; --run and --skip select them as go test's -run and
-skip select subtests.

A check fails when the server breaks a MUST of the specification and warns
when it breaks a SHOULD or a convention (a tool name with spaces, an error
code the specification recommends another one for); warnings do not change
the exit status unless --strict.

For CI: --format sarif writes SARIF 2.1.0 for code scanning, each finding on
the source line of the tool's handler when the server is Go code here (the
bundled Bookshop, or -- go run ./path); --format markdown a summary. When
GITHUB_ACTIONS=true, each finding is also an annotation (on stderr) and the
markdown goes to $GITHUB_STEP_SUMMARY.`,
	flags: func() invocation { return new(checkFlags) },
}

// checkFlags are check's flags, new for each run.
type checkFlags struct {
	format  string
	junit   string
	sarif   string
	skip    stringList
	only    string // --run
	calls   int
	verbose bool
	strict  bool

	baseline       string
	updateBaseline bool
	tokenBudget    int
}

func (f *checkFlags) register(fs *flag.FlagSet, _ *connFlags) {
	fs.StringVar(&f.format, "format", "text", "the report on stdout: text, json, sarif (SARIF 2.1.0, for code scanning) or markdown")
	fs.StringVar(&f.junit, "junit", "", "also write a JUnit XML report to `file`, for CI")
	fs.StringVar(&f.sarif, "sarif", "", "also write a SARIF 2.1.0 report to `file`, for code scanning")
	fs.Var(&f.skip, "skip", "leave out the checks matching `pattern` (go test -skip syntax; repeatable)")
	fs.StringVar(&f.only, "run", "", "run only the checks matching `pattern` (go test -run syntax)")
	fs.IntVar(&f.calls, "fuzz-calls", servercheck.DefaultCalls, "calls with generated arguments per tool (0: none)")
	fs.BoolVar(&f.verbose, "v", false, "also print the notes of passing checks (text format)")
	fs.BoolVar(&f.strict, "strict", false, "count warnings (a SHOULD of the specification broken) as failures")
	fs.IntVar(&f.tokenBudget, "token-budget", servercheck.DefaultTokenBudget, "lint/tokens warns when tools/list costs more than this many `tokens` (o200k_base)")
	fs.StringVar(&f.baseline, "baseline", "", "exit 1 only on a failure (or with --strict a warning) not in this baseline `file`, so CI can ratchet")
	fs.BoolVar(&f.updateBaseline, "update-baseline", false, "write the run's failures and warnings to the --baseline file")
}

// bundledSkips are the checks the bundled Bookshop leaves out, and why:
// examples/bookshop/check_test.go leaves out the same.
var bundledSkips = map[string]string{
	"malformed-frame": "go-sdk v1.8.0, which the Bookshop runs on, ends the session on a frame it cannot decode instead of answering -32700; examples/bookshop/check_test.go skips it too",
}

func (f *checkFlags) run(ctx context.Context, cmd *command, args []string, srv *server, term terminal) (int, error) {
	if len(args) > 0 {
		return exitUsage, usagef(cmd, "unexpected argument %q: a server URL starts with http:// or https://, a server command goes after --", args[0])
	}
	switch f.format {
	case "text", "json", "sarif", "markdown":
	default:
		return exitUsage, usagef(cmd, "--format %q: use text, json, sarif or markdown", f.format)
	}
	if f.calls < 0 {
		return exitUsage, usagef(cmd, "--fuzz-calls %d: give 0 or more", f.calls)
	}
	if f.tokenBudget <= 0 {
		return exitUsage, usagef(cmd, "--token-budget %d: give a positive number of tokens", f.tokenBudget)
	}
	for _, p := range append([]string{f.only}, f.skip...) {
		if err := checkPattern(p); err != nil {
			return exitUsage, usagef(cmd, "pattern %q: %v", p, err)
		}
	}
	var base *baseline
	switch {
	case f.updateBaseline && f.baseline == "":
		return exitUsage, usagef(cmd, "--update-baseline writes the file --baseline names: give --baseline FILE")
	case f.baseline != "" && !f.updateBaseline:
		var err error
		if base, err = readBaseline(f.baseline); err != nil {
			return exitUsage, err
		}
	}
	var junit *os.File
	if f.junit != "" {
		var err error
		if junit, err = os.Create(f.junit); err != nil {
			return exitUsage, usagef(cmd, "--junit: %v", err)
		}
		defer junit.Close()
	}

	rep := &report{Server: srv.String(), Strict: f.strict, started: time.Now()}
	out := newTextReport(term, f.verbose)
	if f.format == "text" {
		out.header(rep.Server)
	}
	logs := &logRecorder{}
	// Once ctx ends, the checks still running are cut short by it: their
	// results are the run's, not the server's, and go unreported. mu guards
	// rep and out, which the checks' goroutine writes until stopped.
	var mu sync.Mutex
	stopped := false
	opts := &servercheck.Options{
		Version:     srv.version,
		Run:         f.only,
		Skip:        f.skip,
		Calls:       f.calls,
		Timeout:     srv.timeout,
		Strict:      f.strict,
		Tokens:      countTokens,
		TokenBudget: f.tokenBudget,
		Runner: func(name string, check func() servercheck.Result) {
			mu.Lock()
			if stopped || ctx.Err() != nil {
				mu.Unlock()
				return // not run
			}
			out.progress(name, len(rep.Checks))
			mu.Unlock()
			check()
		},
		OnResult: func(r servercheck.Result) {
			mu.Lock()
			defer mu.Unlock()
			if stopped || ctx.Err() != nil {
				return
			}
			if reason, ok := bundledSkips[r.Name]; ok && srv.bundled() && r.Status == servercheck.Skip {
				r.Detail = reason
			} else if r.Status == servercheck.Skip && r.Detail == servercheck.SkippedDetail {
				r.Detail = "left out by --skip"
			}
			c := rep.add(r)
			if f.format == "text" {
				out.check(c)
			}
		},
	}
	if f.calls == 0 {
		opts.Calls = -1
	}
	if srv.command != nil {
		// A program may take a while to start ("go run" builds first): the
		// era probe waits as long as any answer, not less.
		opts.Client.ProbeTimeout = max(srv.timeout, client.DefaultProbeTimeout)
	}
	if srv.bundled() {
		opts.Logs = logs.records
		for name := range bundledSkips {
			opts.Skip = append(opts.Skip, "^"+regexp.QuoteMeta(name)+"$")
		}
	}
	// With MCPTEST_SURFACE set, the checks' calls go into a surface report
	// (as CheckServer's), for "mcptestkit surface" to merge with the tests'.
	dial := srv.dialer(logs)
	observed := func(ctx context.Context) (client.Transport, error) {
		tr, err := dial(ctx)
		return surface.Observe(tr, surface.Check), err
	}
	err := runUntil(ctx, func() error { return servercheck.Run(ctx, observed, opts) })
	mu.Lock()
	stopped = true
	mu.Unlock()
	out.clearProgress()
	rep.Duration = time.Since(rep.started)
	code := exitOK
	switch {
	case ctx.Err() != nil:
		err = fmt.Errorf("interrupted after %d check(s): %w", len(rep.Checks), context.Cause(ctx))
		rep.Error = err.Error()
		rep.stage = "interrupted"
		code = exitUsage // run makes it the signal's
	case errors.Is(err, servercheck.ErrConnect):
		rep.Error = srv.connectError(connectCause(err)).Error()
		rep.stage = "connect"
		code = exitUsage
	case rep.Failed > 0:
		code = exitFail
	case err != nil: // Run failed without a failing check: a bug to show, not hide
		rep.Error = err.Error()
		rep.stage = "run"
		code = exitUsage
	}
	if rep.Error == "" && f.updateBaseline {
		b := baselineOf(rep)
		if werr := b.write(f.baseline); werr != nil {
			return exitUsage, fmt.Errorf("--update-baseline: %v", werr)
		}
		fprintf(term.stderr, "mcptestkit check: wrote %d finding(s) to the baseline %s\n", len(b.Findings), f.baseline)
		code = exitOK
	}
	if rep.Error == "" && base != nil {
		regressions, gone := base.judge(rep)
		for _, e := range gone {
			fprintf(term.stderr, "mcptestkit check: %s is in the baseline but passes now: --update-baseline removes it\n", e)
		}
		if len(regressions) > 0 {
			fprintf(term.stderr, "mcptestkit check: %d finding(s) not in the baseline %s: %s\n", len(regressions), f.baseline, strings.Join(regressions, ", "))
		} else if code == exitFail {
			fprintf(term.stderr, "mcptestkit check: every failing check is in the baseline %s\n", f.baseline)
			code = exitOK
		}
	}
	if junit != nil {
		if werr := writeJUnit(junit, rep); werr != nil {
			return exitUsage, fmt.Errorf("--junit %s: %v", f.junit, werr)
		}
		if werr := junit.Close(); werr != nil {
			return exitUsage, fmt.Errorf("--junit %s: %v", f.junit, werr)
		}
	}
	loc := sync.OnceValue(func() *locator { return locatorFor(srv) })
	if f.sarif != "" {
		if werr := writeFile(f.sarif, func(w io.Writer) error { return writeSARIF(w, rep, loc()) }); werr != nil {
			return exitUsage, fmt.Errorf("--sarif %s: %v", f.sarif, werr)
		}
	}
	switch f.format {
	case "json":
		if werr := writeJSON(term.stdout, rep); werr != nil {
			return exitUsage, werr
		}
	case "sarif":
		if werr := writeSARIF(term.stdout, rep, loc()); werr != nil {
			return exitUsage, werr
		}
	case "markdown":
		if werr := writeMarkdown(term.stdout, rep); werr != nil {
			return exitUsage, werr
		}
	default:
		if rep.Error != "" {
			break
		}
		out.summary(rep)
	}
	if gh := onGitHub(); gh != nil {
		if werr := gh.report(term.stderr, rep, loc()); werr != nil {
			return exitUsage, werr
		}
	}
	switch {
	case rep.stage == "interrupted":
		return code, err
	case rep.Error != "":
		return code, errors.New(rep.Error)
	}
	return code, nil
}

// writeFile creates the file name and writes it with write.
func writeFile(name string, write func(io.Writer) error) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// stopWithin is how long an interrupted check waits for the checks to
// stop, which closes their connections and so stops the servers.
const stopWithin = time.Second

// runUntil returns run's error, or once ctx ends, the end's cause: the run
// stops then (the Runner starts no more checks, a request in flight ends
// with ctx), but a check busy in between (generating arguments) may not
// notice for a while, and the command does not wait past stopWithin.
func runUntil(ctx context.Context, run func() error) error {
	done := make(chan error, 1)
	go func() { done <- run() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	t := time.NewTimer(stopWithin)
	defer t.Stop()
	select {
	case err := <-done:
		return err
	case <-t.C:
		return context.Cause(ctx)
	}
}

// checkPattern reports whether p compiles as --run and --skip patterns do:
// each "/"-separated element is a regular expression.
func checkPattern(p string) error {
	if p == "" {
		return nil
	}
	for _, e := range strings.Split(p, "/") {
		if _, err := regexp.Compile(e); err != nil {
			return err
		}
	}
	return nil
}

// report is the outcome of a check run, what every format renders.
type report struct {
	Server  string        `json:"server"`
	Checks  []checkResult `json:"checks"`
	Passed  int           `json:"passed"`
	Failed  int           `json:"failed"`
	Skipped int           `json:"skipped"`
	// Warned counts the checks that warned (and passed, unless Strict:
	// then they count as failed too).
	Warned   int           `json:"warned"`
	Strict   bool          `json:"strict"`
	Duration time.Duration `json:"-"`
	Seconds  float64       `json:"seconds"`
	// Error says why the run did not happen: the server could not be
	// reached, or the run was interrupted.
	Error string `json:"error,omitempty"`

	started time.Time
	stage   string // where Error happened: connect, interrupted, run
}

// checkResult is one check's outcome, mapped from servercheck.Result.
type checkResult struct {
	Name       string        `json:"name"`
	Status     string        `json:"status"` // pass, fail, skip or warn
	Detail     string        `json:"detail,omitempty"`
	Transcript []string      `json:"transcript,omitempty"`
	Duration   time.Duration `json:"-"`
	Seconds    float64       `json:"seconds"`

	rule servercheck.Rule // the row of the check table it belongs to
}

func (r *report) add(res servercheck.Result) checkResult {
	c := checkResult{
		Name:       res.Name,
		Status:     res.Status.String(),
		Detail:     res.Detail,
		Transcript: res.Transcript,
		Duration:   res.Duration,
		Seconds:    res.Duration.Seconds(),
		rule:       res.Rule,
	}
	switch res.Status {
	case servercheck.Pass:
		r.Passed++
	case servercheck.Warn:
		r.Warned++
		if r.Strict {
			r.Failed++
		} else {
			r.Passed++
		}
	case servercheck.Fail:
		r.Failed++
	default:
		r.Skipped++
	}
	r.Checks = append(r.Checks, c)
	return c
}

// logRecorder is the bundled Bookshop's slog handler: the crash checks ask
// for its records (one ERROR with a stack per crash).
type logRecorder struct {
	mu   sync.Mutex
	recs []servercheck.LogRecord
}

func (l *logRecorder) Enabled(context.Context, slog.Level) bool { return true }

func (l *logRecorder) Handle(_ context.Context, r slog.Record) error {
	rec := servercheck.LogRecord{Level: r.Level, Message: r.Message}
	find := func(a slog.Attr) bool {
		if a.Key == "stack" {
			rec.Stack = a.Value.String()
		}
		return true
	}
	r.Attrs(find)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.recs = append(l.recs, rec)
	return nil
}

func (l *logRecorder) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &derivedHandler{l, attrs}
}

// WithGroup keeps the records in the same list; a "stack" inside a group
// still counts, as logcapture's Record.Stack finds one.
func (l *logRecorder) WithGroup(string) slog.Handler { return l }

func (l *logRecorder) records() []servercheck.LogRecord {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]servercheck.LogRecord(nil), l.recs...)
}

// derivedHandler is logRecorder with attributes added by With.
type derivedHandler struct {
	root  *logRecorder
	attrs []slog.Attr
}

func (d *derivedHandler) Enabled(context.Context, slog.Level) bool { return true }

func (d *derivedHandler) Handle(ctx context.Context, r slog.Record) error {
	r = r.Clone()
	r.AddAttrs(d.attrs...)
	return d.root.Handle(ctx, r)
}

func (d *derivedHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &derivedHandler{d.root, append(append([]slog.Attr(nil), d.attrs...), attrs...)}
}

func (d *derivedHandler) WithGroup(string) slog.Handler { return d }

// connectCause is the connection's error that the error of servercheck.Run
// wraps beside servercheck.ErrConnect: why the first connection failed.
func connectCause(err error) error {
	var both interface{ Unwrap() []error }
	if errors.As(err, &both) {
		for _, e := range both.Unwrap() {
			if !errors.Is(e, servercheck.ErrConnect) {
				return e
			}
		}
	}
	return err
}
