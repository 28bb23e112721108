package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mcptestkit/mcptestkit/internal/jsonrpc"
)

// Error codes a server may answer with. The first five are standard JSON-RPC;
// the rest are MCP's.
const (
	CodeParseError     int64 = jsonrpc.CodeParseError     // -32700: the peer could not parse the JSON
	CodeInvalidRequest int64 = jsonrpc.CodeInvalidRequest // -32600: not a valid request object
	CodeMethodNotFound int64 = jsonrpc.CodeMethodNotFound // -32601: unknown method, or a capability not advertised
	CodeInvalidParams  int64 = jsonrpc.CodeInvalidParams  // -32602: unknown tool or prompt, bad arguments, ...
	CodeInternalError  int64 = jsonrpc.CodeInternalError  // -32603: a fault in the server

	// CodeHeaderMismatch (2026-07-28): an HTTP header disagrees with the
	// body. [Client.CallTool] handles it once by listing the tools again.
	CodeHeaderMismatch int64 = -32020
	// CodeMissingRequiredClientCapability (2026-07-28): the request needs a
	// client capability the client did not declare; data holds
	// {requiredCapabilities}.
	CodeMissingRequiredClientCapability int64 = -32021
	// CodeUnsupportedProtocolVersion (2026-07-28): the server does not speak
	// the requested version; data holds {supported, requested}.
	CodeUnsupportedProtocolVersion int64 = -32022
	// CodeURLElicitationRequired (2025-11-25 only): the request needs the URL
	// elicitations listed in data.elicitations first.
	CodeURLElicitationRequired int64 = -32042

	// CodeResourceNotFound is how 2026-07-28 servers (and go-sdk at every
	// version) report an unknown resource URI: invalid params, with data.uri.
	CodeResourceNotFound int64 = jsonrpc.CodeInvalidParams
	// CodeLegacyResourceNotFound is the resource-not-found code of 2024-11-05
	// to 2025-11-25, still sent by mcp-go on legacy connections.
	CodeLegacyResourceNotFound int64 = -32002

	// CodeUserRejected is the code a client answers a sampling request with
	// when the user declines it (legacy sampling).
	CodeUserRejected int64 = -1
)

// ErrClosed ("client: connection closed") is wrapped by every error a
// [Client] returns because its connection has ended: [Client.Close] was
// called, the transport failed, or the server went away; the transport's own
// error is wrapped as well, as the cause. Test for it with errors.Is. It is
// the kit's one sentinel for a closed MCP connection: the transports of
// package transport return errors that match it after their Close too.
var ErrClosed = jsonrpc.ErrClosed

// Error is a JSON-RPC error response from the server, exactly as it came: the
// code is never rewritten (go-sdk sends code 0 for plain handler errors, and
// that is what Code holds) and Data is the raw JSON of the "data" member.
// Recover it with errors.As and compare its Code:
//
//	var e *client.Error
//	if errors.As(err, &e) && e.Code == client.CodeInvalidParams { ... }
//
// Callbacks may also return an *Error to answer a server request with that
// exact error (for example [CodeUserRejected] for a declined sampling).
type Error struct {
	// Code is the JSON-RPC error code, as received (see the Code constants).
	Code int64
	// Message is the server's error message.
	Message string
	// Data is the raw JSON of the "data" member; nil when absent.
	Data json.RawMessage
	// Method is the request that failed ("tools/call"); empty when the error
	// is sent rather than received.
	Method string
	// Name is what the request was about: the tool (tools/call), the prompt
	// (prompts/get), the URI (resources/read, resources/subscribe,
	// resources/unsubscribe) or the task id (tasks/get, tasks/result,
	// tasks/cancel, tasks/update); empty for other requests.
	Name string
}

// Error implements the error interface:
// `tools/call "add": error -32602: invalid arguments (data: {...})`. A
// tools/call error that is not about the request itself (code 0, -32603, a
// server's own code) adds that a tool's failure belongs in an isError result.
func (e *Error) Error() string {
	var b strings.Builder
	if e.Method != "" {
		b.WriteString(op{e.Method, e.Name}.String())
		b.WriteString(": ")
	}
	fmt.Fprintf(&b, "error %d: %s", e.Code, e.Message)
	if len(e.Data) > 0 {
		b.WriteString(" (data: ")
		b.Write(e.Data)
		b.WriteByte(')')
	}
	if e.Method == methodCallTool && !requestFault(e.Code) {
		// A handler's failure sent as an error response is easily taken for
		// a tool's failure, which the protocol puts in the result instead.
		b.WriteString(" (a protocol error, which a client need not show the model; a tool failure for the model to read is a result with isError: true)")
	}
	return b.String()
}

// requestFault reports whether code is one the protocol gives a fault of the
// request itself (unparsable, unknown method or tool, bad arguments, a
// missing capability or version), rather than of what the handler did.
func requestFault(code int64) bool {
	switch code {
	case CodeParseError, CodeInvalidRequest, CodeMethodNotFound, CodeInvalidParams,
		CodeHeaderMismatch, CodeMissingRequiredClientCapability, CodeUnsupportedProtocolVersion, CodeURLElicitationRequired:
		return true
	}
	return false
}

// DataField decodes one member of Data into v. It reports false when Data is
// not an object, lacks the member, or the member does not decode into v.
func (e *Error) DataField(name string, v any) bool {
	if len(e.Data) == 0 {
		return false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(e.Data, &m) != nil {
		return false
	}
	raw, ok := m[name]
	if !ok {
		return false
	}
	return json.Unmarshal(raw, v) == nil
}

// IsResourceNotFound reports whether err is a server's "resource not found",
// in any of the shapes real servers send it:
//
//   - code -32002, the code of 2024-11-05 to 2025-11-25 (mcp-go on legacy
//     connections, go-sdk on request);
//   - code -32602 with a data.uri member, the 2026-07-28 form (go-sdk at
//     every version, the Python SDK);
//   - code -32602 without data whose message says the resource was not
//     found, naming it: the request's URI ([Error.Name]) where the client
//     knows it, as the TypeScript SDK ("Resource memory://nope not found")
//     and mcp-go at 2026-07-28 ("handler not found for resource URI
//     'file:///x': resource not found") send it.
//
// An error answering a request other than resources/read, subscribe or
// unsubscribe is never one.
func IsResourceNotFound(err error) bool {
	var e *Error
	if !errors.As(err, &e) {
		return false
	}
	if e.Method != "" && !strings.HasPrefix(e.Method, "resources/") {
		return false
	}
	switch e.Code {
	case CodeLegacyResourceNotFound:
		return true
	case CodeResourceNotFound:
		var uri string
		if e.DataField("uri", &uri) {
			return true
		}
		msg := strings.ToLower(e.Message)
		if !strings.Contains(msg, "not found") && !strings.Contains(msg, "unknown resource") {
			return false
		}
		if e.Name != "" {
			return strings.Contains(e.Message, e.Name)
		}
		return strings.Contains(msg, "resource")
	}
	return false
}

// versionsOffered reports whether err is a -32022 (unsupported protocol
// version) error and returns the versions the server listed in data.supported.
func versionsOffered(err error) (supported []string, ok bool) {
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeUnsupportedProtocolVersion {
		return nil, false
	}
	e.DataField("supported", &supported)
	return supported, true
}

// fromWire converts a decoded JSON-RPC error into the client's error type,
// keeping code, message and data exactly. Data is copied: the decoded one
// shares the transport's frame (see [jsonrpc.Decode]).
func fromWire(o op, w *jsonrpc.Error) *Error {
	return &Error{Code: w.Code, Message: w.Message, Data: bytes.Clone(w.Data), Method: o.method, Name: o.name}
}

// closedError is the error every call gets once the connection has ended. It
// wraps ErrClosed and, when there was one, the cause.
type closedError struct{ cause error }

// Error implements the error interface.
func (e *closedError) Error() string {
	if e.cause == nil {
		return ErrClosed.Error()
	}
	return ErrClosed.Error() + ": " + e.cause.Error()
}

// Unwrap returns ErrClosed and the cause, for errors.Is.
func (e *closedError) Unwrap() []error {
	if e.cause == nil {
		return []error{ErrClosed}
	}
	return []error{ErrClosed, e.cause}
}
