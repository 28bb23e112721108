package sdktest

import (
	"context"
	"strconv"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// A Request sends one request on a client session and returns what the
// client got: a tool result (for tools/call), or the error.
type Request func(context.Context, *mcp.ClientSession) (*mcp.CallToolResult, error)

// CallTool calls the tool name with args (nil for none).
func CallTool(name string, args map[string]any) Request {
	if args == nil {
		args = map[string]any{}
	}
	return func(ctx context.Context, cs *mcp.ClientSession) (*mcp.CallToolResult, error) {
		return cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	}
}

// ReadResource reads the resource uri.
func ReadResource(uri string) Request {
	return func(ctx context.Context, cs *mcp.ClientSession) (*mcp.CallToolResult, error) {
		_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		return nil, err
	}
}

// GetPrompt gets the prompt name, without arguments.
func GetPrompt(name string) Request {
	return func(ctx context.Context, cs *mcp.ClientSession) (*mcp.CallToolResult, error) {
		_, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: name})
		return nil, err
	}
}

// Complete asks for completions of the argument arg of ref.
func Complete(ref *mcp.CompleteReference, arg string) Request {
	return func(ctx context.Context, cs *mcp.ClientSession) (*mcp.CallToolResult, error) {
		_, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: ref, Argument: mcp.CompleteParamsArgument{Name: arg, Value: "A"}})
		return nil, err
	}
}

// Call calls the tool name with args (nil for none) and requires that the
// request succeeded; the result may still be a tool error.
func Call(t testing.TB, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := CallTool(name, args)(t.Context(), cs)
	require.NoError(t, err, "calling %s", name)
	return res
}

// CallWithProgress calls the tool name n times, each call with its own
// progress token: prefix followed by the call's number.
func CallWithProgress(t testing.TB, cs *mcp.ClientSession, name, prefix string, n int) {
	t.Helper()
	for i := range n {
		params := &mcp.CallToolParams{Name: name, Arguments: map[string]any{}}
		params.SetProgressToken(prefix + strconv.Itoa(i))
		_, err := cs.CallTool(t.Context(), params)
		require.NoError(t, err, "call %d", i)
	}
}
