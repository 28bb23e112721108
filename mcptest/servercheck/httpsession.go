package servercheck

import (
	"net/http"

	"github.com/mcptestkit/mcptestkit/client/transport"
)

// minSessionID is the fewest characters a session id can have and still
// carry 96 random bits (base64): a shorter one is not what the
// specification calls cryptographically secure.
const minSessionID = 16

// sessionID judges the session id the server gave out at initialize:
// compared with the id of a second session, unique and long enough to be a
// secure random value (SHOULD). One that is not visible ASCII (MUST) never
// gets here: the client's transport refuses it at initialize.
func (c *state) sessionID(cn *conn, sid string) {
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
	const junk = `{"jsonrpc":"2.0","id":"` + rawPrefix + `bad-input","method":"ping","params":` // cut short: not JSON
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
	// An older client resumes a stream with GET and Last-Event-ID: the
	// header changes nothing.
	for _, tc := range []struct {
		method, what string
		set          map[string]string
	}{
		{http.MethodGet, "GET", nil},
		{http.MethodGet, "GET with Last-Event-ID: mcptestkit-check-event (the resumption of an older client)", map[string]string{"Last-Event-ID": "mcptestkit-check-event"}},
		{http.MethodDelete, "DELETE", nil},
	} {
		if got := c.send(tr, mc, tc.method, "", tc.set); got.status != http.StatusMethodNotAllowed {
			c.breakf("sent %s to the MCP endpoint; got %s\nexpected: HTTP 405 Method Not Allowed %sanswer GET and DELETE "+
				"with 405, and ignore a Last-Event-ID header: streams are not resumable)", tc.what, got, rev)
		}
	}
	discover := `{"jsonrpc":"2.0","id":"` + rawPrefix + `legacy","method":"server/discover","params":` + annotationJSON(modernMeta()) + `}`
	got := c.send(tr, mc, http.MethodPost, discover, map[string]string{"Mcp-Method": "server/discover", "Mcp-Session-Id": "mcptestkit-check-session"})
	const rule = "ignore an Mcp-Session-Id header, and neither mint nor echo session ids)"
	switch {
	case got.status/100 != 2:
		c.breakf("sent server/discover with Mcp-Session-Id: mcptestkit-check-session; got %s\nexpected: served, the header ignored %s%s", got, rev, rule)
	case got.session != "":
		c.breakf("sent server/discover with Mcp-Session-Id: mcptestkit-check-session; the answer (%s) carries Mcp-Session-Id: %s\n"+
			"expected: no session id %s%s", got, got.session, rev, rule)
	}
}
