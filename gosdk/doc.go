// Package gosdk is the crash guard for a server built with the official Go
// SDK (github.com/modelcontextprotocol/go-sdk/mcp). It is production code:
// the server imports it, and it imports neither testing nor the test kit.
//
// [Guard] gives the server the error contract of the MCP Python SDK: a
// panicking handler becomes an error that tells the client nothing of its
// cause plus one ERROR log record with the stack, instead of a dead process
// (go-sdk does not recover handler panics); an expected failure passes
// through unchanged and is logged at INFO. The records' messages and keys
// are in package guard.
//
// go-sdk runs the middleware added last outermost. Add Guard after your
// other middleware so that it also recovers panics in them and sees the
// errors they return:
//
//	srv := mcp.NewServer(impl, &mcp.ServerOptions{Logger: logger})
//	srv.AddReceivingMiddleware(authMiddleware, metricsMiddleware)
//	srv.AddReceivingMiddleware(gosdk.Guard(logger))
//
// A nil logger means [slog.Default]. [guard.ToolErrorsAsResults] makes a plain Go
// error from a raw tool handler (added with [mcp.Server.AddTool]) an error
// result, as it already is for tools added with [mcp.AddTool].
//
// # What the client sees, and what is logged
//
//	the handler ...                  the client gets                               logged
//	panics in a tool                 a result, isError: true, exactly the text     ERROR MsgToolPanic
//	                                 "Error executing tool <name>"
//	panics reading a resource        JSON-RPC -32603 "Error reading resource       ERROR MsgResourcePanic
//	(static or template)             <uri>", data {"uri": "<uri>"}
//	panics in a prompt               -32603 "Error rendering prompt <name>"        ERROR MsgPromptPanic
//	panics in any other method       -32603 "Internal server error"                ERROR MsgPanic
//	(completion, subscribe, ...)
//	returns a nil result and a nil   as if it had panicked (above); the record's   ERROR, as above
//	error                            panic value says it returned nothing
//	returns a tool error result      the result, unchanged                         INFO  MsgToolError
//	(for mcp.AddTool: any Go error)
//	ends in a JSON-RPC error         the error, unchanged: code, message, data     INFO  MsgRequestFailed
//	(a *jsonrpc.Error, the SDK's
//	unknown tool, a raw handler's
//	plain error, sent with code 0)
//	succeeds                         the result                                    nothing
//
// # go-sdk releases
//
// The guard builds and behaves the same with go-sdk v1.2.0 and later, the
// release the module requires. Before v1.3.1 the SDK does not expose the
// Go error a typed tool returned; the INFO record then has the result's
// text, which is that error's text.
//
// # Limits
//
// Besides those of package guard:
//
//   - A raw tool handler's plain Go error goes out as a JSON-RPC error with
//     code 0, which the model never reads, unless [guard.ToolErrorsAsResults] is
//     given.
package gosdk
