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
