package stacktrace_test

import (
	"runtime/debug"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcptestkit/mcptestkit/internal/stacktrace"
)

// crash panics with n; recovered returns the stack its recovery takes, on
// a goroutine of its own, as a server's handler goroutines would.
func crash(n int) { panic(n) }

func other(n int) { panic(n) }

func recovered(f func(int), n int) string {
	stack := make(chan string)
	go func() {
		defer func() {
			recover()
			stack <- string(debug.Stack())
		}()
		f(n)
	}()
	return <-stack
}

func TestFramesOfTheSameCodeAreEqual(t *testing.T) {
	t.Parallel()
	a, b := recovered(crash, 1), recovered(crash, 0x7fff)
	assert.NotEqual(t, a, b, "the raw traces differ: goroutine ids, argument values")
	assert.Equal(t, stacktrace.Frames(a), stacktrace.Frames(b))
	assert.NotEqual(t, stacktrace.Frames(a), stacktrace.Frames(recovered(other, 1)), "another function that panics")
	assert.Contains(t, stacktrace.Frames(a), "stacktrace_test.crash\n", "the functions stay")
	assert.Contains(t, stacktrace.Frames(a), "stacktrace_test.go:", "the positions stay")
}

func TestFrames(t *testing.T) {
	t.Parallel()
	trace := `goroutine 200 [running]:
panic({0x9356e0?, 0xa63b80?})
	/usr/local/go/src/runtime/panic.go:860 +0x13a
example.com/srv.(*Server).tool(0x1f3fcc7e8280, {0xa6e7f0, 0x1f3fcc87cfc0})
	/src/srv/tool.go:23 +0x25
example.com/srv.run(...)
	/src/srv/run.go:9
created by example.com/srv.(*Conn).handleAsync in goroutine 199
	/src/srv/conn.go:684 +0x1fa
`
	want := strings.Join([]string{
		"panic", "\t/usr/local/go/src/runtime/panic.go:860",
		"example.com/srv.(*Server).tool", "\t/src/srv/tool.go:23",
		"example.com/srv.run", "\t/src/srv/run.go:9",
		"created by example.com/srv.(*Conn).handleAsync", "\t/src/srv/conn.go:684",
	}, "\n") + "\n"
	assert.Equal(t, want, stacktrace.Frames(trace))
}
