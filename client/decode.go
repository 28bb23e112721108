package client

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/mcptestkit/mcptestkit/internal/jsonscan"
)

// Fast decoders for the results every test reads (tools/call, and the
// server/discover or initialize that starts every connection). Each reads the common shape
// with the scanner of internal/jsonscan, in one pass and without
// reflection, and hands anything else (an escaped or differently cased key,
// a repeated member, an unusual type, invalid JSON, a block of another
// kind) to encoding/json whole, so that results and error texts are exactly
// encoding/json's. Fuzz tests in decode_test.go hold them to it.

// callToolEnvelope is a tools/call result and its multi round-trip envelope.
type callToolEnvelope struct {
	callToolWire
	envelope
}

func (w *callToolEnvelope) decode(raw []byte) error {
	return decodeResult(raw, w, (*callToolEnvelope).scan)
}

func (w *callToolEnvelope) scan(raw []byte) bool {
	return scanFields(raw, []string{"content", "structuredContent", "isError", "_meta", "resultType", "inputRequests", "requestState"}, func(name string, v []byte) bool {
		ok := true
		switch name {
		case "content":
			w.Content, ok = scanContent(v)
		case "structuredContent":
			w.StructuredContent = bytes.Clone(v) // the caller's: not the frame's bytes
		case "isError":
			ok = scanBool(v, &w.IsError)
		case "_meta":
			w.Meta, ok = scanMeta(v)
		case "resultType":
			ok = scanString(v, &w.ResultType)
		default: // inputRequests and requestState, of input_required results
			return false
		}
		return ok
	})
}

func (res *discoverResult) decode(raw []byte) error {
	return decodeResult(raw, res, (*discoverResult).scan)
}

func (res *discoverResult) scan(raw []byte) bool {
	return scanFields(raw, []string{"resultType", "supportedVersions", "capabilities", "instructions", "_meta"}, func(name string, v []byte) bool {
		ok := true
		switch name {
		case "resultType":
			ok = scanString(v, &res.ResultType)
		case "supportedVersions":
			res.SupportedVersions, ok = scanStrings(v)
		case "capabilities":
			ok = scanCapabilities(v, &res.Capabilities)
		case "instructions":
			ok = scanString(v, &res.Instructions)
		case "_meta":
			// Only its serverInfo; null, or not an object: encoding/json.
			ok = v[0] == '{' && scanFields(v, []string{"io.modelcontextprotocol/serverInfo"}, func(_ string, v []byte) bool {
				info, ok := scanEmpty[Implementation](v)
				res.Meta.ServerInfo = info
				return ok && (info == nil || scanImplementation(v, info))
			})
		}
		return ok
	})
}

// initializeResult is the wire form of an initialize result.
type initializeResult struct {
	ProtocolVersion string             `json:"protocolVersion"`
	Capabilities    ServerCapabilities `json:"capabilities"`
	ServerInfo      Implementation     `json:"serverInfo"`
	Instructions    string             `json:"instructions"`
}

func (res *initializeResult) decode(raw []byte) error {
	return decodeResult(raw, res, (*initializeResult).scan)
}

func (res *initializeResult) scan(raw []byte) bool {
	return scanFields(raw, []string{"protocolVersion", "capabilities", "serverInfo", "instructions"}, func(name string, v []byte) bool {
		switch name {
		case "protocolVersion":
			return scanString(v, &res.ProtocolVersion)
		case "capabilities":
			return scanCapabilities(v, &res.Capabilities)
		case "serverInfo":
			return v[0] == '{' && scanImplementation(v, &res.ServerInfo) // null: encoding/json
		}
		return scanString(v, &res.Instructions)
	})
}

// decodeResult decodes raw into v with scan, or, when scan leaves it to
// encoding/json, from scratch with encoding/json.
func decodeResult[T any](raw []byte, v *T, scan func(*T, []byte) bool) error {
	if scan(v, raw) {
		return nil
	}
	var zero T
	*v = zero
	return json.Unmarshal(raw, v)
}

// scanFields reads the object raw member by member: for a key that is one
// of names it calls field with it and the value, and it skips other keys.
// It reports false (leave the whole value to encoding/json) for invalid
// JSON, an escaped key, a key encoding/json could take for one of names
// without being it (another case), a name seen twice (encoding/json would
// merge or overwrite), or when field does.
func scanFields(raw []byte, names []string, field func(name string, v []byte) bool) bool {
	var seen uint64
	return jsonscan.Object(raw, func(key []byte, escaped bool, v []byte) bool {
		if escaped {
			return false
		}
		for i, name := range names {
			if string(key) == name {
				if seen&(1<<i) != 0 {
					return false
				}
				seen |= 1 << i
				return field(name, v)
			}
		}
		return !jsonscan.Folds(key, names...)
	})
}

// scanContent decodes a "content" array. Text blocks are read here; other
// blocks go through contentBlock.UnmarshalJSON, as encoding/json would send
// them. A single block or anything unusual reports false.
func scanContent(v []byte) (contentList, bool) {
	if jsonscan.IsNull(v) {
		return nil, true
	}
	if v[0] != '[' {
		return nil, false
	}
	out := make(contentList, 0, 1)
	ok := jsonscan.Array(v, func(v []byte) bool {
		if t, ok := scanTextBlock(v); ok {
			out = append(out, t)
			return true
		}
		var b contentBlock
		if b.UnmarshalJSON(v) != nil {
			return false
		}
		out = append(out, b.c)
		return true
	})
	return out, ok
}

// scanTextBlock reads {"type":"text","text":...} with no other members
// (annotations and _meta go to contentBlock.UnmarshalJSON).
func scanTextBlock(v []byte) (*TextContent, bool) {
	var typed, texted bool
	t := TextContent{}
	ok := jsonscan.Object(v, func(key []byte, escaped bool, v []byte) bool {
		switch {
		case escaped:
			return false
		case string(key) == "type" && !typed:
			typed = true
			return string(v) == `"text"`
		case string(key) == "text" && !texted:
			texted = true
			var ok bool
			t.Text, ok = jsonscan.String(v)
			return ok
		}
		return false
	})
	if !ok || !typed || !texted {
		return nil, false
	}
	return &t, true
}

// scanMeta decodes a "_meta" member (a Meta map, or null) as encoding/json
// decodes a map[string]any.
func scanMeta(v []byte) (Meta, bool) {
	if jsonscan.IsNull(v) {
		return nil, true
	}
	if v[0] != '{' {
		return nil, false
	}
	a, ok := scanAny(v)
	if !ok {
		return nil, false
	}
	return a.(map[string]any), true
}

// scanAny decodes any JSON value as encoding/json decodes it into an any:
// map[string]any, []any, float64, string, bool or nil.
func scanAny(v []byte) (any, bool) {
	switch c := v[0]; {
	case c == '{':
		m := map[string]any{}
		ok := jsonscan.Object(v, func(key []byte, escaped bool, v []byte) bool {
			if escaped || !utf8.Valid(key) {
				return false // encoding/json unescapes or mends the key
			}
			a, ok := scanAny(v)
			m[string(key)] = a
			return ok
		})
		return m, ok
	case c == '[':
		l := []any{}
		ok := jsonscan.Array(v, func(v []byte) bool {
			a, ok := scanAny(v)
			l = append(l, a)
			return ok
		})
		return l, ok
	case c == '"':
		return jsonscan.String(v)
	case c == 't' || c == 'f':
		return jsonscan.Bool(v)
	case c == 'n':
		return nil, true
	default:
		f, err := strconv.ParseFloat(string(v), 64)
		return f, err == nil
	}
}

// scanCapabilities decodes a server's capabilities object: the standard
// capabilities here, experimental and extensions through encoding/json for
// that member alone.
func scanCapabilities(v []byte, caps *ServerCapabilities) bool {
	if v[0] != '{' {
		return false // null too: encoding/json keeps "null" in Raw
	}
	caps.Raw = bytes.Clone(v)
	return scanFields(v, []string{"logging", "completions", "prompts", "resources", "tools", "experimental", "tasks", "extensions"}, func(name string, v []byte) bool {
		ok := true
		switch name {
		case "logging":
			caps.Logging, ok = scanEmpty[LoggingCapability](v)
		case "completions":
			caps.Completions, ok = scanEmpty[CompletionsCapability](v)
		case "prompts":
			if caps.Prompts, ok = scanEmpty[PromptsCapability](v); caps.Prompts != nil {
				ok = scanFields(v, []string{"listChanged"}, func(_ string, v []byte) bool {
					return scanBool(v, &caps.Prompts.ListChanged)
				})
			}
		case "resources":
			if caps.Resources, ok = scanEmpty[ResourcesCapability](v); caps.Resources != nil {
				ok = scanFields(v, []string{"subscribe", "listChanged"}, func(name string, v []byte) bool {
					if name == "subscribe" {
						return scanBool(v, &caps.Resources.Subscribe)
					}
					return scanBool(v, &caps.Resources.ListChanged)
				})
			}
		case "tools":
			if caps.Tools, ok = scanEmpty[ToolsCapability](v); caps.Tools != nil {
				ok = scanFields(v, []string{"listChanged"}, func(_ string, v []byte) bool {
					return scanBool(v, &caps.Tools.ListChanged)
				})
			}
		case "experimental":
			ok = json.Unmarshal(v, &caps.Experimental) == nil
		case "tasks":
			caps.Tasks = bytes.Clone(v)
		case "extensions":
			ok = json.Unmarshal(v, &caps.Extensions) == nil
		}
		return ok
	})
}

// scanImplementation decodes an Implementation with no icons.
func scanImplementation(v []byte, impl *Implementation) bool {
	return scanFields(v, []string{"name", "version", "title", "description", "websiteUrl", "icons"}, func(name string, v []byte) bool {
		switch name {
		case "name":
			return scanString(v, &impl.Name)
		case "version":
			return scanString(v, &impl.Version)
		case "title":
			return scanString(v, &impl.Title)
		case "description":
			return scanString(v, &impl.Description)
		case "websiteUrl":
			return scanString(v, &impl.WebsiteURL)
		}
		return false // icons
	})
}

// scanEmpty decodes an object as a new T (its members, if any, left to the
// caller), or null as nil.
func scanEmpty[T any](v []byte) (*T, bool) {
	switch v[0] {
	case 'n':
		return nil, true
	case '{':
		return new(T), true
	}
	return nil, false
}

// scanBool decodes a bool member: null leaves it as it was.
func scanBool(v []byte, b *bool) bool {
	if jsonscan.IsNull(v) {
		return true
	}
	var ok bool
	*b, ok = jsonscan.Bool(v)
	return ok
}

// scanString decodes a string member: null leaves it as it was.
func scanString(v []byte, s *string) bool {
	switch string(v) {
	case "null":
		return true
	case `"` + resultComplete + `"`: // every result's resultType
		*s = resultComplete
		return true
	}
	var ok bool
	*s, ok = jsonscan.String(v)
	return ok
}

// scanStrings decodes a []string member whose elements are all strings.
func scanStrings(v []byte) ([]string, bool) {
	if jsonscan.IsNull(v) {
		return nil, true
	}
	if v[0] != '[' {
		return nil, false
	}
	out := []string{}
	ok := jsonscan.Array(v, func(v []byte) bool {
		s, ok := jsonscan.String(v)
		out = append(out, s)
		return ok
	})
	return out, ok
}
