package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/mcptestkit/mcptestkit/internal/jsonrpc"
)

// ListenFilter says which change notifications a subscription wants.
type ListenFilter struct {
	// ToolsListChanged asks for notifications/tools/list_changed (needs the
	// server's tools.listChanged).
	ToolsListChanged bool `json:"toolsListChanged,omitempty"`
	// PromptsListChanged asks for notifications/prompts/list_changed (needs
	// prompts.listChanged).
	PromptsListChanged bool `json:"promptsListChanged,omitempty"`
	// ResourcesListChanged asks for notifications/resources/list_changed (needs
	// resources.listChanged).
	ResourcesListChanged bool `json:"resourcesListChanged,omitempty"`
	// ResourceSubscriptions lists the URIs to receive
	// notifications/resources/updated for.
	ResourceSubscriptions []string `json:"resourceSubscriptions,omitempty"`
	// TaskIDs lists the tasks to receive status notifications for
	// (notifications/tasks, 2026-07-28 tasks extension; Options.OnTaskStatus
	// receives them). Legacy servers send notifications/tasks/status with no
	// subscription, whenever they do.
	TaskIDs []string `json:"taskIds,omitempty"`
}

// Subscription is an open stream of change notifications, from
// [Client.Listen]. The notifications themselves go to the Options handlers
// (OnToolListChanged, OnResourceUpdated, ...).
type Subscription struct {
	c        *Client
	id       int64 // the listen request's id; 0 on legacy connections
	key      int64 // key in Client.subs: id, or a negative number on legacy connections
	accepted ListenFilter
	ack      chan ListenFilter
	done     chan struct{}
	once     sync.Once
	err      error
}

// SubscriptionEndedError is the [Subscription.Err] of a subscription the
// server ended (gracefully, or with notifications/cancelled).
type SubscriptionEndedError struct {
	// Reason is the reason the server's notifications/cancelled gave; empty
	// after a graceful end.
	Reason string
}

// Error implements the error interface.
func (e *SubscriptionEndedError) Error() string {
	if e.Reason == "" {
		return "subscription ended by the server"
	}
	return "subscription ended by the server: " + e.Reason
}

// Listen opens a subscription to change notifications and returns once the
// server has acknowledged it; Accepted tells what the server agreed to send.
// ctx bounds the wait for the acknowledgement only: the subscription lasts
// until Close, the server ends it, or the connection ends.
//
// On 2026-07-28 connections this is subscriptions/listen, and notifications
// are matched to the subscription by their subscription id. On legacy
// connections the list-changed notifications need no subscription (the
// server sends them whenever it declared listChanged), and
// ResourceSubscriptions are subscribed one by one with resources/subscribe
// and unsubscribed by Close.
func (c *Client) Listen(ctx context.Context, filter ListenFilter) (*Subscription, error) {
	if !c.IsModern() {
		return c.listenLegacy(ctx, filter)
	}
	co := collect(nil)
	co.tasksExt = len(filter.TaskIDs) > 0
	f, err := json.Marshal(&filter)
	if err != nil {
		return nil, fmt.Errorf("%s: encoding filter: %w", methodListen, err)
	}
	params, err := c.buildParams(nil, &co, 0, member{"notifications", f})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", methodListen, err)
	}
	id := c.nextID.Add(1)
	s := &Subscription{c: c, id: id, key: id, ack: make(chan ListenFilter, 1), done: make(chan struct{})}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, fmt.Errorf("%s: %w", methodListen, &closedError{cause: c.cause})
	}
	p := &pendingCall{sub: s, method: methodListen}
	c.pending[id] = p
	if c.subs == nil {
		c.subs = make(map[int64]*Subscription)
	}
	c.subs[id] = s
	c.wg.Add(1)
	c.mu.Unlock()
	msg := jsonrpc.AppendRequest(make([]byte, 0, 64+len(params)), jsonrpc.Int64ID(id), methodListen, params)
	go c.sendRequest(ctx, id, p, msg)
	select {
	case s.accepted = <-s.ack:
		return s, nil
	case <-s.done:
		select {
		case s.accepted = <-s.ack:
			return s, nil // acknowledged, then ended at once (nothing to send)
		default:
		}
		return nil, fmt.Errorf("%s: %w", methodListen, s.err)
	case <-ctx.Done():
		if c.forget(id) {
			c.abandon(id, p, context.Cause(ctx))
		}
		s.finish(context.Cause(ctx))
		return nil, fmt.Errorf("%s: %w", methodListen, context.Cause(ctx))
	}
}

// forget drops a subscription from the client's tables and reports whether it
// was still there.
func (c *Client) forget(id int64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.subs[id]
	delete(c.subs, id)
	delete(c.pending, id)
	return ok
}

func (c *Client) listenLegacy(ctx context.Context, filter ListenFilter) (*Subscription, error) {
	caps := &c.serverCaps
	var acc ListenFilter
	acc.ToolsListChanged = filter.ToolsListChanged && caps.Tools != nil && caps.Tools.ListChanged
	acc.PromptsListChanged = filter.PromptsListChanged && caps.Prompts != nil && caps.Prompts.ListChanged
	acc.ResourcesListChanged = filter.ResourcesListChanged && caps.Resources != nil && caps.Resources.ListChanged
	if c.SupportsTasks() {
		acc.TaskIDs = slices.Clone(filter.TaskIDs) // sent, when they are, with no subscription
	}
	s := &Subscription{c: c, key: -c.nextID.Add(1), done: make(chan struct{})}
	if len(filter.ResourceSubscriptions) > 0 && caps.Resources != nil && caps.Resources.Subscribe {
		for _, uri := range filter.ResourceSubscriptions {
			if err := c.Subscribe(ctx, uri); err != nil {
				s.accepted = acc
				s.unsubscribeAll()
				return nil, err
			}
			acc.ResourceSubscriptions = append(acc.ResourceSubscriptions, uri)
		}
	}
	s.accepted = acc
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, fmt.Errorf("%s: %w", methodListen, &closedError{cause: c.cause})
	}
	if c.subs == nil {
		c.subs = make(map[int64]*Subscription)
	}
	c.subs[s.key] = s
	c.mu.Unlock()
	return s, nil
}

// acknowledge records the server's acknowledgement (reader goroutine).
func (s *Subscription) acknowledge(f ListenFilter) {
	select {
	case s.ack <- f:
	default: // a second acknowledgement: keep the first
	}
}

// ended handles the response to the listen request: the server ended the
// subscription (reader goroutine).
func (s *Subscription) ended(msg *jsonrpc.Message) {
	if msg.Error != nil {
		s.finish(fromWire(op{method: methodListen}, msg.Error))
		return
	}
	s.finish(&SubscriptionEndedError{})
}

// finish ends the subscription once, with err as its reason.
func (s *Subscription) finish(err error) {
	s.once.Do(func() {
		s.c.forget(s.key)
		s.err = err
		close(s.done)
	})
}

// Accepted returns what the server agreed to send: the acknowledged filter
// (2026-07-28), or what its capabilities allow (legacy).
func (s *Subscription) Accepted() ListenFilter {
	f := s.accepted
	f.ResourceSubscriptions = slices.Clone(f.ResourceSubscriptions)
	f.TaskIDs = slices.Clone(f.TaskIDs)
	return f
}

// Done is closed when the subscription has ended.
func (s *Subscription) Done() <-chan struct{} { return s.done }

// Err says why the subscription ended: nil while it is open or after Close, a
// [*SubscriptionEndedError] when the server ended it, an error wrapping
// [ErrClosed] when the connection ended.
func (s *Subscription) Err() error {
	select {
	case <-s.done:
		return s.err
	default:
		return nil
	}
}

// Close ends the subscription: on 2026-07-28 connections it sends
// notifications/cancelled for the listen request; on legacy ones it
// unsubscribes the resources it subscribed, waiting at most 5s for the
// server. It is safe to call more than once.
func (s *Subscription) Close() error {
	select {
	case <-s.done:
		return nil
	default:
	}
	if s.id != 0 {
		if s.c.forget(s.id) {
			s.c.cancelRequest(s.id, nil)
		}
		s.finish(nil)
		return nil
	}
	err := s.unsubscribeAll()
	s.finish(nil)
	return err
}

// unsubscribeWait bounds the unsubscribing of [Subscription.Close], which
// has no ctx of its own, on legacy connections.
const unsubscribeWait = cancelGrace

func (s *Subscription) unsubscribeAll() error {
	ctx, cancel := context.WithTimeout(s.c.ctx, unsubscribeWait)
	defer cancel()
	var errs []error
	for _, uri := range s.accepted.ResourceSubscriptions {
		if err := s.c.Unsubscribe(ctx, uri); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
