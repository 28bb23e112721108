package mcptest

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/mcptestkit/mcptestkit/internal/stacktrace"
)

// panicStack returns the part of stack, a goroutine's stack as
// runtime/debug.Stack prints it from inside a deferred recover, that a
// reader wants: from the panic(...) frame on, so that the report starts at
// the call to panic and the function that made it. The frames above it are
// the recovery's own (debug.Stack, the recover closure of an adapter or of
// the harness) and say nothing about the bug. A stack with no panic frame is
// returned whole.
func panicStack(stack []byte) []byte {
	// Function lines start at column 0; their file:line follows, indented.
	// The first panic( frame is the panic the deferred recover caught: a
	// recover runs on top of the panic it stops.
	rest := stack
	for off := 0; len(rest) > 0; {
		line, after, _ := bytes.Cut(rest, []byte("\n"))
		if bytes.HasPrefix(line, []byte("panic(")) {
			return stack[off:]
		}
		off += len(line) + 1
		rest = after
	}
	return stack
}

// failCrash fails the test with the report of a crash: event (what panicked,
// and the value), then detail (what it means, ending with the stack's
// heading) and the stack from its panic frame on. A crash whose stack has
// the frames of one reported before gets one line instead, with its count,
// so that a handler that crashes on every call (CheckServer calls each tool
// many times) prints its stack once. The caller holds h.mu and has checked
// h.over.
func (h *harness) failCrash(event, detail string, stack []byte) {
	shown := panicStack(stack)
	if len(shown) > 0 {
		key := stacktrace.Frames(string(shown))
		if h.stacks == nil {
			h.stacks = map[string]int{}
		}
		h.stacks[key]++
		if n := h.stacks[key]; n > 1 {
			h.report(true, "%s (crash %d with the same stack as reported above)", event, n)
			return
		}
	}
	h.report(true, "%s\n%s\n%s", event, detail, shown)
}

// crashNote is the one line a recovered panic leaves in the test log under
// [WithoutCrashReports].
// event says what panicked ("the server panicked in tools/call \"boom\"").
func crashNote(event string, value any) string {
	v := fmt.Sprint(value)
	if strings.ContainsAny(v, "\r\n") {
		v = strconv.Quote(v)
	}
	return fmt.Sprintf("mcptest: %s: %s (recovered; the test goes on because of mcptest.WithoutCrashReports)", event, v)
}
