package mcptest

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/guard"
	"github.com/mcptestkit/mcptestkit/internal/jsonrpc"
	"github.com/mcptestkit/mcptestkit/internal/toolschema"
	"github.com/mcptestkit/mcptestkit/mcptest/crash"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

// fakeServer is the MCP server of this package's own tests: written against
// the wire with no SDK, so that the root module's tests need none (the
// SDKs' servers meet the harness in the integration module's tests). It
// speaks what the tests of the harness need:
//
//   - both starts: initialize (a version it speaks, or its newest legacy
//     one) and server/discover (-32022 listing its versions for one it
//     does not), and the per-request _meta of 2026-07-28;
//   - ping, logging/setLevel, tools/list, and tools/call run by Go handlers:
//     arguments checked against the input schema (an isError result if they
//     break it), a Go error as an isError result, a *jsonrpc.Error as that
//     JSON-RPC error, input requests (an input_required result at
//     2026-07-28, the server's own requests on a legacy connection), a
//     context that notifications/cancelled ends, log messages at the level
//     the client asked for, progress for a request's progressToken;
//   - resources (list, read, subscribe) when it has any, and change
//     notifications ([fakeServer.notify]), on a subscriptions/listen stream
//     at 2026-07-28;
//   - a handler's panic recovered the way the SDK adapters recover it
//     (reported to the harness through package crash, answered -32603), or
//     by a crash guard of the server's own (guard).
//
// Serve serves a memtransport.Conn, handler a stateless streamable HTTP
// endpoint, and serveStdio (stdio_test.go) the test binary's stdin and
// stdout.
type fakeServer struct {
	name, version string   // serverInfo: "fake" and "v0" when empty
	versions      []string // the protocol versions it speaks, newest first; nil: the client's
	tools         []*fakeTool
	resources     map[string]string // URI → text; the resources capability when set
	// guard is the server's own crash guard: a tool's panic becomes the
	// isError result "Error executing tool <name>" and, with logger set,
	// one ERROR record with the stack, as gosdk.Guard does.
	guard  bool
	logger *slog.Logger
	// discoverFails makes server/discover answer -32603 (a defect for a
	// server that serves 2026-07-28 requests).
	discoverFails bool
	// ignoreCancel makes it go on with a cancelled request, progress,
	// result and all (a defect: it SHOULD stop).
	ignoreCancel bool
	// listed, when set, are the versions server/discover lists (a
	// dual-era server may list only its newest).
	listed []string
	// echoVersion makes initialize agree to any version asked for (a
	// defect).
	echoVersion bool

	mu       sync.Mutex
	sessions map[*fakeSession]bool // open in-memory sessions, for notify
}

// fakeHandler runs a tool call.
type fakeHandler func(ctx context.Context, c *fakeCall) (*fakeResult, error)

type fakeTool struct {
	name, description string
	input, output     string // JSON Schemas; input is {"type":"object"} when empty
	handle            fakeHandler

	once   sync.Once
	schema *jsonschema.Schema
	err    error
}

// newTool returns a tool that takes any object.
func newTool(name string, handle fakeHandler) *fakeTool {
	return &fakeTool{name: name, handle: handle}
}

// fakeResult is what a tool handler answers. With ask set it asks the
// client for input first: the handler runs again with the answers.
type fakeResult struct {
	text       string
	isError    bool
	structured any
	ask        map[string]fakeAsk
	state      string // with ask, the requestState of the input_required result (2026-07-28)
}

func fakeText(s string) *fakeResult { return &fakeResult{text: s} }

// fakeAsk is one input request: sampling/createMessage, elicitation/create
// or roots/list.
type fakeAsk struct {
	Method string `json:"method"`
	Params any    `json:"params,omitempty"`
}

// fakeCall is one tools/call as its handler sees it.
type fakeCall struct {
	args    map[string]any
	answers map[string]json.RawMessage // the client's answers to the last ask, by key
	state   string                     // the requestState the client sent back (2026-07-28)
	client  client.Implementation      // who calls
	req     *fakeRequest
}

func (c *fakeCall) str(key string) string { s, _ := c.args[key].(string); return s }

func (c *fakeCall) num(key string) float64 { n, _ := c.args[key].(float64); return n }

var fakeLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// log sends a log message if the client asked for its level or a lower one.
func (c *fakeCall) log(ctx context.Context, level, logger string, data any) error {
	least := c.req.meta.LogLevel
	if !c.req.modern() && c.req.sess != nil {
		c.req.sess.mu.Lock()
		least = c.req.sess.logLevel
		c.req.sess.mu.Unlock()
	}
	if least == "" || slices.Index(fakeLevels, level) < slices.Index(fakeLevels, least) {
		return nil
	}
	return c.req.notify(ctx, "notifications/message", map[string]any{"level": level, "logger": logger, "data": data})
}

// progress reports progress if the request carries a progressToken.
func (c *fakeCall) progress(ctx context.Context, progress, total float64) error {
	if len(c.req.meta.Progress) == 0 {
		return nil
	}
	return c.req.notify(ctx, "notifications/progress", map[string]any{"progressToken": c.req.meta.Progress, "progress": progress, "total": total})
}

// fakeSession is the state of one connection Serve serves.
type fakeSession struct {
	conn *memtransport.Conn

	mu       sync.Mutex
	modern   bool // it started with server/discover
	client   client.Implementation
	logLevel string
	running  map[string]context.CancelFunc    // requests being served, by id
	asked    map[string]chan *jsonrpc.Message // the server's own requests, by id
	lastID   int64
	listen   string // the id of the open subscriptions/listen; "" when none
}

// Serve serves one connection until it closes, each request on a goroutine
// of its own, and returns once they have all ended.
func (s *fakeServer) Serve(ctx context.Context, conn *memtransport.Conn) error {
	ss := &fakeSession{conn: conn, running: map[string]context.CancelFunc{}, asked: map[string]chan *jsonrpc.Message{}}
	s.mu.Lock()
	if s.sessions == nil {
		s.sessions = map[*fakeSession]bool{}
	}
	s.sessions[ss] = true
	s.mu.Unlock()
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() {
		cancel()
		wg.Wait()
		s.mu.Lock()
		delete(s.sessions, ss)
		s.mu.Unlock()
	}()
	for {
		data, err := conn.Receive(ctx)
		if err != nil {
			return nil // the connection ended
		}
		m, err := jsonrpc.Decode(data)
		switch {
		case err != nil:
			_ = conn.Send(ctx, fakeDecodeError(data))
		case m.IsResponse():
			ss.mu.Lock()
			if ch := ss.asked[m.ID.String()]; ch != nil {
				ch <- m
			}
			ss.mu.Unlock()
		case m.Method == "notifications/cancelled":
			var p struct {
				RequestID jsonrpc.ID `json:"requestId"`
			}
			_ = json.Unmarshal(m.Params, &p)
			ss.mu.Lock()
			if stop := ss.running[p.RequestID.String()]; stop != nil && !s.ignoreCancel {
				stop()
			}
			ss.mu.Unlock()
		case m.IsNotification():
		default:
			rctx, stop := context.WithCancel(ctx)
			ss.mu.Lock()
			ss.running[m.ID.String()] = stop
			ss.mu.Unlock()
			wg.Go(func() {
				defer func() {
					ss.mu.Lock()
					delete(ss.running, m.ID.String())
					ss.mu.Unlock()
					stop()
				}()
				r := &fakeRequest{srv: s, sess: ss, msg: m, send: conn.Send}
				r.serve(rctx, true)
			})
		}
	}
}

// handler serves the fake over the streamable HTTP transport, with no
// sessions: each POST is served on its own, its answer (after what the
// handler sends while it runs) written as an SSE stream. A handler's panic
// is not recovered: it reaches the HTTP server, as mcp-go's does.
func (s *fakeServer) handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			http.Error(w, "no GET stream, no sessions", http.StatusMethodNotAllowed)
			return
		}
		if host, _, _ := strings.Cut(r.Host, ":"); host != "localhost" && host != "127.0.0.1" {
			http.Error(w, "Forbidden: the Host is not this machine (DNS rebinding?)", http.StatusForbidden)
			return
		}
		if v := r.Header.Get("MCP-Protocol-Version"); v != "" && !slices.Contains(client.SupportedVersions(), v) {
			http.Error(w, "Bad Request: unsupported MCP-Protocol-Version "+v, http.StatusBadRequest)
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return
		}
		m, err := jsonrpc.Decode(body)
		if err != nil {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write(fakeDecodeError(body))
			return
		}
		if !m.IsRequest() {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		var meta struct {
			Meta struct {
				Version string `json:"io.modelcontextprotocol/protocolVersion"`
			} `json:"_meta"`
		}
		if _ = json.Unmarshal(m.Params, &meta); meta.Meta.Version != "" && r.Header.Get("MCP-Protocol-Version") != meta.Meta.Version {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write(jsonrpc.AppendError(nil, m.ID, &jsonrpc.Error{Code: -32020, Message: "MCP-Protocol-Version does not match _meta"}))
			return
		}
		if r.Header.Get("MCP-Protocol-Version") == client.Version20260728 {
			var p struct {
				Name string `json:"name"`
			}
			_ = json.Unmarshal(m.Params, &p)
			if r.Header.Get("Mcp-Method") != m.Method || m.Method == "tools/call" && r.Header.Get("Mcp-Name") != p.Name {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				_, _ = w.Write(jsonrpc.AppendError(nil, m.ID, &jsonrpc.Error{Code: -32020, Message: "header mismatch"}))
				return
			}
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("X-Accel-Buffering", "no")
		var mu sync.Mutex
		send := func(_ context.Context, msg []byte) error {
			mu.Lock()
			defer mu.Unlock()
			if _, err := fmt.Fprintf(w, "event: message\ndata: %s\n\n", msg); err != nil {
				return err
			}
			return http.NewResponseController(w).Flush()
		}
		(&fakeRequest{srv: s, msg: m, send: send}).serve(r.Context(), false)
	})
}

// notify sends a change notification to every open in-memory session: as it
// is on a legacy one, on its subscriptions/listen stream on a 2026-07-28
// one (none without a stream).
func (s *fakeServer) notify(method string, params map[string]any) error {
	s.mu.Lock()
	sessions := slices.Collect(maps.Keys(s.sessions))
	s.mu.Unlock()
	var errs []error
	for _, ss := range sessions {
		ss.mu.Lock()
		modern, listen := ss.modern, ss.listen
		ss.mu.Unlock()
		p := maps.Clone(params)
		if p == nil {
			p = map[string]any{}
		}
		if modern {
			if listen == "" {
				continue
			}
			p["_meta"] = map[string]any{"io.modelcontextprotocol/subscriptionId": json.RawMessage(listen)}
		}
		b, _ := json.Marshal(p)
		errs = append(errs, ss.conn.Send(context.Background(), jsonrpc.AppendRequest(nil, jsonrpc.ID{}, method, b)))
	}
	return errors.Join(errs...)
}

// fakeDecodeError answers a frame that is not a JSON-RPC message.
func fakeDecodeError(data []byte) []byte {
	e := &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "Invalid request"}
	if !json.Valid(data) {
		e = &jsonrpc.Error{Code: jsonrpc.CodeParseError, Message: "Parse error"}
	}
	return jsonrpc.AppendError(nil, jsonrpc.ID{}, e)
}

// fakeRequest is one request being served.
type fakeRequest struct {
	srv  *fakeServer
	sess *fakeSession // nil over HTTP
	msg  *jsonrpc.Message
	meta struct {
		Version  string                 `json:"io.modelcontextprotocol/protocolVersion"`
		Client   *client.Implementation `json:"io.modelcontextprotocol/clientInfo"`
		LogLevel string                 `json:"io.modelcontextprotocol/logLevel"`
		Caps     json.RawMessage        `json:"io.modelcontextprotocol/clientCapabilities"`
		Progress json.RawMessage        `json:"progressToken"`
	}
	send func(ctx context.Context, msg []byte) error
}

func (r *fakeRequest) modern() bool { return r.meta.Version != "" && !client.IsLegacy(r.meta.Version) }

func (r *fakeRequest) notify(ctx context.Context, method string, params any) error {
	b, err := json.Marshal(params)
	if err != nil {
		return err
	}
	return r.send(ctx, jsonrpc.AppendRequest(nil, jsonrpc.ID{}, method, b))
}

// serve handles the request and sends its answer, unless it was cancelled.
// With recovering set, a panic is recovered as the SDK adapters recover it.
func (r *fakeRequest) serve(ctx context.Context, recovering bool) {
	if recovering {
		defer func() {
			if v := recover(); v != nil {
				rep := crash.Report{Method: r.msg.Method, Name: crash.Subject(r.msg.Params), Value: v, Stack: debug.Stack()}
				crash.Deliver(ctx, rep)
				_ = r.send(ctx, jsonrpc.AppendError(nil, r.msg.ID, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: rep.String()}))
			}
		}()
	}
	res, err := r.handle(ctx)
	if ctx.Err() != nil {
		return
	}
	var rpcErr *jsonrpc.Error
	if err != nil && !errors.As(err, &rpcErr) {
		rpcErr = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
	}
	if rpcErr != nil {
		_ = r.send(ctx, jsonrpc.AppendError(nil, r.msg.ID, rpcErr))
		return
	}
	if _, ok := res["_meta"]; !ok && r.modern() && r.msg.Method != "subscriptions/listen" {
		// A 2026-07-28 server identifies itself in every result (SHOULD).
		res["_meta"] = map[string]any{"io.modelcontextprotocol/serverInfo": r.srv.info()}
	}
	if _, ok := res["resultType"]; !ok && r.modern() {
		res["resultType"] = "complete"
		switch r.msg.Method {
		case "tools/list", "prompts/list", "resources/list", "resources/templates/list", "resources/read":
			res["ttlMs"], res["cacheScope"] = 0, "private"
		}
	}
	b, err := json.Marshal(res)
	if err != nil {
		b = jsonrpc.AppendError(nil, r.msg.ID, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()})
	} else {
		b = jsonrpc.AppendResult(nil, r.msg.ID, b)
	}
	_ = r.send(ctx, b)
}

func (r *fakeRequest) handle(ctx context.Context) (map[string]any, error) {
	var p struct {
		Meta            json.RawMessage            `json:"_meta"`
		ProtocolVersion string                     `json:"protocolVersion"`
		ClientInfo      client.Implementation      `json:"clientInfo"`
		Level           string                     `json:"level"`
		Name            string                     `json:"name"`
		Arguments       json.RawMessage            `json:"arguments"`
		InputResponses  map[string]json.RawMessage `json:"inputResponses"`
		RequestState    string                     `json:"requestState"`
		URI             string                     `json:"uri"`
		Notifications   json.RawMessage            `json:"notifications"`
	}
	if len(r.msg.Params) > 0 && json.Unmarshal(r.msg.Params, &p) != nil ||
		len(p.Meta) > 0 && json.Unmarshal(p.Meta, &r.meta) != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Invalid params"}
	}
	if r.modern() && r.meta.Caps == nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Invalid params: _meta lacks io.modelcontextprotocol/clientCapabilities"}
	}
	if level := cmp.Or(r.meta.LogLevel, p.Level); level != "" && !slices.Contains(fakeLevels, level) ||
		r.msg.Method == "logging/setLevel" && !slices.Contains(fakeLevels, p.Level) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Invalid params: invalid log level"}
	}
	s, ss := r.srv, r.sess
	versions := s.versions
	if versions == nil {
		versions = client.SupportedVersions()
	}
	hasResources := s.resources != nil
	switch r.msg.Method {
	case "initialize":
		v := p.ProtocolVersion
		if !s.echoVersion && (!slices.Contains(versions, v) || !client.IsLegacy(v)) {
			i := slices.IndexFunc(versions, client.IsLegacy) // the newest legacy one
			if i < 0 {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "this server speaks only 2026-07-28"}
			}
			v = versions[i]
		}
		if ss != nil {
			ss.mu.Lock()
			ss.client = p.ClientInfo
			ss.mu.Unlock()
		}
		return map[string]any{"protocolVersion": v, "capabilities": s.capabilities(), "serverInfo": s.info()}, nil
	case "server/discover":
		if s.discoverFails {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "Internal error"}
		}
		if !slices.Contains(versions, r.meta.Version) {
			data, _ := json.Marshal(map[string]any{"supported": versions, "requested": r.meta.Version})
			return nil, &jsonrpc.Error{Code: client.CodeUnsupportedProtocolVersion, Message: "Unsupported protocol version", Data: data}
		}
		if ss != nil {
			ss.mu.Lock()
			ss.modern = true
			ss.mu.Unlock()
		}
		listed := versions
		if s.listed != nil {
			listed = s.listed
		}
		return map[string]any{"supportedVersions": listed, "capabilities": s.capabilities(), "ttlMs": 0, "cacheScope": "public",
			"_meta": map[string]any{"io.modelcontextprotocol/serverInfo": s.info()}}, nil
	case "ping":
		return map[string]any{}, nil
	case "logging/setLevel":
		if ss != nil {
			ss.mu.Lock()
			ss.logLevel = p.Level
			ss.mu.Unlock()
		}
		return map[string]any{}, nil
	case "tools/list":
		tools := []any{}
		for _, t := range s.tools {
			tl := map[string]any{"name": t.name, "description": t.describe(), "inputSchema": json.RawMessage(t.inputSchema())}
			if t.output != "" {
				tl["outputSchema"] = json.RawMessage(t.output)
			}
			tools = append(tools, tl)
		}
		return map[string]any{"tools": tools}, nil
	case "tools/call":
		return r.callTool(ctx, p.Name, p.Arguments, p.InputResponses, p.RequestState)
	case "resources/list":
		if hasResources {
			list := []any{}
			for _, uri := range slices.Sorted(maps.Keys(s.resources)) {
				list = append(list, map[string]any{"uri": uri, "name": uri})
			}
			return map[string]any{"resources": list}, nil
		}
	case "resources/templates/list":
		if hasResources {
			return map[string]any{"resourceTemplates": []any{}}, nil
		}
	case "resources/read":
		if text, ok := s.resources[p.URI]; ok {
			return map[string]any{"contents": []any{map[string]any{"uri": p.URI, "mimeType": "text/plain", "text": text}}}, nil
		}
		if hasResources {
			data, _ := json.Marshal(map[string]string{"uri": p.URI})
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Resource not found", Data: data}
		}
	case "resources/subscribe", "resources/unsubscribe":
		if hasResources {
			return map[string]any{}, nil
		}
	case "subscriptions/listen":
		return r.listen(ctx, p.Notifications)
	}
	return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "Method not found"}
}

func (s *fakeServer) info() map[string]string {
	name, version := s.name, s.version
	if name == "" {
		name = "fake"
	}
	if version == "" {
		version = "v0"
	}
	return map[string]string{"name": name, "version": version}
}

func (s *fakeServer) capabilities() map[string]any {
	caps := map[string]any{"logging": map[string]any{}, "tools": map[string]any{"listChanged": true}}
	if s.resources != nil {
		caps["resources"] = map[string]any{"subscribe": true}
	}
	return caps
}

func (t *fakeTool) describe() string {
	if t.description == "" {
		return "The " + t.name + " tool."
	}
	return t.description
}

func (t *fakeTool) inputSchema() string {
	if t.input == "" {
		return `{"type":"object"}`
	}
	return t.input
}

// callTool runs a tool: its handler once, or once per round of input the
// handler asks for on a legacy connection.
func (r *fakeRequest) callTool(ctx context.Context, name string, args json.RawMessage, answers map[string]json.RawMessage, state string) (map[string]any, error) {
	i := slices.IndexFunc(r.srv.tools, func(t *fakeTool) bool { return t.name == name })
	if i < 0 {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Unknown tool: " + name}
	}
	t := r.srv.tools[i]
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	if err := t.validate(args); err != nil {
		return (&fakeResult{isError: true, text: "invalid arguments: " + err.Error()}).encode(), nil
	}
	call := &fakeCall{answers: answers, state: state, req: r}
	_ = json.Unmarshal(args, &call.args)
	if r.modern() && r.meta.Client != nil {
		call.client = *r.meta.Client
	} else if r.sess != nil {
		r.sess.mu.Lock()
		call.client = r.sess.client
		r.sess.mu.Unlock()
	}
	for {
		res, err := r.run(ctx, t, call)
		var rpcErr *jsonrpc.Error
		switch {
		case errors.As(err, &rpcErr):
			return nil, rpcErr
		case err != nil:
			return (&fakeResult{isError: true, text: err.Error()}).encode(), nil
		case res == nil || len(res.ask) == 0:
			return res.encode(), nil
		case r.modern() && res.state != "":
			return map[string]any{"resultType": "input_required", "inputRequests": res.ask, "requestState": res.state}, nil
		case r.modern():
			return map[string]any{"resultType": "input_required", "inputRequests": res.ask}, nil
		case r.sess == nil:
			return (&fakeResult{isError: true, text: "this server asks for input only in a session"}).encode(), nil
		}
		if call.answers, err = r.sess.ask(ctx, res.ask); err != nil {
			return (&fakeResult{isError: true, text: err.Error()}).encode(), nil
		}
	}
}

// run runs the tool's handler, behind the crash guard if the server has one.
func (r *fakeRequest) run(ctx context.Context, t *fakeTool, call *fakeCall) (res *fakeResult, err error) {
	if r.srv.guard {
		defer func() {
			if v := recover(); v != nil {
				if l := r.srv.logger; l != nil {
					l.Error(guard.MsgToolPanic, guard.MethodKey, "tools/call", guard.ToolKey, t.name, guard.PanicKey, v, guard.StackKey, string(debug.Stack()))
				}
				res, err = &fakeResult{isError: true, text: "Error executing tool " + t.name}, nil
			}
		}()
	}
	return t.handle(ctx, call)
}

func (t *fakeTool) validate(args json.RawMessage) error {
	t.once.Do(func() { t.schema, t.err = toolschema.Compile([]byte(t.inputSchema()), t.name, 0) })
	if t.err != nil {
		return t.err
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return err
	}
	return t.schema.Validate(v)
}

func (res *fakeResult) encode() map[string]any {
	if res == nil {
		return map[string]any{"content": []any{}}
	}
	out := map[string]any{"content": []any{map[string]any{"type": "text", "text": res.text}}}
	if res.isError {
		out["isError"] = true
	}
	if res.structured != nil {
		out["structuredContent"] = res.structured
	}
	return out
}

// ask sends the input requests to the client as requests of the server's
// own, one at a time, and returns the client's results by key.
func (ss *fakeSession) ask(ctx context.Context, reqs map[string]fakeAsk) (map[string]json.RawMessage, error) {
	answers := map[string]json.RawMessage{}
	for _, key := range slices.Sorted(maps.Keys(reqs)) {
		q := reqs[key]
		params, err := json.Marshal(q.Params)
		if err != nil {
			return nil, err
		}
		ch := make(chan *jsonrpc.Message, 1)
		ss.mu.Lock()
		ss.lastID++
		id := jsonrpc.Int64ID(ss.lastID)
		ss.asked[id.String()] = ch
		ss.mu.Unlock()
		var m *jsonrpc.Message
		if err = ss.conn.Send(ctx, jsonrpc.AppendRequest(nil, id, q.Method, params)); err == nil {
			select {
			case m = <-ch:
			case <-ctx.Done():
				err = ctx.Err()
			}
		}
		ss.mu.Lock()
		delete(ss.asked, id.String())
		ss.mu.Unlock()
		switch {
		case err != nil:
			return nil, err
		case m.Error != nil:
			return nil, fmt.Errorf("%s: %s", q.Method, m.Error.Message)
		}
		answers[key] = m.Result
	}
	return answers, nil
}

// listen serves a 2026-07-28 subscriptions/listen: it acknowledges the
// filter as asked and keeps the stream open (for notify) until the client
// cancels it or the connection ends.
func (r *fakeRequest) listen(ctx context.Context, filter json.RawMessage) (map[string]any, error) {
	id := r.msg.ID.String()
	if len(filter) == 0 {
		filter = json.RawMessage("{}")
	}
	if r.sess != nil { // over HTTP the stream is the request's own
		r.sess.mu.Lock()
		r.sess.listen = id
		r.sess.mu.Unlock()
		defer func() {
			r.sess.mu.Lock()
			if r.sess.listen == id {
				r.sess.listen = ""
			}
			r.sess.mu.Unlock()
		}()
	}
	ack := map[string]any{"notifications": filter, "_meta": map[string]any{"io.modelcontextprotocol/subscriptionId": json.RawMessage(id)}}
	if err := r.notify(ctx, "notifications/subscriptions/acknowledged", ack); err != nil {
		return nil, err
	}
	<-ctx.Done()
	return nil, ctx.Err()
}

// probeServer is the fake most tests call: the echo tool, and tools.
func probeServer(tools ...*fakeTool) *fakeServer {
	return &fakeServer{name: "probe", tools: append([]*fakeTool{echoTool()}, tools...)}
}

func echoTool() *fakeTool {
	return &fakeTool{name: "echo", description: "Echo the text.",
		input:  `{"type":"object","properties":{"text":{"type":"string","description":"the text to echo"}},"required":["text"],"additionalProperties":false}`,
		handle: func(_ context.Context, c *fakeCall) (*fakeResult, error) { return fakeText(c.str("text")), nil },
	}
}
