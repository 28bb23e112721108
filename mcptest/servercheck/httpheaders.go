package servercheck

import (
	"encoding/base64"
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/client/transport"
)

// httpHeaders checks the 2026-07-28 standard headers (SEP-2243): a request
// whose Mcp-Method or Mcp-Name header is missing or does not match its body
// is refused with 400 (and error -32020); whitespace around a value is not
// part of it.
func (c *state) httpHeaders() {
	mc := c.main()
	tr, ok := mc.tap.inner.(*transport.StreamableHTTP)
	if !ok {
		c.skipf("the server is not reached over streamable HTTP: these checks are of that transport")
	}
	if !mc.modern() {
		c.skipf("the server does not speak 2026-07-28 on this connection (it speaks %s): the header rules are that version's", mc.cl.ProtocolVersion())
	}
	meta, _ := json.Marshal(modernMeta())
	body := func(method, params string) string {
		p := strings.TrimSuffix(string(meta), "}")
		if params != "" {
			p += "," + params
		}
		return `{"jsonrpc":"2.0","id":"` + rawPrefix + `headers","method":"` + method + `","params":` + p + `}}`
	}
	type tcase struct {
		what    string
		body    string
		headers map[string]string
		accept  bool
		should  bool // accepting it is a SHOULD: refusing it is warned about
	}
	list := body("tools/list", "")
	cases := []tcase{
		{what: "Mcp-Method: prompts/list on a tools/list request", body: list, headers: map[string]string{"Mcp-Method": "prompts/list"}},
		{what: "no Mcp-Method header on a tools/list request", body: list, headers: map[string]string{"Mcp-Method": ""}},
		// Header names are case-insensitive: these go on the wire as
		// written.
		{what: "the headers of a tools/list request named in lower case (mcp-method, mcp-protocol-version)", body: list,
			headers: map[string]string{"mcp-method": "tools/list", "mcp-protocol-version": client.Version20260728}, accept: true},
	}
	other := client.Version20251125
	for _, v := range mc.cl.ServerVersions() {
		if v != client.Version20260728 {
			other = v // a version the server speaks: a mismatch, not an unsupported version
			break
		}
	}
	cases = append(cases, tcase{what: "MCP-Protocol-Version: " + other + " on a tools/list request whose _meta says " + client.Version20260728,
		body: list, headers: map[string]string{"Mcp-Method": "tools/list", "MCP-Protocol-Version": other}})
	if !slices.ContainsFunc(mc.cl.ServerVersions(), func(v string) bool { return v < client.Version20250618 }) {
		// A server that speaks no version before 2025-06-18 has no client
		// that may leave the header out.
		cases = append(cases, tcase{what: "no MCP-Protocol-Version header on a tools/list request, to a server whose server/discover " +
			"lists no version before 2025-06-18", body: list, headers: map[string]string{"Mcp-Method": "tools/list", "MCP-Protocol-Version": ""}})
	}
	if c.s.caps.Tools != nil {
		// A tool no server has: a server that ignores the headers answers
		// "unknown tool", and nothing runs.
		const ghost = "mcptestkit-check-no-such-tool"
		call := body("tools/call", `"name":"`+ghost+`","arguments":{}`)
		// A plain name that only looks like the base64 form with upper-case
		// markers: the markers are lower case, so it is not encoded.
		const upper = "=?BASE64?bWNwdGVzdGtpdA==?="
		cases = append(cases,
			tcase{what: "Mcp-Name: mcptestkit-check-other on a tools/call of " + ghost, body: call, headers: map[string]string{"Mcp-Method": "tools/call", "Mcp-Name": "mcptestkit-check-other"}},
			tcase{what: "no Mcp-Name header on a tools/call of " + ghost, body: call, headers: map[string]string{"Mcp-Method": "tools/call", "Mcp-Name": ""}},
			tcase{what: "Mcp-Name with spaces around the name of the tools/call's tool (" + ghost + ")", body: call, headers: map[string]string{"Mcp-Method": "tools/call", "Mcp-Name": "  " + ghost + "  "}, accept: true},
			tcase{what: "the headers of a tools/call of " + ghost + " named in upper case (MCP-METHOD, MCP-NAME)", body: call,
				headers: map[string]string{"MCP-METHOD": "tools/call", "MCP-NAME": ghost}, accept: true},
			tcase{what: "Mcp-Name: " + upper + " on a tools/call of a tool named " + upper + " (upper-case markers are not the base64 form: the value is plain)",
				body: body("tools/call", `"name":"`+upper+`","arguments":{}`), headers: map[string]string{"Mcp-Method": "tools/call", "Mcp-Name": upper}, accept: true},
		)
	}
	// A name that is not plain ASCII goes base64-encoded in its header: the
	// server decodes it before comparing (a name nothing has, so nothing
	// runs).
	const odd = "mcptestkit-check-ñ"
	encoded := "=?base64?" + base64.StdEncoding.EncodeToString([]byte(odd)) + "?="
	switch {
	case c.s.caps.Resources != nil:
		cases = append(cases, tcase{what: "Mcp-Name: " + encoded + " (base64 of its URI, which is not ASCII) on a resources/read of " + odd,
			body: body("resources/read", `"uri":`+strconv.Quote(odd)), headers: map[string]string{"Mcp-Method": "resources/read", "Mcp-Name": encoded}, accept: true})
	case c.s.caps.Prompts != nil:
		cases = append(cases, tcase{what: "Mcp-Name: " + encoded + " (base64 of its name, which is not ASCII) on a prompts/get of " + odd,
			body: body("prompts/get", `"name":`+strconv.Quote(odd)), headers: map[string]string{"Mcp-Method": "prompts/get", "Mcp-Name": encoded}, accept: true})
	}
	if c.s.caps.Tools != nil {
		tools := quietList(c.s, (*client.Client).Tools)
		for _, typ := range []string{"string", "integer"} {
			name, prop, header, value, ok := paramHeaderTool(tools, typ)
			if !ok {
				continue
			}
			// The tool may run if the server ignores the headers, with one
			// argument it accepts; tools/calls runs it anyway.
			args := func(v string) string {
				return body("tools/call", `"name":`+strconv.Quote(name)+`,"arguments":{`+strconv.Quote(prop)+`:`+v+`}`)
			}
			call := args(value)
			std := map[string]string{"Mcp-Method": "tools/call", "Mcp-Name": name}
			with := func(k, v string) map[string]string {
				h := maps.Clone(std)
				h[k] = v
				return h
			}
			of := " on a tools/call of " + name + " whose argument " + prop + " is "
			cases = append(cases,
				tcase{what: "Mcp-Param-" + header + ": mcptestkit-other" + of + value, body: call, headers: with("Mcp-Param-"+header, "mcptestkit-other")},
				tcase{what: "no Mcp-Param-" + header + " header" + of + value, body: call, headers: std},
				// Absent or null, the argument has no header, and the server
				// must not ask for one.
				tcase{what: "no Mcp-Param-" + header + " header" + of + "null", body: args("null"), headers: std, accept: true},
				tcase{what: "no Mcp-Param-" + header + " header on a tools/call of " + name + " without the argument " + prop,
					body: body("tools/call", `"name":`+strconv.Quote(name)+`,"arguments":{}`), headers: std, accept: true},
			)
			switch typ {
			case "string":
				// Not ASCII, sent raw: a client sends it in the base64 form.
				const raw = "mcptestkit-ñ"
				cases = append(cases, tcase{what: "Mcp-Param-" + header + ": " + raw + " (raw UTF-8, not the base64 form a value that is not ASCII takes)" + of + strconv.Quote(raw),
					body: args(strconv.Quote(raw)), headers: with("Mcp-Param-"+header, raw)})
			case "integer":
				cases = append(cases, tcase{what: "Mcp-Param-" + header + ": " + value + ".0" + of + value + " (the same number)",
					body: call, headers: with("Mcp-Param-"+header, value+".0"), accept: true, should: true})
			}
		}
	}
	for _, tc := range cases {
		h := map[string]string{}
		for k, v := range tc.headers {
			h[k] = v
		}
		got := c.send(tr, mc, http.MethodPost, tc.body, h)
		switch {
		case tc.accept && strings.Contains(got.body, "-32020"):
			hint := ""
			if strings.Contains(got.body, "does not match body value") && strings.Contains(tc.what, "(base64") {
				hint = "\n(this is go-sdk's streamable HTTP handler, up to v1.8.0 at least: it compares Mcp-Name undecoded, the SDK's " +
					"behaviour rather than your server's. Leave the check out with mcptest.SkipChecks(\"http/headers\") or " +
					"mcptestkit check --skip http/headers)"
			}
			report := c.breakf
			if tc.should || strings.Contains(tc.what, "(base64") {
				// A name or URI that is not ASCII is rare: refusing its
				// encoded form is reported, not failed.
				report = c.warnf
			}
			report("sent %s; got %s\nexpected: served: header names are compared ignoring case (MUST); a header value's leading "+
				"and trailing whitespace is not part of it (RFC 9110 5.5); a value in the =?base64?...?= form, its markers in lower "+
				"case exactly, is compared decoded, and any other value as it is; an integer is compared as a number (SHOULD); an "+
				"argument absent or null has no header, and the server MUST NOT expect one (SEP-2243, basic/transports at 2026-07-28)%s",
				tc.what, got, hint)
		case !tc.accept && got.status != http.StatusBadRequest:
			c.breakf("sent %s; got %s\nexpected: HTTP 400 Bad Request with JSON-RPC error -32020 (HeaderMismatch): a server MUST "+
				"reject a request whose MCP-Protocol-Version, Mcp-Method, Mcp-Name or Mcp-Param-* header is missing, differs from its "+
				"body, or holds characters a header value may not carry unencoded (SEP-2243, basic/transports at 2026-07-28)", tc.what, got)
		case !tc.accept && !strings.Contains(got.body, "-32020"):
			c.warnf("sent %s; got %s\nexpected: the 400 carries JSON-RPC error -32020 (HeaderMismatch) (SEP-2243)", tc.what, got)
		}
	}
}

// paramHeaderTool finds the first tool whose inputSchema binds a top-level
// property of type typ (string or integer) to a header (x-mcp-header) and
// returns the tool, the property, the header's name and a JSON value for
// the property.
func paramHeaderTool(tools []*client.Tool, typ string) (name, prop, header, value string, ok bool) {
	for _, t := range tools {
		var s struct {
			Properties map[string]struct {
				Type   any    `json:"type"`
				Header string `json:"x-mcp-header"`
			} `json:"properties"`
		}
		if json.Unmarshal(t.InputSchema, &s) != nil {
			continue
		}
		for _, p := range slices.Sorted(maps.Keys(s.Properties)) {
			sp := s.Properties[p]
			if sp.Header == "" || sp.Type != typ || !isHeaderToken(sp.Header) {
				continue
			}
			switch sp.Type {
			case "string":
				return t.Name, p, sp.Header, `"mcptestkit"`, true
			case "integer":
				return t.Name, p, sp.Header, "7", true
			}
		}
	}
	return "", "", "", "", false
}
