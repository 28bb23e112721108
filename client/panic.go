package client

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
)

// PanicError is a panic recovered from one of the client's callbacks: an
// Options callback (CreateMessage, Elicit, ListRoots, OnLog,
// OnNotification, ...) or a [WithProgress] handler. The client never lets
// such a panic end the process: it logs it at ERROR level with the stack,
// passes it to Options.OnPanic, and answers a server request whose
// callback panicked with a -32603 error. On 2026-07-28 connections, where
// input callbacks run inside the call, the call returns an error wrapping
// the PanicError.
type PanicError struct {
	// Callback names the callback: the Options field ("CreateMessage",
	// "OnLog") or "WithProgress".
	Callback string
	// Value is what the callback panicked with.
	Value any
	// Stack is the panicking goroutine's stack (runtime/debug.Stack).
	Stack []byte
}

// Error implements the error interface. It leaves out the stack, so that it
// can be sent to the server.
func (e *PanicError) Error() string {
	return fmt.Sprintf("client callback %s panicked: %v", e.Callback, e.Value)
}

// panicked reports a panic recovered from callback, with the stack of the
// goroutine that recovered it (call it from the deferred function).
func (c *Client) panicked(callback string, value any) *PanicError {
	p := &PanicError{Callback: callback, Value: value, Stack: debug.Stack()}
	c.logger.Error("mcp client: "+p.Error(), "callback", callback, "panic", fmt.Sprint(value), "stack", string(p.Stack))
	if f := c.opts.OnPanic; f != nil {
		defer func() {
			if r := recover(); r != nil {
				c.logger.Error("mcp client: Options.OnPanic panicked", "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			}
		}()
		f(p)
	}
	return p
}

// inputCallbacks names the callback that answers each request for input.
var inputCallbacks = map[string]string{
	methodCreateMessage: "CreateMessage",
	methodElicit:        "Elicit",
	methodListRoots:     "ListRoots",
}

// answerInput is [Client.serveInput] with its callback's panic recovered:
// the panic becomes a [*PanicError], which a server request is answered
// with as a -32603 error.
func (c *Client) answerInput(ctx context.Context, method string, params json.RawMessage) (res []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			name, ok := inputCallbacks[method]
			if !ok {
				name = "answering " + method
			}
			res, err = nil, c.panicked(name, r)
		}
	}()
	return c.serveInput(ctx, method, params)
}
