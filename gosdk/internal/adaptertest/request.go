package adaptertest

import (
	"context"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client"
)

// A Request sends one request on a client and returns what the client got:
// a tool result (for tools/call), or the error.
type Request func(context.Context, *client.Client) (*client.CallToolResult, error)

// CallTool calls the tool name with args (nil for none).
func CallTool(name string, args map[string]any) Request {
	if args == nil {
		args = map[string]any{}
	}
	return func(ctx context.Context, c *client.Client) (*client.CallToolResult, error) {
		return c.CallTool(ctx, name, args)
	}
}

// ReadResource reads the resource uri.
func ReadResource(uri string) Request {
	return func(ctx context.Context, c *client.Client) (*client.CallToolResult, error) {
		_, err := c.ReadResource(ctx, uri)
		return nil, err
	}
}

// GetPrompt gets the prompt name, without arguments.
func GetPrompt(name string) Request {
	return func(ctx context.Context, c *client.Client) (*client.CallToolResult, error) {
		_, err := c.GetPrompt(ctx, name, nil)
		return nil, err
	}
}

// Complete asks for completions of the argument arg of ref.
func Complete(ref client.CompleteReference, arg string) Request {
	return func(ctx context.Context, c *client.Client) (*client.CallToolResult, error) {
		_, err := c.Complete(ctx, &client.CompleteRequest{Ref: ref, Argument: arg, Value: "A"})
		return nil, err
	}
}

// Call calls the tool name with args (nil for none) and requires that the
// request succeeded; the result may still be a tool error.
func Call(t testing.TB, c *client.Client, name string, args map[string]any) *client.CallToolResult {
	t.Helper()
	res, err := CallTool(name, args)(t.Context(), c)
	require.NoError(t, err, "calling %s", name)
	return res
}

// CallWithProgress calls the tool name n times, each call with its own
// progress token: prefix followed by the call's number. The token is a
// string of the test's choosing, so that a test can tell whose notification
// a client got.
func CallWithProgress(t testing.TB, c *client.Client, name, prefix string, n int) {
	t.Helper()
	for i := range n {
		_, err := c.CallTool(t.Context(), name, map[string]any{}, client.WithMeta(client.Meta{"progressToken": prefix + strconv.Itoa(i)}))
		require.NoError(t, err, "call %d", i)
	}
}
