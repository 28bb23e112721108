// Package servercheck is a battery of checks that any MCP server must pass, the
// engine of mcptest.CheckServer, usable without package testing (as
// testing/fstest.TestFS is): a command-line tool or a CI job runs the same
// checks with [Run] and gets a [Result] per check, as each finishes,
// through Options.OnResult.
//
// The checks need no fixture. They read what the server declares and lists,
// and call what it offers, with arguments generated from its schemas by a
// seeded generator (the same seed sends the same calls):
//
//	handshake/<version>           the handshake at every protocol version the client speaks
//	                              (a version the server's server/discover answer does not offer,
//	                              or 2026-07-28 on a legacy-only server, is skipped, naming the
//	                              versions it offers); nothing but ping and
//	                              log messages before notifications/initialized
//	capabilities                  tools, resources and prompts: declared means listed, not
//	                              declared means -32601 (an empty list is tolerated, noted)
//	ping                          an empty result (at the newest legacy version the server offers)
//	unknown-method                -32601 in a JSON-RPC response (an HTTP error instead is reported
//	                              with its status and body)
//	malformed-frame               a frame that is not JSON gets -32700 with id null, and the
//	                              connection keeps serving
//	tools/list                    every page read; no cursor repeats, no tool twice
//	tools/names                   1-128 characters of A-Z a-z 0-9 _ - .
//	tools/descriptions            every tool has one
//	tools/schemas/<tool>          inputSchema and outputSchema are valid JSON Schema (2020-12
//	                              unless $schema says otherwise) with "type": "object"
//	tools/calls/<tool>            Options.Calls calls with arguments that validate against the
//	                              inputSchema: each answers in time with a result (isError for a
//	                              failure, never a JSON-RPC error), the connection stays up, the
//	                              handler does not crash, no crash text ("panic", "goroutine",
//	                              source paths, stack traces) reaches the client, a success
//	                              carries structuredContent valid against the outputSchema; with
//	                              Options.Logs, a crash has exactly one ERROR record with a stack
//	tools/invalid-arguments/<tool> a required property left out, a property of the wrong type, a
//	                              property additionalProperties: false forbids: each rejected
//	                              before the handler, as an isError result or -32602 (noted)
//	tools/unknown-tool            -32602, or an isError result (noted)
//	tools/progress                progress notifications carry their request's token
//	tools/cancellation            a cancelled call leaves the server serving
//	resources/list, resources/templates/list   paging, as for tools
//	resources/read/<name>         every listed resource reads, with contents
//	resources/templates/read/<name> expansions read, or get resource-not-found
//	resources/unknown-uri         resource not found: -32002 up to 2025-11-25, -32602 at 2026-07-28;
//	                              the other code, or no data.uri, is noted; -32002 at 2026-07-28 fails
//	prompts/list                  paging, as for tools
//	prompts/get/<prompt>          renders with generated arguments, or -32602
//	prompts/missing-argument/<prompt> a required argument left out gets -32602
//	prompts/unknown-prompt        -32602
//
// The checks call every tool, many times, with odd arguments: run them
// against a test instance of a server, never against one whose tools act on
// the world (files, accounts, deployments).
//
// A check whose capability the server does not declare is skipped. Options
// select checks by name as go test's -run and -skip do. In-process servers
// (package mcptest's Server, served by [Serve]) also report a handler panic
// their adapter had to recover: a server without a crash guard fails with
// how to install one.
//
// Every failure says what was sent, what came back and what the protocol or
// the error contract expects, and carries the messages of the connection
// around it (Result.Transcript).
//
// [Fuzzer] drives the same invariants from a fuzzer's bytes (mcptest.Fuzz
// wraps it for go test -fuzz).
package servercheck
