// Package mcpgo serves a server built with github.com/mark3labs/mcp-go on a
// memtransport connection end, so a test can talk to it in memory over the
// same newline-free JSON-RPC frames its stdio transport would carry.
//
//	c := mcptest.Connect(t, mcpgo.Server(myserver.New()))
//
// [Server] returns an [*Adapter] whose Serve method is what the mcptest
// harness calls for each connection. It does not use mcp-go's StdioServer or
// mcptest package: StdioServer keeps one process-wide session (parallel
// servers receive each other's notifications) and writes notifications on a
// separate goroutine (they overtake or trail responses at random). Instead,
// each Serve call has:
//
//   - its own session with a unique ID, registered with the server for the
//     life of the connection, that carries client info, capabilities, log
//     level and protocol version, and sends sampling, elicitation and roots
//     requests to the client over the connection;
//   - one writer goroutine that, before writing a response, writes every
//     notification the handler sent, so notifications always arrive before
//     the response they precede;
//   - a goroutine per request, so slow requests do not hold up others, with
//     a recover that answers a panicking request with a JSON-RPC -32603
//     error and reports the panic, with its stack, to the harness;
//   - a -32700 "Parse error" answer to malformed JSON, after which the
//     session goes on, as with mcp-go's stdio transport.
//
// Every goroutine Serve starts has ended when it returns. The package imports
// neither testing nor the harness.
package mcpgo
