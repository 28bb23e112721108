package mcptest

import (
	"fmt"

	"github.com/mcptestkit/mcptestkit/client"
)

// catchClientPanics makes a panic in one of the test's client callbacks
// (WithClient's CreateMessage, Elicit, ListRoots, OnLog, ..., or a
// client.WithProgress handler) fail the test with its stack, as a server
// panic does. The client has already recovered it and answered the server.
// A callback set in opts.OnPanic still runs.
func (h *harness) catchClientPanics(opts *client.Options) {
	next := opts.OnPanic
	opts.OnPanic = func(p *client.PanicError) {
		if h.cfg.crashCatcher {
			h.mu.Lock()
			if !h.over {
				h.failCrash(fmt.Sprintf("mcptest: %v", p), "The client recovered it and answered the server with error -32603.\nStack of the panicking goroutine:", p.Stack)
			}
			h.mu.Unlock()
		} else {
			h.logf(false, "%s", crashNote("the client's callback "+p.Callback+" panicked", p.Value))
		}
		if next != nil {
			next(p)
		}
	}
}
