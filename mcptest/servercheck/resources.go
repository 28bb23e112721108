package servercheck

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/mcptestkit/mcptestkit/client"
)

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
