package gosdk

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptestkit/mcptestkit/gosdk/internal/contract"
	"github.com/mcptestkit/mcptestkit/guard"
)

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
// A nil logger means [slog.Default]; [guard.ToolErrorsAsResults] is its one
// option.
//
// The guard's own logging never crashes the server it protects: a record
// whose handler panics is lost, and the first such loss is said in one line
// on standard error.
func Guard(logger *slog.Logger, opts ...guard.Option) mcp.Middleware {
	report := contract.New(logger, opts)
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
			defer func() {
				if v := recover(); v != nil {
					name := subject(req)
					report.Panic(ctx, method, name, v)
					res, err = crashResponse(method, name)
					if r, ok := res.(*mcp.CallToolResult); ok {
						res = toolResult(req, r)
					}
				}
			}()
			res, err = next(ctx, method, req)
			if err == nil && isNil(res) && !strings.HasPrefix(method, "notifications/") {
				// go-sdk dereferences a request's nil result (at
				// 2026-07-28) or sends null: either way the handler
				// failed, as if it had panicked.
				name := subject(req)
				report.Panic(ctx, method, name, contract.NilResult)
				return crashResponse(method, name)
			}
			return observe(ctx, report, method, req, res, err)
		}
	}
}

// observe logs a handler's failure and returns its response, turned into a
// tool result if the configuration asks for it.
func observe(ctx context.Context, report contract.Reporter, method string, req mcp.Request, res mcp.Result, err error) (mcp.Result, error) {
	if err == nil {
		if r, ok := res.(*mcp.CallToolResult); ok && r != nil && r.IsError {
			report.ToolError(ctx, subject(req), toolErrorText(r))
		}
		return res, nil
	}
	var wire *jsonrpc.Error
	if !errors.As(err, &wire) {
		if method == contract.MethodCallTool && report.ToolErrorsAsResults {
			report.ToolError(ctx, subject(req), err.Error())
			return toolResult(req, &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}), nil
		}
		wire = &jsonrpc.Error{} // the SDK sends an error that carries no code with code 0
	}
	report.RequestFailed(ctx, method, subject(req), wire.Code, err)
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

// errorKeeper is what a *mcp.CallToolResult has from go-sdk v1.3.1 on: the
// Go error a typed tool returned. It is asserted, not called directly, so
// that the guard builds with older releases, where the result's text is that
// error's text anyway.
type errorKeeper interface{ GetError() error }

// toolErrorText returns the error a tool reported: the Go error the SDK kept
// for a typed tool, or else the result's text content.
func toolErrorText(r *mcp.CallToolResult) string {
	if k, ok := any(r).(errorKeeper); ok {
		if err := k.GetError(); err != nil {
			return err.Error()
		}
	}
	var texts []string
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			texts = append(texts, tc.Text)
		}
	}
	return strings.Join(texts, "\n")
}
