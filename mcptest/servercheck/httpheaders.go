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
	}
	list := body("tools/list", "")
	cases := []tcase{
		{"Mcp-Method: prompts/list on a tools/list request", list, map[string]string{"Mcp-Method": "prompts/list"}, false},
		{"no Mcp-Method header on a tools/list request", list, map[string]string{"Mcp-Method": ""}, false},
	}
	if c.s.caps.Tools != nil {
		// A tool no server has: a server that ignores the headers answers
		// "unknown tool", and nothing runs.
		const ghost = "mcptestkit-check-no-such-tool"
		call := body("tools/call", `"name":"`+ghost+`","arguments":{}`)
		cases = append(cases,
			tcase{"Mcp-Name: mcptestkit-check-other on a tools/call of " + ghost, call, map[string]string{"Mcp-Method": "tools/call", "Mcp-Name": "mcptestkit-check-other"}, false},
			tcase{"no Mcp-Name header on a tools/call of " + ghost, call, map[string]string{"Mcp-Method": "tools/call", "Mcp-Name": ""}, false},
			tcase{"Mcp-Name with spaces around the name of the tools/call's tool (" + ghost + ")", call, map[string]string{"Mcp-Method": "tools/call", "Mcp-Name": "  " + ghost + "  "}, true},
		)
	}
	// A name that is not plain ASCII goes base64-encoded in its header: the
	// server decodes it before comparing (a name nothing has, so nothing
	// runs).
	const odd = "mcptestkit-check-ñ"
	encoded := "=?base64?" + base64.StdEncoding.EncodeToString([]byte(odd)) + "?="
	switch {
	case c.s.caps.Resources != nil:
		cases = append(cases, tcase{"Mcp-Name: " + encoded + " (base64 of its URI, which is not ASCII) on a resources/read of " + odd,
			body("resources/read", `"uri":`+strconv.Quote(odd)), map[string]string{"Mcp-Method": "resources/read", "Mcp-Name": encoded}, true})
	case c.s.caps.Prompts != nil:
		cases = append(cases, tcase{"Mcp-Name: " + encoded + " (base64 of its name, which is not ASCII) on a prompts/get of " + odd,
			body("prompts/get", `"name":`+strconv.Quote(odd)), map[string]string{"Mcp-Method": "prompts/get", "Mcp-Name": encoded}, true})
	}
	if c.s.caps.Tools != nil {
		if name, prop, header, value, ok := paramHeaderTool(quietList(c.s, (*client.Client).Tools)); ok {
			// The tool may run if the server ignores the headers, with one
			// argument it accepts; tools/calls runs it anyway.
			call := body("tools/call", `"name":`+strconv.Quote(name)+`,"arguments":{`+strconv.Quote(prop)+`:`+value+`}`)
			std := map[string]string{"Mcp-Method": "tools/call", "Mcp-Name": name}
			with := func(k, v string) map[string]string {
				h := maps.Clone(std)
				h[k] = v
				return h
			}
			cases = append(cases,
				tcase{"Mcp-Param-" + header + ": mcptestkit-other on a tools/call of " + name + " whose argument " + prop + " is " + value,
					call, with("Mcp-Param-"+header, "mcptestkit-other"), false},
				tcase{"no Mcp-Param-" + header + " header on a tools/call of " + name + " whose argument " + prop + " is " + value,
					call, std, false},
			)
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
			if strings.Contains(got.body, "does not match body value") && strings.Contains(tc.what, "base64") {
				hint = "\n(this is go-sdk's streamable HTTP handler, up to v1.8.0 at least: it compares Mcp-Name undecoded, the SDK's " +
					"behaviour rather than your server's. Leave the check out with mcptest.SkipChecks(\"http/headers\") or " +
					"mcptestkit check --skip http/headers)"
			}
			report := c.breakf
			if strings.Contains(tc.what, "base64") {
				// A name or URI that is not ASCII is rare: refusing its
				// encoded form is reported, not failed.
				report = c.warnf
			}
			report("sent %s; got %s\nexpected: served: a header value's leading and trailing whitespace is not part of it "+
				"(RFC 9110 5.5), and a value in the =?base64?...?= form is compared decoded (SEP-2243, basic/transports at "+
				"2026-07-28: a client sends a value that is not plain ASCII that way)%s", tc.what, got, hint)
		case !tc.accept && got.status != http.StatusBadRequest:
			c.breakf("sent %s; got %s\nexpected: HTTP 400 Bad Request with JSON-RPC error -32020 (HeaderMismatch): a server MUST "+
				"reject a request whose Mcp-Method, Mcp-Name or Mcp-Param-* header is missing or differs from its body (SEP-2243, basic/transports at 2026-07-28)", tc.what, got)
		case !tc.accept && !strings.Contains(got.body, "-32020"):
			c.warnf("sent %s; got %s\nexpected: the 400 carries JSON-RPC error -32020 (HeaderMismatch) (SEP-2243)", tc.what, got)
		}
	}
}

// paramHeaderTool finds the first tool whose inputSchema binds a top-level
// string or integer property to a header (x-mcp-header) and returns the
// tool, the property, the header's name and a JSON value for the
// property.
func paramHeaderTool(tools []*client.Tool) (name, prop, header, value string, ok bool) {
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
			if sp.Header == "" {
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
