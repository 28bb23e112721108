// Package guard is the crash guard for MCP servers written in Go: production
// code, imported by the server itself. It gives a server built with either
// Go SDK the error contract of the MCP Python SDK: a panicking handler
// becomes an error that tells the client nothing of its cause plus one ERROR
// log record with the stack, instead of a dead process; an expected failure
// passes through unchanged and is logged once at INFO.
//
// Install it with the package for your SDK:
//
//	gosdk   srv.AddReceivingMiddleware(gosdk.Guard(logger))              (modelcontextprotocol/go-sdk)
//	mcpgo   server.NewMCPServer(name, version, mcpgo.Guard(logger), ...)  (mark3labs/mcp-go)
//
// This package holds what both share: the messages and attribute keys of the
// records, which tests assert on by name. None of these packages imports
// testing or any part of the test kit.
//
// # Log records
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
//	MethodKey   "method"  the JSON-RPC method ("tools/call"), on every record
//	ToolKey     "tool"    the tool name
//	URIKey      "uri"     the resource URI
//	PromptKey   "prompt"  the prompt name
//	PanicKey    "panic"   the value given to panic, unchanged (an error stays an error)
//	StackKey    "stack"   the panicking goroutine's stack, a string; taken inside
//	                      the recovery, so it names the function that panicked
//	ErrorKey    "error"   the error text
//	CodeKey     "code"    the JSON-RPC error code the client got, an int64
//
// A crash never shows the client the panic value, which may describe the
// server's internals; the log has it. Each failure is one record, and only a
// crash has a stack. With mcptestkit/logcapture:
//
//	rec := logs.RequireLogged(t, logcapture.Message(guard.MsgToolPanic), logcapture.Attr(guard.ToolKey, "get_author"))
//	assert.Contains(t, rec.Stack(), "bookshop.authorOf")
//
// # Limits
//
// A guard recovers panics on the handler's goroutine only. A panic in a
// goroutine the handler starts cannot be recovered by anyone but that
// goroutine, and ends the process, in production as in a test binary:
// recover in the goroutine itself. The panic is not re-raised: the session
// keeps serving, and concurrent panics are each logged once.
package guard
