// Package mcpgo is the crash guard for a server built with
// github.com/mark3labs/mcp-go. It is production code: the server imports
// it, and it imports neither testing nor the test kit.
//
// [Guard] gives the server the error contract of the MCP Python SDK: a
// panicking tool, resource or prompt handler becomes an error that tells the
// client nothing of its cause plus one ERROR log record with the stack,
// instead of a dead process; an expected failure passes through and is
// logged at INFO. The records' messages and keys are in package guard.
//
// Guard is a server option that adds a tool, a resource and a prompt handler
// middleware. mcp-go runs middleware in the order it was added, first
// outermost, so give Guard before your other middleware (and before
// [server.WithLogger] or [server.WithRecovery]) to recover panics in them
// too. Applied to a server built elsewhere, it is innermost: it covers the
// handlers but not the middleware added before it.
//
//	srv := server.NewMCPServer("bookshop", "1.0", mcpgo.Guard(logger), server.WithLogger(logger))
//	mcpgo.Guard(logger)(srv)
//
// mcp-go has no middleware for other methods. Wrap completion providers
// with [GuardPromptCompletions] and [GuardResourceCompletions]:
//
//	server.WithPromptCompletionProvider(mcpgo.GuardPromptCompletions(logger, p))
//
// A nil logger means [slog.Default]. [guard.ToolErrorsAsResults] makes a Go error
// returned by a tool handler an error result the model can read.
//
// The guard works with every mcp-go release from v0.46.0, the first with
// prompt handler middleware (the module requires it, so that installing the
// guard does not move a server's mcp-go), to v1.2.1; server.WithLogger is a
// server option from v0.58.0.
//
// # What the client sees, and what is logged
//
//	the handler ...                   the client gets                              logged
//	panics in a tool                  a result, isError: true, exactly the text    ERROR MsgToolPanic
//	                                  "Error executing tool <name>"
//	panics reading a resource         JSON-RPC -32603 "Error reading resource      ERROR MsgResourcePanic
//	(static or template)              <uri>", no data (see Limits)
//	panics in a prompt                -32603 "Error rendering prompt <name>"       ERROR MsgPromptPanic
//	panics in a guarded completion    -32603 "Internal server error"               ERROR MsgPanic
//	provider
//	returns a nil result and a nil    as if it had panicked (above); the record's  ERROR, as above
//	error (a tool, prompt, guarded    panic value says it returned nothing
//	completion)
//	returns a tool error result       the result, unchanged                        INFO  MsgToolError
//	(mcp.NewToolResultError)
//	returns a Go error                -32603 with the error's text (-32042 for a   INFO  MsgRequestFailed
//	                                  URL elicitation on a legacy request, from
//	                                  mcp-go v1.2.0)
//	returns a Go error from a tool,   a result, isError: true, the error's text    INFO  MsgToolError
//	with ToolErrorsAsResults
//	succeeds                          the result                                   nothing
//
// # Limits
//
// Besides those of package guard, where mcp-go cannot give the contract, or
// Guard cannot reach:
//
//   - mcp-go sends every error a handler returns as -32603 with the error's
//     text: a handler cannot choose the code or add data. So a crashed
//     resource read cannot carry data {"uri": ...} as it does with go-sdk,
//     and a resource template cannot answer "not found": a handler that
//     returns (or wraps) server.ErrResourceNotFound still gets -32603. Only
//     mcp-go's own answer to a URI that no resource or template matches is
//     "not found" (-32002 before 2026-07-28, -32602 from it, never with
//     data): add one resource per item rather than a template when "not
//     found" matters (examples/bookshop-mcpgo does).
//   - A Go error from a tool handler is a JSON-RPC -32603 error, which the
//     model never reads (mcp-go#157), unless [guard.ToolErrorsAsResults] is given;
//     return mcp.NewToolResultError(msg), nil for failures the model should
//     see.
//   - Tool filters, notification handlers, hooks and task tools run outside
//     any middleware and are not guarded; neither are completion providers
//     that are not wrapped.
//   - mcp-go answers the requests it rejects itself (unknown tool, bad
//     params) before any handler runs, so Guard logs nothing for them.
package mcpgo
