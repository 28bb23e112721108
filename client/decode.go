package client

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/mcptestkit/mcptestkit/internal/jsonscan"
)

// Fast decoders for the results every test reads (tools/call, and the
// server/discover of every modern connection). Each reads the common shape
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
	if w.scan(raw) {
		return nil
	}
	*w = callToolEnvelope{}
	return json.Unmarshal(raw, w)
}

func (w *callToolEnvelope) scan(raw []byte) bool {
	var seen uint8
	return jsonscan.Object(raw, func(key []byte, escaped bool, v []byte) bool {
		if escaped {
			return false
		}
		var bit uint8
		ok := true
		switch string(key) {
		case "content":
			bit = 1
			w.Content, ok = scanContent(v)
		case "structuredContent":
			bit = 2
			w.StructuredContent = bytes.Clone(v) // the caller's: not the frame's bytes
		case "isError":
			bit = 4
			if !jsonscan.IsNull(v) {
				w.IsError, ok = jsonscan.Bool(v)
			}
		case "_meta":
			bit = 8
			w.Meta, ok = scanMeta(v)
		case "resultType":
			bit = 16
			ok = scanString(v, &w.ResultType)
		default:
			// inputRequests and requestState (input_required results) go to
			// encoding/json, with every key it could take for a member.
			return !jsonscan.Folds(key, "content", "structuredContent", "isError", "_meta", "resultType", "inputRequests", "requestState")
		}
		if seen&bit != 0 {
			return false // encoding/json would merge or overwrite: let it
		}
		seen |= bit
		return ok
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

// scanTextBlock reads {"type":"text","text":...} with no other members.
func scanTextBlock(v []byte) (*TextContent, bool) {
	var typ, hasText bool
	var text string
	ok := jsonscan.Object(v, func(key []byte, escaped bool, v []byte) bool {
		switch {
		case escaped:
			return false
		case string(key) == "type" && !typ:
			typ = true
			return string(v) == `"text"`
		case string(key) == "text" && !hasText:
			hasText = true
			var ok bool
			text, ok = jsonscan.String(v)
			return ok
		}
		return false
	})
	if !ok || !typ || !hasText {
		return nil, false
	}
	return &TextContent{Text: text}, true
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

// scanImplementation decodes an Implementation with no icons.
func scanImplementation(v []byte, impl *Implementation) bool {
	var seen uint8
	return jsonscan.Object(v, func(key []byte, escaped bool, v []byte) bool {
		if escaped {
			return false
		}
		var bit uint8
		var field *string
		switch string(key) {
		case "name":
			bit, field = 1, &impl.Name
		case "version":
			bit, field = 2, &impl.Version
		case "title":
			bit, field = 4, &impl.Title
		case "description":
			bit, field = 8, &impl.Description
		case "websiteUrl":
			bit, field = 16, &impl.WebsiteURL
		default: // icons among them
			return !jsonscan.Folds(key, "name", "version", "title", "description", "websiteUrl", "icons")
		}
		if seen&bit != 0 {
			return false
		}
		seen |= bit
		return scanString(v, field)
	})
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

// scanCapabilities decodes a server's capabilities object: the standard
// capabilities here, experimental, tasks and extensions through
// encoding/json for that member alone.
func scanCapabilities(v []byte, caps *ServerCapabilities) bool {
	if v[0] != '{' {
		return false // null too: encoding/json keeps "null" in Raw
	}
	var seen uint8
	ok := jsonscan.Object(v, func(key []byte, escaped bool, v []byte) bool {
		if escaped {
			return false
		}
		var bit uint8
		ok := true
		switch string(key) {
		case "logging":
			bit = 1
			caps.Logging, ok = scanEmpty[LoggingCapability](v)
		case "completions":
			bit = 2
			caps.Completions, ok = scanEmpty[CompletionsCapability](v)
		case "prompts":
			bit = 4
			caps.Prompts = nil
			if !jsonscan.IsNull(v) {
				caps.Prompts = new(PromptsCapability)
				ok = scanFlags(v, flag{"listChanged", &caps.Prompts.ListChanged})
			}
		case "resources":
			bit = 8
			caps.Resources = nil
			if !jsonscan.IsNull(v) {
				caps.Resources = new(ResourcesCapability)
				ok = scanFlags(v, flag{"subscribe", &caps.Resources.Subscribe}, flag{"listChanged", &caps.Resources.ListChanged})
			}
		case "tools":
			bit = 16
			caps.Tools = nil
			if !jsonscan.IsNull(v) {
				caps.Tools = new(ToolsCapability)
				ok = scanFlags(v, flag{"listChanged", &caps.Tools.ListChanged})
			}
		case "experimental":
			bit = 32
			ok = json.Unmarshal(v, &caps.Experimental) == nil
		case "tasks":
			bit = 64
			caps.Tasks = bytes.Clone(v)
		case "extensions":
			bit = 128
			ok = json.Unmarshal(v, &caps.Extensions) == nil
		default:
			return !jsonscan.Folds(key, "logging", "completions", "prompts", "resources", "tools", "experimental", "tasks", "extensions")
		}
		if seen&bit != 0 {
			return false
		}
		seen |= bit
		return ok
	})
	caps.Raw = bytes.Clone(v)
	return ok
}

// scanEmpty decodes a capability with no members of its own: an object (of
// any members) or null.
func scanEmpty[T any](v []byte) (*T, bool) {
	switch v[0] {
	case 'n':
		return nil, true
	case '{':
		return new(T), true
	}
	return nil, false
}

// flag is a boolean member of a capability.
type flag struct {
	name string
	p    *bool
}

// scanFlags decodes an object of boolean members (others ignored).
func scanFlags(v []byte, flags ...flag) bool {
	var seen uint8
	return jsonscan.Object(v, func(key []byte, escaped bool, v []byte) bool {
		if escaped {
			return false
		}
		for i, f := range flags {
			switch {
			case string(key) == f.name:
				if seen&(1<<i) != 0 {
					return false
				}
				seen |= 1 << i
				if jsonscan.IsNull(v) {
					return true
				}
				var ok bool
				*f.p, ok = jsonscan.Bool(v)
				return ok
			case jsonscan.Folds(key, f.name):
				return false
			}
		}
		return true
	})
}

func (res *discoverResult) decode(raw []byte) error {
	if res.scan(raw) {
		return nil
	}
	*res = discoverResult{}
	return json.Unmarshal(raw, res)
}

func (res *discoverResult) scan(raw []byte) bool {
	var seen uint8
	return jsonscan.Object(raw, func(key []byte, escaped bool, v []byte) bool {
		if escaped {
			return false
		}
		var bit uint8
		ok := true
		switch string(key) {
		case "resultType":
			bit = 1
			ok = scanString(v, &res.ResultType)
		case "supportedVersions":
			bit = 2
			res.SupportedVersions, ok = scanStrings(v)
		case "capabilities":
			bit = 4
			ok = scanCapabilities(v, &res.Capabilities)
		case "instructions":
			bit = 8
			ok = scanString(v, &res.Instructions)
		case "_meta":
			bit = 16
			ok = scanDiscoverMeta(v, res)
		default:
			return !jsonscan.Folds(key, "resultType", "supportedVersions", "capabilities", "instructions", "_meta")
		}
		if seen&bit != 0 {
			return false
		}
		seen |= bit
		return ok
	})
}

// scanDiscoverMeta reads the serverInfo of a server/discover's _meta.
func scanDiscoverMeta(v []byte, res *discoverResult) bool {
	const serverInfo = "io.modelcontextprotocol/serverInfo"
	if v[0] != '{' {
		return false // null, or not an object: encoding/json decides
	}
	seen := false
	return jsonscan.Object(v, func(key []byte, escaped bool, v []byte) bool {
		switch {
		case escaped:
			return false
		case string(key) == serverInfo:
			if seen {
				return false
			}
			seen = true
			res.Meta.ServerInfo = nil
			if jsonscan.IsNull(v) {
				return true
			}
			res.Meta.ServerInfo = new(Implementation)
			return scanImplementation(v, res.Meta.ServerInfo)
		}
		return !jsonscan.Folds(key, serverInfo)
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
	if res.scan(raw) {
		return nil
	}
	*res = initializeResult{}
	return json.Unmarshal(raw, res)
}

func (res *initializeResult) scan(raw []byte) bool {
	var seen uint8
	return jsonscan.Object(raw, func(key []byte, escaped bool, v []byte) bool {
		if escaped {
			return false
		}
		var bit uint8
		ok := true
		switch string(key) {
		case "protocolVersion":
			bit = 1
			ok = scanString(v, &res.ProtocolVersion)
		case "capabilities":
			bit = 2
			ok = scanCapabilities(v, &res.Capabilities)
		case "serverInfo":
			bit = 4
			ok = v[0] == '{' && scanImplementation(v, &res.ServerInfo) // null: encoding/json
		case "instructions":
			bit = 8
			ok = scanString(v, &res.Instructions)
		default:
			return !jsonscan.Folds(key, "protocolVersion", "capabilities", "serverInfo", "instructions")
		}
		if seen&bit != 0 {
			return false
		}
		seen |= bit
		return ok
	})
}
