package servercheck

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/client/transport"
)

// Requests a correct server must refuse, and what a refusal must leave as
// it was: probes of paths a client's ordinary use never takes.

// invalidParamsProbe is a request of a declared capability's method with a
// required parameter left out.
type invalidParamsProbe struct {
	capability, method, missing string
}

var invalidParamsProbes = []invalidParamsProbe{
	{"tools", "tools/call", "name"},
	{"prompts", "prompts/get", "name"},
	{"resources", "resources/read", "uri"},
}

// invalidParams sends each declared capability's request without its
// required parameter, and checks that each is refused and leaves what the
// server lists as it was.
func (c *state) invalidParams() {
	cn := c.main()
	before := c.listed(cn)
	sent := 0
	for _, p := range invalidParamsProbes {
		if !c.s.declares(p.capability) {
			continue
		}
		sent++
		ctx, cancel := c.ctx()
		raw, err := cn.cl.Call(ctx, p.method, map[string]any{})
		cancel()
		what := fmt.Sprintf("sent %s without %q, a parameter it requires", p.method, p.missing)
		e, ok := errorCode(err)
		switch {
		case err == nil:
			c.breakf("%s; it succeeded: %s\n"+
				"expected: JSON-RPC error -32602 (Invalid params): a request that fails is answered with an error "+
				"object (JSON-RPC 2.0: the response MUST contain the error member when the call encounters an error)", what, cut(string(raw), 400))
		case brokeConnection(cn, err):
			c.fatalf("%s; the connection broke: %v", what, err)
		case ok && e.Code == client.CodeInvalidParams:
		case ok && e.Code == transport.CodeHTTPError:
			c.warnf("%s; got %s\nexpected: JSON-RPC error -32602 (Invalid params) in a JSON-RPC response (JSON-RPC 2.0; "+
				"an error response SHOULD carry the code that says what was wrong)", what, describe(nil, err))
		case ok:
			c.warnf("%s; got %s\nexpected: JSON-RPC error -32602 (Invalid params), the code for a method's "+
				"parameters that are wrong (JSON-RPC 2.0; an error response SHOULD carry the code that says what was wrong)", what, describe(nil, err))
		default:
			c.fatalf("%s; got %v\nexpected: JSON-RPC error -32602 (Invalid params)", what, err)
		}
	}
	if sent == 0 {
		c.skipf("the server declares none of tools, prompts and resources")
	}
	if after := c.listed(cn); before != nil && after != nil && !equalLists(before, after) {
		c.warnf("what the server lists changed across requests it refused (an unknown tool called, requests with a required "+
			"parameter left out): before %s, after %s\nexpected: a refused request changes nothing (a convention: "+
			"an error response means the request was not carried out)", compactJSON(before), compactJSON(after))
	}
}

// listed returns the names of the first page of each list the server
// declares, or nil when one could not be read.
func (c *state) listed(cn *conn) map[string][]string {
	out := map[string][]string{}
	ctx, cancel := c.ctx()
	defer cancel()
	if c.s.declares("tools") {
		r, err := cn.cl.ListTools(ctx, "")
		if err != nil {
			return nil
		}
		for _, t := range r.Tools {
			out["tools"] = append(out["tools"], t.Name)
		}
	}
	if c.s.declares("prompts") {
		r, err := cn.cl.ListPrompts(ctx, "")
		if err != nil {
			return nil
		}
		for _, p := range r.Prompts {
			out["prompts"] = append(out["prompts"], p.Name)
		}
	}
	if c.s.declares("resources") {
		r, err := cn.cl.ListResources(ctx, "")
		if err != nil {
			return nil
		}
		for _, r := range r.Resources {
			out["resources"] = append(out["resources"], r.URI)
		}
	}
	return out
}

func equalLists(a, b map[string][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !slices.Equal(v, b[k]) {
			return false
		}
	}
	return true
}

// invalidCursor asks each declared list for a page with a cursor the server
// never gave out.
func (c *state) invalidCursor() {
	cn := c.main()
	const cursor = rawPrefix + "no-such-cursor"
	sent := 0
	for _, l := range []struct{ capability, method string }{
		{"tools", "tools/list"}, {"prompts", "prompts/list"}, {"resources", "resources/list"}, {"resources", "resources/templates/list"},
	} {
		if !c.s.declares(l.capability) {
			continue
		}
		sent++
		ctx, cancel := c.ctx()
		raw, err := cn.cl.Call(ctx, l.method, map[string]any{"cursor": cursor})
		cancel()
		what := fmt.Sprintf("sent %s with cursor %q, which the server never gave out", l.method, cursor)
		e, ok := errorCode(err)
		switch {
		case ok && e.Code == client.CodeInvalidParams:
		case brokeConnection(cn, err):
			c.fatalf("%s; the connection broke: %v", what, err)
		case err == nil && !c.paginates(l.method):
			// A list that never pages has no cursors: the one sent is
			// ignored, which harms nothing.
			c.notef("%s: answered with the whole list (the server gives out no cursors for it)", what)
		case err == nil:
			var page map[string]json.RawMessage
			_ = json.Unmarshal(raw, &page)
			c.breakf("%s; it was answered with a page (members %s)\n"+
				"expected: JSON-RPC error -32602 (Invalid params): invalid cursors SHOULD result in an error with code -32602 "+
				"(server/utilities/pagination, \"Error Handling\")", what, cut(strings.Join(slices.Sorted(maps.Keys(page)), ", "), 200))
		default:
			c.breakf("%s; got %s\nexpected: JSON-RPC error -32602 (Invalid params): invalid cursors SHOULD result in an "+
				"error with code -32602 (server/utilities/pagination, \"Error Handling\")", what, describe(nil, err))
		}
	}
	if sent == 0 {
		c.skipf("the server declares none of tools, prompts and resources: no list to page")
	}
}

// httpNoSession sends a request without the session id the server gave out.
func (c *state) httpNoSession() {
	cn, tr := c.httpConn()
	if tr.SessionID() == "" {
		c.skipf("the server gave out no Mcp-Session-Id at initialize (stateless): it requires none")
	}
	got := c.send(tr, cn, http.MethodPost, httpPing, map[string]string{"Mcp-Session-Id": ""})
	switch {
	case got.status == http.StatusBadRequest:
	case got.status/100 == 2:
		// The SHOULD is for a server that requires a session id; one that
		// serves the request does not.
		c.notef("a request without the session id was served (%s): the server does not require one", got)
	default:
		c.breakf("sent ping without the Mcp-Session-Id the server gave out at initialize; it was refused with %s\n"+
			"expected: HTTP 400 Bad Request (servers that require a session ID SHOULD respond to requests without an "+
			"Mcp-Session-Id header, other than initialization, with 400: basic/transports, \"Session Management\"); 404 "+
			"would tell the client its session ended", got)
	}
}

// paginates reports whether the server's answer to method with no cursor
// gives out a cursor (nextCursor): whether the list pages at all.
func (c *state) paginates(method string) bool {
	ctx, cancel := c.ctx()
	defer cancel()
	raw, err := c.main().cl.Call(ctx, method, map[string]any{})
	if err != nil {
		return true // unknown: judged as a list that pages
	}
	var page struct {
		NextCursor string `json:"nextCursor"`
	}
	return json.Unmarshal(raw, &page) != nil || page.NextCursor != ""
}
