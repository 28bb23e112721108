package transport

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// HTTP header names of the streamable HTTP transport. Go canonicalises
// header names, and the spec makes them case-insensitive.
const (
	headerSessionID       = "Mcp-Session-Id"
	headerProtocolVersion = "Mcp-Protocol-Version"
	headerMethod          = "Mcp-Method"
	headerName            = "Mcp-Name"
	headerParamPrefix     = "Mcp-Param-"
	headerLastEventID     = "Last-Event-Id"

	sentinelPrefix = "=?base64?"
	sentinelSuffix = "?="

	// maxSafeInteger bounds the integers an x-mcp-header value may carry
	// (2^53-1, what a double holds exactly).
	maxSafeInteger = 1<<53 - 1
)

// paramBinding says that the tools/call argument at path goes into the
// header Mcp-Param-<header>.
type paramBinding struct {
	path   []string
	header string
}

// schemaKeywordsWithSchemas are the JSON Schema keywords whose values hold
// subschemas. An x-mcp-header found under one of them is not "statically
// reachable" through nested properties, which the spec requires.
var schemaKeywordsWithSchemas = map[string]bool{
	"items": true, "prefixItems": true, "additionalItems": true, "contains": true,
	"additionalProperties": true, "propertyNames": true,
	"unevaluatedProperties": true, "unevaluatedItems": true,
	"anyOf": true, "oneOf": true, "allOf": true, "not": true,
	"if": true, "then": true, "else": true,
}

// schemaKeywordsWithSchemaMaps hold objects whose values are subschemas.
var schemaKeywordsWithSchemaMaps = map[string]bool{
	"$defs": true, "definitions": true, "patternProperties": true, "dependentSchemas": true,
}

// toolParamBindings reads the x-mcp-header annotations of one tool's
// inputSchema and validates them as the 2026-07-28 transport requires: each
// is a non-empty HTTP token (so no CR, LF or other control characters),
// unique within the tool ignoring case, on a property of type string,
// integer or boolean, reachable from the root through "properties" alone.
// An error means the tool must not be offered to the caller.
func toolParamBindings(inputSchema json.RawMessage) ([]paramBinding, error) {
	if len(bytes.TrimSpace(inputSchema)) == 0 || !bytes.Contains(inputSchema, []byte("x-mcp-header")) {
		return nil, nil // the common case costs one scan
	}
	var root any
	if err := json.Unmarshal(inputSchema, &root); err != nil {
		return nil, fmt.Errorf("inputSchema is not valid JSON: %v", err)
	}
	w := &bindingWalker{seen: map[string]string{}}
	w.walk(root, nil, true, false)
	if w.err != nil {
		return nil, w.err
	}
	sort.Slice(w.out, func(i, j int) bool { return w.out[i].header < w.out[j].header })
	return w.out, nil
}

type bindingWalker struct {
	out  []paramBinding
	seen map[string]string // lower-cased header -> property path
	err  error
}

// walk visits a schema node. path is the property path to it; reachable
// says whether it was reached through "properties" only; isProperty says
// whether it is a property schema (the root is not).
func (w *bindingWalker) walk(node any, path []string, reachable, isProperty bool) {
	if w.err != nil {
		return
	}
	switch n := node.(type) {
	case []any:
		for _, e := range n {
			w.walk(e, path, false, false)
		}
	case map[string]any:
		if raw, ok := n["x-mcp-header"]; ok {
			w.binding(n, raw, path, reachable && isProperty)
		}
		for _, k := range sortedKeys(n) { // sorted: deterministic errors
			v := n[k]
			switch {
			case k == "properties":
				props, ok := v.(map[string]any)
				if !ok {
					continue
				}
				for _, name := range sortedKeys(props) {
					w.walk(props[name], append(append([]string(nil), path...), name), reachable, true)
				}
			case schemaKeywordsWithSchemas[k]:
				w.walk(v, path, false, false)
			case schemaKeywordsWithSchemaMaps[k]:
				if m, ok := v.(map[string]any); ok {
					for _, name := range sortedKeys(m) {
						w.walk(m[name], path, false, false)
					}
				}
			}
		}
	}
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func (w *bindingWalker) binding(schema map[string]any, raw any, path []string, reachable bool) {
	where := "the root schema"
	if len(path) > 0 {
		where = fmt.Sprintf("property %q", strings.Join(path, "."))
	}
	name, ok := raw.(string)
	switch {
	case !reachable:
		w.err = fmt.Errorf("x-mcp-header on %s is not reachable through nested \"properties\" alone", where)
	case !ok || name == "":
		w.err = fmt.Errorf("x-mcp-header on %s must be a non-empty string", where)
	case !isToken(name):
		w.err = fmt.Errorf("x-mcp-header %q on %s is not a valid HTTP header name token", name, where)
	case !primitiveType(schema["type"]):
		w.err = fmt.Errorf("x-mcp-header %q on %s: the property's type must be string, integer or boolean, not %v", name, where, schema["type"])
	}
	if w.err != nil {
		return
	}
	lower := strings.ToLower(name)
	if other, dup := w.seen[lower]; dup {
		w.err = fmt.Errorf("x-mcp-header %q on %s repeats the one on property %q (header names ignore case)", name, where, other)
		return
	}
	w.seen[lower] = strings.Join(path, ".")
	w.out = append(w.out, paramBinding{path: path, header: name})
}

// primitiveType reports whether a schema "type" is string, integer or
// boolean, optionally made nullable (["string", "null"]).
func primitiveType(t any) bool {
	isPrim := func(s string) bool { return s == "string" || s == "integer" || s == "boolean" }
	switch v := t.(type) {
	case string:
		return isPrim(v)
	case []any:
		prims := 0
		for _, e := range v {
			s, _ := e.(string)
			switch {
			case isPrim(s):
				prims++
			case s == "null":
			default:
				return false
			}
		}
		return prims == 1
	}
	return false
}

// isToken reports whether s is an RFC 9110 token (what a header name is).
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// paramHeaders returns the Mcp-Param-* headers for a tools/call with the
// given raw arguments. Absent and null arguments get no header; so do
// values that are not a string, a boolean or an integer within ±(2^53-1),
// which a conforming server's schema would refuse anyway.
func paramHeaders(bindings []paramBinding, arguments json.RawMessage) map[string]string {
	if len(bindings) == 0 || len(arguments) == 0 {
		return nil
	}
	var args map[string]json.RawMessage
	if json.Unmarshal(arguments, &args) != nil {
		return nil
	}
	out := make(map[string]string, len(bindings))
	for _, b := range bindings {
		raw, ok := lookupArgument(args, b.path)
		if !ok {
			continue
		}
		if v, ok := headerValueOf(raw); ok {
			out[headerParamPrefix+b.header] = encodeHeaderValue(v)
		}
	}
	return out
}

func lookupArgument(args map[string]json.RawMessage, path []string) (json.RawMessage, bool) {
	cur, ok := args[path[0]]
	for _, p := range path[1:] {
		if !ok {
			return nil, false
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal(cur, &obj) != nil {
			return nil, false
		}
		cur, ok = obj[p]
	}
	return cur, ok
}

// headerValueOf converts a JSON argument to its header text: a string as it
// is, a boolean as true/false, an integer in decimal.
func headerValueOf(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "", false
	}
	switch raw[0] {
	case '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return "", false
		}
		return s, true
	case 't', 'f':
		var b bool
		if json.Unmarshal(raw, &b) != nil {
			return "", false
		}
		return strconv.FormatBool(b), true
	case 'n', '{', '[':
		return "", false
	}
	if n, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
		if n < -maxSafeInteger || n > maxSafeInteger {
			return "", false
		}
		return strconv.FormatInt(n, 10), true
	}
	// 3.0 and 3e0 are integers too, to JSON Schema.
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > maxSafeInteger {
		return "", false
	}
	return strconv.FormatInt(int64(f), 10), true
}

// encodeHeaderValue returns v as it goes into Mcp-Name or Mcp-Param-*: as
// is when it is plain visible ASCII (spaces and tabs inside allowed), else
// as =?base64?<base64 of the UTF-8>?=. Values with leading or trailing
// whitespace, and values that already look like that form, are encoded too.
func encodeHeaderValue(v string) string {
	if needsBase64(v) {
		return sentinelPrefix + base64.StdEncoding.EncodeToString([]byte(v)) + sentinelSuffix
	}
	return v
}

func needsBase64(v string) bool {
	if v == "" {
		return false
	}
	if isSpace(v[0]) || isSpace(v[len(v)-1]) {
		return true
	}
	if strings.HasPrefix(v, sentinelPrefix) && strings.HasSuffix(v, sentinelSuffix) {
		return true
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if (c < 0x20 && c != '\t') || c > 0x7e {
			return true
		}
	}
	return false
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' }
