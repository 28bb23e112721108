package gosdk

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"runtime/debug"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptestkit/mcptestkit/guard/internal/contract"
)

// GuardOption configures [Guard].
type GuardOption func(*guardConfig)

type guardConfig struct {
	logger              *slog.Logger
	toolErrorsAsResults bool
}

// ToolErrorsAsResults makes a plain Go error from a tool handler an error
// result (isError: true, the error's text as content) that the model can
// read, instead of a JSON-RPC error with code 0. Tools added with
// [mcp.AddTool] already behave this way; this option gives the same contract
// to handlers added with [mcp.Server.AddTool]. An error that is or wraps a
// [*jsonrpc.Error] is still a protocol error.
func ToolErrorsAsResults() GuardOption {
	return func(c *guardConfig) { c.toolErrorsAsResults = true }
}

// Guard returns a receiving middleware that gives a go-sdk server the error
// contract of the MCP Python SDK: a panicking handler becomes an error that
// shows the client nothing of its cause, plus one ERROR record with the
// stack; an expected failure passes through unchanged, plus one INFO record.
// The package documentation tables what the client gets and what is logged
// in each case. Install it after any other middleware, so that it is
// outermost:
//
//	srv.AddReceivingMiddleware(gosdk.Guard(logger))
//
// A nil logger means [slog.Default].
func Guard(logger *slog.Logger, opts ...GuardOption) mcp.Middleware {
	cfg := guardConfig{logger: logger}
	for _, o := range opts {
		o(&cfg)
	}
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
			defer func() {
				if v := recover(); v != nil {
					// debug.Stack here, while the panicking frames are still
					// on the stack, so it names the function that panicked.
					stack := debug.Stack()
					name := subject(req)
					contract.LogPanic(ctx, cfg.logger, method, name, v, stack)
					res, err = crashResponse(method, name)
				}
			}()
			res, err = next(ctx, method, req)
			return cfg.observe(ctx, method, req, res, err)
		}
	}
}

// observe logs a handler's failure and returns its response, turned into a
// tool result if the configuration asks for it.
func (c guardConfig) observe(ctx context.Context, method string, req mcp.Request, res mcp.Result, err error) (mcp.Result, error) {
	if err == nil {
		if r, ok := res.(*mcp.CallToolResult); ok && r != nil && r.IsError {
			contract.LogToolError(ctx, c.logger, subject(req), toolErrorText(r))
		}
		return res, nil
	}
	var wire *jsonrpc.Error
	if !errors.As(err, &wire) {
		if method == contract.MethodCallTool && c.toolErrorsAsResults {
			contract.LogToolError(ctx, c.logger, subject(req), err.Error())
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}, nil
		}
		wire = &jsonrpc.Error{} // the SDK sends an error that carries no code with code 0
	}
	contract.LogRequestFailed(ctx, c.logger, method, subject(req), wire.Code, err)
	return res, err
}

// crashResponse is what the client gets after a panic: nothing of the panic
// itself, which may describe the server's internals.
func crashResponse(method, name string) (mcp.Result, error) {
	switch method {
	case contract.MethodCallTool:
		return &mcp.CallToolResult{
			IsError: true,
			Content: []mcp.Content{&mcp.TextContent{Text: contract.ToolCrashText(name)}},
		}, nil
	case contract.MethodReadResource:
		data, _ := json.Marshal(map[string]string{"uri": name}) // a map of strings always marshals
		return nil, &jsonrpc.Error{Code: contract.CodeInternalError, Message: contract.ResourceCrashMessage(name), Data: data}
	case contract.MethodGetPrompt:
		return nil, &jsonrpc.Error{Code: contract.CodeInternalError, Message: contract.PromptCrashMessage(name)}
	}
	return nil, &jsonrpc.Error{Code: contract.CodeInternalError, Message: contract.InternalMessage}
}

// toolErrorText returns the error a tool reported: the Go error the SDK kept
// for a typed tool, or else the result's text content.
func toolErrorText(r *mcp.CallToolResult) string {
	if err := r.GetError(); err != nil {
		return err.Error()
	}
	var texts []string
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			texts = append(texts, tc.Text)
		}
	}
	return strings.Join(texts, "\n")
}
