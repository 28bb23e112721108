// Package gosdk connects a server built with the official Go SDK
// (github.com/modelcontextprotocol/go-sdk/mcp) to mcptestkit. It has two
// jobs.
//
// In tests, [Server] serves the server to the mcptest harness, in memory:
//
//	c := mcptest.Connect(t, gosdk.Server(srv))
//
// In the server's own code, [Guard] is the crash guard. It gives the server
// the error contract of the MCP Python SDK, in production as in tests: a
// panicking handler becomes an error that tells the client nothing of its
// cause plus one ERROR log record with the stack, instead of a dead process
// (go-sdk does not recover handler panics); an expected failure passes
// through unchanged and is logged at INFO. Add it last:
//
//	srv.AddReceivingMiddleware(gosdk.Guard(logger))
//
// The package imports neither testing nor the harness, so production code
// can import it for Guard.
//
// # Serving a server to the harness
//
// [Server] returns an [*Adapter] whose Serve method is what the harness
// calls for each connection; one Adapter serves any number of connections,
// each with its own server session. Messages are encoded and decoded at the
// boundary with the SDK's own jsonrpc codec, so what crosses the connection
// (and lands in its transcript) is exactly what a stdio or HTTP transport
// would carry, and client and server share no Go values.
// [WithProtocolVersions] restricts the versions the server offers on the
// adapter's connections; [WithRequestExtra] gives handlers the HTTP headers
// or token info an HTTP transport would.
//
// The first Serve adds a last-resort recovery to the server, as its
// outermost receiving middleware. A panic that gets that far (the server has
// no Guard) is answered with a JSON-RPC -32603 error naming the panic, so
// the client is not left waiting, and is reported with its stack to the
// harness, which fails the test and says how to install Guard. A Guard
// recovers the panic first, so the harness never sees it: assert on the log
// records instead.
//
// # Installing the crash guard
//
// go-sdk runs the middleware added last outermost. Add Guard after your
// other middleware so that it also recovers panics in them and sees the
// errors they return:
//
//	srv := mcp.NewServer(impl, &mcp.ServerOptions{Logger: logger})
//	srv.AddReceivingMiddleware(authMiddleware, metricsMiddleware)
//	srv.AddReceivingMiddleware(gosdk.Guard(logger))
//
// A nil logger means [slog.Default]. [ToolErrorsAsResults] makes a plain Go
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
//	returns a tool error result      the result, unchanged                         INFO  MsgToolError
//	(for mcp.AddTool: any Go error)
//	ends in a JSON-RPC error         the error, unchanged: code, message, data     INFO  MsgRequestFailed
//	(a *jsonrpc.Error, the SDK's
//	unknown tool, a raw handler's
//	plain error, sent with code 0)
//	succeeds                         the result                                    nothing
//
// A crash never shows the client the panic value, which may describe the
// server's internals; the log has it. Each failure is one record, and only
// a crash has a stack.
//
// # Log records
//
// The messages and attribute keys are constants, the same in mcptest/mcpgo,
// so tests assert on them by name:
//
//	message            level  text                          attributes
//	MsgToolPanic       ERROR  "tool handler panicked"       method, tool, panic, stack
//	MsgResourcePanic   ERROR  "resource handler panicked"   method, uri, panic, stack
//	MsgPromptPanic     ERROR  "prompt handler panicked"     method, prompt, panic, stack
//	MsgPanic           ERROR  "handler panicked"            method, panic, stack
//	MsgToolError       INFO   "tool returned an error"      method, tool, error
//	MsgRequestFailed   INFO   "request failed"              method, tool|uri|prompt (if the
//	                                                        method has one), code, error
//
//	key         text      value
//	KeyMethod   "method"  the JSON-RPC method ("tools/call"), on every record
//	KeyTool     "tool"    the tool name
//	KeyURI      "uri"     the resource URI
//	KeyPrompt   "prompt"  the prompt name
//	KeyPanic    "panic"   the value given to panic, unchanged (an error stays an error)
//	KeyStack    "stack"   the panicking goroutine's stack, a string; taken inside
//	                      the recovery, so it names the function that panicked
//	KeyError    "error"   the error text
//	KeyCode     "code"    the JSON-RPC error code the client got, an int64
//
// With mcptestkit/logcapture:
//
//	rec := logs.RequireLogged(t, logcapture.Message(gosdk.MsgToolPanic), logcapture.Attr(gosdk.KeyTool, "get_author"))
//	assert.Contains(t, rec.Stack(), "bookshop.authorOf")
//
// # Limits
//
//   - Guard recovers panics on the handler's goroutine only, not in
//     goroutines a handler starts.
//   - The panic is not re-raised: the session keeps serving, and concurrent
//     panics are each logged once.
//   - A raw tool handler's plain Go error goes out as a JSON-RPC error with
//     code 0, which the model never reads, unless [ToolErrorsAsResults] is
//     given.
//   - go-sdk ends a session that receives malformed JSON rather than
//     answering -32700; served by an Adapter, Serve then returns the
//     decoding error.
package gosdk
