package gosdk

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
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

// maxParamsDepth bounds the nesting of params that decodeRequest accepts,
// well below the SDK's own limit (1000 levels for the whole message).
const maxParamsDepth = 64

// decodeRequest reads a request or notification whose frame is, after
// optional JSON white space, one object with exactly these members, in any
// order, each at most once, keys written exactly so and without escapes:
//
//   - "jsonrpc": the string "2.0";
//   - "method": a string of printable ASCII without escapes;
//   - "id" (absent for a notification): an integer literal (no fraction or
//     exponent) of magnitude at most 2^53, or a string like method's;
//   - "params" (optional): any valid JSON value nested at most
//     maxParamsDepth deep;
//
// followed only by white space, the whole frame valid UTF-8. For any other
// frame it returns nil. Params is a copy: the frame is shared with the
// connection's transcript.
func decodeRequest(data []byte) *jsonrpc.Request {
	if !utf8.Valid(data) {
		return nil
	}
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return nil
	}
	i++
	var (
		version, method, id, params []byte
		seen                        uint8 // bit per member
	)
	for {
		i = skipSpace(data, i)
		key, next, ok := plainString(data, i)
		if !ok {
			return nil
		}
		i = skipSpace(data, next)
		if i >= len(data) || data[i] != ':' {
			return nil
		}
		i = skipSpace(data, i+1)
		var bit uint8
		var end int
		switch string(key) {
		case "jsonrpc":
			bit = 1
			version, end, ok = plainString(data, i)
		case "method":
			bit = 2
			method, end, ok = plainString(data, i)
		case "id":
			bit = 4
			if end, ok = idEnd(data, i); ok {
				id = data[i:end:end]
			}
		case "params":
			bit = 8
			if end, ok = paramsEnd(data, i); ok {
				params = data[i:end:end]
			}
		default:
			return nil
		}
		if !ok || seen&bit != 0 {
			return nil
		}
		seen |= bit
		i = skipSpace(data, end)
		if i >= len(data) {
			return nil
		}
		if data[i] == '}' {
			i++
			break
		}
		if data[i] != ',' {
			return nil
		}
		i++
	}
	if skipSpace(data, i) != len(data) || seen&3 != 3 || string(version) != "2.0" {
		return nil
	}
	req := &jsonrpc.Request{Method: string(method)}
	if id != nil {
		var v any
		if id[0] == '"' {
			v = string(id[1 : len(id)-1])
		} else {
			n, err := strconv.ParseInt(string(id), 10, 64)
			if err != nil || n > maxSafeID || n < -maxSafeID {
				return nil
			}
			v = float64(n) // what DecodeMessage hands MakeID
		}
		var err error
		if req.ID, err = jsonrpc.MakeID(v); err != nil {
			return nil
		}
	}
	if params != nil {
		if !json.Valid(params) {
			return nil
		}
		req.Params = bytes.Clone(params)
	}
	return req
}

func skipSpace(d []byte, i int) int {
	for i < len(d) && (d[i] == ' ' || d[i] == '\t' || d[i] == '\n' || d[i] == '\r') {
		i++
	}
	return i
}

// plainString reads the string at d[i] if it holds only printable ASCII and
// no escapes, returning its text without the quotes and where it ends.
func plainString(d []byte, i int) (text []byte, end int, ok bool) {
	if i >= len(d) || d[i] != '"' {
		return nil, 0, false
	}
	for j := i + 1; j < len(d); j++ {
		switch c := d[j]; {
		case c == '"':
			return d[i+1 : j], j + 1, true
		case c == '\\' || c < 0x20 || c > 0x7e:
			return nil, 0, false
		}
	}
	return nil, 0, false
}

// idEnd returns where the id at d[i] ends if it is a plain string or an
// integer literal (whose range the caller checks).
func idEnd(d []byte, i int) (end int, ok bool) {
	if i < len(d) && d[i] == '"' {
		_, end, ok = plainString(d, i)
		return end, ok
	}
	j := i
	if j < len(d) && d[j] == '-' {
		j++
	}
	digits := j
	for j < len(d) && '0' <= d[j] && d[j] <= '9' {
		j++
	}
	switch {
	case j == digits, j-digits > 1 && d[digits] == '0', j-digits > 16:
		return 0, false // no digits, a leading zero, or surely out of range
	case j < len(d) && (d[j] == '.' || d[j] == 'e' || d[j] == 'E'):
		return 0, false
	}
	return j, true
}

// paramsEnd returns where the value at d[i] ends, by its brackets and
// strings only; the caller validates the value with json.Valid. ok is false
// when the value nests deeper than maxParamsDepth or does not end.
func paramsEnd(d []byte, i int) (end int, ok bool) {
	if i >= len(d) {
		return 0, false
	}
	depth := 0
	for j := i; j < len(d); j++ {
		switch d[j] {
		case '"':
			if j = stringEnd(d, j); j < 0 {
				return 0, false
			}
			if depth == 0 {
				return j + 1, true
			}
		case '{', '[':
			if depth++; depth > maxParamsDepth {
				return 0, false
			}
		case '}', ']':
			if depth == 0 {
				return j, true // the end of a number or literal
			}
			if depth--; depth == 0 {
				return j + 1, true
			}
		case ',', ' ', '\t', '\n', '\r':
			if depth == 0 {
				return j, true // the end of a number or literal
			}
		}
	}
	if depth == 0 {
		return len(d), true
	}
	return 0, false
}

// stringEnd returns the index of the quote that closes the string at d[i],
// or -1.
func stringEnd(d []byte, i int) int {
	for j := i + 1; j < len(d); j++ {
		switch d[j] {
		case '\\':
			j++
		case '"':
			return j
		}
	}
	return -1
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
// encoding/json writes as it is), with an integer id or none, in
// EncodeMessage's member order, the raw values compacted as encoding/json
// compacts them. It returns nil for any other message, and when a raw value
// is not valid JSON (EncodeMessage then reports it).
func encodePlain(msg jsonrpc.Message) []byte {
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
			if c := m.Method[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
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
		if json.Compact(&buf, raw) != nil {
			return nil
		}
	}
	buf.WriteByte('}')
	return buf.Bytes()
}
