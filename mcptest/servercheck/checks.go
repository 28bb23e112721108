package servercheck

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/client/transport"
	"github.com/mcptestkit/mcptestkit/internal/toolschema"
	"github.com/mcptestkit/mcptestkit/mcptest/internal/sdk"
)

// inventory is what the server lists, gathered once for the checks that
// need it.
type inventory struct {
	toolsListed span // the messages of the listing, for the checks on it
	tools       []*client.Tool
	resources   []*client.Resource
	templates   []*client.ResourceTemplate
	prompts     []*client.Prompt
	// slow holds, per tool, the arguments of the call that reported the
	// most progress in tools/calls and still ended with an answer: the
	// call to cancel while it works.
	slow map[string]slowCall
}

type slowCall struct {
	args     map[string]any
	progress int
}

// shutdown closes the main connection and judges how the server processes
// of a stdio server ended: each should exit once its stdin closes, not wait
// to be signalled after the grace period (time every close pays).
func (c *state) shutdown() {
	if c.s.main == nil || !isCommand(c.s.main.tap.inner) {
		c.skipf("only a stdio server's process shuts down when its connection closes")
	}
	c.s.main.close()
	c.s.main = nil
	closed, dirty, busy, first := c.s.shutdowns.counts()
	if busy > 0 {
		c.notef("%d connection(s) left out: a request on them had timed out or been cancelled, so the server may have been busy with it when they closed", busy)
	}
	if dirty > 0 {
		c.breakf("the server process did not exit cleanly by itself after its stdin closed, on %d of the %d "+
			"connections the checks made (the first: %s); a process still running after the transport's "+
			"grace period (transport.WithGracePeriod) is stopped with a signal, and such a close waits the "+
			"grace period out (after the first, the checks gave the server %v)\n"+
			"expected: a stdio server exits with status 0 when its stdin closes (the client shuts a stdio "+
			"server down by closing its stdin: specification, basic/lifecycle, \"Shutdown\")", dirty, closed, first, ignoredEOFGrace)
		return
	}
	if closed == 0 {
		c.skipf("no connection closed while the server had nothing to finish")
	}
	c.notef("the server process exited by itself on all %d connections once its stdin closed", closed)
}

func isCommand(t client.Transport) bool {
	_, ok := t.(*commandTransport)
	return ok
}

// transportName names t's kind for a message.
func transportName(t client.Transport) string {
	if _, ok := t.(*transport.StreamableHTTP); ok {
		return "streamable HTTP"
	}
	return "stdio"
}

// emptyList reports whether raw is a list result with no items under key.
func emptyList(raw json.RawMessage, key string) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return false
	}
	var items []json.RawMessage
	return json.Unmarshal(m[key], &items) == nil && len(items) == 0
}

// maxItems bounds the per-item checks of one kind (a server listing
// thousands of resources gets the first ones read).
const maxItems = 50

// needs skips the check unless the server declares the capability.
func (c *state) needs(declared bool, capability string) {
	if !declared {
		c.skipf("the server does not declare the %s capability", capability)
	}
}

// quietList lists items for the per-item checks when the list check itself
// was not selected.
func quietList[T any](s *suite, seq func(*client.Client, context.Context, ...client.CallOption) iter.Seq2[T, error]) []T {
	cn, err := s.mainConn()
	if err != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(s.ctx, 4*s.timeout)
	defer cancel()
	var out []T
	for v, err := range seq(cn.cl, ctx) {
		if err != nil || len(out) > 10000 {
			break
		}
		out = append(out, v)
	}
	return out
}

func (c *state) handshake(version string) {
	if mc := c.s.main; version == client.Version20260728 && mc != nil && mc.cl != nil && !mc.modern() {
		// The first connection asked already, era-neutrally, and fell back
		// to initialize: asking again on a new connection (a new process,
		// over stdio) would learn nothing more.
		if offered, ok := mc.offeredVersions(); ok && !slices.Contains(offered, version) {
			c.skipf("the server does not speak protocol version %s: its server/discover answer offers %s", version, strings.Join(offered, ", "))
		}
		if answer, tried := mc.tap.answerTo("server/discover"); tried {
			what := "no answer in time"
			if answer != nil {
				what = answer.String()
			}
			c.skipf("the server speaks only the legacy protocol: the first connection's server/discover at %s got %s, "+
				"and the client, which pinned no version, fell back to initialize and agreed on %s", version, what, mc.cl.ProtocolVersion())
		}
	}
	if mc := c.s.main; version == client.Version20260728 && mc != nil && mc.cl != nil && mc.modern() && mc.version == "" {
		// The first connection, which pinned no version, agreed on
		// 2026-07-28: its server/discover is this handshake, and a new
		// connection (a new process, over stdio) would repeat it.
		c.useSpan(span{c: mc, from: 0, to: mc.tap.mark()})
		c.notef("the first connection's handshake: server/discover at %s", version)
		return
	}
	cn, err := c.s.open(version)
	if cn != nil && err == nil {
		c.s.tasksAt[version] = cn.cl.SupportsTasks()
	}
	if cn != nil {
		// The whole connection, from its first message: the handshake is
		// what this check is about.
		c.useSpan(span{c: cn, from: 0, to: -1})
		defer cn.close()
	}
	if err != nil {
		if offered, ok := cn.offeredVersions(); ok && !slices.Contains(offered, version) {
			c.skipf("the server does not speak protocol version %s: its server/discover answer offers %s", version, strings.Join(offered, ", "))
		}
		if version == client.Version20260728 {
			if e, ok := errorCode(err); ok && (e.Code == client.CodeMethodNotFound || e.Code == client.CodeInvalidParams) || strings.Contains(err.Error(), "legacy") {
				c.skipf("the server speaks only the legacy protocol (server/discover answered: %v)", err)
			}
			// Other answers (over HTTP, a 400 with a legacy server's own
			// error, -32000 "Bad Request: Server not initialized") are for
			// the client's fallback rule to read: if a client that pins
			// nothing falls back to initialize, the server is legacy.
			if legacy := c.legacyFallback(); legacy != "" {
				c.skipf("the server speaks only the legacy protocol: it answered server/discover with %v, and a client that pins no version fell back to initialize and agreed on %s", err, legacy)
			}
		}
		c.fatalf("sent the handshake at protocol version %s; expected the server to accept it or answer with a version it supports, got: %v", version, err)
	}
	got := cn.cl.ProtocolVersion()
	if got != version {
		c.notef("asked for %s, the server chose %s", version, got)
	}
	if early := cn.tap.earlyMessages(); len(early) > 0 {
		c.breakf("the server sent %s before the client's notifications/initialized; the specification allows only "+
			"ping and log messages before it (lifecycle: operation starts once the client has sent notifications/initialized)", strings.Join(early, ", "))
	}
}

// legacyFallback connects with no version pinned and returns the legacy
// version the client's fallback agreed on, or "" when the connection fails
// or speaks 2026-07-28.
func (c *state) legacyFallback() string {
	cn, err := c.s.open("")
	if cn != nil {
		defer cn.close()
	}
	if err != nil || !client.IsLegacy(cn.cl.ProtocolVersion()) {
		return ""
	}
	return cn.cl.ProtocolVersion()
}

// newestLegacy returns the newest legacy version of offered that the client
// speaks, or "". A server that lists none (but was asked) gets
// LatestLegacyVersion.
func newestLegacy(offered []string) string {
	if len(offered) == 0 {
		return client.LatestLegacyVersion
	}
	for _, v := range client.SupportedVersions() { // newest first
		if client.IsLegacy(v) && slices.Contains(offered, v) {
			return v
		}
	}
	return ""
}

// capabilities checks that what the server declares is what it serves.
func (c *state) capabilities() {
	cn := c.main()
	caps := cn.cl.ServerCapabilities()
	if caps == nil {
		caps = &client.ServerCapabilities{}
	}
	for _, k := range []struct {
		name, method string
		declared     bool
	}{
		{"tools", "tools/list", caps.Tools != nil},
		{"resources", "resources/list", caps.Resources != nil},
		{"prompts", "prompts/list", caps.Prompts != nil},
	} {
		ctx, cancel := c.ctx()
		raw, err := cn.cl.Call(ctx, k.method, map[string]any{})
		cancel()
		switch {
		case k.declared && err != nil:
			c.breakf("the server declares the %s capability, but %s failed: %s\nexpected: a result listing the %s", k.name, k.method, describe(nil, err), k.name)
		case !k.declared && err == nil && emptyList(raw, k.name):
			c.notef("the server does not declare the %s capability but answers %s with an empty list (the specification expects -32601; harmless, since clients do not ask)", k.name, k.method)
		case !k.declared && err == nil:
			c.breakf("the server does not declare the %s capability, but %s lists some: %s\n"+
				"expected: the capability declared in the handshake (clients never ask for what is not declared, "+
				"so these %s are invisible to them), or -32601 Method not found", k.name, k.method, cut(string(raw), 400), k.name)
		case !k.declared:
			if e, ok := errorCode(err); !ok || e.Code != client.CodeMethodNotFound {
				c.warnf("the server does not declare the %s capability; %s got %s\n"+
					"expected: JSON-RPC error -32601 (Method not found), as for any method the server does not offer "+
					"(JSON-RPC 2.0: -32601 means the method is not available)", k.name, k.method, describe(nil, err))
			}
		}
		if !cn.alive() {
			c.fatalf("the connection broke on %s", k.method)
		}
	}
	c.declaredMethods(cn, caps)
}

// declaredMethods calls the methods the capabilities declared beyond the
// lists: a declared capability whose method is not found (-32601) is a
// capability the server does not have. Any other answer (an error about the
// arguments, say) shows the method exists.
func (c *state) declaredMethods(cn *conn, caps *client.ServerCapabilities) {
	uri := "mcptestkit-check://no/such/resource"
	if caps.Resources != nil {
		ctx, cancel := c.ctx()
		res, err := cn.cl.ListResources(ctx, "")
		cancel()
		if err == nil && len(res.Resources) > 0 {
			uri = res.Resources[0].URI
		}
	}
	legacy := !cn.modern() // the methods 2026-07-28 removed are asked at a legacy version only
	type call struct {
		capability, method string
		params             map[string]any
		declared           bool
	}
	calls := []call{
		{"resources", "resources/templates/list", map[string]any{}, caps.Resources != nil},
		{"resources.subscribe", "resources/subscribe", map[string]any{"uri": uri}, legacy && caps.Resources != nil && caps.Resources.Subscribe},
		{"resources.subscribe", "resources/unsubscribe", map[string]any{"uri": uri}, legacy && caps.Resources != nil && caps.Resources.Subscribe},
		{"logging", "logging/setLevel", map[string]any{"level": "info"}, legacy && caps.Logging != nil},
		{"completions", "completion/complete", map[string]any{
			"ref":      map[string]any{"type": "ref/prompt", "name": "mcptestkit-check-no-such-prompt"},
			"argument": map[string]any{"name": "x", "value": ""},
		}, caps.Completions != nil},
	}
	var missing []string
	for _, k := range calls {
		if !k.declared {
			continue
		}
		ctx, cancel := c.ctx()
		_, err := cn.cl.Call(ctx, k.method, k.params)
		cancel()
		if e, ok := errorCode(err); ok && e.Code == client.CodeMethodNotFound {
			missing = append(missing, fmt.Sprintf("the %s capability is declared, but %s answered %s", k.capability, k.method, describe(nil, err)))
		}
		if !cn.alive() {
			c.fatalf("the connection broke on %s", k.method)
		}
	}
	if len(missing) > 0 {
		c.breakf("%s\nexpected: every method of a declared capability implemented (basic/lifecycle, \"Capability Negotiation\": "+
			"a server declares what it supports; clients call what is declared and nothing else)", strings.Join(missing, "\n"))
	}
}

func (c *state) ping() {
	cn := c.main()
	if cn.modern() {
		// 2026-07-28 has no ping: ask at the newest legacy version the
		// server offers.
		version := newestLegacy(cn.cl.ServerVersions())
		if version == "" {
			c.skipf("protocol version 2026-07-28 has no ping, and the server offers no legacy version this client speaks (it offers %s)", strings.Join(cn.cl.ServerVersions(), ", "))
		}
		var err error
		if cn, err = c.s.open(version); err != nil {
			c.skipf("protocol version 2026-07-28 has no ping, and the handshake at %s, which the server offers, failed: %v", version, err)
		}
		c.use(cn)
		defer cn.close()
	}
	ctx, cancel := c.ctx()
	defer cancel()
	if err := cn.cl.Ping(ctx); err != nil {
		c.breakf("sent ping; got %s\nexpected: an empty result", describe(nil, err))
	}
}

func (c *state) unknownMethod() {
	cn := c.main()
	ctx, cancel := c.ctx()
	defer cancel()
	const method = "mcptestkit/no-such-method"
	_, err := cn.cl.Call(ctx, method, map[string]any{})
	e, ok := errorCode(err)
	switch {
	case err == nil:
		c.breakf("sent %s, a method no server has; it succeeded\nexpected: JSON-RPC error -32601 (Method not found)", method)
	case !ok:
		c.breakf("sent %s; got %v\nexpected: JSON-RPC error -32601 (Method not found)", method, err)
	case e.Code == transport.CodeHTTPError:
		hint := ""
		if strings.Contains(describe(nil, err), "JSON RPC not handled") {
			hint = "\n(this is go-sdk's streamable HTTP handler: in a session it answers a method it does not know with HTTP 400 " +
				"\"JSON RPC not handled\", the SDK's behaviour rather than your server's; its stateless mode answers -32601. " +
				"Leave the check out with mcptest.SkipChecks(\"unknown-method\") or mcptestkit check --skip unknown-method)"
		}
		c.breakf("sent %s, a method no server has, in an HTTP POST; got %s\n"+
			"expected: a JSON-RPC response with error -32601 (Method not found): the request is well-formed "+
			"JSON-RPC, and the specification answers a method the server does not offer with -32601 whatever the transport%s", method, describe(nil, err), hint)
	case e.Code != client.CodeMethodNotFound:
		hint := ""
		switch {
		case e.Code != 0:
		case sdk.Before(c.s.sdk, "go-sdk", "v1.7.0"):
			hint = fmt.Sprintf("\n(%s, which serves this server, answers an unknown method with code 0 (fixed in go-sdk v1.7.0): "+
				"for this server that is the SDK's behaviour; upgrade go-sdk, or leave the check out with mcptest.SkipChecks(\"unknown-method\"))", c.s.sdk)
		case c.s.sdk == "go-sdk": // its release is not known
			hint = "\n(go-sdk before v1.7.0 answers an unknown method with code 0: for such a release that is the SDK's behaviour; " +
				"upgrade go-sdk, or leave the check out with mcptest.SkipChecks(\"unknown-method\"))"
		}
		c.breakf("sent %s; got %s\nexpected: JSON-RPC error -32601 (Method not found)%s", method, describe(nil, err), hint)
	}
}

func (c *state) malformedFrame() {
	// Decided before a connection (a process, over stdio) is started.
	if main := c.main(); refusesInvalidJSON(main.tap.inner) {
		c.skipf("the %s transport will not send a frame that is not JSON: this check runs over in-memory connections (mcptest.CheckServer of a Server served in memory)", transportName(main.tap.inner))
	}
	cn, err := c.s.open(c.s.opts.Version)
	if cn != nil {
		c.use(cn)
		defer cn.close()
	}
	if err != nil {
		c.fatalf("could not open a connection: %v", err)
	}
	const bad = `{"jsonrpc": "2.0", "id": "mcptestkit-check-malformed", "method": "tools/list", "params": {`
	ctx, cancel := c.ctx()
	defer cancel()
	resp, err := cn.tap.raw(ctx, []byte(bad), "")
	var sendErr *sendError
	switch {
	case errors.As(err, &sendErr) && cn.alive():
		c.skipf("the transport refuses to send a frame that is not JSON (%v); this check runs over in-memory connections (mcptest.CheckServer of a Server served in memory)", sendErr.err)
	case err != nil && cn.alive() && timedOut(err):
		c.breakf("sent a frame that is not valid JSON: %s\ngot no answer within %v\nexpected: a JSON-RPC error response -32700 (Parse error) with id null, and the connection kept open", bad, c.s.timeout)
	case err != nil:
		who := "go-sdk ends a session on a frame it cannot decode, as its stdio transport does: for a go-sdk server"
		if strings.HasPrefix(c.s.sdk, "go-sdk ") {
			who = c.s.sdk + ", which serves this server, ends a session on a frame it cannot decode, as its stdio transport does: for this server"
		}
		c.fatalf("sent a frame that is not valid JSON: %s\n"+
			"the connection ended: %v\n"+
			"expected: a JSON-RPC error response -32700 (Parse error) with id null, and the connection kept open\n"+
			"(%s this is the SDK's behaviour; leave the check out with mcptest.SkipChecks(\"malformed-frame\"))", bad, err, who)
	default:
		var r struct {
			Error *struct {
				Code int64 `json:"code"`
			} `json:"error"`
		}
		if json.Unmarshal(resp, &r) != nil || r.Error == nil || r.Error.Code != client.CodeParseError {
			c.breakf("sent a frame that is not valid JSON: %s\ngot: %s\nexpected: a JSON-RPC error response -32700 (Parse error) with id null", bad, resp)
		}
	}
	if leaked := leak(string(resp)); leaked != "" {
		c.failf("the answer to a malformed frame shows crash text to the client: %q", leaked)
	}
	ctx2, cancel2 := c.ctx()
	defer cancel2()
	if _, err := cn.cl.Call(ctx2, "tools/list", map[string]any{}); err != nil {
		if _, ok := errorCode(err); !ok {
			c.breakf("after the malformed frame the server no longer serves: tools/list got %v\nexpected: the connection to stay usable", err)
		}
	}
}

// listAll reads every page of a list and checks the paging: no cursor
// repeats, no item twice.
func listAll[R, T any](c *state, method string, fetch func(context.Context, string, ...client.CallOption) (R, error), page func(R) ([]T, string, bool), key func(T) string) []T {
	var items []T
	seen := map[string]int{}
	cursors := map[string]bool{}
	cursor := ""
	for n := 1; ; n++ {
		ctx, cancel := c.ctx()
		r, err := fetch(ctx, cursor)
		cancel()
		if err != nil {
			what := "the first page"
			if cursor != "" {
				what = fmt.Sprintf("page %d (cursor %q, the nextCursor of the page before)", n, cursor)
			}
			c.fatalf("%s of %s failed: %s\nexpected: a page of results", what, method, describe(nil, err))
		}
		got, next, more := page(r)
		for _, it := range got {
			k := key(it)
			if p, dup := seen[k]; dup {
				c.breakf("%s lists %q twice (pages %d and %d)\nexpected: every item once", method, k, p, n)
				continue
			}
			seen[k] = n
			items = append(items, it)
		}
		if !more {
			return items
		}
		if cursors[next] {
			c.fatalf("%s page %d gives nextCursor %q, which an earlier page gave too: paging would never end\nexpected: each page's cursor leads on, and the last page has no nextCursor", method, n, next)
		}
		if n >= 1000 {
			c.fatalf("%s has more than 1000 pages; the check stopped reading", method)
		}
		cursors[next] = true
		cursor = next
	}
}

// validToolName reports whether name follows the naming rule: 1 to 128
// characters of A-Z, a-z, 0-9, _, - and . (a loop, not a regexp: {1,128}
// compiles to 1,700 allocations, paid at every test binary's start).
func validToolName(name string) bool {
	if len(name) < 1 || len(name) > 128 {
		return false
	}
	for i := 0; i < len(name); i++ {
		switch b := name[i]; {
		case 'a' <= b && b <= 'z', 'A' <= b && b <= 'Z', '0' <= b && b <= '9', b == '_', b == '-', b == '.':
		default:
			return false
		}
	}
	return true
}

func (c *state) toolNames(tools []*client.Tool) {
	if len(tools) == 0 {
		c.skipf("the server lists no tools")
	}
	for _, t := range tools {
		if !validToolName(t.Name) {
			c.breakf("tool name %q does not follow the naming rule: tool names SHOULD be 1 to 128 characters of A-Z, "+
				"a-z, 0-9, _, - and . (no spaces or other characters) (specification 2025-11-25, server/tools, "+
				"\"Tool names\"); some clients refuse or rename such tools", t.Name)
		}
	}
}

func (c *state) toolDescriptions(tools []*client.Tool) {
	if len(tools) == 0 {
		c.skipf("the server lists no tools")
	}
	var missing []string
	for _, t := range tools {
		if strings.TrimSpace(t.Description) == "" {
			missing = append(missing, t.Name)
		}
	}
	if len(missing) > 0 {
		c.breakf("tools without a description: %q\n"+
			"expected: every tool describes what it does; the description is how a model decides to call it "+
			"(optional in the schema: a convention, not a rule)", missing)
	}
}

func (c *state) toolSchemas(t *client.Tool) {
	var tooBig []string
	if err := c.s.objectSchema(t.InputSchema, t.Name+"/inputSchema"); errors.Is(err, toolschema.ErrTooBig) {
		tooBig = append(tooBig, fmt.Sprintf("inputSchema %v", err))
	} else if err != nil {
		c.breakf("tool %q: inputSchema %v\n"+
			"inputSchema: %s\n"+
			"expected: a valid JSON Schema (2020-12 unless it names another draft with $schema) with \"type\": \"object\" at the root", t.Name, err, cut(string(t.InputSchema), 800))
	}
	if len(strings.TrimSpace(string(t.OutputSchema))) > 0 {
		if err := c.s.objectSchema(t.OutputSchema, t.Name+"/outputSchema"); errors.Is(err, toolschema.ErrTooBig) {
			tooBig = append(tooBig, fmt.Sprintf("outputSchema %v", err))
		} else if err != nil {
			c.breakf("tool %q: outputSchema %v\n"+
				"outputSchema: %s\n"+
				"expected: a valid JSON Schema (2020-12 unless it names another draft with $schema) with \"type\": \"object\" at the root", t.Name, err, cut(string(t.OutputSchema), 800))
		}
	}
	if len(tooBig) > 0 {
		// Neither valid nor invalid as far as the checks know.
		c.skipf("tool %q: %s", t.Name, strings.Join(tooBig, "; "))
	}
}

// objectSchema says what is wrong with a tool schema, or nil; an error
// wrapping toolschema.ErrTooBig when it was not read.
func (s *suite) objectSchema(raw json.RawMessage, name string) error {
	sch, err := s.compile(raw, name)
	if errors.Is(err, toolschema.ErrTooBig) {
		return err
	}
	if err != nil {
		return fmt.Errorf("is not valid: %v", err)
	}
	m, ok := sch.doc.(map[string]any)
	if !ok {
		return fmt.Errorf("is not a JSON object")
	}
	if m["type"] != "object" {
		return fmt.Errorf(`has "type": %s at the root; MCP requires "object"`, compactJSON(m["type"]))
	}
	return nil
}

// unknownName is a name no server has.
const unknownName = "mcptestkit_no_such_name"

func (c *state) unknownTool() {
	cn := c.main()
	ctx, cancel := c.ctx()
	defer cancel()
	res, err := cn.cl.CallTool(ctx, unknownName, map[string]any{})
	e, ok := errorCode(err)
	switch {
	case err == nil && res.IsError:
		c.notef("answers an unknown tool with an isError result (as the MCP Python SDK does); the specification's example is -32602")
	case err == nil:
		c.breakf("called tool %q, which the server does not list; it succeeded: %s\nexpected: JSON-RPC error -32602 (Unknown tool), or an isError result", unknownName, describe(res, nil))
	case ok && e.Code == client.CodeInvalidParams:
	case ok:
		c.warnf("called tool %q, which the server does not list; got %s\n"+
			"expected: JSON-RPC error -32602 (Unknown tool: %s), or an isError result (specification, "+
			"server/tools, \"Error Handling\")", unknownName, describe(nil, err), unknownName)
	default:
		c.breakf("called tool %q, which the server does not list; got %v\nexpected: JSON-RPC error -32602", unknownName, err)
	}
}

func (c *state) unknownResource() {
	cn := c.main()
	ctx, cancel := c.ctx()
	defer cancel()
	const uri = "mcptestkit-check://no/such/resource"
	res, err := cn.cl.ReadResource(ctx, uri)
	if err == nil {
		c.breakf("read %s, a URI the server does not have; it succeeded: %s\nexpected: %s", uri, describe(res, nil), notFoundWanted(cn.cl.ProtocolVersion(), uri))
		return
	}
	failure, warning, note := judgeNotFound(cn.cl.ProtocolVersion(), uri, err)
	switch {
	case failure != "":
		c.breakf("read %s, a URI the server does not have; got %s: %s\nexpected: %s", uri, describe(nil, err), failure, notFoundWanted(cn.cl.ProtocolVersion(), uri))
	case warning != "":
		c.warnf("read %s, a URI the server does not have; got %s: %s\n"+
			"expected: %s (servers SHOULD use it: specification, server/resources, \"Error Handling\")", uri, describe(nil, err), warning, notFoundWanted(cn.cl.ProtocolVersion(), uri))
	case note != "":
		c.notef("%s", note)
	}
	c.noLeak("resources/read "+uri, nil, err)
}

// notFoundWanted says what the protocol version asks of a server that has
// no resource at uri.
func notFoundWanted(version, uri string) string {
	if client.IsLegacy(version) {
		return fmt.Sprintf("JSON-RPC error -32002 (resource not found) with data {\"uri\": %q}, the code of %s; -32602 with data.uri, the newer form, is accepted", uri, version)
	}
	return fmt.Sprintf("JSON-RPC error -32602 with data {\"uri\": %q} (resource not found, 2026-07-28)", uri)
}

// judgeNotFound judges the error a server answered a read of uri, which it
// does not have, with, at the negotiated protocol version. Whether the
// error is a "resource not found" at all is [client.IsResourceNotFound]'s
// rule, the one mcptest.Assert(t).ResourceNotFound applies too; this adds only
// what the version asks of the code and data. failure is empty when the
// answer breaks a MUST; warning, when it breaks a SHOULD (another code than
// resource not found); note tells what a server could still improve.
func judgeNotFound(version, uri string, err error) (failure, warning, note string) {
	var e *client.Error
	if !errors.As(err, &e) {
		return "not a JSON-RPC error response", "", ""
	}
	if !client.IsResourceNotFound(err) {
		return "", fmt.Sprintf("code %d is not resource not found (nor is -32602 whose message does not name the resource)", e.Code), ""
	}
	var got string
	hasURI := e.DataField("uri", &got)
	if hasURI && got != uri {
		return fmt.Sprintf("data.uri names another resource, %q", got), "", ""
	}
	legacy := client.IsLegacy(version)
	switch {
	case !legacy && e.Code == client.CodeLegacyResourceNotFound:
		// The 2026-07-28 specification retires -32002: a server speaking it
		// must not send that code (clients still accept it from older ones).
		return "-32002 is retired at 2026-07-28, which answers resource not found with -32602", "", ""
	case legacy && e.Code == client.CodeResourceNotFound:
		note = fmt.Sprintf("answers an unknown resource with -32602, the code of 2026-07-28; %s's is -32002 (clients accept both)", version)
	}
	if !hasURI && !strings.Contains(e.Message, uri) {
		// The client cannot tell which of its reads failed.
		return "", fmt.Sprintf("neither data.uri nor the message names the resource (the contract: -32602 with data {\"uri\": %q})", uri), ""
	}
	if !hasURI {
		if note != "" {
			note += "; "
		}
		note += "the error has no data.uri naming the resource, which the specification says it should carry"
	}
	return "", "", note
}

func (c *state) readResource(r *client.Resource) {
	cn := c.main()
	ctx, cancel := c.ctx()
	defer cancel()
	res, err := cn.cl.ReadResource(ctx, r.URI)
	c.noLeak("resources/read "+r.URI, res, err)
	switch {
	case brokeConnection(cn, err):
		c.fatalf("read %s, a listed resource; the connection broke: %v", r.URI, err)
	case needsClient(err) != "":
		c.skipf("resource %s: %s; give Options.Client the callbacks (Elicit, CreateMessage, ListRoots) and capabilities it needs to check it", r.URI, needsClient(err))
	case err != nil:
		c.breakf("read %s, which resources/list lists; got %s\nexpected: its contents (every listed resource reads)", r.URI, describe(nil, err))
	case len(res.Contents) == 0:
		c.breakf("read %s, which resources/list lists; the result has no contents\nexpected: at least one contents entry", r.URI)
	}
}

func (c *state) readTemplate(t *client.ResourceTemplate) {
	cn := c.main()
	e := newSeeded(c.s.opts.Seed, t.URITemplate)
	for i := range 4 {
		uri := expand(t.URITemplate, e, i == 0)
		if i == 0 {
			uri = templateVar.ReplaceAllStringFunc(t.URITemplate, func(v string) string {
				name := strings.TrimRight(strings.TrimLeft(strings.Split(v[1:len(v)-1], ",")[0], "+#./;?&"), "*")
				return expandOne(v, c.suggest(cn, client.ResourceReference(t.URITemplate), name, "mcptestkit"))
			})
		}
		ctx, cancel := c.ctx()
		res, err := cn.cl.ReadResource(ctx, uri)
		cancel()
		c.noLeak("resources/read "+uri, res, err)
		if brokeConnection(cn, err) {
			c.fatalf("read %s (template %s); the connection broke: %v", uri, t.URITemplate, err)
		}
		if timedOut(err) {
			c.fatalf("read %s (template %s); no answer within %v", uri, t.URITemplate, c.s.timeout)
		}
		if err == nil && len(res.Contents) == 0 {
			c.breakf("read %s, an expansion of template %s; the result has no contents\n"+
				"expected: the contents, or resource not found (-32602 with data.uri); the specification forbids "+
				"empty contents in place of not found", uri, t.URITemplate)
			return
		}
		if e, ok := errorCode(err); ok && e.Code != client.CodeInvalidParams && !client.IsResourceNotFound(err) {
			c.warnf("read %s, an expansion of template %s; got %s\n"+
				"expected: the contents, or resource not found (-32602 with data.uri; -32002 before 2026-07-28); "+
				"a value the server has no resource for is not an internal error (servers SHOULD use the "+
				"standard codes: specification, server/resources, \"Error Handling\")", uri, t.URITemplate, describe(nil, err))
			return
		}
	}
}

// suggest returns the first value the server's completions offer for an
// argument, when it declares completions, or def: a value the server
// knows renders where a generated one is likely rejected.
func (c *state) suggest(cn *conn, ref client.CompleteReference, arg, def string) string {
	if c.s.caps.Completions == nil {
		return def
	}
	ctx, cancel := c.ctx()
	defer cancel()
	res, err := cn.cl.Complete(ctx, &client.CompleteRequest{Ref: ref, Argument: arg})
	if err != nil || len(res.Values) == 0 {
		return def
	}
	return res.Values[0]
}

// expand fills every variable of an RFC 6570 template with a generated
// value (the first time, a plain word).
func expand(tmpl string, e entropy, plain bool) string {
	return templateVar.ReplaceAllStringFunc(tmpl, func(v string) string {
		val := "mcptestkit"
		if !plain {
			val = []string{"a", "0", "-1", "x y", "ünï", "%", "..", "long-" + strings.Repeat("x", 64)}[e.intn(8)]
		}
		return expandOne(v, val)
	})
}

// expandOne expands one template expression v ("{id}", "{/path}", ...) with
// val.
func expandOne(v, val string) string {
	op := v[1:2]
	switch op {
	case "+", "#":
		return val
	case "/":
		return "/" + escape(val)
	case "?":
		name := strings.TrimRight(strings.Split(v[2:len(v)-1], ",")[0], "*")
		return "?" + name + "=" + escape(val)
	case "&":
		name := strings.TrimRight(strings.Split(v[2:len(v)-1], ",")[0], "*")
		return "&" + name + "=" + escape(val)
	case ".":
		return "." + escape(val)
	}
	return escape(val)
}

var templateVar = regexp.MustCompile(`\{[^}]*\}`)

func escape(s string) string {
	var b strings.Builder
	for _, r := range []byte(s) {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.IndexByte("-._~", r) >= 0 {
			b.WriteByte(r)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", r)
	}
	return b.String()
}

func (c *state) getPrompt(p *client.Prompt) {
	cn := c.main()
	e := newSeeded(c.s.opts.Seed, p.Name)
	rejected := 0
	const tries = 4
	for i := range tries {
		args := map[string]string{}
		for _, a := range p.Arguments {
			if a.Required || e.intn(2) == 0 {
				args[a.Name] = newGen(e, nil).str(nil)
				if i == 0 {
					args[a.Name] = c.suggest(cn, client.PromptReference(p.Name), a.Name, "mcptestkit")
				}
			}
		}
		ctx, cancel := c.ctx()
		res, err := cn.cl.GetPrompt(ctx, p.Name, args)
		cancel()
		c.noLeak(fmt.Sprintf("prompts/get %q", p.Name), res, err)
		if brokeConnection(cn, err) {
			c.fatalf("prompts/get %q with arguments %s; the connection broke: %v", p.Name, compactJSON(args), err)
		}
		if err != nil {
			if e, ok := errorCode(err); ok && e.Code == client.CodeInvalidParams {
				rejected++
				continue
			}
			if w := needsClient(err); w != "" {
				c.skipf("prompt %q: %s; give Options.Client the callbacks (Elicit, CreateMessage, ListRoots) and capabilities it needs to check it", p.Name, w)
			}
			c.warnf("prompts/get %q with arguments %s; got %s\n"+
				"expected: the rendered prompt, or -32602 if the server rejects an argument's value (servers "+
				"SHOULD answer invalid arguments with -32602: specification, server/prompts, \"Error Handling\")", p.Name, compactJSON(args), describe(nil, err))
			return
		}
		if len(res.Messages) == 0 {
			c.notef("prompts/get %q rendered no messages", p.Name)
		}
	}
	if rejected == tries {
		c.notef("every generated value was rejected with -32602 (the prompt wants values the generator cannot guess)")
	}
}

func (c *state) promptMissingArgument(p *client.Prompt) {
	var req *client.PromptArgument
	for _, a := range p.Arguments {
		if a.Required {
			req = a
			break
		}
	}
	if req == nil {
		c.skipf("prompt %q has no required argument", p.Name)
	}
	cn := c.main()
	args := map[string]string{}
	for _, a := range p.Arguments {
		if a.Required && a != req {
			args[a.Name] = "mcptestkit"
		}
	}
	ctx, cancel := c.ctx()
	defer cancel()
	res, err := cn.cl.GetPrompt(ctx, p.Name, args)
	c.noLeak(fmt.Sprintf("prompts/get %q", p.Name), res, err)
	if e, ok := errorCode(err); !ok || e.Code != client.CodeInvalidParams {
		c.breakf("prompts/get %q without its required argument %q (arguments %s); got %s\n"+
			"expected: JSON-RPC error -32602 (Invalid params) (servers SHOULD answer missing required "+
			"arguments with -32602: specification, server/prompts, \"Error Handling\")", p.Name, req.Name, compactJSON(args), describe(res, err))
	}
}

func (c *state) unknownPrompt() {
	cn := c.main()
	ctx, cancel := c.ctx()
	defer cancel()
	res, err := cn.cl.GetPrompt(ctx, unknownName, nil)
	if e, ok := errorCode(err); !ok || e.Code != client.CodeInvalidParams {
		c.breakf("prompts/get %q, a prompt the server does not list; got %s\n"+
			"expected: JSON-RPC error -32602 (Invalid params) (servers SHOULD answer an invalid prompt name "+
			"with -32602: specification, server/prompts, \"Error Handling\")", unknownName, describe(res, err))
	}
}

// noLeak fails the check if an answer shows crash text to the client.
func (c *state) noLeak(what string, res any, err error) {
	var s string
	if e, ok := errorCode(err); ok {
		s = e.Message + " " + string(e.Data)
	} else if res != nil && err == nil {
		if tr, ok := res.(*client.CallToolResult); ok && !tr.IsError {
			return // a tool's own output may mention anything
		}
		b, _ := json.Marshal(res)
		s = string(b)
	}
	if l := leak(s); l != "" {
		c.failf("%s: the answer shows the client what looks like crash text: %q\n"+
			"expected: a panic's value, the words \"panic\" or \"goroutine\", stack traces and source file "+
			"paths stay in the server's log; the client gets a bare error (\"Error executing tool <name>\", or -32603)", what, l)
	}
}

// progress checks that the progress notifications the server sent during
// the tool calls carried the tokens the client gave.
func (c *state) progress() {
	cn := c.main()
	notes := cn.tap.progressNotes()
	if len(notes) == 0 {
		c.skipf("no tool reported progress during the calls (every call carried a progressToken)")
	}
	var bad []string
	for _, n := range notes {
		if !n.known {
			bad = append(bad, n.token)
		}
	}
	if bad = slices.Compact(bad); len(bad) > 0 {
		shown := bad[:min(len(bad), 10)]
		if len(bad) > len(shown) {
			shown = append(shown[:len(shown):len(shown)], fmt.Sprintf("and %d more", len(bad)-len(shown)))
		}
		c.breakf("the server sent notifications/progress with tokens no request carried: %s\n"+
			"expected: progressToken echoes the _meta.progressToken of the request it reports on", cut(strings.Join(shown, ", "), 800))
	}
	c.notef("%d progress notification(s), each with its request's token", len(notes))
}

// cancellation cancels a tool call in flight and checks that the server
// keeps serving; and for every call cancelled so far (this one, and calls
// that ran out of time) whose progress the server reported, that the
// progress stopped once the server had read the cancellation.
func (c *state) cancellation(tools []*client.Tool) {
	if len(tools) == 0 {
		c.skipf("the server lists no tools")
	}
	cn := c.main()
	// A tool that reported progress in tools/calls takes a while: cancel
	// it while it works, once its first progress shows it has started.
	t, reports := tools[0], false
	for _, name := range cn.tap.progressTools() {
		if i := slices.IndexFunc(tools, func(t *client.Tool) bool { return t.Name == name }); i >= 0 {
			t, reports = tools[i], true
			break
		}
	}
	args := c.conformingArgs(t)
	if sc, ok := c.s.inv.slow[t.Name]; ok {
		args = sc.args
	}
	if tr, ok := cn.tap.inner.(*transport.StreamableHTTP); ok && !cn.modern() && reports {
		c.cancelOverHTTP(cn, tr, t, args)
		return
	}
	ctx, cancel := context.WithCancel(c.s.ctx)
	started := make(chan struct{})
	var once sync.Once
	done := make(chan error, 1)
	go func() {
		_, err := cn.cl.CallTool(ctx, t.Name, args, client.WithProgress(func(client.Progress) { once.Do(func() { close(started) }) }))
		done <- err
	}()
	finished := false
	if reports {
		select {
		case <-started:
		case <-done: // it finished first: nothing to cancel
			finished = true
		case <-time.After(c.s.timeout):
		}
	}
	cancel()
	if !finished {
		<-done
	}
	// Two round trips: the server has read the cancellations before the
	// first, and sent what it had in flight before the second's answer.
	for range 2 {
		ctx2, cancel2 := c.ctx()
		_, err := cn.cl.ListTools(ctx2, "")
		cancel2()
		if err != nil {
			c.fatalf("called tool %q and cancelled the call (notifications/cancelled); tools/list afterwards got %s\n"+
				"expected: the server stops or finishes the cancelled request and keeps serving", t.Name, describe(nil, err))
		}
	}
	if _, ok := cn.tap.inner.(*transport.StreamableHTTP); ok && !cn.modern() {
		c.skipf("called tool %q, cancelled it, and the server kept serving; whether it stopped the cancelled call cannot be "+
			"seen over streamable HTTP, where the client stops reading a cancelled request's stream (run the checks over stdio "+
			"or in memory to see it)", t.Name)
	}
	// A server that goes on sends its next progress within the longest gap
	// seen between two of the tool's notifications: wait twice that for
	// progress after the cancellation, and as long as it keeps coming (at
	// most the timeout) for the result.
	if wait := min(2*cn.tap.progressGap(t.Name), c.s.timeout); wait > 0 {
		start := time.Now()
		deadline, seen := start.Add(wait), 0
		for time.Now().Before(deadline) {
			notes := cn.tap.cancellations()
			if slices.ContainsFunc(notes, func(n cancelNote) bool { return n.answered }) {
				break
			}
			if n := len(notes); n > 0 && notes[n-1].after > seen {
				seen = notes[n-1].after
				deadline = time.Now().Add(wait)
				if limit := start.Add(c.s.timeout); deadline.After(limit) {
					deadline = limit
				}
			}
			time.Sleep(min(wait/10, time.Until(deadline)))
			ctx2, cancel2 := c.ctx()
			_, _ = cn.cl.ListTools(ctx2, "") // answered: what comes after it is after the cancellation
			cancel2()
		}
	}
	notes := cn.tap.cancellations()
	for _, n := range notes {
		var what []string
		if n.after > 1 {
			what = append(what, fmt.Sprintf("%d more progress notification(s)", n.after))
		}
		if n.answered {
			what = append(what, "the call's result")
		}
		if len(what) == 0 {
			continue
		}
		cn.abandoned = true // still at work on it: its shutdown says nothing
		c.cancelIgnored(n.tool, n.id, n.token, what)
	}
}

func (c *state) cancelIgnored(tool, id, token string, what []string) {
	c.warnf("the client cancelled its tools/call %q (request id %s, progressToken %s) with notifications/cancelled; "+
		"after the server had answered a later request it sent %s for the cancelled call\n"+
		"expected: a cancelled request stops: the receiver of a cancellation SHOULD stop processing the request and "+
		"SHOULD NOT send a response for it (specification, basic/utilities/cancellation)", tool, id, token, strings.Join(what, " and "))
}
