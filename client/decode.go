package client

import (
	"bytes"
	"encoding/json"

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
			ok = json.Unmarshal(v, &w.Meta) == nil
		case "resultType":
			bit = 16
			if !jsonscan.IsNull(v) {
				w.ResultType, ok = jsonscan.String(v)
			}
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
