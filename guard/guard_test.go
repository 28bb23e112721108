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
		guard.KeyMethod:        "method",
		guard.KeyTool:          "tool",
		guard.KeyURI:           "uri",
		guard.KeyPrompt:        "prompt",
		guard.KeyPanic:         "panic",
		guard.KeyStack:         "stack",
		guard.KeyError:         "error",
		guard.KeyCode:          "code",
	} {
		if got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}
