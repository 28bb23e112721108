package jsonscan

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// maxScanDepth is how deep the scanner follows nested arrays and objects (a
// bit per level); deeper values go to encoding/json.
const maxScanDepth = 64

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(d []byte, i int) int {
	for i < len(d) && isSpace(d[i]) {
		i++
	}
	return i
}

// scanString returns the end of the string starting at d[i] == '"' and
// whether it holds an escape; ok is false when it is not a valid string.
func scanString(d []byte, i int) (end int, escaped, ok bool) {
	for i++; i < len(d); i++ {
		switch c := d[i]; {
		case c == '"':
			return i + 1, escaped, true
		case c == '\\':
			escaped = true
			i++
			if i >= len(d) {
				return 0, false, false
			}
			switch d[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(d) {
					return 0, false, false
				}
				for _, h := range d[i+1 : i+5] {
					if !isHex(h) {
						return 0, false, false
					}
				}
				i += 4
			default:
				return 0, false, false
			}
		case c < 0x20:
			return 0, false, false
		}
	}
	return 0, false, false
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// scanNumber returns the end of the number starting at d[i], or ok false.
func scanNumber(d []byte, i int) (end int, ok bool) {
	if d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && isDigit(d[i]):
		for i < len(d) && isDigit(d[i]) {
			i++
		}
	default:
		return 0, false
	}
	if i < len(d) && d[i] == '.' {
		i++
		if i >= len(d) || !isDigit(d[i]) {
			return 0, false
		}
		for i < len(d) && isDigit(d[i]) {
			i++
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || !isDigit(d[i]) {
			return 0, false
		}
		for i < len(d) && isDigit(d[i]) {
			i++
		}
	}
	return i, true
}

// scanLiteral returns the end of true, false or null at d[i], or ok false.
func scanLiteral(d []byte, i int) (end int, ok bool) {
	for _, lit := range [...]string{"true", "false", "null"} {
		if len(d)-i >= len(lit) && string(d[i:i+len(lit)]) == lit {
			return i + len(lit), true
		}
	}
	return 0, false
}

// scanKey reads an object key and its colon at d[i] (after white space):
// it returns the key's text without quotes, whether it holds an escape, and
// where the value starts.
func scanKey(d []byte, i int) (key []byte, escaped bool, next int, ok bool) {
	i = skipSpace(d, i)
	if i >= len(d) || d[i] != '"' {
		return nil, false, 0, false
	}
	end, escaped, ok := scanString(d, i)
	if !ok {
		return nil, false, 0, false
	}
	key = d[i+1 : end-1]
	i = skipSpace(d, end)
	if i >= len(d) || d[i] != ':' {
		return nil, false, 0, false
	}
	return key, escaped, i + 1, true
}

// scanValue returns the extent of the JSON value that starts at or after i
// (after white space), validating it whole.
func scanValue(d []byte, i int) (start, end int, ok bool) {
	var objects uint64 // bit n: level n is an object (else an array)
	depth := 0
	start = -1
	for {
		// A value is expected here.
		i = skipSpace(d, i)
		if i >= len(d) {
			return 0, 0, false
		}
		if start < 0 {
			start = i
		}
		closed := true // the value just read is complete
		switch c := d[i]; {
		case c == '{' || c == '[':
			i = skipSpace(d, i+1)
			if i < len(d) && (c == '{' && d[i] == '}' || c == '[' && d[i] == ']') {
				i++
				break
			}
			if depth == maxScanDepth {
				return 0, 0, false
			}
			objects &^= 1 << depth
			if c == '{' {
				objects |= 1 << depth
				if _, _, i, ok = scanKey(d, i); !ok {
					return 0, 0, false
				}
			}
			depth++
			closed = false
		case c == '"':
			if i, _, ok = scanString(d, i); !ok {
				return 0, 0, false
			}
		case c == '-' || isDigit(c):
			if i, ok = scanNumber(d, i); !ok {
				return 0, 0, false
			}
		default:
			if i, ok = scanLiteral(d, i); !ok {
				return 0, 0, false
			}
		}
		if !closed {
			continue
		}
		// After a value: close what it completes, or go on to the next.
		for {
			if depth == 0 {
				return start, i, true
			}
			i = skipSpace(d, i)
			if i >= len(d) {
				return 0, 0, false
			}
			inObject := objects&(1<<(depth-1)) != 0
			if d[i] == ',' {
				i++
				if inObject {
					if _, _, i, ok = scanKey(d, i); !ok {
						return 0, 0, false
					}
				}
				break
			}
			if inObject && d[i] == '}' || !inObject && d[i] == ']' {
				depth--
				i++
				continue
			}
			return 0, 0, false
		}
	}
}

// Object calls member for each member of the object d (white space around
// it allowed), in order, with the key's text (without quotes; escaped says
// it holds an escape, so it is not the key's value) and the member's value
// exactly as written. It reports false when d is not one valid JSON object
// or member returned false.
func Object(d []byte, member func(key []byte, escaped bool, value []byte) bool) bool {
	end, ok := scanObject(d, 0, func(key []byte, escaped bool, start, end int) bool {
		return member(key, escaped, d[start:end])
	})
	return ok && skipSpace(d, end) == len(d)
}

// Array calls elem for each element of the array d (white space around it
// allowed), in order. It reports false when d is not one valid JSON array or
// elem returned false.
func Array(d []byte, elem func(value []byte) bool) bool {
	i := skipSpace(d, 0)
	if i >= len(d) || d[i] != '[' {
		return false
	}
	i = skipSpace(d, i+1)
	if i < len(d) && d[i] == ']' {
		return skipSpace(d, i+1) == len(d)
	}
	for {
		start, end, ok := scanValue(d, i)
		if !ok || !elem(d[start:end]) {
			return false
		}
		i = skipSpace(d, end)
		if i >= len(d) {
			return false
		}
		switch d[i] {
		case ',':
			i++
		case ']':
			return skipSpace(d, i+1) == len(d)
		default:
			return false
		}
	}
}

// Valid reports whether d is one JSON value (white space around it allowed)
// that the scanner follows; false may also mean nesting deeper than it goes.
func Valid(d []byte) bool {
	_, end, ok := scanValue(d, 0)
	return ok && skipSpace(d, end) == len(d)
}

// String decodes v, a valid JSON string literal (as the scanner hands out),
// as encoding/json decodes one into a Go string. ok is false when v is not a
// string.
func String(v []byte) (s string, ok bool) {
	if len(v) < 2 || v[0] != '"' {
		return "", false
	}
	body := v[1 : len(v)-1]
	if bytes.IndexByte(body, '\\') < 0 && utf8.Valid(body) {
		return string(body), true
	}
	return s, json.Unmarshal(v, &s) == nil
}

// Bool decodes v as true or false; ok is false for anything else.
func Bool(v []byte) (b, ok bool) {
	switch string(v) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

// IsNull reports whether v is null.
func IsNull(v []byte) bool { return string(v) == "null" }

// Folds reports whether encoding/json, which matches object keys to struct
// fields without regard to case (and folds a few non-ASCII letters into
// ASCII ones), could take key for one of names when it is not exactly that
// name: such keys are left to encoding/json.
func Folds(key []byte, names ...string) bool {
	for _, c := range key {
		if c >= 0x80 {
			return true
		}
	}
	for _, name := range names {
		if len(key) == len(name) && strings.EqualFold(string(key), name) {
			return true
		}
	}
	return false
}

// scanObject calls member for each member of the object at d[i] (after
// white space), with the key and the value's extent, and returns where the
// object ends. It stops with ok false when the JSON is invalid or member
// says so.
func scanObject(d []byte, i int, member func(key []byte, escaped bool, start, end int) bool) (end int, ok bool) {
	i = skipSpace(d, i)
	if i >= len(d) || d[i] != '{' {
		return 0, false
	}
	i = skipSpace(d, i+1)
	if i < len(d) && d[i] == '}' {
		return i + 1, true
	}
	for {
		key, escaped, next, ok := scanKey(d, i)
		if !ok {
			return 0, false
		}
		start, end, ok := scanValue(d, next)
		if !ok || !member(key, escaped, start, end) {
			return 0, false
		}
		i = skipSpace(d, end)
		if i >= len(d) {
			return 0, false
		}
		switch d[i] {
		case ',':
			i++
		case '}':
			return i + 1, true
		default:
			return 0, false
		}
	}
}
