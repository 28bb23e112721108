package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"sync"

	"github.com/mcptestkit/mcptestkit/internal/jsonrpc"
)

// notificationParams is the union of the notification params this client
// reads, so each is decoded once.
type notificationParams struct {
	RequestID     json.RawMessage `json:"requestId"`
	Reason        string          `json:"reason"`
	URI           string          `json:"uri"`
	ElicitationID string          `json:"elicitationId"`
	Notifications *ListenFilter   `json:"notifications"`
	Meta          struct {
		SubscriptionID json.RawMessage `json:"io.modelcontextprotocol/subscriptionId"`
	} `json:"_meta"`
}

// notified runs the handlers of a notification on the reader goroutine; a
// handler's panic is recovered and reported (see [PanicError]) and the
// reader goes on.
func (c *Client) notified(msg *jsonrpc.Message) {
	callback := ""
	defer func() {
		if r := recover(); r != nil {
			if callback == "" {
				callback = "handling " + msg.Method
			}
			c.panicked(callback, r)
		}
	}()
	c.handleNotification(msg, &callback)
}

// handleNotification runs on the reader goroutine. Before it calls a user's
// handler it sets *callback to the handler's name, for a panic's report.
func (c *Client) handleNotification(msg *jsonrpc.Message, callback *string) {
	o := &c.opts
	if o.OnNotification != nil {
		*callback = "OnNotification"
		o.OnNotification(msg.Method, bytes.Clone(msg.Params)) // the handler's to keep: not the frame's bytes
		*callback = ""
	}
	switch msg.Method {
	case notifyProgress:
		c.progressed(msg, callback)
		return
	case notifyMessage:
		if o.OnLog == nil {
			return
		}
		var m LogMessage
		if err := json.Unmarshal(msg.Params, &m); err != nil {
			c.dropped(msg, err)
			return
		}
		*callback = "OnLog"
		o.OnLog(&m)
		return
	}
	var p notificationParams
	if len(msg.Params) > 0 {
		if err := json.Unmarshal(msg.Params, &p); err != nil {
			c.dropped(msg, err)
			return
		}
	}
	// Listen traffic is tagged with its subscription; drop what belongs to
	// none of ours (a subscription closed while the server was sending).
	var sub *Subscription
	if len(p.Meta.SubscriptionID) > 0 {
		id, err := strconv.ParseInt(string(p.Meta.SubscriptionID), 10, 64)
		if err == nil {
			c.mu.Lock()
			sub = c.subs[id]
			c.mu.Unlock()
		}
		if sub == nil {
			c.logger.Debug("mcp client: notification for no current subscription", "method", msg.Method, "subscription", string(p.Meta.SubscriptionID))
			return
		}
	}
	switch msg.Method {
	case notifyToolsChanged:
		if o.OnToolListChanged != nil {
			*callback = "OnToolListChanged"
			o.OnToolListChanged()
		}
	case notifyPromptsChanged:
		if o.OnPromptListChanged != nil {
			*callback = "OnPromptListChanged"
			o.OnPromptListChanged()
		}
	case notifyResourcesChanged:
		if o.OnResourceListChanged != nil {
			*callback = "OnResourceListChanged"
			o.OnResourceListChanged()
		}
	case notifyResourceUpdated:
		if o.OnResourceUpdated != nil {
			*callback = "OnResourceUpdated"
			o.OnResourceUpdated(p.URI)
		}
	case notifyAcknowledged:
		if sub == nil || p.Notifications == nil {
			c.dropped(msg, errors.New("acknowledgement without a subscription id or filter"))
			return
		}
		sub.acknowledge(*p.Notifications)
	case notifyElicitationDone:
		if o.OnElicitationComplete != nil {
			*callback = "OnElicitationComplete"
			o.OnElicitationComplete(p.ElicitationID)
		}
	case notifyCancelled:
		c.serverCancelled(p.RequestID, p.Reason)
	case notifyTaskStatus, notifyTasks:
		c.taskNotified(msg, callback)
	}
}

// progressSink is the progress handler of one call. The handler runs only
// while a request carrying the token waits for its response (live): once
// the reader has taken the response, or the call is over (done), it never
// runs for that request again. The reader runs it under mu, and the call
// sets done under mu before it returns. The rounds of a multi round-trip
// call share the token: each new request makes it live again.
type progressSink struct {
	mu   sync.Mutex
	f    func(Progress)
	live bool
	done bool
	task bool // the request may become a task, whose progress outlives the response
}

func (s *progressSink) run(p Progress) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.live && !s.done {
		s.f(p)
	}
}

// await marks the token live: a request carrying it is about to go out.
func (s *progressSink) await() {
	s.mu.Lock()
	s.live = true
	s.mu.Unlock()
}

// answered ends the token's life for the request just answered.
func (s *progressSink) answered() {
	s.mu.Lock()
	s.live = false
	s.mu.Unlock()
}

// responded is answered, unless the request may have become a task, whose
// progress goes on after the response (the caller ends it then); the reader
// calls it before it hands the response over.
func (s *progressSink) responded() {
	s.mu.Lock()
	if !s.task {
		s.live = false
	}
	s.mu.Unlock()
}

// outlivesResponse marks the token as one of a request that may become a
// task.
func (s *progressSink) outlivesResponse() {
	s.mu.Lock()
	s.task = true
	s.mu.Unlock()
}

func (s *progressSink) stop() {
	s.mu.Lock()
	s.done = true
	s.mu.Unlock()
}

// progressed hands a notifications/progress to the call that asked for it.
func (c *Client) progressed(msg *jsonrpc.Message, callback *string) {
	var p Progress
	if err := json.Unmarshal(msg.Params, &p); err != nil {
		c.dropped(msg, err)
		return
	}
	token, err := strconv.ParseInt(string(p.Token), 10, 64)
	var s *progressSink
	if err == nil {
		c.mu.Lock()
		s = c.progress[token]
		c.mu.Unlock()
	}
	if s == nil {
		c.logger.Debug("mcp client: progress for no current request", "token", string(p.Token))
		return
	}
	*callback = "WithProgress"
	s.run(p)
}

func (c *Client) dropped(msg *jsonrpc.Message, err error) {
	c.logger.Warn("mcp client: dropping a malformed notification", "method", msg.Method, "error", err, "params", string(truncate(msg.Params)))
}

// serverCancelled handles notifications/cancelled from the server: it
// cancels a server request being answered, or ends a subscription (the
// server's way of ending a listen stream on stdio). A server cannot cancel
// the client's other requests (only the sender of a request may), so those
// go on: dropping one here would leave its caller waiting for nothing.
func (c *Client) serverCancelled(requestID json.RawMessage, reason string) {
	var id jsonrpc.ID
	if err := id.UnmarshalJSON(requestID); err != nil || !id.IsValid() {
		c.logger.Warn("mcp client: ignoring a notifications/cancelled without a usable requestId", "requestId", string(truncate(requestID)))
		return
	}
	c.mu.Lock()
	if r := c.inflight[id.String()]; r != nil {
		r.cancelled = true
		r.cancel()
		c.mu.Unlock()
		return
	}
	var sub *Subscription
	if n, err := strconv.ParseInt(id.String(), 10, 64); err == nil {
		if p := c.pending[n]; p != nil && p.sub != nil {
			sub = p.sub
			delete(c.subs, n)
			delete(c.pending, n)
		}
	}
	c.mu.Unlock()
	if sub != nil {
		sub.finish(&SubscriptionEndedError{Reason: reason})
		return
	}
	c.logger.Warn("mcp client: ignoring a notifications/cancelled for a request the server did not send or no longer runs", "requestId", id.String(), "reason", reason)
}
