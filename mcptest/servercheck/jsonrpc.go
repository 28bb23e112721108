package servercheck

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/client/transport"
	"github.com/mcptestkit/mcptestkit/mcptest/internal/sdk"
)

func (c *state) ping() {
	cn := c.main()
	if cn.modern() {
		// 2026-07-28 has no ping: ask at the newest legacy version the
		// server offers.
		version, offered := newestLegacy(cn.cl.ServerVersions()), true
		if version == "" {
			// A server that lists only 2026-07-28 may answer initialize
			// all the same (dual-era): ask at the newest legacy version.
			version, offered = client.LatestLegacyVersion, false
		}
		legacy, err := c.s.open(version)
		switch {
		case err != nil && offered:
			c.skipf("protocol version 2026-07-28 has no ping, and the handshake at %s, which the server offers, failed: %v", version, err)
		case err != nil || !client.IsLegacy(legacy.cl.ProtocolVersion()):
			if err == nil {
				legacy.close()
			}
			c.skipf("protocol version 2026-07-28 has no ping, and the server offers no legacy version this client speaks (it offers %s; "+
				"initialize at %s got %s)", strings.Join(cn.cl.ServerVersions(), ", "), version, describe(nil, err))
		case !offered:
			c.notef("the server's server/discover answer lists no legacy version, but it answered initialize at %s: ping checked there", legacy.cl.ProtocolVersion())
		}
		cn = legacy
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
