package mcptest

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"time"
)

// leakLabel is the pprof label key that marks a connection's goroutines;
// the package documentation ("The leak check") explains the scheme.
const leakLabel = "mcptest.connection"

// defaultLeakIgnores returns the functions whose goroutines the leak check
// ignores unless told otherwise ([IgnoreLeaks] adds to the list): goroutines
// an SDK owns that may outlive a connection's Close by design. A goroutine is
// ignored when any function in its stack is on the list.
//
// The list, and why each entry is there:
//
//   - mcp-go's task TTL expiry, (*MCPServer).scheduleTaskCleanup: a task
//     belongs to the server, not to the connection that created it, and
//     this goroutine sleeps for the task's TTL before deleting it.
//
// Nothing else is needed for go-sdk v1.8.0 and mcp-go v1.2.1 served through
// mcptest/gosdk and mcptest/mcpgo: their session goroutines (readers,
// handlers, keepalive, notification writers) all end when the connection
// closes, which the harness's own tests check. Debounce timers
// (time.AfterFunc) run on unlabelled goroutines and are never counted.
func defaultLeakIgnores() []string {
	return []string{
		"github.com/mark3labs/mcp-go/server.(*MCPServer).scheduleTaskCleanup",
	}
}

// newLeakLabel returns a label value no other connection shares.
func newLeakLabel() string { return rand.Text() }

// goroutineGroup is one stack in the goroutine profile and how many
// goroutines sit on it.
type goroutineGroup struct {
	count     int
	functions []string // innermost first
	text      string   // the profile's lines for this stack
}

// readLabelled reads the goroutine profile once and returns the groups of
// goroutines carrying a connection label, by label value. Reading costs time
// in proportion to every goroutine in the process (the runtime walks each
// stack, and the text form groups them), so the census below reads rarely.
func readLabelled() map[string][]goroutineGroup {
	var buf bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&buf, 1); err != nil {
		return nil
	}
	out := map[string][]goroutineGroup{}
	prefix := fmt.Sprintf("%q:%q", leakLabel, "")
	prefix = prefix[:len(prefix)-1]
	for _, block := range strings.Split(buf.String(), "\n\n") {
		// Most blocks carry no label of ours: skip them before parsing.
		i := strings.Index(block, prefix)
		if i < 0 {
			continue
		}
		value, _, ok := strings.Cut(block[i+len(prefix):], `"`)
		if !ok {
			continue
		}
		if g, ok := parseGroup(block); ok {
			out[value] = append(out[value], g)
		}
	}
	return out
}

// parseGroup reads one block of the debug=1 goroutine profile:
//
//	2 @ 0x4a1 0x4b2
//	# labels: {"mcptest.connection":"ABC"}
//	#	0x4a0	pkg.fn+0x10	/path/file.go:12
func parseGroup(block string) (goroutineGroup, bool) {
	var g goroutineGroup
	first, rest, _ := strings.Cut(block, "\n")
	count, _, ok := strings.Cut(first, " @")
	if !ok {
		return g, false
	}
	if _, err := fmt.Sscan(count, &g.count); err != nil || g.count <= 0 {
		return g, false
	}
	var text strings.Builder
	for line := range strings.Lines(rest) {
		if strings.HasPrefix(line, "# labels: ") {
			continue
		}
		fields := strings.Fields(strings.TrimPrefix(line, "#"))
		if len(fields) < 2 {
			continue
		}
		fn := fields[1]
		if i := strings.LastIndex(fn, "+0x"); i > 0 {
			fn = fn[:i]
		}
		g.functions = append(g.functions, fn)
		text.WriteString("\t" + fn)
		if len(fields) >= 3 {
			text.WriteString("\n\t\t" + fields[2])
		}
		text.WriteString("\n")
	}
	g.text = text.String()
	return g, true
}

func filterIgnored(groups []goroutineGroup, ignore []string) []goroutineGroup {
	var out []goroutineGroup
	for _, g := range groups {
		if !ignored(g, ignore) {
			out = append(out, g)
		}
	}
	return out
}

func ignored(g goroutineGroup, ignore []string) bool {
	for _, fn := range g.functions {
		if slices.Contains(ignore, fn) {
			return true
		}
	}
	return false
}

// The leak check of one connection asks whether a goroutine carrying its
// label is still running once it has closed. Only the goroutine profile
// answers that, and reading it costs time in proportion to every goroutine
// in the process: in a suite of thousands of parallel tests, most of them
// goroutines of tests paused in t.Parallel. One read per connection would
// make the suite's time grow with the square of its size. So the checks of
// a test binary share one census: a connection that closes is added to it,
// and the profile is read, for every connection waiting, only when that is
// cheap (few goroutines in the process), when enough connections have been
// added since the last read to pay for it, when the oldest has waited a
// second, or when the test asked to be checked at once. Then a test's own
// leak fails that test; a leak of a connection whose test has already ended
// fails the test that found it, naming the test that leaked.
type census struct {
	reading sync.Mutex // held while the profile is read and judged

	// When to read: always with at most cheap goroutines in the process;
	// otherwise once every check has added credit goroutines' worth of
	// reading and the credit covers the goroutines, or once a connection has
	// waited maxDelay.
	cheap, creditPerCheck int
	maxDelay              time.Duration

	mu      sync.Mutex
	pending map[string]*leakCheck // by label
	credit  int                   // goroutines' worth of reading paid for
}

// theCensus is the test binary's census. It is process-wide state because
// what it reads, the goroutine profile, is.
var theCensus = newCensus()

// newCensus returns a census tuned so that reading costs each connection
// about as much as 32 goroutines' worth of reading, a fraction of what a
// connection costs anyway, and a leak is found within a second.
func newCensus() *census {
	return &census{cheap: 64, creditPerCheck: 32, maxDelay: time.Second, pending: map[string]*leakCheck{}}
}

// leakCheck is one connection waiting for the census.
type leakCheck struct {
	label  string
	test   string // the test's name, for a report made by another test
	ignore []string
	wait   time.Duration // how long its goroutines may take to end
	closed time.Time
	active bool // its own test is reading for it: a leak is its to report
}

// leakReport is a leak the census found in another test's connection.
type leakReport struct {
	test   string
	closed time.Duration // how long before it was found
	report string
}

// check adds the connection to the census and, when a read is due (or now
// is set), reads the profile for every connection waiting. It returns the
// report on this connection's leaked goroutines ("" if none, or if it was not
// checked yet) and those on other tests' connections.
func (c *census) check(ctx context.Context, lc leakCheck, now bool) (string, []leakReport) {
	lc.closed = time.Now()
	c.mu.Lock()
	c.pending[lc.label] = &lc
	c.credit += c.creditPerCheck
	g := runtime.NumGoroutine()
	cheap := g <= c.cheap
	exact := now || cheap
	due := exact || (c.creditPerCheck > 0 && c.credit >= g) || c.oldest(lc.closed) > c.maxDelay
	if due {
		c.credit = 0
	}
	lc.active = exact
	c.mu.Unlock()
	if !due {
		return "", nil
	}
	// Waiting for another connection's goroutines to end means reading
	// again: only worth it while reading is cheap.
	return c.read(ctx, lc.label, exact, cheap)
}

// oldest is how long the connection that has waited longest has waited.
func (c *census) oldest(now time.Time) time.Duration {
	var d time.Duration
	for _, p := range c.pending {
		d = max(d, now.Sub(p.closed))
	}
	return d
}

// read reads the profile for every connection waiting, forgets the clean
// ones and reports those past their wait. With exact set it reads again
// until its own connection is one or the other, and with others set, every
// connection waiting; otherwise those whose goroutines are still ending wait
// for the next read.
func (c *census) read(ctx context.Context, own string, exact, others bool) (string, []leakReport) {
	c.reading.Lock()
	defer c.reading.Unlock()
	c.mu.Lock()
	if _, waiting := c.pending[own]; !waiting {
		// A read that began after it was added found it clean.
		c.mu.Unlock()
		return "", nil
	}
	c.mu.Unlock()
	var ownReport string
	var reports []leakReport
	delay := 50 * time.Microsecond
	for {
		// The connection's own goroutines have just been told to stop;
		// let them run before looking.
		runtime.Gosched()
		now := time.Now()
		labelled := readLabelled()
		left := false
		c.mu.Lock()
		for label, p := range c.pending {
			if p.closed.After(now) {
				continue // closed after the read began: for the next one
			}
			groups := filterIgnored(labelled[label], p.ignore)
			switch {
			case len(groups) == 0:
				delete(c.pending, label)
			case p.active && label != own:
				// Its test is waiting to read; the leak is its to report.
			case now.Sub(p.closed) >= p.wait || ctx.Err() != nil:
				delete(c.pending, label)
				if label == own {
					ownReport = describeLeaks(groups)
				} else {
					reports = append(reports, leakReport{test: p.test, closed: now.Sub(p.closed), report: describeLeaks(groups)})
				}
			case label == own:
				left = left || exact
			default:
				left = left || others
			}
		}
		c.mu.Unlock()
		if !left {
			return ownReport, reports
		}
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
		}
		delay = min(2*delay, 100*time.Millisecond)
	}
}

func describeLeaks(groups []goroutineGroup) string {
	var b strings.Builder
	total := 0
	for _, g := range groups {
		total += g.count
	}
	fmt.Fprintf(&b, "%d goroutine(s) started by the connection were still running after it closed:\n", total)
	for _, g := range groups {
		fmt.Fprintf(&b, "\n%d goroutine(s) with this stack:\n%s", g.count, g.text)
	}
	return b.String()
}
