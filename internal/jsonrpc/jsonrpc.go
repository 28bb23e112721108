package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/mcptestkit/mcptestkit/internal/jsonscan"
)

// Version is the only value the "jsonrpc" member may take.
const Version = "2.0"

// Standard JSON-RPC 2.0 error codes.
const (
	CodeParseError     int64 = -32700
	CodeInvalidRequest int64 = -32600
	CodeMethodNotFound int64 = -32601
	CodeInvalidParams  int64 = -32602
	CodeInternalError  int64 = -32603
)

// ID is a request id: a JSON string or integer, kept exactly as it appeared
// on the wire so that a response echoes it byte for byte. The zero ID means
// "no id" (a notification); an explicit null id, which only error responses
// to unreadable requests carry, is kept as well and is not [ID.IsValid].
type ID struct {
	raw string // JSON text: `7`, `"abc"`, `null`; "" when absent
}

// Int64ID returns the integer id n.
func Int64ID(n int64) ID { return ID{raw: strconv.FormatInt(n, 10)} }

// StringID returns the string id s.
func StringID(s string) ID {
	b, _ := json.Marshal(s) // marshalling a string cannot fail
	return ID{raw: string(b)}
}

// IsValid reports whether id is a usable request id (a string or an integer).
func (id ID) IsValid() bool { return id.raw != "" && id.raw != "null" }

// IsZero reports whether the id is absent.
func (id ID) IsZero() bool { return id.raw == "" }

// String returns the id's JSON text (`7`, `"abc"`), or "" when absent. Two ids
// are the same request exactly when their String values are equal, so it is a
// good map key.
func (id ID) String() string { return id.raw }

// Value returns the id as a Go value: int64, string, or nil.
func (id ID) Value() any {
	if !id.IsValid() {
		return nil
	}
	if id.raw[0] == '"' {
		var s string
		_ = json.Unmarshal([]byte(id.raw), &s)
		return s
	}
	n, _ := strconv.ParseInt(id.raw, 10, 64)
	return n
}

// MarshalJSON implements json.Marshaler.
func (id ID) MarshalJSON() ([]byte, error) {
	if id.raw == "" {
		return []byte("null"), nil
	}
	return []byte(id.raw), nil
}

// UnmarshalJSON implements json.Unmarshaler. It accepts a string, an integer
// or null, and rejects anything else (fractions, objects, booleans).
func (id *ID) UnmarshalJSON(data []byte) error {
	parsed, err := parseID(data)
	if err != nil {
		return err
	}
	*id = parsed
	return nil
}

func parseID(data []byte) (ID, error) {
	data = bytes.TrimSpace(data)
	switch {
	case len(data) == 0:
		return ID{}, nil
	case string(data) == "null":
		return ID{raw: "null"}, nil
	case data[0] == '"':
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return ID{}, fmt.Errorf("jsonrpc: invalid string id %s: %w", data, err)
		}
		return StringID(s), nil // re-encode so equal ids have equal text
	default:
		n, err := strconv.ParseInt(string(data), 10, 64)
		if err != nil {
			return ID{}, fmt.Errorf("jsonrpc: id %s is neither a string nor an integer", data)
		}
		return Int64ID(n), nil
	}
}

// Error is the JSON-RPC error object. It is also a Go error, so a handler can
// return one and a caller can recover it with errors.As.
type Error struct {
	// Code says what kind of error it is: a standard code (the Code constants)
	// or an application's.
	Code int64 `json:"code"`
	// Message is a short description of the error.
	Message string `json:"message"`
	// Data is the raw JSON of the optional "data" member; nil when absent.
	Data json.RawMessage `json:"data,omitempty"`
}

// Error implements the error interface.
func (e *Error) Error() string {
	if len(e.Data) > 0 {
		return fmt.Sprintf("jsonrpc error %d: %s (data: %s)", e.Code, e.Message, e.Data)
	}
	return fmt.Sprintf("jsonrpc error %d: %s", e.Code, e.Message)
}

// Message is one JSON-RPC 2.0 message.
//
//   - a request has a Method and a valid ID;
//   - a notification has a Method and a zero ID;
//   - a response has no Method, an ID, and either Result or Error.
type Message struct {
	// ID is the request's id, or on a response the id of the request it
	// answers (null when that request was unreadable); zero on a notification.
	ID ID
	// Method names the request or notification; empty on a response.
	Method string
	// Params is the raw JSON of "params"; nil when absent.
	Params json.RawMessage
	// Result is the raw JSON of a success response's "result".
	Result json.RawMessage
	// Error is an error response's error object; nil otherwise.
	Error *Error
}

// IsRequest reports whether m is a request (it expects a response).
func (m *Message) IsRequest() bool { return m.Method != "" && !m.ID.IsZero() }

// IsNotification reports whether m is a notification.
func (m *Message) IsNotification() bool { return m.Method != "" && m.ID.IsZero() }

// IsResponse reports whether m is a response to a request.
func (m *Message) IsResponse() bool { return m.Method == "" }

// wire is the JSON shape of a Message, in the member order a reader expects.
type wire struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// Encode returns the compact JSON form of m, with no trailing newline and no
// HTML escaping. A response with neither Result nor Error gets an empty
// object result, the shape of MCP's empty results.
func Encode(m *Message) ([]byte, error) {
	w := wire{JSONRPC: Version, Method: m.Method, Params: m.Params, Result: m.Result, Error: m.Error}
	if m.ID.raw != "" {
		w.ID = json.RawMessage(m.ID.raw)
	}
	if m.Method == "" {
		if m.ID.raw == "" {
			w.ID = json.RawMessage("null") // a response always has an id member
		}
		if m.Error == nil && len(m.Result) == 0 {
			w.Result = json.RawMessage("{}")
		}
		if m.Error != nil {
			w.Result = nil
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(&w); err != nil {
		return nil, fmt.Errorf("jsonrpc: encoding %s: %w", describe(m), err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), nil
}

// ErrClosed is the kit's one error for an MCP connection that has ended,
// exported as client.ErrClosed. It is defined here, as os.ErrClosed is in
// io/fs, so that package transport, which does not import the client, can
// return errors that match it.
var ErrClosed = errors.New("client: connection closed")

// ErrNotMessage is wrapped by every error Decode returns.
var ErrNotMessage = errors.New("not a JSON-RPC 2.0 message")

// Decode parses one message. It rejects batches (JSON arrays), a missing or
// wrong "jsonrpc" member, ids that are neither strings nor integers, and
// responses with neither "result" nor "error", naming what was wrong.
//
// The raw members of the message (Params, Result, Error.Data) share data's
// bytes rather than copying them: data must not change while they are used.
func Decode(data []byte) (*Message, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, fmt.Errorf("jsonrpc: %w: empty input", ErrNotMessage)
	}
	if data[0] == '[' {
		return nil, fmt.Errorf("jsonrpc: %w: batches (JSON arrays) are not supported", ErrNotMessage)
	}
	var f fields
	if !f.scan(data) {
		// Invalid JSON, or a shape the scanner leaves to encoding/json
		// (escaped or differently cased keys, members of the wrong type):
		// encoding/json decides, and names what is wrong.
		if err := f.unmarshal(data); err != nil {
			return nil, fmt.Errorf("jsonrpc: %w: %v", ErrNotMessage, err)
		}
	}
	return f.message()
}

// unmarshal fills f with encoding/json. It is out of line so that Decode
// keeps a small frame on the reader goroutines that call it.
//
//go:noinline
func (f *fields) unmarshal(data []byte) error {
	var w struct {
		JSONRPC *string         `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  *string         `json:"method"`
		Params  json.RawMessage `json:"params"`
		Result  json.RawMessage `json:"result"`
		Error   *Error          `json:"error"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*f = fields{id: w.ID, params: w.Params, result: w.Result, err: w.Error}
	if f.hasVersion = w.JSONRPC != nil; f.hasVersion {
		f.version = *w.JSONRPC
	}
	if f.hasMethod = w.Method != nil; f.hasMethod {
		f.method = *w.Method
	}
	return nil
}

// fields are the members of a message as encoding/json would decode them.
type fields struct {
	version        string
	hasVersion     bool
	id             []byte
	method         string
	hasMethod      bool
	params, result []byte
	err            *Error
	sawError       bool // a second "error" goes to encoding/json
}

// message checks the members and makes the Message.
func (f *fields) message() (*Message, error) {
	if !f.hasVersion || f.version != Version {
		return nil, fmt.Errorf("jsonrpc: %w: the \"jsonrpc\" member must be %q", ErrNotMessage, Version)
	}
	id, err := parseID(f.id)
	if err != nil {
		return nil, fmt.Errorf("jsonrpc: %w: %v", ErrNotMessage, err)
	}
	m := &Message{ID: id, Params: f.params, Result: f.result, Error: f.err}
	if f.hasMethod {
		if f.method == "" {
			return nil, fmt.Errorf("jsonrpc: %w: empty \"method\"", ErrNotMessage)
		}
		m.Method = f.method
		if id.raw == "null" {
			return nil, fmt.Errorf("jsonrpc: %w: request %q has a null id", ErrNotMessage, m.Method)
		}
		return m, nil
	}
	if f.err == nil && f.result == nil {
		return nil, fmt.Errorf("jsonrpc: %w: a response needs \"result\" or \"error\"", ErrNotMessage)
	}
	if id.raw == "" {
		return nil, fmt.Errorf("jsonrpc: %w: a response needs an \"id\"", ErrNotMessage)
	}
	return m, nil
}

// scan reads the message object without encoding/json. It reports false
// when data is not valid JSON or has a shape it leaves to encoding/json;
// when it reports true, f holds what encoding/json would have decoded.
func (f *fields) scan(data []byte) bool {
	return jsonscan.Object(data, func(key []byte, escaped bool, v []byte) bool {
		ok := true
		switch {
		case escaped:
			return false // the key could spell a member's name
		case string(key) == "jsonrpc" && string(v) == `"`+Version+`"`:
			f.version, f.hasVersion = Version, true // without allocating
		case string(key) == "jsonrpc":
			f.version, f.hasVersion, ok = stringMember(v)
		case string(key) == "id":
			f.id = v
		case string(key) == "method":
			f.method, f.hasMethod, ok = stringMember(v)
		case string(key) == "params":
			f.params = v
		case string(key) == "result":
			f.result = v
		case string(key) == "error":
			if f.sawError {
				return false // encoding/json merges the two objects
			}
			f.sawError = true
			f.err, ok = errorMember(v)
		default:
			return !jsonscan.Folds(key, "jsonrpc", "id", "method", "params", "result", "error")
		}
		return ok
	})
}

// stringMember decodes a member of type *string: a string, or null (absent).
// ok is false for anything else.
func stringMember(v []byte) (s string, present, ok bool) {
	if jsonscan.IsNull(v) {
		return "", false, true
	}
	s, ok = jsonscan.String(v)
	return s, ok, ok
}

// errorMember decodes the "error" member: an object, or null (absent).
func errorMember(v []byte) (*Error, bool) {
	if jsonscan.IsNull(v) {
		return nil, true
	}
	e := new(Error)
	ok := jsonscan.Object(v, func(key []byte, escaped bool, v []byte) bool {
		switch {
		case escaped:
			return false
		case string(key) == "code":
			if jsonscan.IsNull(v) {
				return true // null leaves a number as it was
			}
			n, err := strconv.ParseInt(string(v), 10, 64)
			if err != nil {
				return false // not an integer: encoding/json says what it is
			}
			e.Code = n
		case string(key) == "message":
			if jsonscan.IsNull(v) {
				return true
			}
			s, ok := jsonscan.String(v)
			if !ok {
				return false
			}
			e.Message = s
		case string(key) == "data":
			e.Data = v
		default:
			return !jsonscan.Folds(key, "code", "message", "data")
		}
		return true
	})
	return e, ok
}

func describe(m *Message) string {
	switch {
	case m.IsRequest():
		return fmt.Sprintf("request %s %q", m.ID, m.Method)
	case m.IsNotification():
		return fmt.Sprintf("notification %q", m.Method)
	default:
		return fmt.Sprintf("response %s", m.ID)
	}
}
