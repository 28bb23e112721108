package client

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// panics records what Options.OnPanic saw.
type panics struct {
	mu   sync.Mutex
	seen []*PanicError
}

func (p *panics) record(e *PanicError) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.seen = append(p.seen, e)
}

func (p *panics) callbacks() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var names []string
	for _, e := range p.seen {
		names = append(names, e.Callback)
	}
	return names
}

// pingSync makes the fake server ping the client and waits for the answer:
// the client has then handled everything the server sent before.
func (f *fake) pingSync() {
	f.t.Helper()
	f.send(`{"jsonrpc":"2.0","id":"sync","method":"ping"}`)
	m := f.recv()
	require.Equal(f.t, `"sync"`, m.ID.String(), "the answer to the ping")
}

// A panicking input callback on a legacy connection does not take the
// process down: the server gets -32603 naming the callback, the logger an
// ERROR record with the stack, OnPanic the panic.
func TestCallbackPanicAnsweredAsInternalError(t *testing.T) {
	var logs logBuffer
	var seen panics
	_, f := faultFake(t, &Options{
		Logger:  logs.logger(),
		OnPanic: seen.record,
		CreateMessage: func(context.Context, *CreateMessageRequest) (*CreateMessageResult, error) {
			panic("sampling went wrong")
		},
		Elicit: func(context.Context, *ElicitRequest) (*ElicitResult, error) {
			var m map[string]int
			//lint:ignore SA5000 the panic of a nil map write is what the test needs
			m["x"]++ // a nil map write: a runtime error, not a string
			return nil, nil
		},
		ListRoots: func(context.Context) ([]*Root, error) { panic(fmt.Errorf("roots: %w", context.Canceled)) },
	}, nil)
	for i, tc := range []struct{ req, callback, value string }{
		{`"method":"sampling/createMessage","params":{"messages":[],"maxTokens":1}`, "CreateMessage", "sampling went wrong"},
		{`"method":"elicitation/create","params":{"message":"?","requestedSchema":{"type":"object"}}`, "Elicit", "assignment to entry in nil map"},
		{`"method":"roots/list"`, "ListRoots", "roots: context canceled"},
	} {
		f.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,%s}`, i+1, tc.req))
		m := f.recv()
		require.NotNil(t, m.Error, tc.callback)
		assert.Equal(t, CodeInternalError, m.Error.Code)
		assert.Equal(t, "client callback "+tc.callback+" panicked: "+tc.value, m.Error.Message)
	}
	require.Equal(t, []string{"CreateMessage", "Elicit", "ListRoots"}, seen.callbacks())
	for _, p := range seen.seen {
		assert.Contains(t, string(p.Stack), "panic(", "the stack of the panic")
		assert.Contains(t, string(p.Stack), "TestCallbackPanicAnsweredAsInternalError", "the stack reaches the callback")
	}
	out := logs.String()
	assert.Contains(t, out, `level=ERROR msg="mcp client: client callback CreateMessage panicked: sampling went wrong"`)
	assert.Contains(t, out, "stack=")
}

// Notification and progress handlers run on the reader goroutine: a panic
// in one is recovered, and the client goes on reading.
func TestNotificationHandlerPanicRecovered(t *testing.T) {
	var seen panics
	first := true
	c, f := faultFake(t, &Options{
		OnPanic: seen.record,
		OnNotification: func(method string, _ json.RawMessage) {
			if method == "notifications/custom" {
				panic("custom")
			}
		},
		OnLog:             func(*LogMessage) { panic("log") },
		OnToolListChanged: func() { panic("tools") },
		OnResourceUpdated: func(string) { panic("updated") },
	}, nil)
	f.send(`{"jsonrpc":"2.0","method":"notifications/custom"}`)
	f.send(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`)
	f.send(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`)
	f.send(`{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"a://b"}}`)
	errc := callAsync(t.Context(), c, WithProgress(func(Progress) {
		if first {
			first = false
			panic("progress")
		}
	}))
	m := f.expect("tools/call")
	token := string(params(t, m)["_meta"])
	token = token[strings.Index(token, ":")+1 : len(token)-1]
	f.send(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":` + token + `,"progress":1}}`)
	f.send(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":` + token + `,"progress":2}}`)
	f.reply(m.ID, `{"content":[]}`)
	require.NoError(t, returns(t, "CallTool", func() error { return <-errc }))
	assert.False(t, first)
	f.pingSync()
	assert.Equal(t, []string{"OnNotification", "OnLog", "OnToolListChanged", "OnResourceUpdated", "WithProgress"}, seen.callbacks())
}

// On 2026-07-28 input callbacks run inside the call: the call fails with an
// error that wraps the PanicError.
func TestModernInputCallbackPanicFailsTheCall(t *testing.T) {
	var seen panics
	c, f := faultFake(t, &Options{
		ProtocolVersion: Version20260728,
		OnPanic:         seen.record,
		Elicit:          func(context.Context, *ElicitRequest) (*ElicitResult, error) { panic("no form today") },
	}, nil)
	errc := callAsync(t.Context(), c)
	m := f.expect("tools/call")
	f.reply(m.ID, `{"resultType":"input_required","inputRequests":{"q":{"method":"elicitation/create","params":{"message":"?","requestedSchema":{"type":"object"}}}}}`)
	err := returns(t, "CallTool", func() error { return <-errc })
	var p *PanicError
	require.ErrorAs(t, err, &p)
	assert.Equal(t, "Elicit", p.Callback)
	assert.EqualError(t, err, `tools/call "t": input required: answering the server's input requests failed (after 1 round): `+
		`input request "q" (elicitation/create): client callback Elicit panicked: no form today`)
	assert.Len(t, seen.callbacks(), 1)
}

// Once a call has returned, its progress handler never runs again, though
// the server goes on sending progress for it: the handler's variables are
// the caller's again (-race checks it).
func TestProgressNeverAfterReturn(t *testing.T) {
	c, f := faultFake(t, nil, nil)
	for range 50 {
		calls := 0 // unsynchronised on purpose: the race detector watches it
		errc := callAsync(t.Context(), c, WithProgress(func(Progress) { calls++ }))
		m := f.expect("tools/call")
		var meta struct {
			Token json.RawMessage `json:"progressToken"`
		}
		require.NoError(t, json.Unmarshal(params(t, m)["_meta"], &meta))
		progress := `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":` + string(meta.Token) + `,"progress":1}}`
		f.send(progress)
		f.reply(m.ID, `{"content":[]}`)
		for range 5 {
			f.send(progress)
		}
		require.NoError(t, returns(t, "CallTool", func() error { return <-errc }))
		after := calls
		f.pingSync() // the late progress has been read
		require.Equal(t, after, calls, "the handler ran after the call returned")
		require.GreaterOrEqual(t, after, 1)
	}
}
