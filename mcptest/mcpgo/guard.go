package mcpgo

import (
	"context"
	"errors"
	"log/slog"
	"runtime/debug"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcptestkit/mcptestkit/internal/guard"
)

// The log messages of [Guard]. Tests assert on them, so they are part of the
// API and are the same in mcptest/gosdk.
const (
	// MsgToolPanic (ERROR) is logged when a tool handler panics; attributes
	// method, tool, panic and stack.
	MsgToolPanic = guard.MsgToolPanic
	// MsgResourcePanic (ERROR) is logged when reading a resource panics;
	// attributes method, uri, panic and stack.
	MsgResourcePanic = guard.MsgResourcePanic
	// MsgPromptPanic (ERROR) is logged when a prompt handler panics;
	// attributes method, prompt, panic and stack.
	MsgPromptPanic = guard.MsgPromptPanic
	// MsgPanic (ERROR) is logged when a guarded completion provider panics
	// ([GuardPromptCompletions], [GuardResourceCompletions]); attributes
	// method, panic and stack.
	MsgPanic = guard.MsgPanic
	// MsgToolError (INFO) is logged when a tool returns an error result;
	// attributes method, tool and error. It has no stack: the failure was
	// expected.
	MsgToolError = guard.MsgToolError
	// MsgRequestFailed (INFO) is logged when a guarded handler returns a Go
	// error, which mcp-go sends as a JSON-RPC error; attributes method, code,
	// error, and tool, uri or prompt when the method has one.
	MsgRequestFailed = guard.MsgRequestFailed
)

// The attribute keys of [Guard]'s records.
const (
	KeyMethod = guard.KeyMethod // the JSON-RPC method, on every record
	KeyTool   = guard.KeyTool   // the tool name (tools/call)
	KeyURI    = guard.KeyURI    // the resource URI (resources/read)
	KeyPrompt = guard.KeyPrompt // the prompt name (prompts/get)
	KeyPanic  = guard.KeyPanic  // the value given to panic, unchanged
	KeyStack  = guard.KeyStack  // the panicking goroutine's stack (a string)
	KeyError  = guard.KeyError  // the error text (a string)
	KeyCode   = guard.KeyCode   // the JSON-RPC error code (an int64)
)

// GuardOption configures [Guard].
type GuardOption func(*guardConfig)

type guardConfig struct {
	logger              *slog.Logger
	toolErrorsAsResults bool
}

// ToolErrorsAsResults makes a Go error returned by a tool handler an error
// result (isError: true, the error's text as content) that the model can
// read. Without it, mcp-go sends the error as a JSON-RPC -32603 error that
// the model never sees, which is rarely what a tool means (mcp-go#157). An
// [mcp.URLElicitationRequiredError] is still sent as a protocol error.
func ToolErrorsAsResults() GuardOption {
	return func(c *guardConfig) { c.toolErrorsAsResults = true }
}

// Guard returns a server option that gives an mcp-go server the error
// contract of the MCP Python SDK: a panicking tool, resource or prompt
// handler becomes an error that shows the client nothing of its cause, plus
// one ERROR record with the stack; an expected failure passes through, plus
// one INFO record. The package documentation tables what the client gets and
// what is logged in each case, and what mcp-go leaves out of reach. Give it
// first, so that it is the outermost middleware, or apply it to a server
// already built (then it is innermost):
//
//	srv := server.NewMCPServer("bookshop", "1.0", mcpgo.Guard(logger))
//	mcpgo.Guard(logger)(srv)
//
// A nil logger means [slog.Default].
func Guard(logger *slog.Logger, opts ...GuardOption) server.ServerOption {
	cfg := guardConfig{logger: logger}
	for _, o := range opts {
		o(&cfg)
	}
	return func(s *server.MCPServer) {
		server.WithToolHandlerMiddleware(cfg.tools)(s)
		server.WithResourceHandlerMiddleware(cfg.resources)(s)
		server.WithPromptHandlerMiddleware(cfg.prompts)(s)
	}
}

func (c guardConfig) tools(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
		name := req.Params.Name
		defer func() {
			if v := recover(); v != nil {
				// debug.Stack here, while the panicking frames are still on
				// the stack, so it names the function that panicked.
				guard.LogPanic(ctx, c.logger, guard.MethodCallTool, name, v, debug.Stack())
				res, err = mcp.NewToolResultError(guard.ToolCrashText(name)), nil
			}
		}()
		res, err = next(ctx, req)
		if err != nil {
			if _, elicit := asURLElicitationRequired(err); c.toolErrorsAsResults && !elicit {
				guard.LogToolError(ctx, c.logger, name, err.Error())
				return mcp.NewToolResultError(err.Error()), nil
			}
			guard.LogRequestFailed(ctx, c.logger, guard.MethodCallTool, name, handlerCode(ctx, err), err)
			return res, err
		}
		if res != nil && res.IsError {
			guard.LogToolError(ctx, c.logger, name, toolErrorText(res))
		}
		return res, nil
	}
}

func (c guardConfig) resources(next server.ResourceHandlerFunc) server.ResourceHandlerFunc {
	return func(ctx context.Context, req mcp.ReadResourceRequest) (contents []mcp.ResourceContents, err error) {
		uri := req.Params.URI
		defer func() {
			if v := recover(); v != nil {
				guard.LogPanic(ctx, c.logger, guard.MethodReadResource, uri, v, debug.Stack())
				contents, err = nil, errors.New(guard.ResourceCrashMessage(uri))
			}
		}()
		contents, err = next(ctx, req)
		if err != nil {
			guard.LogRequestFailed(ctx, c.logger, guard.MethodReadResource, uri, handlerCode(ctx, err), err)
		}
		return contents, err
	}
}

func (c guardConfig) prompts(next server.PromptHandlerFunc) server.PromptHandlerFunc {
	return func(ctx context.Context, req mcp.GetPromptRequest) (res *mcp.GetPromptResult, err error) {
		name := req.Params.Name
		defer func() {
			if v := recover(); v != nil {
				guard.LogPanic(ctx, c.logger, guard.MethodGetPrompt, name, v, debug.Stack())
				res, err = nil, errors.New(guard.PromptCrashMessage(name))
			}
		}()
		res, err = next(ctx, req)
		if err != nil {
			guard.LogRequestFailed(ctx, c.logger, guard.MethodGetPrompt, name, handlerCode(ctx, err), err)
		}
		return res, err
	}
}

// methodComplete is the method completion providers serve.
const methodComplete = string(mcp.MethodCompletionComplete)

// GuardPromptCompletions wraps a prompt completion provider so that a panic
// in it is answered with -32603 "Internal server error" and logged at ERROR
// ([MsgPanic], with method, panic and stack), and a returned error is logged
// at INFO ([MsgRequestFailed]). Install it with
//
//	server.WithPromptCompletionProvider(mcpgo.GuardPromptCompletions(logger, p))
//
// A nil logger means [slog.Default].
func GuardPromptCompletions(logger *slog.Logger, p server.PromptCompletionProvider) server.PromptCompletionProvider {
	return promptCompletions{logger, p}
}

type promptCompletions struct {
	logger *slog.Logger
	next   server.PromptCompletionProvider
}

func (g promptCompletions) CompletePromptArgument(ctx context.Context, prompt string, arg mcp.CompleteArgument, cc mcp.CompleteContext) (res *mcp.Completion, err error) {
	defer func() {
		if v := recover(); v != nil {
			guard.LogPanic(ctx, g.logger, methodComplete, "", v, debug.Stack())
			res, err = nil, errors.New(guard.InternalMessage)
		}
	}()
	res, err = g.next.CompletePromptArgument(ctx, prompt, arg, cc)
	if err != nil {
		guard.LogRequestFailed(ctx, g.logger, methodComplete, "", guard.CodeInternalError, err)
	}
	return res, err
}

// GuardResourceCompletions is [GuardPromptCompletions] for a resource
// completion provider:
//
//	server.WithResourceCompletionProvider(mcpgo.GuardResourceCompletions(logger, p))
func GuardResourceCompletions(logger *slog.Logger, p server.ResourceCompletionProvider) server.ResourceCompletionProvider {
	return resourceCompletions{logger, p}
}

type resourceCompletions struct {
	logger *slog.Logger
	next   server.ResourceCompletionProvider
}

func (g resourceCompletions) CompleteResourceArgument(ctx context.Context, uri string, arg mcp.CompleteArgument, cc mcp.CompleteContext) (res *mcp.Completion, err error) {
	defer func() {
		if v := recover(); v != nil {
			guard.LogPanic(ctx, g.logger, methodComplete, "", v, debug.Stack())
			res, err = nil, errors.New(guard.InternalMessage)
		}
	}()
	res, err = g.next.CompleteResourceArgument(ctx, uri, arg, cc)
	if err != nil {
		guard.LogRequestFailed(ctx, g.logger, methodComplete, "", guard.CodeInternalError, err)
	}
	return res, err
}

// handlerCode returns the code mcp-go sends for an error a handler returned:
// -32042 for a URL elicitation on a legacy session, else -32603.
func handlerCode(ctx context.Context, err error) int64 {
	if required, ok := asURLElicitationRequired(err); ok && !mcp.IsModernProtocol(server.RequestProtocolVersion(ctx)) {
		return int64(required.JSONRPCError().Error.Code)
	}
	return guard.CodeInternalError
}

// asURLElicitationRequired finds a URL elicitation error in err's chain, as
// a value or a pointer, the way mcp-go does.
func asURLElicitationRequired(err error) (mcp.URLElicitationRequiredError, bool) {
	var v mcp.URLElicitationRequiredError
	if errors.As(err, &v) {
		return v, true
	}
	var p *mcp.URLElicitationRequiredError
	if errors.As(err, &p) && p != nil {
		return *p, true
	}
	return v, false
}

// toolErrorText returns the text of an error result.
func toolErrorText(r *mcp.CallToolResult) string {
	var texts []string
	for _, c := range r.Content {
		switch tc := c.(type) {
		case mcp.TextContent:
			texts = append(texts, tc.Text)
		case *mcp.TextContent:
			texts = append(texts, tc.Text)
		}
	}
	return strings.Join(texts, "\n")
}
