package logcapture

import (
	"context"
	"flag"
	"fmt"
	"log"
	"log/slog"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/mcptestkit/mcptestkit/internal/tbplace"
)

// Recorder keeps every [slog.Record] it handles. It is an [slog.Handler];
// [Recorder.Logger] wraps it in a logger ready to hand to the code under
// test. All methods are safe for concurrent use.
type Recorder struct {
	min    slog.Leveler // nil: every level
	logger *slog.Logger

	mu      sync.Mutex
	records []Record
	added   chan struct{} // made by Wait, closed by the next add; nil when nobody waits
}

// Option configures a [Recorder]. A nil Option is ignored, so that an option
// can be chosen conditionally.
type Option func(*config)

type config struct {
	min            slog.Leveler
	noDump         bool
	captureDefault bool
}

// MinLevel makes the recorder keep only records at level l or above. A
// [*slog.LevelVar] may be given to change the level during the test. By
// default every level is kept.
func MinLevel(l slog.Leveler) Option { return func(c *config) { c.min = l } }

// NoDump turns off printing the captured records when the test fails.
func NoDump() Option { return func(c *config) { c.noDump = true } }

// CaptureDefault makes [slog.Default] log into the recorder until the test
// ends, then restores it. Through slog, the [log] package's default logger is
// redirected too (its output arrives at INFO); its writer and flags are
// restored as well. This changes process-wide state: do not use it in a test
// that calls t.Parallel, or while a parallel test is running.
func CaptureDefault() Option { return func(c *config) { c.captureDefault = true } }

// New returns a recorder for the test t. When t fails, the captured records
// are printed in its output (unless [NoDump] is given).
func New(t testing.TB, opts ...Option) *Recorder {
	t.Helper()
	var cfg config
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	r := &Recorder{min: cfg.min}
	r.logger = slog.New(r)
	if !cfg.noDump {
		// The dump is labelled with the line that called New: by testing,
		// or, inside synctest.Test, where testing names a line of its own
		// for a cleanup's report, by tbplace.
		var place tbplace.Place
		if tbplace.InBubble(t) {
			_, self, _, _ := runtime.Caller(0)
			place = tbplace.Caller(t, self)
		}
		// The testing package keeps a finished test's cleanups until its
		// parent test ends; this one lets go of the records once it has run.
		rp := r
		t.Cleanup(func() {
			t.Helper()
			r := rp
			rp = nil
			if !t.Failed() {
				return
			}
			if d := r.dump(mainModule(), flag.Parsed() && testing.Verbose()); d != "" && !place.Report(false, d) {
				t.Log(d)
			}
		})
	}
	if cfg.captureDefault {
		prev, w, flags := slog.Default(), log.Writer(), log.Flags()
		slog.SetDefault(r.logger)
		t.Cleanup(func() {
			slog.SetDefault(prev)
			// SetDefault with slog's own default handler leaves the log
			// package writing into our recorder; undo that by hand.
			log.SetOutput(w)
			log.SetFlags(flags)
		})
	}
	return r
}

// Logger returns a logger that writes into the recorder. It is the same
// logger on every call.
func (r *Recorder) Logger() *slog.Logger { return r.logger }

// StdLogger returns a [*log.Logger] whose output becomes records at the given
// level, for APIs that take one (such as an HTTP server's ErrorLog).
func (r *Recorder) StdLogger(level slog.Level) *log.Logger { return slog.NewLogLogger(r, level) }

// Records returns the captured records that match every matcher, oldest
// first; all of them if no matcher is given.
func (r *Recorder) Records(ms ...Matcher) []Record {
	r.mu.Lock()
	defer r.mu.Unlock()
	return filter(r.records, ms)
}

// Messages returns the messages of the records that match every matcher.
func (r *Recorder) Messages(ms ...Matcher) []string {
	recs := r.Records(ms...)
	out := make([]string, len(recs))
	for i, rec := range recs {
		out[i] = rec.Message
	}
	return out
}

// first returns the oldest record that matches every matcher.
func (r *Recorder) first(ms []Matcher) (Record, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, rec := range r.records {
		if matchAll(ms, rec) {
			return rec, true
		}
	}
	return Record{}, false
}

// Count returns how many captured records match every matcher.
func (r *Recorder) Count(ms ...Matcher) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, rec := range r.records {
		if matchAll(ms, rec) {
			n++
		}
	}
	return n
}

// Clear forgets every captured record.
func (r *Recorder) Clear() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.records = nil
}

// Wait blocks until a record matching every matcher has been captured (it
// may already have been) and returns the first such record. It returns
// ctx.Err() if ctx ends first. Use it for code that logs from another
// goroutine, after the test has already seen the effect it waits on.
func (r *Recorder) Wait(ctx context.Context, ms ...Matcher) (Record, error) {
	seen := 0
	for {
		r.mu.Lock()
		for _, rec := range r.records[min(seen, len(r.records)):] {
			if matchAll(ms, rec) {
				r.mu.Unlock()
				return rec, nil
			}
		}
		seen = len(r.records)
		if r.added == nil {
			r.added = make(chan struct{})
		}
		added := r.added
		r.mu.Unlock()
		select {
		case <-added:
		case <-ctx.Done():
			return Record{}, ctx.Err()
		}
	}
}

// String returns every captured record as readable text, one per line (with
// indented blocks for multi-line values such as stacks), in the same form as
// the failure dump and [Record.String].
func (r *Recorder) String() string {
	return formatRecords(r.Records(), nil)
}

// dump returns the failure dump, or "" if nothing was captured. Unless all
// is set (go test -v), the routine records of dependencies, below WARN and
// logged from outside module (the module under test), are summed up in one
// line: a library's "server connecting" is rarely why a test failed.
func (r *Recorder) dump(module string, all bool) string {
	recs := r.Records()
	if len(recs) == 0 {
		return ""
	}
	var shown []Record
	left := map[string][]string{} // module → quoted messages
	var mods []string
	for _, rec := range recs {
		pkg := recordPackage(rec)
		if all || module == "" || rec.Level >= slog.LevelWarn || !strings.Contains(strings.Split(pkg, "/")[0], ".") ||
			pkg == module || strings.HasPrefix(pkg, module+"/") {
			shown = append(shown, rec) // an error, the test's own module, the standard library, unknown
			continue
		}
		mod := strings.Join(strings.SplitN(pkg, "/", 4)[:min(3, strings.Count(pkg, "/")+1)], "/") // github.com/owner/repo
		if _, ok := left[mod]; !ok {
			mods = append(mods, mod)
		}
		left[mod] = append(left[mod], strconv.Quote(rec.Message))
	}
	var b strings.Builder
	b.WriteString("------------------------------ Captured log ------------------------------\n")
	b.WriteString(formatShown(shown, nil))
	for _, mod := range mods {
		msgs := left[mod]
		if len(msgs) > 10 {
			msgs = append(msgs[:10:10], fmt.Sprintf("and %d more", len(left[mod])-10))
		}
		fmt.Fprintf(&b, "(%d %s below WARN from %s left out: %s; go test -v prints them)\n", len(left[mod]), plural(len(left[mod]), "record"), mod, strings.Join(msgs, ", "))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// mainModule is the module whose tests are running, "" if unknown.
func mainModule() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		return bi.Main.Path
	}
	return ""
}

// recordPackage returns the package path of the function that logged rec,
// "" when the record has no source.
func recordPackage(rec Record) string {
	src := rec.Source()
	if src == nil {
		return ""
	}
	fn := src.Function
	slash := max(strings.LastIndex(fn, "/"), 0)
	if dot := strings.Index(fn[slash:], "."); dot >= 0 {
		return fn[:slash+dot]
	}
	return fn
}

func (r *Recorder) add(rec Record) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.records = append(r.records, rec)
	if r.added != nil {
		close(r.added)
		r.added = nil
	}
}

// Enabled reports whether the recorder keeps records at level l: always,
// unless [MinLevel] was given.
func (r *Recorder) Enabled(_ context.Context, l slog.Level) bool {
	return r.min == nil || l >= r.min.Level()
}

// Handle captures the record. It never fails.
func (r *Recorder) Handle(_ context.Context, rec slog.Record) error {
	r.capture(nil, nil, rec)
	return nil
}

// WithAttrs returns a handler that adds attrs to every record it captures
// into r.
func (r *Recorder) WithAttrs(attrs []slog.Attr) slog.Handler {
	return (&handler{rec: r}).WithAttrs(attrs)
}

// WithGroup returns a handler that captures into r with the attributes that
// follow inside the group name.
func (r *Recorder) WithGroup(name string) slog.Handler {
	return (&handler{rec: r}).WithGroup(name)
}

// handler is the recorder seen through With and WithGroup.
type handler struct {
	rec    *Recorder
	groups []string // open groups; never mutated once shared
	attrs  []attr   // from WithAttrs, flattened and resolved
}

func (h *handler) Enabled(ctx context.Context, l slog.Level) bool { return h.rec.Enabled(ctx, l) }

func (h *handler) Handle(_ context.Context, r slog.Record) error {
	h.rec.capture(h.groups, h.attrs, r)
	return nil
}

// capture stores r with the handler's open groups and attributes.
func (r *Recorder) capture(groups []string, pre []attr, rec slog.Record) {
	attrs := pre // shared: never mutated
	if rec.NumAttrs() > 0 {
		attrs = make([]attr, len(pre), len(pre)+rec.NumAttrs())
		copy(attrs, pre)
		rec.Attrs(func(a slog.Attr) bool {
			attrs = appendAttr(attrs, groups, a)
			return true
		})
	}
	r.add(Record{Time: rec.Time, Level: rec.Level, Message: rec.Message, PC: rec.PC, attrs: attrs})
}

func (h *handler) WithAttrs(as []slog.Attr) slog.Handler {
	if len(as) == 0 {
		return h
	}
	h2 := *h
	h2.attrs = slices.Clip(h.attrs)
	for _, a := range as {
		h2.attrs = appendAttr(h2.attrs, h.groups, a)
	}
	return &h2
}

func (h *handler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	h2 := *h
	h2.groups = append(slices.Clip(h.groups), name)
	return &h2
}

// appendAttr resolves a and appends it to dst, flattening groups: it follows
// the slog.Handler rules (ignore an empty Attr and an empty group, inline a
// group with an empty key).
func appendAttr(dst []attr, groups []string, a slog.Attr) []attr {
	a.Value = a.Value.Resolve()
	if a.Value.Kind() == slog.KindGroup {
		members := a.Value.Group()
		if len(members) == 0 {
			return dst
		}
		if a.Key != "" {
			groups = append(slices.Clip(groups), a.Key)
		}
		for _, m := range members {
			dst = appendAttr(dst, groups, m)
		}
		return dst
	}
	if a.Key == "" && a.Value.Kind() == slog.KindAny && a.Value.Any() == nil {
		return dst
	}
	return append(dst, attr{groups: groups, key: a.Key, value: a.Value})
}

func filter(recs []Record, ms []Matcher) []Record {
	out := make([]Record, 0, len(recs))
	for _, rec := range recs {
		if matchAll(ms, rec) {
			out = append(out, rec)
		}
	}
	return out
}
