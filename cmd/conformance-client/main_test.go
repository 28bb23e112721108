package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func getenv(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestRunRefusesBadInvocations(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		env  map[string]string
		code int
		want string
	}{
		{"no URL", nil, map[string]string{"MCP_CONFORMANCE_SCENARIO": "initialize"}, 2, "usage"},
		{"unknown scenario", []string{"http://127.0.0.1:1/mcp"}, map[string]string{"MCP_CONFORMANCE_SCENARIO": "nope"}, 1, `unknown scenario "nope"`},
		{"bad context", []string{"http://127.0.0.1:1/mcp"},
			map[string]string{"MCP_CONFORMANCE_SCENARIO": "auth/pre-registration", "MCP_CONFORMANCE_CONTEXT": "{"}, 1, "not valid JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stderr bytes.Buffer
			code := run(t.Context(), tc.args, getenv(tc.env), &stderr)
			assert.Equal(t, tc.code, code)
			assert.Contains(t, stderr.String(), tc.want)
		})
	}
}

func TestSchemaDefaults(t *testing.T) {
	got, err := schemaDefaults(json.RawMessage(`{"type":"object","properties":{
		"name":{"type":"string","default":"John Doe"},"age":{"type":"integer","default":30},
		"ok":{"type":"boolean","default":false},"free":{"type":"string"}}}`))
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"name": "John Doe", "age": float64(30), "ok": false}, got)

	_, err = schemaDefaults(json.RawMessage(`[`))
	assert.ErrorContains(t, err, "requestedSchema")
}

// TestToolsCall runs the tools_call scenario's client side against a go-sdk
// server on 127.0.0.1 that has the tool the suite's mock offers.
func TestToolsCall(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "adder", Version: "1"}, nil)
	type args struct {
		A float64 `json:"a"`
		B float64 `json:"b"`
	}
	var got []args
	mcp.AddTool(server, &mcp.Tool{Name: "add_numbers"}, func(_ context.Context, _ *mcp.CallToolRequest, in args) (*mcp.CallToolResult, any, error) {
		got = append(got, in)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("The sum of %v and %v is %v", in.A, in.B, in.A+in.B)}}}, nil, nil
	})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{Stateless: true}))
	defer srv.Close()

	var stderr bytes.Buffer
	code := run(t.Context(), []string{srv.URL}, getenv(map[string]string{"MCP_CONFORMANCE_SCENARIO": "tools_call"}), &stderr)
	require.Equal(t, 0, code, stderr.String())
	assert.Equal(t, []args{{5, 3}}, got)
}
