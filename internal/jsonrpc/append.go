package jsonrpc

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// The Append functions encode a message straight into a byte slice, without
// reflection and without re-validating params or results. They are the hot
// path of a client that builds its params with encoding/json (whose output is
// already compact, valid JSON): the bytes are written once and never scanned
// again. Callers that are not sure their raw JSON is valid and compact (no
// newlines: stdio framing depends on it) must use [Encode] instead.

// AppendRequest appends a request with id, or a notification when id is the
// zero ID. params is written as given; nil or empty omits the member.
func AppendRequest(dst []byte, id ID, method string, params json.RawMessage) []byte {
	dst = append(dst, `{"jsonrpc":"2.0",`...)
	if id.raw != "" {
		dst = append(dst, `"id":`...)
		dst = append(dst, id.raw...)
		dst = append(dst, ',')
	}
	dst = append(dst, `"method":`...)
	dst = AppendString(dst, method)
	if len(params) > 0 {
		dst = append(dst, `,"params":`...)
		dst = append(dst, params...)
	}
	return append(dst, '}')
}

// AppendResult appends a successful response. An empty result is written as
// the empty object, MCP's empty result.
func AppendResult(dst []byte, id ID, result json.RawMessage) []byte {
	dst = appendResponseID(dst, id)
	dst = append(dst, `"result":`...)
	if len(result) == 0 {
		dst = append(dst, "{}"...)
	} else {
		dst = append(dst, result...)
	}
	return append(dst, '}')
}

// AppendError appends an error response.
func AppendError(dst []byte, id ID, e *Error) []byte {
	dst = appendResponseID(dst, id)
	dst = append(dst, `"error":{"code":`...)
	dst = strconv.AppendInt(dst, e.Code, 10)
	dst = append(dst, `,"message":`...)
	dst = AppendString(dst, e.Message)
	if len(e.Data) > 0 {
		dst = append(dst, `,"data":`...)
		dst = append(dst, e.Data...)
	}
	return append(dst, "}}"...)
}

func appendResponseID(dst []byte, id ID) []byte {
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	if id.raw == "" {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, id.raw...)
	}
	return append(dst, ',')
}

// AppendString appends s as a JSON string, escaped as encoding/json does
// with HTML escaping off.
func AppendString(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			return appendStringSlow(dst, s)
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}

func appendStringSlow(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		// U+2028 and U+2029 are valid JSON but break JavaScript readers;
		// encoding/json escapes them too.
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
