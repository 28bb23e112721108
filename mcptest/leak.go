package mcptest

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"runtime/pprof"
	"strings"
	"time"
)

// How the leak check tells this connection's goroutines from everyone else's.
//
// goleak.VerifyNone compares the whole process before and after, which is
// wrong under t.Parallel: another test's goroutines, started while this one
// ran, look like leaks. Instead, Connect starts the server and the client's
// background goroutines inside pprof.Do with a label naming the connection.
// Go copies a goroutine's labels to every goroutine it starts, so everything
// the connection starts, transitively (the SDK's reader and handler
// goroutines, goroutines a tool handler starts), carries the label, and no
// other test's goroutine does. The check reads the goroutine profile, which
// prints labels, and reports the labelled goroutines still alive after the
// connection closed, retrying for a bounded time because goroutines take a
// moment to finish after Close returns.
//
// Limits: goroutines started from a goroutine without the label are not
// seen: those the test goroutine starts itself (including the client's work
// for a call made after Connect returned, if it starts any), and time.AfterFunc
// callbacks (the runtime starts them). goleak.VerifyTestMain, which every
// package should run, catches those at the end of the binary.
const leakLabel = "mcptest.connection"

// DefaultLeakIgnores returns the functions whose goroutines the leak check
// ignores unless told otherwise ([IgnoreLeaks] adds to the list): goroutines
// an SDK owns that may outlive a connection's Close by design. A goroutine is
// ignored when any function in its stack is on the list.
func DefaultLeakIgnores() []string {
	return []string{}
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

// labelledGoroutines returns the goroutines carrying the connection label
// value, except those with an ignored function anywhere in their stack.
func labelledGoroutines(value string, ignore []string) []goroutineGroup {
	var buf bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&buf, 1); err != nil {
		return nil
	}
	want := fmt.Sprintf("%q:%q", leakLabel, value)
	var out []goroutineGroup
	for _, block := range strings.Split(buf.String(), "\n\n") {
		g, ok := parseGroup(block, want)
		if !ok || ignored(g, ignore) {
			continue
		}
		out = append(out, g)
	}
	return out
}

// parseGroup reads one block of the debug=1 goroutine profile:
//
//	2 @ 0x4a1 0x4b2
//	# labels: {"mcptest.connection":"ABC"}
//	#	0x4a0	pkg.fn+0x10	/path/file.go:12
func parseGroup(block, wantLabel string) (goroutineGroup, bool) {
	var g goroutineGroup
	labelled := false
	sc := bufio.NewScanner(strings.NewReader(block))
	first := true
	for sc.Scan() {
		line := sc.Text()
		if first {
			first = false
			if _, err := fmt.Sscanf(line, "%d @", &g.count); err != nil {
				return g, false
			}
			continue
		}
		if rest, ok := strings.CutPrefix(line, "# labels: "); ok {
			labelled = strings.Contains(rest, wantLabel)
			continue
		}
		fields := strings.Fields(strings.TrimPrefix(line, "#"))
		if len(fields) >= 2 {
			fn := fields[1]
			if i := strings.LastIndex(fn, "+0x"); i > 0 {
				fn = fn[:i]
			}
			g.functions = append(g.functions, fn)
			g.text += "\t" + fn
			if len(fields) >= 3 {
				g.text += "\n\t\t" + fields[2]
			}
			g.text += "\n"
		}
	}
	return g, labelled && g.count > 0
}

func ignored(g goroutineGroup, ignore []string) bool {
	for _, fn := range g.functions {
		for _, ig := range ignore {
			if fn == ig {
				return true
			}
		}
	}
	return false
}

// waitForLeaks polls until no labelled goroutine is left or the time is up,
// and returns a report of what was left ("" when nothing). The wait is not a
// timing assertion: it only bounds how long a correct program may take to
// let its goroutines finish after Close.
func waitForLeaks(ctx context.Context, value string, ignore []string, limit time.Duration) string {
	deadline := time.Now().Add(limit)
	delay := time.Millisecond
	for {
		groups := labelledGoroutines(value, ignore)
		if len(groups) == 0 {
			return ""
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return describeLeaks(groups)
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
