package monitor

import (
	"fmt"
	"strings"

	"github.com/mcptestkit/mcptestkit/internal/jsonscan"
)

// The rules of this file read what a listing gives: the order of the
// tools, the URIs of the resources, the header annotations of the tools'
// input schemas.

// listOrder judges a complete tools listing at 2026-07-28 against the one
// before it: the same tools in the same order.
func (m *Monitor) listOrder(r *request, ids []string, frame []byte) {
	if r.method != "tools/list" || !r.modern {
		return
	}
	got := strings.Join(ids, "\x00")
	if m.more.order == nil {
		m.more.order = map[string]string{}
	}
	prev, ok := m.more.order[r.method]
	m.more.order[r.method] = got
	if !ok {
		return
	}
	a, b := strings.Split(prev, "\x00"), append([]string(nil), ids...)
	if sortedJoin(a) != sortedJoin(b) {
		return // another set: the order of another set is not compared
	}
	m.judged[ruleListOrder]++
	if prev != got {
		m.add(ruleListOrder, Should, fmt.Sprintf("tools/list gave the same tools in another order than before (first %s; then %s)",
			quoteAll(strings.Split(prev, "\x00")), quoteAll(ids)), frame, m.seq, r)
	}
}

// resourceURIs judges the URIs of a resources/list page against RFC 3986.
func (m *Monitor) resourceURIs(r *request, res, frame []byte) {
	jsonscan.Array(member(res, "resources"), func(v []byte) bool {
		u, ok := jsonscan.String(member(v, "uri"))
		if !ok {
			return true // the schema's business
		}
		m.judged[ruleURISyntax]++
		if p := uriProblem(u); p != "" {
			m.add(ruleURISyntax, Must, fmt.Sprintf("resources/list gave the URI %q, which is not an RFC 3986 URI: %s", u, p), frame, m.seq, r)
		}
		return true
	})
}

// uriProblem says how u breaks RFC 3986's grammar of a URI, or "": a
// scheme (a letter, then letters, digits, "+", "-" or "."), a colon, and
// only unreserved and reserved characters and percent-encodings after it,
// with at most one "#".
func uriProblem(u string) string {
	scheme, rest, ok := strings.Cut(u, ":")
	if !ok || scheme == "" {
		return "no scheme"
	}
	if !isLetter(scheme[0]) {
		return fmt.Sprintf("the scheme %q does not start with a letter", scheme)
	}
	for i := 1; i < len(scheme); i++ {
		if c := scheme[i]; !isAlnum(c) && c != '+' && c != '-' && c != '.' {
			return fmt.Sprintf("the scheme %q holds %q", scheme, c)
		}
	}
	hashes := 0
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		switch {
		case isAlnum(c) || strings.IndexByte("-._~:/?[]@!$&'()*+,;=", c) >= 0:
		case c == '#':
			if hashes++; hashes > 1 {
				return `a second "#"`
			}
		case c >= 0x80:
			return "a character outside ASCII, which a URI holds only percent-encoded"
		case c == '%':
			if i+2 >= len(rest) || !isHex(rest[i+1]) || !isHex(rest[i+2]) {
				return `a "%" not followed by two hexadecimal digits`
			}
			i += 2
		default:
			return fmt.Sprintf("the character %q, which a URI holds only percent-encoded", rune(c))
		}
	}
	return ""
}

func isHex(c byte) bool { return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

// headerAnnotations judges the x-mcp-header annotations of the tools of a
// 2026-07-28 tools/list page: each on a property reached from the
// inputSchema's root through "properties" alone.
func (m *Monitor) headerAnnotations(r *request, res, frame []byte) {
	if !r.modern {
		return
	}
	jsonscan.Array(member(res, "tools"), func(tool []byte) bool {
		schema := member(tool, "inputSchema")
		if !strings.Contains(string(schema), "x-mcp-header") {
			return true
		}
		m.judged[ruleHeaderAnnotation]++
		if where := unreachableHeader(schema, "", true, false, 0); where != "" {
			m.add(ruleHeaderAnnotation, Must, fmt.Sprintf("tool %q: x-mcp-header at %s, which is not reached from the inputSchema's root through \"properties\" alone",
				str(member(tool, "name")), where), frame, m.seq, r)
		}
		return true
	})
}

// unreachableHeader returns the JSON path of the first x-mcp-header in
// schema that is not statically reachable (the root's own, or one under a
// keyword other than properties), or "".
func unreachableHeader(schema []byte, path string, reachable, isProperty bool, depth int) (where string) {
	if depth > 64 {
		return ""
	}
	jsonscan.Object(schema, func(k []byte, _ bool, v []byte) bool {
		key := string(k)
		switch {
		case key == "x-mcp-header":
			if !reachable || !isProperty {
				where = path + "/x-mcp-header"
			}
		case key == "properties" && reachable:
			jsonscan.Object(v, func(name []byte, _ bool, sub []byte) bool {
				where = unreachableHeader(sub, path+"/properties/"+string(name), true, true, depth+1)
				return where == ""
			})
		case key == "const" || key == "enum" || key == "default" || key == "examples":
			// values, not schemas
		default:
			where = unreachableHeader(v, path+"/"+key, false, false, depth+1)
		}
		return where == ""
	})
	if where == "" {
		i := 0
		jsonscan.Array(schema, func(e []byte) bool {
			where = unreachableHeader(e, fmt.Sprintf("%s/%d", path, i), false, false, depth+1)
			i++
			return where == ""
		})
	}
	return where
}
