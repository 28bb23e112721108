package servercheck

import (
	"net/http"
	"strings"

	"github.com/mcptestkit/mcptestkit/client/transport"
)

// minSessionID is the fewest characters a session id can have and still
// carry 96 random bits (base64): a shorter one is not what the
// specification calls cryptographically secure.
const minSessionID = 16

// sessionID judges the session id the server gave out at initialize: made
// of visible ASCII (MUST), and, compared with the id of a second session,
// unique and long enough to be a secure random value (SHOULD).
func (c *state) sessionID(cn *conn, sid string) {
	if i := strings.IndexFunc(sid, func(r rune) bool { return r < 0x21 || r > 0x7e }); i >= 0 {
		c.breakf("the server gave out the Mcp-Session-Id %q at initialize, which holds %q\n"+
			"expected: visible ASCII characters only, 0x21 to 0x7E (basic/transports, \"Session Management\": MUST)", sid, []rune(sid[i:])[0])
	}
	if len(sid) < minSessionID {
		c.warnf("the server gave out the Mcp-Session-Id %q at initialize: %d characters, too few to carry 96 random bits\n"+
			"expected: a globally unique, cryptographically secure id, such as a securely generated UUID, a JWT or a "+
			"cryptographic hash (basic/transports, \"Session Management\": SHOULD)", sid, len(sid))
	}
	other, err := c.s.open(cn.cl.ProtocolVersion())
	if err != nil {
		c.notef("a second session, to compare its id with, could not be opened: %v", err)
		return
	}
	defer other.close()
	tr, _ := other.tap.inner.(*transport.StreamableHTTP)
	if tr != nil && tr.SessionID() == sid {
		c.warnf("two sessions, each opened with initialize, got the same Mcp-Session-Id %q\n"+
			"expected: a globally unique id for each session (basic/transports, \"Session Management\": SHOULD)", sid)
	}
}

// httpBadInput POSTs a body that is not JSON: whatever the server makes
// of it, it cannot accept it, and must say so with an HTTP error status.
func (c *state) httpBadInput() {
	cn := c.main()
	tr, ok := cn.tap.inner.(*transport.StreamableHTTP)
	if !ok {
		c.skipf("the server is not reached over streamable HTTP: these checks are of that transport")
	}
	const junk = `{"jsonrpc":"2.0","method":"notifications/cancelled","params":` // cut short: not JSON
	got := c.send(tr, cn, http.MethodPost, junk, nil)
	if got.status >= 400 && got.status < 600 {
		return
	}
	c.breakf("POSTed %s (JSON cut short) in the connection's session or era (%s); got %s\n"+
		"expected: an HTTP error status, such as 400 Bad Request, with a JSON-RPC error without an id in the body if "+
		"any (basic/transports, \"Sending Messages to the Server\": if the server cannot accept the input, it MUST "+
		"return an HTTP error status code)", junk, cn.cl.ProtocolVersion(), got)
}

// httpLegacyTraffic sends a server that speaks only 2026-07-28 what a
// client of an earlier streamable HTTP revision sends: GET, DELETE, an
// Mcp-Session-Id and a Last-Event-ID.
func (c *state) httpLegacyTraffic() {
	mc := c.main()
	tr, ok := mc.tap.inner.(*transport.StreamableHTTP)
	if !ok {
		c.skipf("the server is not reached over streamable HTTP: these checks are of that transport")
	}
	if !mc.modern() {
		c.skipf("the server does not speak 2026-07-28 on this connection (it speaks %s): these rules are of a server that speaks only 2026-07-28", mc.cl.ProtocolVersion())
	}
	if v := newestLegacy(mc.cl.ServerVersions()); v != "" {
		c.skipf("the server speaks %s too (its server/discover lists it), so it answers an earlier revision's traffic by that "+
			"revision's rules: these are of a server that speaks only 2026-07-28", v)
	}
	const rev = "(basic/transports at 2026-07-28, \"Earlier Streamable HTTP Revisions\": a server that supports only this revision SHOULD "
	for _, m := range []string{http.MethodGet, http.MethodDelete} {
		if got := c.send(tr, mc, m, "", nil); got.status != http.StatusMethodNotAllowed {
			c.breakf("sent %s to the MCP endpoint; got %s\nexpected: HTTP 405 Method Not Allowed %sanswer GET and DELETE with 405)", m, got, rev)
		}
	}
	discover := `{"jsonrpc":"2.0","id":"` + rawPrefix + `legacy","method":"server/discover","params":{"_meta":` + annotationJSON(modernMeta()) + `}}`
	for _, h := range []struct{ name, value, rule string }{
		{"Mcp-Session-Id", "mcptestkit-check-session", "ignore an Mcp-Session-Id header, and neither mint nor echo session ids)"},
		{"Last-Event-ID", "mcptestkit-check-event", "ignore a Last-Event-ID header: streams are not resumable)"},
	} {
		got := c.send(tr, mc, http.MethodPost, discover, map[string]string{"Mcp-Method": "server/discover", h.name: h.value})
		switch {
		case got.status/100 != 2:
			c.breakf("sent server/discover with %s: %s; got %s\nexpected: served, the header ignored %s%s", h.name, h.value, got, rev, h.rule)
		case got.session != "":
			c.breakf("sent server/discover with %s: %s; the answer (%s) carries Mcp-Session-Id: %s\nexpected: no session id %s%s",
				h.name, h.value, got, got.session, rev, h.rule)
		}
	}
}
