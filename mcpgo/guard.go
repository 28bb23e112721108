package mcpgo

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"reflect"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcptestkit/mcptestkit/guard"
	"github.com/mcptestkit/mcptestkit/mcpgo/internal/contract"
)

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
// A nil logger means [slog.Default]; [guard.ToolErrorsAsResults] is its one
// option.
//
// The guard's own logging never crashes the server it protects: a record
// whose handler panics is lost, and the first such loss is said in one line
// on standard error.
func Guard(logger *slog.Logger, opts ...guard.Option) server.ServerOption {
	g := guarded{contract.New(logger, opts)}
	return func(s *server.MCPServer) {
		server.WithToolHandlerMiddleware(g.tools)(s)
		server.WithResourceHandlerMiddleware(g.resources)(s)
		server.WithPromptHandlerMiddleware(g.prompts)(s)
	}
}

// guarded holds the middleware Guard adds.
type guarded struct{ report contract.Reporter }

func (g guarded) tools(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
		name := req.Params.Name
		defer func() {
			if v := recover(); v != nil {
				g.report.Panic(ctx, contract.MethodCallTool, name, v)
				res, err = mcp.NewToolResultError(contract.ToolCrashText(name)), nil
			}
		}()
		res, err = next(ctx, req)
		if res == nil && err == nil {
			g.report.Panic(ctx, contract.MethodCallTool, name, contract.NilResult)
			return mcp.NewToolResultError(contract.ToolCrashText(name)), nil
		}
		if err != nil {
			if _, elicit := asURLElicitationRequired(err); g.report.ToolErrorsAsResults && !elicit {
				g.report.ToolError(ctx, name, err.Error())
				return mcp.NewToolResultError(err.Error()), nil
			}
			g.report.RequestFailed(ctx, contract.MethodCallTool, name, handlerCode(ctx, req, err), err)
			return res, err
		}
		if res != nil && res.IsError {
			g.report.ToolError(ctx, name, toolErrorText(res))
		}
		return res, nil
	}
}

func (g guarded) resources(next server.ResourceHandlerFunc) server.ResourceHandlerFunc {
	return func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		uri := req.Params.URI
		c := call[mcp.ReadResourceRequest]{g.report, contract.MethodReadResource, uri, contract.ResourceCrashMessage(uri), handlerCode[mcp.ReadResourceRequest]}
		return guardCall(ctx, c, req, next)
	}
}

func (g guarded) prompts(next server.PromptHandlerFunc) server.PromptHandlerFunc {
	return func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		name := req.Params.Name
		c := call[mcp.GetPromptRequest]{g.report, contract.MethodGetPrompt, name, contract.PromptCrashMessage(name), handlerCode[mcp.GetPromptRequest]}
		return guardCall(ctx, c, req, next)
	}
}

// call describes one guarded call of a resource, prompt or completion
// handler, which fail the same way: with a Go error. Req is the request the
// handler gets.
type call[Req any] struct {
	report contract.Reporter
	method string
	name   string                                  // the URI or prompt name; "" for a completion
	crash  string                                  // the error message the client gets after a panic
	code   func(context.Context, Req, error) int64 // the code mcp-go sends for a returned error
}

// guardCall runs next(ctx, req) as c describes: a panic becomes the error
// c.crash, logged at ERROR with the stack; a returned error passes through,
// logged at INFO. req goes in as a value, not in a closure, so that a call
// that succeeds allocates nothing for the guard.
func guardCall[Req, R any](ctx context.Context, c call[Req], req Req, next func(context.Context, Req) (R, error)) (res R, err error) {
	defer func() {
		if v := recover(); v != nil {
			c.report.Panic(ctx, c.method, c.name, v)
			var zero R
			res, err = zero, errors.New(c.crash)
		}
	}()
	res, err = next(ctx, req)
	if err == nil && c.method != contract.MethodReadResource && isNilPointer(res) {
		// No contents is a resource's answer; no prompt or completion is
		// none at all.
		c.report.Panic(ctx, c.method, c.name, contract.NilResult)
		var zero R
		return zero, errors.New(c.crash)
	}
	if err != nil {
		c.report.RequestFailed(ctx, c.method, c.name, c.code(ctx, req, err), err)
	}
	return res, err
}

// methodComplete is the method completion providers serve.
// isNilPointer reports whether v is a nil pointer.
func isNilPointer(v any) bool {
	rv := reflect.ValueOf(v)
	return rv.Kind() == reflect.Pointer && rv.IsNil()
}

const methodComplete = string(mcp.MethodCompletionComplete)

// GuardPromptCompletions wraps a prompt completion provider so that a panic
// in it is answered with -32603 "Internal server error" and logged at ERROR
// ([guard.MsgPanic], with method, panic and stack), and a returned error is
// logged at INFO ([guard.MsgRequestFailed]). Install it with
//
//	server.WithPromptCompletionProvider(mcpgo.GuardPromptCompletions(logger, p))
//
// A nil logger means [slog.Default].
func GuardPromptCompletions(logger *slog.Logger, p server.PromptCompletionProvider) server.PromptCompletionProvider {
	return completions{report: contract.New(logger, nil), prompts: p}
}

// GuardResourceCompletions is [GuardPromptCompletions] for a resource
// completion provider:
//
//	server.WithResourceCompletionProvider(mcpgo.GuardResourceCompletions(logger, p))
func GuardResourceCompletions(logger *slog.Logger, p server.ResourceCompletionProvider) server.ResourceCompletionProvider {
	return completions{report: contract.New(logger, nil), resources: p}
}

// completions is a guarded completion provider: of prompts or of resources.
type completions struct {
	report    contract.Reporter
	prompts   server.PromptCompletionProvider
	resources server.ResourceCompletionProvider
}

func (g completions) CompletePromptArgument(ctx context.Context, prompt string, arg mcp.CompleteArgument, cc mcp.CompleteContext) (*mcp.Completion, error) {
	return guardCall(ctx, g.call(), struct{}{}, func(ctx context.Context, _ struct{}) (*mcp.Completion, error) {
		return g.prompts.CompletePromptArgument(ctx, prompt, arg, cc)
	})
}

func (g completions) CompleteResourceArgument(ctx context.Context, uri string, arg mcp.CompleteArgument, cc mcp.CompleteContext) (*mcp.Completion, error) {
	return guardCall(ctx, g.call(), struct{}{}, func(ctx context.Context, _ struct{}) (*mcp.Completion, error) {
		return g.resources.CompleteResourceArgument(ctx, uri, arg, cc)
	})
}

// call describes a guarded completion: mcp-go sends every error a provider
// returns as -32603.
func (g completions) call() call[struct{}] {
	return call[struct{}]{report: g.report, method: methodComplete, crash: contract.InternalMessage,
		code: func(context.Context, struct{}, error) int64 { return contract.CodeInternalError }}
}

// handlerCode returns the code mcp-go sends for an error a handler returned
// for req: -32603, except a URL elicitation's own code (-32042) on a legacy
// request where the linked mcp-go release keeps it.
func handlerCode[Req any](ctx context.Context, req Req, err error) int64 {
	required, ok := asURLElicitationRequired(err)
	if !ok || !elicitationCodeKept() || modernVersion(requestVersion(ctx, req)) {
		return contract.CodeInternalError
	}
	return int64(required.JSONRPCError().Error.Code)
}

// elicitationCodeKept reports whether the linked mcp-go release answers a
// handler's URL elicitation error with its own code on a legacy request
// (v1.2.0 and later) rather than with -32603 (every release before). It
// asks mcp-go itself, once, with a throwaway server, so that it is right for
// any release, fork or replacement and names no API newer than the oldest
// release this module supports.
var elicitationCodeKept = sync.OnceValue(func() bool {
	s := server.NewMCPServer("mcpgo-guard-probe", "0")
	s.AddTool(mcp.NewTool("elicit"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, mcp.URLElicitationRequiredError{Elicitations: []mcp.ElicitationParams{}}
	})
	resp := s.HandleMessage(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"elicit","arguments":{}}}`))
	b, err := json.Marshal(resp)
	if err != nil {
		return false
	}
	var r struct {
		Error struct{ Code int } `json:"error"`
	}
	return json.Unmarshal(b, &r) == nil && r.Error.Code == mcp.URL_ELICITATION_REQUIRED
})

// requestVersion returns the protocol version in effect for req, as mcp-go
// works it out: the version the request declares in _meta (2026-07-28 and
// later), else the one the session negotiated. It uses no API newer than
// the oldest supported release: the request is read through its JSON (older
// releases do not decode _meta for every method; they speak no 2026-07-28
// either) and the session through the method it has.
func requestVersion(ctx context.Context, req any) string {
	var m struct {
		Params struct {
			Meta struct {
				ProtocolVersion string `json:"io.modelcontextprotocol/protocolVersion"`
			} `json:"_meta"`
		} `json:"params"`
	}
	if b, err := json.Marshal(req); err == nil && json.Unmarshal(b, &m) == nil && m.Params.Meta.ProtocolVersion != "" {
		return m.Params.Meta.ProtocolVersion
	}
	if s, ok := server.ClientSessionFromContext(ctx).(interface{ ProtocolVersion() string }); ok {
		return s.ProtocolVersion()
	}
	return ""
}

// modernVersion reports whether version is 2026-07-28 or later: a request
// of the per-request era. Versions are dates, so they compare as strings.
func modernVersion(version string) bool { return version >= "2026-07-28" }

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
