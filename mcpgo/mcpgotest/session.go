package mcpgotest

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// session is the server.ClientSession of one connection.
type session struct {
	c             *connection
	id            string
	notifications chan mcp.JSONRPCNotification
	initialized   atomic.Bool

	// Set by mcp-go while handling requests, read by any handler.
	logLevel        locked[mcp.LoggingLevel]
	clientInfo      locked[mcp.Implementation]
	clientCaps      locked[mcp.ClientCapabilities]
	protocolVersion locked[string]

	nextID  atomic.Int64
	pending sync.Map // request id (JSON text) -> chan *envelope
}

// The session interfaces of the oldest supported mcp-go release. Releases
// from v1.0.0 also look for ProtocolVersion and SetProtocolVersion
// (server.SessionWithProtocolVersion), which it has too; naming that
// interface here would not compile against older releases.
var (
	_ server.ClientSession          = (*session)(nil)
	_ server.SessionWithLogging     = (*session)(nil)
	_ server.SessionWithClientInfo  = (*session)(nil)
	_ server.SessionWithSampling    = (*session)(nil)
	_ server.SessionWithElicitation = (*session)(nil)
	_ server.SessionWithRoots       = (*session)(nil)
)

func newSession(c *connection, id string, buffer int) *session {
	s := &session{c: c, id: id, notifications: make(chan mcp.JSONRPCNotification, buffer)}
	s.logLevel.set(mcp.LoggingLevelError)
	return s
}

// locked is a value that one goroutine sets and others read.
type locked[T any] struct {
	mu sync.Mutex
	v  T
}

func (l *locked[T]) get() T {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.v
}

func (l *locked[T]) set(v T) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.v = v
}

// SessionID implements server.ClientSession.
func (s *session) SessionID() string { return s.id }

// NotificationChannel implements server.ClientSession.
func (s *session) NotificationChannel() chan<- mcp.JSONRPCNotification { return s.notifications }

// Initialize implements server.ClientSession.
func (s *session) Initialize() { s.initialized.Store(true) }

// Initialized implements server.ClientSession.
func (s *session) Initialized() bool { return s.initialized.Load() }

// SetLogLevel implements server.SessionWithLogging.
func (s *session) SetLogLevel(level mcp.LoggingLevel) { s.logLevel.set(level) }

// GetLogLevel implements server.SessionWithLogging. Until the client sets a
// level it is "error", as on mcp-go's stdio transport.
func (s *session) GetLogLevel() mcp.LoggingLevel { return s.logLevel.get() }

// GetClientInfo implements server.SessionWithClientInfo.
func (s *session) GetClientInfo() mcp.Implementation { return s.clientInfo.get() }

// SetClientInfo implements server.SessionWithClientInfo.
func (s *session) SetClientInfo(info mcp.Implementation) { s.clientInfo.set(info) }

// GetClientCapabilities implements server.SessionWithClientInfo.
func (s *session) GetClientCapabilities() mcp.ClientCapabilities { return s.clientCaps.get() }

// SetClientCapabilities implements server.SessionWithClientInfo.
func (s *session) SetClientCapabilities(caps mcp.ClientCapabilities) { s.clientCaps.set(caps) }

// ProtocolVersion implements server.SessionWithProtocolVersion (mcp-go
// v1.0.0 and later): the version the initialize handshake negotiated, or "".
func (s *session) ProtocolVersion() string { return s.protocolVersion.get() }

// SetProtocolVersion records the negotiated version; mcp-go v1.0.0 and
// later call it during initialize.
func (s *session) SetProtocolVersion(version string) { s.protocolVersion.set(version) }

// RequestSampling implements server.SessionWithSampling over the connection.
func (s *session) RequestSampling(ctx context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	res, err := request[mcp.CreateMessageResult](ctx, s, string(mcp.MethodSamplingCreateMessage), req.CreateMessageParams)
	if err != nil {
		return nil, err
	}
	// The content arrives as a map; mcp-go's handlers expect typed content.
	if res.Content, err = samplingContent(res.Content); err != nil {
		return nil, fmt.Errorf("mcpgo: decoding the content of the client's sampling result: %w", err)
	}
	return res, nil
}

// samplingContent types the content of a sampling result decoded as plain
// JSON values, as mcp-go's own transports do: one block (an object) becomes
// an mcp.Content, a list of blocks (2025-11-25 sampling with tools) a
// []mcp.Content. mcp.ParseSamplingContent does this from v1.2.0;
// mcp.ParseContent, which it builds on, is in every supported release.
func samplingContent(content any) (any, error) {
	switch c := content.(type) {
	case map[string]any:
		return mcp.ParseContent(c)
	case []any:
		blocks := make([]mcp.Content, len(c))
		for i, v := range c {
			m, ok := v.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("content block %d is a %T, not an object", i, v)
			}
			var err error
			if blocks[i], err = mcp.ParseContent(m); err != nil {
				return nil, fmt.Errorf("content block %d: %w", i, err)
			}
		}
		return blocks, nil
	}
	return content, nil
}

// RequestElicitation implements server.SessionWithElicitation over the
// connection.
func (s *session) RequestElicitation(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	return request[mcp.ElicitationResult](ctx, s, string(mcp.MethodElicitationCreate), req.Params)
}

// ListRoots implements server.SessionWithRoots over the connection.
func (s *session) ListRoots(ctx context.Context, req mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	var params any // roots/list has no params but _meta
	if req.Params.Meta != nil {
		params = req.Params
	}
	return request[mcp.ListRootsResult](ctx, s, string(mcp.MethodListRoots), params)
}

// request sends a request to the client, waits for its answer and decodes
// the result.
func request[T any](ctx context.Context, s *session, method string, params any) (*T, error) {
	raw, err := s.call(ctx, method, params)
	if err != nil {
		return nil, err
	}
	var res T
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("mcpgo: decoding the client's %s result: %w", method, err)
	}
	return &res, nil
}

// call sends a request to the client and waits for its answer.
func (s *session) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	id := s.nextID.Add(1)
	key := strconv.FormatInt(id, 10)
	reply := make(chan *envelope, 1)
	s.pending.Store(key, reply)
	defer s.pending.Delete(key)

	data, err := json.Marshal(struct {
		JSONRPC string `json:"jsonrpc"`
		ID      int64  `json:"id"`
		Method  string `json:"method"`
		Params  any    `json:"params,omitempty"`
	}{mcp.JSONRPC_VERSION, id, method, params})
	if err != nil {
		return nil, fmt.Errorf("mcpgo: encoding %s request: %w", method, err)
	}
	c := s.c
	select {
	case c.out <- outgoing{data: data}:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.ctx.Done():
		return nil, fmt.Errorf("mcpgo: %s: the connection has ended", method)
	}
	select {
	case env := <-reply:
		if env.Error != nil {
			var details mcp.JSONRPCErrorDetails
			if err := json.Unmarshal(env.Error, &details); err != nil {
				return nil, fmt.Errorf("mcpgo: the client answered %s with an unreadable error %s", method, env.Error)
			}
			return nil, fmt.Errorf("mcpgo: the client answered %s with error %d: %w", method, details.Code, details.AsError())
		}
		return env.Result, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.ctx.Done():
		return nil, fmt.Errorf("mcpgo: %s: the connection ended before the client answered", method)
	}
}

// deliver hands the client's answer to the call waiting for it. An answer
// nobody waits for (the caller gave up) is dropped.
func (s *session) deliver(env *envelope) {
	if reply, ok := s.pending.Load(string(env.ID)); ok {
		select {
		case reply.(chan *envelope) <- env:
		default: // answered twice; keep the first
		}
	}
}
