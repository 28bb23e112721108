package mcpgotest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptestkit/mcptestkit/mcpgo/internal/jsonscan"
	"github.com/mcptestkit/mcptestkit/mcptest/crash"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

// envelope is the part of a message needed to route it.
type envelope struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

func (e *envelope) hasID() bool { return len(e.ID) > 0 && string(e.ID) != "null" }

// readEnvelope decodes data's envelope as json.Unmarshal does: with the
// scanner when it can, else with json.Unmarshal, which then gives the
// envelope or the error.
func readEnvelope(data []byte) (envelope, error) {
	if env, ok := scanEnvelope(data); ok {
		return env, nil
	}
	var env envelope
	err := json.Unmarshal(data, &env)
	return env, err
}

// scanEnvelope reads the envelope of an object whose routing members are
// written plainly: exact keys without escapes, each at most once, no null,
// a string method. It reports false for anything else, keys encoding/json
// might fold into these included. The raw members are copies: the frame is
// shared with the transcript.
func scanEnvelope(data []byte) (envelope, bool) {
	var env envelope
	var seen uint8 // bit per member
	ok := jsonscan.Object(data, func(key []byte, escaped bool, v []byte) bool {
		var bit uint8
		switch string(key) {
		case "id":
			bit = 1
		case "method":
			bit = 2
		case "result":
			bit = 4
		case "error":
			bit = 8
		default:
			return !escaped && !jsonscan.Folds(key, "id", "method", "result", "error")
		}
		if escaped || seen&bit != 0 || jsonscan.IsNull(v) {
			return false
		}
		seen |= bit
		switch bit {
		case 1:
			env.ID = bytes.Clone(v)
		case 2:
			var ok bool
			env.Method, ok = jsonscan.String(v)
			return ok
		case 4:
			env.Result = bytes.Clone(v)
		case 8:
			env.Error = bytes.Clone(v)
		}
		return true
	})
	return env, ok
}

// readLoop reads messages until the connection ends or ctx is done, and
// handles them with base, the context handlers derive theirs from.
func (c *connection) readLoop(ctx, base context.Context) {
	for {
		data, err := c.conn.Receive(ctx)
		if err != nil {
			return // closed, or ctx done: both end serving
		}
		env, err := readEnvelope(data)
		if err != nil {
			var syntax *json.SyntaxError
			if errors.As(err, &syntax) {
				// Not JSON at all: answer as mcp-go's stdio transport does,
				// and read on.
				c.send(outgoing{data: errorResponse(nil, mcp.PARSE_ERROR, "Parse error")})
				continue
			}
			// JSON but not an object (a batch, a string): mcp-go answers
			// these itself.
			c.handle(base, data, nil, "")
			continue
		}
		switch {
		case env.Method == "" && env.hasID() && (env.Result != nil || env.Error != nil):
			c.session.deliver(&env)
		case env.Method != "" && !env.hasID():
			// Notifications run in order on the reading goroutine, as
			// mcp-go's transports run them.
			if env.Method == methodCancelled {
				c.cancelRequest(data)
			}
			c.notify(base, data, env.Method)
		default:
			c.handle(base, data, env.ID, env.Method)
		}
	}
}

// inflight is one request being handled.
type inflight struct{ cancel context.CancelFunc }

// handle serves one request on its own goroutine.
//
// The request's context is the adapter's to cancel, and it is registered
// here, on the reading goroutine, before anything after it is read: mcp-go
// registers a request for notifications/cancelled only inside HandleMessage,
// on the handling goroutine, so a cancellation read before that goroutine
// got there would otherwise be lost and the handler left running.
func (c *connection) handle(ctx context.Context, data []byte, id json.RawMessage, method string) {
	ctx, cancel := context.WithCancel(ctx)
	key, req := string(id), &inflight{cancel: cancel}
	if len(id) > 0 {
		c.requests.Store(key, req)
	}
	c.handlers.Go(func() {
		defer cancel()
		defer c.requests.CompareAndDelete(key, req)
		defer func() {
			if v := recover(); v != nil {
				r := c.report(ctx, data, method, v)
				c.send(outgoing{data: errorResponse(id, mcp.INTERNAL_ERROR, r.String()), id: id})
			}
		}()
		if c.a.versions != nil {
			var refused []byte
			if data, refused = c.restrictVersion(data, id, method); refused != nil {
				c.send(outgoing{data: refused, id: id})
				return
			}
		}
		resp := c.a.server.HandleMessage(ctx, data)
		if resp == nil {
			return
		}
		b, err := json.Marshal(resp)
		if err != nil {
			b = errorResponse(id, mcp.INTERNAL_ERROR, fmt.Sprintf("mcpgo: encoding the response to %s: %v", method, err))
		} else if c.a.versions != nil && method == methodDiscover {
			b = advertise(b, c.a.offered())
		}
		c.send(outgoing{data: b, id: id})
	})
}

// cancelRequest cancels the context of the request a notifications/cancelled
// names, if it is still being handled. mcp-go is told too (the notification
// goes on to it) and cancels the context it derived, when it has one yet.
func (c *connection) cancelRequest(data []byte) {
	var n struct {
		Params struct {
			RequestID json.RawMessage `json:"requestId"`
		} `json:"params"`
	}
	if json.Unmarshal(data, &n) != nil {
		return
	}
	if req, ok := c.requests.Load(string(n.Params.RequestID)); ok {
		req.(*inflight).cancel()
	}
}

// notify handles one notification on the reading goroutine.
func (c *connection) notify(ctx context.Context, data []byte, method string) {
	defer func() {
		if v := recover(); v != nil {
			c.report(ctx, data, method, v) // a notification gets no answer
		}
	}()
	_ = c.a.server.HandleMessage(ctx, data) // nil for a notification
}

// report hands a recovered panic to the harness's reporter, or to stderr
// when the adapter runs without one.
func (c *connection) report(ctx context.Context, data []byte, method string, v any) crash.Report {
	r := crash.Report{Method: method, Name: subject(data), Value: v, Stack: debug.Stack()}
	crash.Deliver(ctx, r)
	return r
}

// subject returns what a request acts on, for a crash report.
func subject(data []byte) string {
	var m struct {
		Params json.RawMessage `json:"params"`
	}
	if json.Unmarshal(data, &m) != nil {
		return ""
	}
	return crash.Subject(m.Params)
}

// restrictVersion applies WithProtocolVersions to one request. It returns
// the message to handle (initialize may be rewritten to ask for an allowed
// version, as the server would answer with one), or a refusal to send.
func (c *connection) restrictVersion(data []byte, id json.RawMessage, method string) (handle, refusal []byte) {
	var m struct {
		Params struct {
			ProtocolVersion string `json:"protocolVersion"`
			Meta            struct {
				ProtocolVersion string `json:"io.modelcontextprotocol/protocolVersion"`
			} `json:"_meta"`
		} `json:"params"`
	}
	if json.Unmarshal(data, &m) != nil {
		return data, nil // malformed params: mcp-go's own error is better
	}
	allowed := c.a.offered()
	if v := m.Params.Meta.ProtocolVersion; modern(v) {
		if slices.Contains(allowed, v) {
			return data, nil
		}
		b, _ := json.Marshal(response{JSONRPC: mcp.JSONRPC_VERSION, ID: id, Error: &mcp.JSONRPCErrorDetails{
			Code:    codeUnsupportedVersion,
			Message: fmt.Sprintf("unsupported protocol version: %q (supported: %v)", v, allowed),
			Data:    unsupportedVersion{Supported: allowed, Requested: v},
		}})
		return nil, b
	}
	if method == string(mcp.MethodInitialize) && !slices.Contains(allowed, m.Params.ProtocolVersion) {
		var msg map[string]any
		if json.Unmarshal(data, &msg) != nil {
			return data, nil
		}
		if params, ok := msg["params"].(map[string]any); ok {
			params["protocolVersion"] = newestLegacy(allowed)
			if b, err := json.Marshal(msg); err == nil {
				return b, nil
			}
		}
	}
	return data, nil
}

// newestLegacy returns the newest allowed version the initialize handshake
// can negotiate, or the newest legacy version the release speaks when none
// is allowed.
func newestLegacy(allowed []string) string {
	best := ""
	for _, v := range allowed {
		if !modern(v) && v > best {
			best = v
		}
	}
	if best == "" {
		for _, v := range mcp.ValidProtocolVersions {
			if !modern(v) && v > best {
				best = v
			}
		}
	}
	return best
}

// The protocol's names and codes for what the oldest supported mcp-go
// release has no constant for (the 2026-07-28 ones are newer than it).
const (
	methodCancelled        = "notifications/cancelled"
	methodDiscover         = "server/discover"
	codeUnsupportedVersion = -32022
)

// modern reports whether version is of the per-request era: 2026-07-28 or
// later. Versions are dates, so they compare as strings.
func modern(version string) bool { return version >= "2026-07-28" }

// unsupportedVersion is the data of a -32022 refusal.
type unsupportedVersion struct {
	Supported []string `json:"supported"`
	Requested string   `json:"requested"`
}

// advertise rewrites the server/discover response b to list versions as the
// supported ones. A response it cannot read (an error) is left as it is.
func advertise(b []byte, versions []string) []byte {
	var msg map[string]json.RawMessage
	if json.Unmarshal(b, &msg) != nil || msg["result"] == nil {
		return b
	}
	var result map[string]json.RawMessage
	if json.Unmarshal(msg["result"], &result) != nil {
		return b
	}
	var err error
	if result["supportedVersions"], err = json.Marshal(versions); err != nil {
		return b
	}
	if msg["result"], err = json.Marshal(result); err != nil {
		return b
	}
	if out, err := json.Marshal(msg); err == nil {
		return out
	}
	return b
}

// response is a JSON-RPC response as this package writes it.
type response struct {
	JSONRPC string                   `json:"jsonrpc"`
	ID      json.RawMessage          `json:"id"`
	Error   *mcp.JSONRPCErrorDetails `json:"error"`
}

// errorResponse encodes a JSON-RPC error response; a nil id is null.
func errorResponse(id json.RawMessage, code int, message string) []byte {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(response{JSONRPC: mcp.JSONRPC_VERSION, ID: id, Error: &mcp.JSONRPCErrorDetails{Code: code, Message: message}})
	return b
}

// outgoing is one message for the writer: a response (id set) or a request
// to the client.
type outgoing struct {
	data []byte
	id   json.RawMessage // the request answered, for a response
}

// send hands m to the writer; it gives up once serving is over.
func (c *connection) send(m outgoing) {
	select {
	case c.out <- m:
	case <-c.stop:
	}
}

// writeLoop is the connection's only writer. Before each response or request
// it writes every notification already queued, so a notification a handler
// sent before returning always precedes the handler's response.
func (c *connection) writeLoop() {
	defer close(c.writerDone)
	for {
		select {
		case n := <-c.session.notifications:
			c.writeNotification(n)
		case m := <-c.out:
			c.drainNotifications()
			c.write(m)
		case <-c.stop:
			return
		}
	}
}

func (c *connection) drainNotifications() {
	for {
		select {
		case n := <-c.session.notifications:
			c.writeNotification(n)
		default:
			return
		}
	}
}

func (c *connection) writeNotification(n mcp.JSONRPCNotification) {
	b, err := json.Marshal(n)
	if err != nil {
		return // a notification with unencodable params cannot be sent
	}
	_ = c.conn.Send(context.Background(), b) // ends when the connection closes
}

func (c *connection) write(m outgoing) {
	err := c.conn.Send(context.Background(), m.data)
	var tooLarge *memtransport.SizeError
	if errors.As(err, &tooLarge) && len(m.id) > 0 {
		// Tell the client rather than leave it waiting for an answer that
		// cannot cross.
		_ = c.conn.Send(context.Background(), errorResponse(m.id, mcp.INTERNAL_ERROR,
			fmt.Sprintf("mcpgo: the response could not be sent: %v", err)))
	}
}
