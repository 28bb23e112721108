package mcptest

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
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
