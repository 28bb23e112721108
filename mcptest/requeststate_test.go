package mcptest

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcptestkit/mcptestkit/internal/jsonrpc"
	"github.com/mcptestkit/mcptestkit/mcptest/servercheck"
)

// bookingServer has a tool that asks for a name with an input_required
// result carrying the requestState "v1:room-12"; decode is how it reads the
// state the client sends back.
func bookingServer(decode func(state string) (room string, ok bool)) *fakeServer {
	return probeServer(newTool("book", func(_ context.Context, c *fakeCall) (*fakeResult, error) {
		if c.answers == nil {
			return &fakeResult{state: "v1:room-12", ask: map[string]fakeAsk{
				"name": {Method: "elicitation/create", Params: map[string]any{"message": "Whose booking?", "requestedSchema": map[string]any{
					"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}}},
			}}, nil
		}
		if !c.req.modern() { // a legacy session asked the client itself: no requestState
			return fakeText("booked room-12"), nil
		}
		room, ok := decode(c.state)
		if !ok {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "requestState failed verification"}
		}
		return fakeText("booked " + room), nil
	}))
}

// Issue 39: "servers MUST treat requestState as attacker-controlled input"
// is judged at the MUST's level where a client can see it: a server that
// checks the state it gave out passes tools/request-state; one that trusts
// its shape and panics on a state it never gave out fails it.
func TestCheckServerRequestStateForged(t *testing.T) {
	t.Parallel()
	only := withChecks(func(o *servercheck.Options) { o.Run = "tools/(calls|input-required|request-state)" })
	checked := func(state string) (string, bool) {
		if state != "v1:room-12" { // a real server verifies a MAC here
			return "", false
		}
		return "room-12", true
	}
	runCheck(t, bookingServer(checked), only).expectPass(t)
	results := map[string]servercheck.Result{}
	_ = servercheck.Run(t.Context(), memDialer(bookingServer(checked)), &servercheck.Options{Run: "tools/(calls|request-state)",
		OnResult: func(r servercheck.Result) { results[r.Name] = r }})
	assert.Equal(t, servercheck.Pass, results["tools/request-state/book"].Status, "%s", results["tools/request-state/book"])

	trusting := func(state string) (string, bool) {
		return strings.SplitN(state, ":", 2)[1], true // index out of range on a state without ':'
	}
	f := runCheck(t, bookingServer(trusting), only)
	f.expectFailure(t, "tools/request-state/book", "the server panicked in")
	assert.NotContains(t, f.output(), "tools/calls/book:", "the tool's own calls pass")
	assert.Contains(t, f.output(), `"requestState":"{\""`, "the transcript shows the forged state")
}
