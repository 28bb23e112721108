package servercheck

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/client/transport"
)

// shutdown closes the main connection and judges how the server processes
// of a stdio server ended: each should exit once its stdin closes, not wait
// to be signalled after the grace period (time every close pays).
func (c *state) shutdown() {
	if c.s.main == nil || !isCommand(c.s.main.tap.inner) {
		c.skipf("only a stdio server's process shuts down when its connection closes")
	}
	c.s.main.close()
	c.s.main = nil
	if c.s.legacy != nil {
		c.s.legacy.close()
		c.s.legacy = nil
	}
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
