package client

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/mcptestkit/mcptestkit/internal/jsonrpc"
)

// codeBusy answers a server request refused because too many are being
// answered already (a JSON-RPC implementation-defined server error).
const codeBusy int64 = -32000

// serveRequest answers a server-to-client request. ping is answered at once;
// everything else runs in its own goroutine because callbacks may block. A
// request reusing the id of one still being answered, or beyond
// Options.MaxServerRequests in flight, is refused with an error. What the
// reader answers itself it queues (see [Client.queueResponse]): it never
// waits for a peer to read.
func (c *Client) serveRequest(msg *jsonrpc.Message) {
	if msg.Method == methodPing {
		c.queueResponse(msg.ID, []byte("{}"), nil)
		return
	}
	key := msg.ID.String()
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	if c.inflight[key] != nil {
		c.mu.Unlock()
		c.logger.Warn("mcp client: refusing a server request whose id is still in use", "id", key, "method", msg.Method)
		c.queueResponse(msg.ID, nil, &Error{Code: CodeInvalidRequest, Message: fmt.Sprintf(
			"duplicate request id %s: the client is still answering an earlier request with this id", key)})
		return
	}
	if n := c.serving; n >= c.opts.MaxServerRequests {
		c.refused++
		first := c.refused == 1
		c.mu.Unlock()
		lvl := slog.LevelDebug
		if first {
			lvl = slog.LevelWarn
		}
		c.logger.Log(context.Background(), lvl, "mcp client: refusing a server request: too many in flight", "id", key, "method", msg.Method, "limit", n)
		c.queueResponse(msg.ID, nil, &Error{Code: codeBusy, Message: fmt.Sprintf(
			"too many requests: the client is already answering %d requests from the server (its limit, Options.MaxServerRequests); %s refused", n, msg.Method)})
		return
	}
	ctx, cancel := context.WithCancel(c.ctx)
	r := &inflightRequest{cancel: cancel}
	if c.inflight == nil {
		c.inflight = make(map[string]*inflightRequest)
	}
	c.inflight[key] = r
	c.serving++
	c.wg.Add(1)
	c.mu.Unlock()
	go func() {
		defer c.wg.Done()
		defer func() {
			c.mu.Lock()
			c.serving-- // only now: a response the peer does not read holds its place
			c.mu.Unlock()
		}()
		result, err := c.answerInput(ctx, msg.Method, msg.Params)
		c.mu.Lock()
		delete(c.inflight, key)
		skip := r.cancelled || c.closed
		c.mu.Unlock()
		cancel()
		if skip {
			return
		}
		c.respond(msg.ID, result, err)
	}()
}

// respond sends the response to a server request and waits for the
// transport to take it. Only a callback's goroutine may wait so; the reader
// queues its responses instead.
func (c *Client) respond(id jsonrpc.ID, result []byte, err error) {
	c.sendResponse(id, responseMessage(id, result, err))
}

func (c *Client) sendResponse(id jsonrpc.ID, msg []byte) {
	if err := c.t.Send(c.ctx, msg); err != nil && c.ctx.Err() == nil {
		c.logger.Warn("mcp client: sending a response to the server failed", "id", id.String(), "error", err)
	}
}

// responseMessage encodes the response to a server request.
func responseMessage(id jsonrpc.ID, result []byte, err error) []byte {
	if err != nil {
		var e *Error
		if !errors.As(err, &e) {
			e = &Error{Code: CodeInternalError, Message: err.Error()}
		}
		return jsonrpc.AppendError(nil, id, &jsonrpc.Error{Code: e.Code, Message: e.Message, Data: e.Data})
	}
	return jsonrpc.AppendResult(make([]byte, 0, 40+len(result)), id, result)
}

// maxQueuedResponses bounds the bytes of the responses the reader has left
// to be sent. Only a peer that sends requests without reading the answers
// (pings, refusals) fills it; beyond it they are dropped, so that such a
// peer costs the client a bounded amount of memory and never its reader.
const maxQueuedResponses = 1 << 20

// queuedResponse is a response the reader left to be sent.
type queuedResponse struct {
	id  jsonrpc.ID
	msg []byte
}

// outbox holds the responses the reader answers itself, in the order it
// answered them. One goroutine at a time sends them (started when the
// first arrives, gone once they are sent), so the reader never waits for
// the peer to read: a reader blocked on a write would stop reading, and
// a peer blocked on its writes to it would stop too.
type outbox struct {
	mu      sync.Mutex
	queue   []queuedResponse
	size    int  // bytes in queue
	sending bool // the sending goroutine runs
	dropped int
}

// queueResponse queues the response to a server request for the sending
// goroutine, or drops it when the peer has left too many unread.
func (c *Client) queueResponse(id jsonrpc.ID, result []byte, err error) {
	msg := responseMessage(id, result, err)
	o := &c.out
	o.mu.Lock()
	if o.size > 0 && o.size+len(msg) > maxQueuedResponses {
		o.dropped++
		n, waiting := o.dropped, o.size
		o.mu.Unlock()
		lvl := slog.LevelDebug
		if n == 1 {
			lvl = slog.LevelWarn
		}
		c.logger.Log(context.Background(), lvl, "mcp client: dropping a response to a server request: the server is not reading what the client sends (the responses waiting for it reached their limit)",
			"id", id.String(), "waiting", waiting, "dropped", n)
		return
	}
	o.queue = append(o.queue, queuedResponse{id, msg})
	o.size += len(msg)
	start := !o.sending
	o.sending = true
	o.mu.Unlock()
	if start && !c.spawn(c.sendQueued) {
		o.mu.Lock()
		o.queue, o.size, o.sending = nil, 0, false // closed: nothing more is sent
		o.mu.Unlock()
	}
}

// sendQueued sends the queued responses in order until none is left or
// the connection ends.
func (c *Client) sendQueued() {
	o := &c.out
	for {
		o.mu.Lock()
		if len(o.queue) == 0 || c.ctx.Err() != nil {
			o.queue, o.size, o.sending = nil, 0, false
			o.mu.Unlock()
			return
		}
		r := o.queue[0]
		o.queue[0] = queuedResponse{}
		o.queue = o.queue[1:]
		o.size -= len(r.msg)
		o.mu.Unlock()
		c.sendResponse(r.id, r.msg)
	}
}
