package servercheck

import (
	"encoding/json"
	"slices"

	"github.com/mcptestkit/mcptestkit/client"
)

// stateless sends a 2026-07-28 request as the first message of a new
// connection, with nothing before it, and a listing's second page on a
// connection other than the first page's: a 2026-07-28 server relies on no
// earlier request of a connection.
func (c *state) stateless() {
	if !c.main().modern() {
		c.skipf("the checks' connection speaks %s: statelessness is 2026-07-28's", c.main().cl.ProtocolVersion())
	}
	method := c.s.listMethod()
	first, sent := c.firstRequest(method, modernMeta())
	if first.Error != nil {
		c.breakf("sent %s as the first message of a new connection; got %s\n"+
			"expected: the answer a connection that began with server/discover gets: a 2026-07-28 server MUST NOT rely on "+
			"prior requests over the same connection (basic, \"Statelessness\")", sent, first)
		return
	}
	var page struct {
		Tools      []struct{ Name string } `json:"tools"`
		NextCursor *string                 `json:"nextCursor"`
	}
	_ = json.Unmarshal(first.Result, &page)
	if method == "tools/list" {
		for _, t := range page.Tools {
			if !slices.ContainsFunc(c.s.inv.tools, func(l *client.Tool) bool { return l.Name == t.Name }) {
				c.breakf("sent %s as the first message of a new connection; it lists the tool %q, which the checks' connection, "+
					"which began with server/discover, was not given\nexpected: the same tools whatever came before on the connection", sent, t.Name)
				return
			}
		}
	}
	if page.NextCursor == nil || method == "server/discover" {
		c.notef("%s answered as the first message of a new connection; it gave no nextCursor, so a page was not asked for on another connection", method)
		return
	}
	params := modernMeta()
	params["cursor"] = *page.NextCursor
	second, sent := c.firstRequest(method, params)
	if second.Error != nil {
		c.warnf("sent %s on a new connection, with the nextCursor another connection was given; got %s\n"+
			"expected: the next page: a server SHOULD NOT require that a client reuse the same connection for related operations "+
			"(basic, \"Statelessness\")", sent, second)
	}
}

// firstRequest sends one request as the first message of a new connection
// of its own, and returns the answer and what was sent.
func (c *state) firstRequest(method string, params map[string]any) (*rpcAnswer, string) {
	r, err := c.s.openRaw()
	if err != nil {
		c.fatalf("could not open a connection: %v", err)
	}
	defer r.close()
	c.use(r.conn)
	ctx, cancel := c.ctx()
	defer cancel()
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": rawPrefix + "raw-1", "method": method, "params": params})
	sent := cut(unstamped(msg), 400)
	ans, err := r.call(ctx, method, params)
	if err != nil {
		c.fatalf("sent %s as the first message of a new connection; got no answer: %v", sent, err)
	}
	// Then server/discover, whose answer names the server to what observes
	// the connection (mcptest's surface report), as on every other one.
	_, _ = r.call(ctx, "server/discover", modernMeta())
	return ans, sent
}
