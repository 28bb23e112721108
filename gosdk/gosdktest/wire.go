package gosdktest

import (
	"bytes"
	"encoding/json"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcptestkit/mcptestkit/gosdk/internal/jsonscan"
)

// decode returns the message in data exactly as jsonrpc.DecodeMessage does.
//
// DecodeMessage unmarshals twice per frame, and each unmarshal allocates a
// 32 KiB decoder buffer: in a suite of short tests that was a fifth of all
// the bytes allocated. So a request or notification in the plain shape that
// clients send is read here, and everything else (responses, errors, and any
// frame this reader is not certain the SDK reads the same way) goes to
// DecodeMessage, whose result and error the server then gets as before.
func decode(data []byte) (jsonrpc.Message, error) {
	if req := decodeRequest(data); req != nil {
		return req, nil
	}
	return jsonrpc.DecodeMessage(data)
}

// maxSafeID is the largest integer id decodeRequest accepts: DecodeMessage
// reads ids as float64, which holds every integer up to 2^53 exactly.
const maxSafeID = 1 << 53

// decodeRequest reads a request or notification whose frame is one JSON
// object (white space around it allowed), valid UTF-8 throughout, with
// exactly these members, in any order, each at most once, keys written
// exactly so and without escapes:
//
//   - "jsonrpc": the string "2.0";
//   - "method": a non-empty string of printable ASCII without escapes;
//   - "id" (absent for a notification): an integer literal (no fraction or
//     exponent) of magnitude at most 2^53, or a string like method's;
//   - "params" (optional): any JSON value the scanner follows (nested up
//     to 64 levels).
//
// For any other frame it returns nil. Params is a copy: the frame is shared
// with the connection's transcript.
func decodeRequest(data []byte) *jsonrpc.Request {
	if !utf8.Valid(data) {
		return nil
	}
	var (
		version, method, id, params []byte
		seen                        uint8 // bit per member
	)
	ok := jsonscan.Object(data, func(key []byte, escaped bool, v []byte) bool {
		var bit uint8
		switch string(key) {
		case "jsonrpc":
			bit, version = 1, v
		case "method":
			bit, method = 2, v
		case "id":
			bit, id = 4, v
		case "params":
			bit, params = 8, v
		default:
			return false
		}
		if escaped || seen&bit != 0 {
			return false
		}
		seen |= bit
		return true
	})
	// An empty method is left to DecodeMessage: before go-sdk v1.7.0 it
	// reads such a frame as a response.
	if !ok || string(version) != `"2.0"` || !plainString(method) || len(method) == 2 {
		return nil
	}
	req := &jsonrpc.Request{Method: string(method[1 : len(method)-1])}
	if id != nil {
		var v any
		switch {
		case plainString(id):
			v = string(id[1 : len(id)-1])
		case isInteger(id):
			n, err := strconv.ParseInt(string(id), 10, 64)
			if err != nil || n > maxSafeID || n < -maxSafeID {
				return nil
			}
			v = float64(n) // what DecodeMessage hands MakeID
		default:
			return nil
		}
		var err error
		if req.ID, err = jsonrpc.MakeID(v); err != nil {
			return nil
		}
	}
	if params != nil {
		req.Params = bytes.Clone(params)
	}
	return req
}

// plainString reports whether v, a valid JSON value, is a string of
// printable ASCII without escapes.
func plainString(v []byte) bool {
	if len(v) < 2 || v[0] != '"' {
		return false
	}
	for _, c := range v[1 : len(v)-1] {
		if c == '\\' || c < 0x20 || c > 0x7e {
			return false
		}
	}
	return true
}

// isInteger reports whether v, a valid JSON value, is a number without a
// fraction or an exponent.
func isInteger(v []byte) bool {
	if len(v) > 0 && v[0] == '-' {
		v = v[1:]
	}
	if len(v) == 0 {
		return false
	}
	for _, c := range v {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// encode returns msg's wire form exactly as jsonrpc.EncodeMessage does.
//
// EncodeMessage encodes through reflection, a bytes.Buffer and a copy; the
// messages a server writes most (responses with a result, notifications
// and requests with a plain method) are written here instead, and the rest
// (errors, string ids, anything unusual) by EncodeMessage.
func encode(msg jsonrpc.Message) ([]byte, error) {
	if data := encodePlain(msg); data != nil {
		return data, nil
	}
	return jsonrpc.EncodeMessage(msg)
}

// encodePlain writes a response with a result and no error, or a request or
// notification whose method is printable ASCII without '"' or '\\' (text
// encoding/json writes as it is; without '<', '>' and '&' too where
// EncodeMessage escapes HTML), with an integer id or none, in EncodeMessage's
// member order, the raw values compacted as encoding/json compacts them. It
// returns nil for any other message, and when a raw value is not valid JSON
// (EncodeMessage then reports it).
func encodePlain(msg jsonrpc.Message) []byte {
	escape := escapesHTML()
	var (
		id          jsonrpc.ID
		method, raw = "", []byte(nil)
		member      string // the raw value's name
	)
	switch m := msg.(type) {
	case *jsonrpc.Response:
		if m.Error != nil || len(m.Result) == 0 {
			return nil
		}
		id, raw, member = m.ID, m.Result, `,"result":`
	case *jsonrpc.Request:
		for i := 0; i < len(m.Method); i++ {
			if c := m.Method[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || escape && (c == '<' || c == '>' || c == '&') {
				return nil
			}
		}
		id, method, raw, member = m.ID, m.Method, m.Params, `,"params":`
	default:
		return nil
	}
	var buf bytes.Buffer
	buf.Grow(len(`{"jsonrpc":"2.0","id":-9223372036854775808,"method":"","params":}`) + len(method) + len(raw))
	buf.WriteString(`{"jsonrpc":"2.0"`)
	switch v := id.Raw().(type) {
	case nil:
	case int64:
		buf.WriteString(`,"id":`)
		buf.Write(strconv.AppendInt(buf.AvailableBuffer(), v, 10))
	default:
		return nil
	}
	if method != "" {
		buf.WriteString(`,"method":"`)
		buf.WriteString(method)
		buf.WriteByte('"')
	}
	if len(raw) > 0 {
		buf.WriteString(member)
		if !escape {
			if json.Compact(&buf, raw) != nil {
				return nil
			}
		} else {
			var compact bytes.Buffer
			if json.Compact(&compact, raw) != nil {
				return nil
			}
			json.HTMLEscape(&buf, compact.Bytes())
		}
	}
	buf.WriteByte('}')
	return buf.Bytes()
}

// escapesHTML reports whether jsonrpc.EncodeMessage escapes '<', '>', '&',
// U+2028 and U+2029 in the JSON it writes, as json.Marshal does: go-sdk
// did before v1.4.0. It is asked once, so that encodePlain writes what the
// linked release writes.
var escapesHTML = sync.OnceValue(func() bool {
	data, err := jsonrpc.EncodeMessage(&jsonrpc.Request{Method: "<"})
	return err == nil && bytes.Contains(data, []byte(`\u003c`))
})
