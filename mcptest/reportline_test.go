package mcptest

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/memtransport"
)

const reportLinesChild = "MCPTEST_REPORT_LINES_CHILD"

// TestChildFailsEveryWay fails on purpose, in a child process run by
// TestReportsNameTheTestsLines: at its own line (an assertion), on a
// server's goroutine (a panic), in the cleanup (a Serve error, a leak, the
// transcripts) and in CheckServer. Each line marked "reported here" must be
// the one go test prints before each message quoted; "(bubble)" marks one
// made inside synctest.Test only, "(plain)" one made outside only.
func TestChildFailsEveryWay(t *testing.T) {
	switch os.Getenv(reportLinesChild) {
	case "plain":
		failEveryWay(t, false)
	case "bubble":
		synctest.Test(t, func(t *testing.T) { failEveryWay(t, true) })
	default:
		t.Skip("run by TestReportsNameTheTestsLines")
	}
}

func failEveryWay(t *testing.T, bubble bool) {
	c := Connect(t, probeServer(boomTool())) // reported here: "the server panicked in tools/call", "transcript of the connection"
	_, _ = c.CallTool(t.Context(), "boom", nil)
	res, err := c.CallTool(t.Context(), "echo", map[string]any{"text": "a"})
	require.NoError(t, err)
	Assert(t).Text(res, "b") // reported here: "the tool result's text differs"

	inner := probeServer()
	Connect(t, ServerFunc(func(ctx context.Context, conn *memtransport.Conn) error { // reported here: "Serve returned an error: flush failed"
		_ = inner.Serve(ctx, conn)
		return errors.New("flush failed")
	}))
	CheckServer(t, probeServer(boomTool()), SkipChecks("tools/invalid-arguments")) // reported here: "called tool \"boom\""
	if bubble {
		release := make(chan struct{})
		t.Cleanup(func() { close(release) })                  // after the leak check
		Connect(t, leakyServer{newScriptedServer(), release}) // reported here (bubble): "goroutine leak: 1 goroutine(s)"
		return
	}
	// A process's pipes would keep the bubble's clock from moving.
	Connect(t, Command(cmdServer(t, "fail-on-exit"))) // reported here (plain): "exited with exit status 1 after its stdin closed"
}

// Issue: inside synctest.Test, what the harness reported from its cleanup
// was placed at testing.go:NNNN, and a panic a server's goroutine reported
// at a line of the harness, in and out of a bubble. Every report must name
// a line of the test: the assertion's, or that of the Connect (CheckServer)
// whose connection it is about.
func TestReportsNameTheTestsLines(t *testing.T) {
	if os.Getenv(reportLinesChild) != "" {
		t.Skip("the child runs only TestChildFailsEveryWay")
	}
	t.Parallel()
	const file = "reportline_test.go"
	src, err := os.ReadFile(file)
	require.NoError(t, err)
	type mark struct {
		line       int
		want, only string // only: "plain", "bubble" or "" for both
	}
	var marks []mark
	for i, l := range strings.Split(string(src), "\n") {
		m := regexp.MustCompile(`// reported here(?: \((\w+)\))?: (.*)$`).FindStringSubmatch(l)
		if m == nil {
			continue
		}
		for _, q := range regexp.MustCompile(`"(?:[^"\\]|\\.)*"`).FindAllString(m[2], -1) {
			want, err := strconv.Unquote(q)
			require.NoError(t, err)
			marks = append(marks, mark{i + 1, want, m[1]})
		}
	}
	require.Len(t, marks, 7, "the marked lines of %s", file)

	for _, mode := range []string{"plain", "bubble"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestChildFailsEveryWay$", "-test.count=1")
			cmd.Env = append(os.Environ(), reportLinesChild+"="+mode)
			out, err := cmd.CombinedOutput()
			require.Error(t, err, "the child passed; want it to fail:\n%s", out)
			placed := regexp.MustCompile(`(?m)^\s+(\S+\.go):(\d+): (.*)$`).FindAllStringSubmatch(string(out), -1)
			for _, p := range placed {
				assert.Equal(t, file, p[1], "a report is placed outside the test: %s", p[0])
			}
			for _, m := range marks {
				if m.only != "" && m.only != mode {
					continue
				}
				found := false
				for _, p := range placed {
					found = found || p[2] == strconv.Itoa(m.line) && strings.Contains(p[3], m.want)
				}
				assert.True(t, found, "no %q reported at %s:%d", m.want, file, m.line)
			}
			if t.Failed() {
				t.Logf("the child printed:\n%s", out)
			}
		})
	}
}
