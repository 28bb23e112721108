package guard_test

import (
	"testing"

	"github.com/mcptestkit/mcptestkit/guard"
)

// The messages and keys are API: users' tests assert on them, and the
// package doc quotes them. Change them there too, and say so in the
// release notes.
func TestMessagesAndKeysAreStable(t *testing.T) {
	for got, want := range map[string]string{
		guard.MsgToolPanic:     "tool handler panicked",
		guard.MsgResourcePanic: "resource handler panicked",
		guard.MsgPromptPanic:   "prompt handler panicked",
		guard.MsgPanic:         "handler panicked",
		guard.MsgToolError:     "tool returned an error",
		guard.MsgRequestFailed: "request failed",
		guard.MethodKey:        "method",
		guard.ToolKey:          "tool",
		guard.URIKey:           "uri",
		guard.PromptKey:        "prompt",
		guard.PanicKey:         "panic",
		guard.StackKey:         "stack",
		guard.ErrorKey:         "error",
		guard.CodeKey:          "code",
	} {
		if got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}
