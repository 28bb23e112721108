package servercheck

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mcptestkit/mcptestkit/client"
)

// toolHeaderAnnotations checks every x-mcp-header annotation in the listed
// tools' inputSchemas against the rules of SEP-2243 (basic/transports and
// server/tools at 2026-07-28): a client over streamable HTTP must drop a
// tool whose annotation breaks one, so the tool is lost to it. The tools
// are listed raw: the client drops those tools from what it lists.
func (c *state) toolHeaderAnnotations() {
	tools := c.rawTools()
	found := 0
	for _, t := range tools {
		var root any
		if json.Unmarshal(t.InputSchema, &root) != nil {
			continue // tools/schemas reports it
		}
		var anns []headerAnnotation
		walkHeaderAnnotations(root, nil, true, &anns)
		found += len(anns)
		seen := map[string]headerAnnotation{} // by lower-cased name
		for _, a := range anns {
			for _, why := range a.problems() {
				c.breakf("tool %q: the x-mcp-header annotation at %s %s\nexpected: %s (basic/transports at 2026-07-28, "+
					"\"Schema Extension\"; a client over streamable HTTP MUST drop a tool whose annotation breaks it)",
					t.Name, a.where(), why.got, why.want)
			}
			name, ok := a.value.(string)
			if !ok || name == "" {
				continue
			}
			if other, dup := seen[strings.ToLower(name)]; dup {
				c.breakf("tool %q: the x-mcp-header annotations at %s (%q) and %s (%q) name one header, ignoring case\nexpected: each "+
					"x-mcp-header value case-insensitively unique in the inputSchema (header names are case-insensitive, so "+
					"both would be one header)", t.Name, other.where(), other.value, a.where(), name)
				continue
			}
			seen[strings.ToLower(name)] = a
		}
	}
	if found == 0 {
		c.notef("no tool's inputSchema carries an x-mcp-header annotation")
	}
}

// rawTools lists the server's tools with tools/list as it sends them, up to
// maxRawPages pages.
func (c *state) rawTools() []*client.Tool {
	cn := c.main()
	var out []*client.Tool
	cursor := ""
	for range maxRawPages {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		ctx, cancel := c.ctx()
		raw, err := cn.cl.Call(ctx, "tools/list", params)
		cancel()
		if err != nil {
			c.fatalf("sent tools/list; got %v", err)
		}
		var page struct {
			Tools      []*client.Tool `json:"tools"`
			NextCursor string         `json:"nextCursor"`
		}
		if err := json.Unmarshal(raw, &page); err != nil {
			c.fatalf("sent tools/list; its result does not decode: %v", err) // tools/list reports it
		}
		out = append(out, page.Tools...)
		if cursor = page.NextCursor; cursor == "" {
			break
		}
	}
	return out
}

const maxRawPages = 50

// headerAnnotation is one x-mcp-header annotation found in a schema.
type headerAnnotation struct {
	path      []string // the keywords and names from the root to the annotated schema
	reachable bool     // by a chain of properties keys alone
	value     any      // the annotation's value
	schema    map[string]any
}

func (a headerAnnotation) where() string {
	if len(a.path) == 0 {
		return "the schema root"
	}
	return "/" + strings.Join(a.path, "/")
}

type annotationProblem struct{ got, want string }

// problems lists the rules the annotation breaks, but uniqueness, which
// needs every annotation of the schema.
func (a headerAnnotation) problems() []annotationProblem {
	var out []annotationProblem
	switch {
	case len(a.path) == 0:
		out = append(out, annotationProblem{"is on the schema root", "an annotation on a property, reached from the root through properties keys alone"})
	case !a.reachable:
		out = append(out, annotationProblem{"is reached through " + strings.Join(a.path, "/"),
			"an annotation on a property statically reachable from the root: a chain of properties keys alone, never items, " +
				"oneOf, anyOf, allOf, not, if/then/else or $ref"})
	}
	name, ok := a.value.(string)
	switch {
	case !ok:
		out = append(out, annotationProblem{fmt.Sprintf("is %s, not a string", annotationJSON(a.value)), "a non-empty string, the name part of the header Mcp-Param-{name}"})
	case name == "":
		out = append(out, annotationProblem{"is empty", "a non-empty string (MUST NOT be empty)"})
	case strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		out = append(out, annotationProblem{fmt.Sprintf("is %q, which holds a control character", name), "no control characters, CR and LF among them (MUST NOT)"})
	case !isHeaderToken(name):
		out = append(out, annotationProblem{fmt.Sprintf("is %q, not an HTTP field-name token", name), "1*tchar (RFC 9110 5.1): letters, digits and !#$%&'*+-.^_`|~"})
	}
	if t, ok := primitiveType(a.schema["type"]); !ok {
		out = append(out, annotationProblem{"annotates a property of type " + t, `a property of type "integer", "string" or "boolean" (never "number")`})
	}
	return out
}

// primitiveType reports whether a schema's type is one primitive an
// x-mcp-header may bind (null beside it allowed: a null value sends no
// header), and says what it is.
func primitiveType(t any) (string, bool) {
	var types []string
	switch v := t.(type) {
	case string:
		types = []string{v}
	case []any:
		for _, e := range v {
			s, _ := e.(string)
			if s != "null" {
				types = append(types, s)
			}
		}
	default:
		return "left unsaid (any)", false
	}
	ok := len(types) == 1 && slices.Contains([]string{"integer", "string", "boolean"}, types[0])
	return annotationJSON(t), ok
}

// walkHeaderAnnotations finds the x-mcp-header annotations of a schema and
// of its subschemas. reachable says whether the chain from the root to node
// is of properties keys alone.
func walkHeaderAnnotations(node any, path []string, reachable bool, out *[]headerAnnotation) {
	switch n := node.(type) {
	case map[string]any:
		if v, ok := n["x-mcp-header"]; ok {
			*out = append(*out, headerAnnotation{path: slices.Clone(path), reachable: reachable, value: v, schema: n})
		}
		for _, k := range slices.Sorted(maps.Keys(n)) {
			switch k {
			case "x-mcp-header", "const", "default", "enum", "examples":
				// Values, not schemas: a key in them is data.
			case "properties":
				props, ok := n[k].(map[string]any)
				if !ok {
					continue
				}
				for _, name := range slices.Sorted(maps.Keys(props)) {
					walkHeaderAnnotations(props[name], append(path, k, name), reachable, out)
				}
			default:
				walkHeaderAnnotations(n[k], append(path, k), false, out)
			}
		}
	case []any:
		for i, e := range n {
			walkHeaderAnnotations(e, append(path, fmt.Sprint(i)), false, out)
		}
	}
}

// isHeaderToken reports whether s is an RFC 9110 token (1*tchar).
func isHeaderToken(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case strings.ContainsRune("!#$%&'*+-.^_`|~", r):
		default:
			return false
		}
	}
	return true
}

func annotationJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
