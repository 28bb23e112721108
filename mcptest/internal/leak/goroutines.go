package leak

import (
	"bytes"
	"fmt"
	"runtime/pprof"
	"slices"
	"strings"
	"sync/atomic"
)

// Key is the pprof label key that marks a connection's goroutines (see
// the package documentation).
const Key = "mcptest.connection"

// DefaultIgnores returns the functions whose goroutines the leak check
// ignores unless told otherwise (mcptest.IgnoreLeaks adds to the list): goroutines
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
func DefaultIgnores() []string {
	return []string{
		"github.com/mark3labs/mcp-go/server.(*MCPServer).scheduleTaskCleanup",
	}
}

// labelSeq numbers the connections of the process. It is process-wide, as
// Shared is: every census reads the one goroutine profile, so no two
// connections may share a label value.
var labelSeq atomic.Uint64

// NewLabel returns a label value no other connection of the process
// shares ("mcptest-" and the connection's number in 24 digits), in an
// allocation of its own that the census can watch (see [Census]): 32 bytes,
// so that it is never batched with other objects in one tiny allocation. A
// counter, not random text: crypto/rand's getrandom needs a large stack,
// which every test's fresh goroutine had to grow for it.
func NewLabel() string {
	b := [32]byte([]byte("mcptest-000000000000000000000000"))
	for n, i := labelSeq.Add(1), len(b)-1; n > 0; n, i = n/10, i-1 {
		b[i] = '0' + byte(n%10)
	}
	return string(b[:])
}

// Group is one stack in the goroutine profile and how many
// goroutines sit on it.
type Group struct {
	Count     int
	Functions []string // innermost first
	Text      string   // the profile's lines for this stack
}

// readLabelled reads the goroutine profile once and returns the groups of
// goroutines carrying a connection label, by label value. Reading costs time
// in proportion to every goroutine in the process (the runtime walks each
// stack, and the text form groups them), so the census reads rarely.
func readLabelled() map[string][]Group {
	var buf bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&buf, 1); err != nil {
		return nil
	}
	out := map[string][]Group{}
	prefix := fmt.Sprintf("%q:%q", Key, "")
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
func parseGroup(block string) (Group, bool) {
	var g Group
	// The profile's first line, "goroutine profile: total N", heads the
	// first block: the largest group, which a leak of many goroutines is.
	if strings.HasPrefix(block, "goroutine profile:") {
		_, block, _ = strings.Cut(block, "\n")
	}
	first, rest, _ := strings.Cut(block, "\n")
	count, _, ok := strings.Cut(first, " @")
	if !ok {
		return g, false
	}
	if _, err := fmt.Sscan(count, &g.Count); err != nil || g.Count <= 0 {
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
		g.Functions = append(g.Functions, fn)
		text.WriteString("\t" + fn)
		if len(fields) >= 3 {
			text.WriteString("\n\t\t" + fields[2])
		}
		text.WriteString("\n")
	}
	g.Text = text.String()
	return g, true
}

// Running returns the goroutines carrying the connection label value,
// except those a function of ignore is in the stack of and idle pooled HTTP
// client connections: what the census would report now.
func Running(value string, ignore []string) []Group {
	return filterIgnored(readLabelled()[value], ignore)
}

// filterIgnored returns the groups that count as the connection's: not
// ignored, and not an idle pooled HTTP client connection's.
func filterIgnored(groups []Group, ignore []string) []Group {
	var out []Group
	for _, g := range groups {
		if !ignored(g, ignore) && !idleHTTPConn(g) {
			out = append(out, g)
		}
	}
	return out
}

// startFunction is the function the goroutine was started with: the
// outermost frame the profile lists ("" if none).
func startFunction(g Group) string {
	if len(g.Functions) == 0 {
		return ""
	}
	return g.Functions[len(g.Functions)-1]
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
func idleHTTPConn(g Group) bool {
	n := len(g.Functions)
	switch startFunction(g) {
	case "net/http.(*persistConn).writeLoop", "net/http.(*http2ClientConn).readLoop":
		return true
	case httpReadLoop:
		return n >= 2 && g.Functions[n-2] == "bufio.(*Reader).Peek"
	}
	return false
}

// httpReadLoop is the goroutine that reads an HTTP/1 client connection's
// responses.
const httpReadLoop = "net/http.(*persistConn).readLoop"

func ignored(g Group, ignore []string) bool {
	for _, fn := range g.Functions {
		if slices.Contains(ignore, fn) {
			return true
		}
	}
	return false
}

// describeLeaks lists the groups' stacks and the start functions that
// IgnoreLeaks would need to ignore them (see Hint).
func describeLeaks(groups []Group) (string, []string) {
	var b strings.Builder
	total := 0
	var starts []string
	for _, g := range groups {
		total += g.Count
		if fn := startFunction(g); fn != "" && !slices.Contains(starts, fn) {
			starts = append(starts, fn)
		}
	}
	fmt.Fprintf(&b, "%d goroutine(s) started by the connection were still running after it closed:\n", total)
	for _, g := range groups {
		fmt.Fprintf(&b, "\n%d goroutine(s) with this stack:\n%s", g.Count, g.Text)
	}
	return b.String(), starts
}

// Hint ends every leak report: what to fix, or how to ignore the
// goroutines reported, named by their start functions (IgnoreLeaks
// matches any function in a stack, and a goroutine's start function is in
// its stack and names the goroutine, not whatever it is blocked in).
func Hint(starts []string) string {
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
