package mcptest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/mcptestkit/mcptestkit/client"
)

// RecordNotifications makes n record every notification the client
// receives from the server on this connection, in order: log messages,
// progress, list changes, resource updates, and any other. Give each
// connection its own Notifications.
//
// A server sends log messages through its session (go-sdk's
// req.Session.Log or mcp.NewLoggingHandler, mcp-go's
// SendLogMessageToClient) only at the level the client asks for: set
// client.Options.LogLevel. On a legacy connection Connect then sends
// logging/setLevel after the handshake, when the server declares the
// logging capability; at 2026-07-28 every request carries the level.
//
//	var n mcptest.Notifications
//	c := mcptest.Connect(t, srv, mcptest.WithClient(client.Options{LogLevel: client.LevelInfo}), mcptest.RecordNotifications(&n))
//	_, err := c.CallTool(t.Context(), "import", args)
//	require.NoError(t, err)
//	assert.Len(t, n.Logs(), 2)
//
// A notification a server sends while it serves a request arrives before
// the request's response, so it is recorded by the time the call returns;
// one the server sends on its own time (a resource update from a
// goroutine) may come later: wait for it with [Notifications.Wait].
// Handlers of your own (client.Options.OnLog, ... through [WithClient])
// still run. It applies to Connect.
func RecordNotifications(n *Notifications) Option {
	return option("RecordNotifications", connectCall, func(c *config) { c.notifications = append(c.notifications, n) })
}

// Notification is one notification from the server.
type Notification struct {
	// Method is the notification's method, such as
	// "notifications/message" or "notifications/tools/list_changed".
	Method string
	// Params are the notification's params as sent (nil when it had none).
	Params json.RawMessage
	// Log is set for notifications/message: a log message.
	Log *client.LogMessage
	// Progress is set for notifications/progress.
	Progress *client.Progress
	// URI is set for notifications/resources/updated: the resource that
	// changed.
	URI string
}

// Notifications records the notifications of one connection (see
// [RecordNotifications]). The zero value is ready to use, and its methods
// may be called from any goroutine.
type Notifications struct {
	mu       sync.Mutex
	list     []Notification
	arrived  chan struct{}   // closed and replaced when one is recorded
	done     <-chan struct{} // closed when the connection ends
	timeout  time.Duration   // the connection's timeout, which bounds Wait
	attached bool
}

// record runs on the client's reader goroutine.
func (n *Notifications) record(method string, params json.RawMessage) {
	rec := Notification{Method: method}
	if len(params) > 0 {
		rec.Params = append(json.RawMessage(nil), params...) // the client's buffer is not ours to keep
	}
	switch method {
	case "notifications/message":
		var m client.LogMessage
		if json.Unmarshal(rec.Params, &m) == nil {
			rec.Log = &m
		}
	case "notifications/progress":
		var p client.Progress
		if json.Unmarshal(rec.Params, &p) == nil {
			rec.Progress = &p
		}
	case "notifications/resources/updated":
		var p struct {
			URI string `json:"uri"`
		}
		if json.Unmarshal(rec.Params, &p) == nil {
			rec.URI = p.URI
		}
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	n.list = append(n.list, rec)
	if n.arrived != nil {
		close(n.arrived)
		n.arrived = nil
	}
}

// attach ties n to a connection that has been made: Wait ends when it
// does, and is bounded by its timeout.
func (n *Notifications) attach(done <-chan struct{}, timeout time.Duration) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.done, n.timeout, n.attached = done, timeout, true
}

// All returns every notification recorded so far, in the order the server
// sent them.
func (n *Notifications) All() []Notification {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]Notification(nil), n.list...)
}

// Logs returns the log messages (notifications/message) recorded so far, in
// order. A server sends them only when asked: see [RecordNotifications].
func (n *Notifications) Logs() []client.LogMessage {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []client.LogMessage
	for _, r := range n.list {
		if r.Log != nil {
			out = append(out, *r.Log)
		}
	}
	return out
}

// Progress returns the progress notifications recorded so far, in order,
// for every request.
func (n *Notifications) Progress() []client.Progress {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []client.Progress
	for _, r := range n.list {
		if r.Progress != nil {
			out = append(out, *r.Progress)
		}
	}
	return out
}

// Count returns how many notifications with this method have been
// recorded.
func (n *Notifications) Count(method string) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	c := 0
	for _, r := range n.list {
		if r.Method == method {
			c++
		}
	}
	return c
}

// Clear forgets the notifications recorded so far, so that the next Wait
// looks only at new ones.
func (n *Notifications) Clear() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.list = nil
}

// Wait returns the first notification with this method, waiting for it if
// none has been recorded yet. See [Notifications.WaitFunc].
//
//	u, err := n.Wait(t.Context(), "notifications/resources/updated")
//	require.NoError(t, err)
//	assert.Equal(t, "books://dune", u.URI)
func (n *Notifications) Wait(ctx context.Context, method string) (Notification, error) {
	return n.wait(ctx, method, func(r Notification) bool { return r.Method == method })
}

// WaitFunc returns the first notification recorded that match accepts,
// waiting for one if there is none yet. It gives up, with an error that
// lists what was recorded, when ctx ends, when the connection has ended
// (no more can come), or after the connection's timeout
// (10 seconds unless client.Options.Timeout says otherwise) when ctx has no earlier deadline, so that a
// notification that never comes fails the test instead of hanging it.
func (n *Notifications) WaitFunc(ctx context.Context, match func(Notification) bool) (Notification, error) {
	return n.wait(ctx, "a matching notification", match)
}

func (n *Notifications) wait(ctx context.Context, what string, match func(Notification) bool) (Notification, error) {
	n.mu.Lock()
	timeout, done := n.timeout, n.done
	if !n.attached {
		timeout = defaultTimeout
	}
	n.mu.Unlock()
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, timeout, fmt.Errorf("no answer within the connection's timeout, %v: %w", timeout, context.DeadlineExceeded))
		defer cancel()
	}
	seen, ended := 0, false
	for {
		n.mu.Lock()
		for _, r := range n.list[min(seen, len(n.list)):] {
			if match(r) {
				n.mu.Unlock()
				return r, nil
			}
		}
		seen = len(n.list)
		if ended {
			n.mu.Unlock()
			return Notification{}, n.waitError(what, errors.New("the connection ended"))
		}
		if n.arrived == nil {
			n.arrived = make(chan struct{})
		}
		arrived := n.arrived
		n.mu.Unlock()
		select {
		case <-arrived:
		case <-done:
			ended = true // no more can come: look once more, then give up
		case <-ctx.Done():
			return Notification{}, n.waitError(what, context.Cause(ctx))
		}
	}
}

func (n *Notifications) waitError(what string, why error) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	got := "none"
	if len(n.list) > 0 {
		methods := make([]string, len(n.list))
		for i, r := range n.list {
			methods[i] = r.Method
		}
		got = strings.Join(methods, ", ")
	}
	return fmt.Errorf("mcptest: waiting for %s: %w (notifications recorded: %s)", what, why, got)
}
