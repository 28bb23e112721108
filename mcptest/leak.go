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
	delay := 50 * time.Microsecond
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
