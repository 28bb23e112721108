// Package mcpgo connects a server built with github.com/mark3labs/mcp-go to
// mcptestkit. It has two jobs.
//
// In tests, [Server] serves the server to the mcptest harness, in memory:
//
//	c := mcptest.Connect(t, mcpgo.Server(srv))
//
// In the server's own code, [Guard] is the crash guard. It gives the server
// the error contract of the MCP Python SDK, in production as in tests: a
// panicking handler becomes an error that tells the client nothing of its
// cause plus one ERROR log record with the stack, instead of a dead process;
// an expected failure passes through and is logged at INFO. Give it first
// when building the server, or apply it to a server already built:
//
//	srv := server.NewMCPServer("bookshop", "1.0", mcpgo.Guard(logger), server.WithLogger(logger))
//	mcpgo.Guard(logger)(srv)
//
// The package imports neither testing nor the harness, so production code
// can import it for Guard.
//
// # Serving a server to the harness
//
// [Server] returns an [*Adapter] whose Serve method is what the harness
// calls for each connection; one Adapter serves any number of connections.
// It does not use mcp-go's StdioServer, which keeps one process-wide session
// (parallel servers receive each other's notifications) and writes
// notifications on a separate goroutine (they overtake or trail responses at
// random). Instead, each Serve call has:
//
//   - its own session with a unique ID, registered with the server for the
//     life of the connection, that carries client info, capabilities, log
//     level and protocol version, and sends sampling, elicitation and roots
//     requests to the client over the connection;
//   - one writer goroutine that, before writing a response, writes every
//     notification the handler sent, so notifications always arrive before
//     the response they precede;
//   - a goroutine per request, so slow requests do not hold up others;
//   - a -32700 "Parse error" answer to malformed JSON, after which the
//     session goes on, as with mcp-go's stdio transport.
//
// Every goroutine Serve starts has ended when it returns.
// [WithProtocolVersions] restricts the versions the server offers on the
// adapter's connections; [WithContextFunc] puts values in every request's
// context, as mcp-go's transports' context functions do.
//
// Each request's goroutine has a last-resort recovery. A panic that gets
// that far (the server has no Guard, or it happened where Guard cannot
// reach) is answered with a JSON-RPC -32603 error naming the panic, so the
// client is not left waiting, and is reported with its stack to the harness,
// which fails the test and says how to install Guard. A Guard recovers the
// panic first, so the harness never sees it: assert on the log records
// instead.
//
// # Installing the crash guard
//
// Guard is a server option that adds a tool, a resource and a prompt handler
// middleware. mcp-go runs middleware in the order it was added, first
// outermost, so give Guard before your other middleware (and before
// [server.WithLogger] or [server.WithRecovery]) to recover panics in them
// too. Retrofitted with mcpgo.Guard(logger)(srv) on a server built
// elsewhere, it is innermost: it covers the handlers but not the middleware
// added before it.
//
// mcp-go has no middleware for other methods. Wrap completion providers
// with [GuardPromptCompletions] and [GuardResourceCompletions]:
//
//	server.WithPromptCompletionProvider(mcpgo.GuardPromptCompletions(logger, p))
//
// A nil logger means [slog.Default]. [ToolErrorsAsResults] makes a Go error
// returned by a tool handler an error result the model can read.
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
//	returns a tool error result       the result, unchanged                        INFO  MsgToolError
//	(mcp.NewToolResultError)
//	returns a Go error                -32603 with the error's text (-32042 for a   INFO  MsgRequestFailed
//	                                  URL elicitation on a legacy session)
//	returns a Go error from a tool,   a result, isError: true, the error's text    INFO  MsgToolError
//	with ToolErrorsAsResults
//	succeeds                          the result                                   nothing
//
// A crash never shows the client the panic value, which may describe the
// server's internals; the log has it. Each failure is one record, and only
// a crash has a stack.
//
// # Log records
//
// The messages and attribute keys are constants, the same in mcptest/gosdk,
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
//	rec := logs.RequireLogged(t, logcapture.Message(mcpgo.MsgToolPanic), logcapture.Attr(mcpgo.KeyTool, "get_author"))
//	assert.Contains(t, rec.Stack(), "bookshop.authorOf")
//
// # Limits
//
// Where mcp-go cannot give the contract, or Guard cannot reach:
//
//   - mcp-go gives a handler's error no data member, so a crashed resource
//     read cannot carry data {"uri": ...} as it does with go-sdk, and neither
//     can mcp-go's own "resource not found".
//   - A Go error from a tool handler is a JSON-RPC -32603 error, which the
//     model never reads (mcp-go#157), unless [ToolErrorsAsResults] is given;
//     return mcp.NewToolResultError(msg), nil for failures the model should
//     see.
//   - Tool filters, notification handlers, hooks and task tools run outside
//     any middleware and are not guarded; neither are completion providers
//     that are not wrapped.
//   - mcp-go answers the requests it rejects itself (unknown tool, bad
//     params) before any handler runs, so Guard logs nothing for them.
//   - Guard recovers panics on the handler's goroutine only, not in
//     goroutines a handler starts. The panic is not re-raised: the session
//     keeps serving, and concurrent panics are each logged once.
package mcpgo
