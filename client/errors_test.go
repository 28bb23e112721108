package client

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/internal/jsonrpc"
)

// The answers real servers give to resources/read of a URI they do not
// have (testdata/resource-not-found.jsonl, written from the SDKs' sources
// and recorded runs), and a few errors that look alike but are not.
func TestIsResourceNotFoundRealServers(t *testing.T) {
	t.Parallel()
	f, err := os.Open("testdata/resource-not-found.jsonl")
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		var tc struct {
			Server   string          `json:"server"`
			URI      string          `json:"uri"`
			Frame    json.RawMessage `json:"frame"`
			NotFound bool            `json:"notFound"`
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &tc))
		m, err := jsonrpc.Decode(tc.Frame)
		require.NoError(t, err, tc.Server)
		require.NotNil(t, m.Error, tc.Server)
		e := fromWire(op{method: methodReadResource, name: tc.URI}, m.Error)
		assert.Equal(t, tc.NotFound, IsResourceNotFound(e), "%s: %v", tc.Server, e)
		n++
	}
	require.NoError(t, sc.Err())
	assert.GreaterOrEqual(t, n, 10)

	// The message must name the resource read: another URI is another error.
	other := &Error{Code: CodeInvalidParams, Message: "MCP error -32602: Resource memory://other not found", Method: methodReadResource, Name: "memory://nope"}
	assert.False(t, IsResourceNotFound(other))
	// Without a request (an error built by hand) "resource" stands for the URI.
	assert.True(t, IsResourceNotFound(&Error{Code: CodeInvalidParams, Message: "resource not found"}))
	// Another method's not-found is not a resource's.
	assert.False(t, IsResourceNotFound(&Error{Code: CodeInvalidParams, Message: "tool 'resource' not found: tool not found", Method: "tools/call", Name: "resource"}))
	assert.False(t, IsResourceNotFound(&Error{Code: CodeLegacyResourceNotFound, Method: "tools/call"}))
	assert.False(t, IsResourceNotFound(nil))
}

// A tools/call answered with an error a handler made (go-sdk's code 0 for a
// plain Go error, -32603, a server's own code) says what kind of failure
// that is; an error about the request itself (unknown tool, bad arguments),
// or any other method's, is worded as it came.
func TestErrorTextOfAToolCall(t *testing.T) {
	t.Parallel()
	const why = " (a protocol error, which a client need not show the model; a tool failure for the model to read is a result with isError: true)"
	for _, tc := range []struct {
		err  *Error
		want string
	}{
		{&Error{Code: 0, Message: "Order 99 not found", Method: methodCallTool, Name: "get_order"}, `tools/call "get_order": error 0: Order 99 not found` + why},
		{&Error{Code: CodeInternalError, Message: "db down", Data: json.RawMessage(`{"retry":true}`), Method: methodCallTool, Name: "get_order"},
			`tools/call "get_order": error -32603: db down (data: {"retry":true})` + why},
		{&Error{Code: -32001, Message: "quota", Method: methodCallTool, Name: "t"}, `tools/call "t": error -32001: quota` + why},
		{&Error{Code: CodeInvalidParams, Message: "unknown tool", Method: methodCallTool, Name: "t"}, `tools/call "t": error -32602: unknown tool`},
		{&Error{Code: CodeMethodNotFound, Message: "requires task augmentation", Method: methodCallTool, Name: "t"}, `tools/call "t": error -32601: requires task augmentation`},
		{&Error{Code: CodeURLElicitationRequired, Message: "authorize", Method: methodCallTool, Name: "t"}, `tools/call "t": error -32042: authorize`},
		{&Error{Code: 0, Message: "no such book", Method: methodReadResource, Name: "books://x"}, `resources/read "books://x": error 0: no such book`},
		{&Error{Code: 0, Message: "sent"}, `error 0: sent`},
	} {
		assert.Equal(t, tc.want, tc.err.Error())
	}
}
