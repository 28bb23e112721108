package mcptest

import (
	"bytes"
	"fmt"
	"runtime/pprof"
	"slices"
	"strings"
	"sync/atomic"
)

// How the leak check works.
//
// goleak.VerifyNone compares the whole process before and after, which is
// wrong under t.Parallel: another test's goroutines, started meanwhile, look
// like leaks. So Connect starts the server and the client inside
// runtime/pprof.Do with a label naming the connection. Go copies a
// goroutine's labels to every goroutine it starts, so everything the
// connection starts, transitively (SDK readers and handler goroutines,
// goroutines a tool handler starts), carries the label, and no other test's
// goroutine does. When the test ends, the harness closes the connection,
// waits for Serve to return, and fails the test if labelled goroutines are
// still running after a few seconds, listing their stacks (the goroutine
// profile prints labels). CheckServer and Fuzz label all their
// connections with one label of their own and check it once they have all
// closed.
//
// Reading the profile costs time in proportion to every goroutine in the
// process, and a suite of thousands of parallel tests has thousands (each
// test waiting in t.Parallel is one), so one read per connection would make
// the suite's time grow with the square of its size. Most connections need
// no read: a goroutine's labels keep the label's value reachable, so once
// the garbage collector finds a closed connection's value unreachable (a
// busy test binary collects every few milliseconds), no goroutine carries
// it and the connection is clean (the harness checks once per test binary,
// in the background once it has many goroutines, that the runtime behaves
// so; a small test binary reads instead). In a process with few
// goroutines, where a read costs well under a millisecond, the profile is
// read at once when a connection closes and no other is open, for every
// connection waiting, so that a leak fails its own test, or at least the
// test that ends a suite of parallel tests; a connection that was the only
// one open and left no more goroutines in the process than there were when
// it connected needs no read at once (tests that do not run in parallel; a
// benchmark). Any other connection the collector has not cleared within a
// second is looked up in the profile, in one read for all of them; a leak
// found that way, after its test has ended, fails the test whose cleanup
// made the read, and the report names the test that leaked; run that test
// on its own to see it fail by itself. A connection still waiting when the
// test binary exits is not checked (goleak.VerifyTestMain, below, sees its
// goroutines), and while a CPU profile is recorded (go test -cpuprofile)
// the profiler keeps the labels it sampled reachable, so more connections
// need a read.
//
// The harness keeps nothing of a finished test's connection: the testing
// package keeps every finished subtest's cleanups until the parent test
// ends, so the harness's cleanup lets go of the client, the transports and
// the transcript once it has run.
//
// SDK-owned goroutines that may outlive a connection by design (mcp-go's
// task expiry) are ignored, and so are those net/http keeps for an idle
// client connection in an http.Transport's pool (a handler's request
// through http.DefaultClient leaves them): they belong to the Transport,
// which may reuse the connection for any test. One still holding a
// response whose body was never closed is a leak. A connection to a server outside the process
// makes its transport inside the label too, and sends every message from a labelled
// goroutine, so that what a transport starts per message (an HTTP request,
// an in-process handler call and the server session it opens) is counted
// even when the test's goroutine sends it.
//
// Limits: a goroutine started from an unlabelled goroutine is not seen:
// one the test goroutine starts itself (after Connect returned), a
// time.AfterFunc callback (the runtime starts those), or one started by code
// that replaces its goroutine's labels (pprof.SetGoroutineLabels with a
// fresh context). Run goleak.VerifyTestMain in TestMain as well: it checks
// the whole binary once every test has finished. A schema pattern Go's RE2
// cannot parse (a lookahead: JSON Schema patterns are ECMA-262) is matched
// by regexp2, whose timeout clock, one goroutine, stops by itself a second
// after the last match; CheckServer and Fuzz wait for it (up to 2 s) before
// they return, so that it is gone when goleak looks.

// leakLabel is the pprof label key that marks a connection's goroutines;
// the comment above explains the scheme.
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
// gosdk/gosdktest and mcpgo/mcpgotest: their session goroutines (readers,
// handlers, keepalive, notification writers) all end when the connection
// closes, which the harness's own tests check. Debounce timers
// (time.AfterFunc) run on unlabelled goroutines and are never counted.
// Idle pooled HTTP client connections are left out by their state, not
// by this list (see idleHTTPConn).
func defaultLeakIgnores() []string {
	return []string{
		"github.com/mark3labs/mcp-go/server.(*MCPServer).scheduleTaskCleanup",
	}
}

// labelSeq numbers the connections of the process. It is process-wide, as
// theCensus is: every census reads the one goroutine profile, so no two
// connections may share a label value.
var labelSeq atomic.Uint64

// newLeakLabel returns a label value no other connection of the process
// shares ("mcptest-" and the connection's number in 24 digits), in an
// allocation of its own that the census can watch (see census): 32 bytes,
// so that it is never batched with other objects in one tiny allocation. A
// counter, not random text: crypto/rand's getrandom needs a large stack,
// which every test's fresh goroutine had to grow for it.
func newLeakLabel() string {
	b := [32]byte([]byte("mcptest-000000000000000000000000"))
	for n, i := labelSeq.Add(1), len(b)-1; n > 0; n, i = n/10, i-1 {
		b[i] = '0' + byte(n%10)
	}
	return string(b[:])
}

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

// filterIgnored returns the groups that count as the connection's: not
// ignored, and not an idle pooled HTTP client connection's.
func filterIgnored(groups []goroutineGroup, ignore []string) []goroutineGroup {
	var out []goroutineGroup
	for _, g := range groups {
		if !ignored(g, ignore) && !idleHTTPConn(g) {
			out = append(out, g)
		}
	}
	return out
}

// startFunction is the function the goroutine was started with: the
// outermost frame the profile lists ("" if none).
func startFunction(g goroutineGroup) string {
	if len(g.functions) == 0 {
		return ""
	}
	return g.functions[len(g.functions)-1]
}

// idleHTTPConn reports whether g is one of the goroutines net/http keeps
// for a client connection in an http.Transport's pool while no response
// is open on it. They carry the label of whichever goroutine dialled, but
// belong to the Transport (http.DefaultTransport is the process's): they
// end only when the Transport or the server closes the connection, and a
// later request, of any test, may reuse it. A goroutine is known by its
// start function, which no other goroutine has. HTTP/1's readLoop counts
// only while it waits for the server's next bytes (Peek): stuck anywhere
// else, it holds a response whose body was never closed, a leak of
// whoever made the request; writeLoop ends with it. HTTP/2 multiplexes
// streams on one readLoop, which is left out whatever its streams do.
func idleHTTPConn(g goroutineGroup) bool {
	n := len(g.functions)
	switch startFunction(g) {
	case "net/http.(*persistConn).writeLoop", "net/http.(*http2ClientConn).readLoop":
		return true
	case httpReadLoop:
		return n >= 2 && g.functions[n-2] == "bufio.(*Reader).Peek"
	}
	return false
}

// httpReadLoop is the goroutine that reads an HTTP/1 client connection's
// responses.
const httpReadLoop = "net/http.(*persistConn).readLoop"

func ignored(g goroutineGroup, ignore []string) bool {
	for _, fn := range g.functions {
		if slices.Contains(ignore, fn) {
			return true
		}
	}
	return false
}

// describeLeaks lists the groups' stacks and the start functions that
// IgnoreLeaks would need to ignore them (see leakHint).
func describeLeaks(groups []goroutineGroup) (string, []string) {
	var b strings.Builder
	total := 0
	var starts []string
	for _, g := range groups {
		total += g.count
		if fn := startFunction(g); fn != "" && !slices.Contains(starts, fn) {
			starts = append(starts, fn)
		}
	}
	fmt.Fprintf(&b, "%d goroutine(s) started by the connection were still running after it closed:\n", total)
	for _, g := range groups {
		fmt.Fprintf(&b, "\n%d goroutine(s) with this stack:\n%s", g.count, g.text)
	}
	return b.String(), starts
}

// leakHint ends every leak report: what to fix, or how to ignore the
// goroutines reported, named by their start functions (IgnoreLeaks
// matches any function in a stack, and a goroutine's start function is in
// its stack and names the goroutine, not whatever it is blocked in).
func leakHint(starts []string) string {
	var b strings.Builder
	if slices.Contains(starts, httpReadLoop) {
		b.WriteString(httpReadLoop + " holds an HTTP response whose body was never closed: close every response's Body. ")
	}
	b.WriteString("A goroutine the server (or a handler) started must end when the connection closes. If it is meant to outlive the connection, ")
	if len(starts) > 0 {
		quoted := make([]string, len(starts))
		for i, fn := range starts {
			quoted[i] = fmt.Sprintf("%q", fn)
		}
		fmt.Fprintf(&b, "ignore it with mcptest.IgnoreLeaks(%s) or ", strings.Join(quoted, ", "))
	}
	b.WriteString("turn the check off with mcptest.WithoutLeakCheck().")
	return b.String()
}
