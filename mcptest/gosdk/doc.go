// Package gosdk serves a server built with the official Go SDK
// (github.com/modelcontextprotocol/go-sdk/mcp) on a memtransport connection
// end, so a test can talk to it in memory, over the same bytes a real
// transport would carry.
//
//	c := mcptest.Connect(t, gosdk.Server(myserver.New()))
//
// [Server] returns an [*Adapter] whose Serve method is what the mcptest
// harness calls for each connection. Messages are encoded and decoded at the
// boundary with the SDK's own jsonrpc codec, so what crosses the connection
// (and lands in its transcript) is exactly what a stdio or HTTP transport
// would have sent, and client and server share no Go values.
//
// Handler panics, which the SDK does not recover (they end the process), are
// caught by a last-resort receiving middleware that the adapter adds as the
// outermost layer the first time it serves. It answers the request with a
// JSON-RPC -32603 error so the client is not left waiting, and reports the
// panic, with its stack, to the harness. A server's own recovery middleware,
// added before, runs inside it and so gets the first say.
//
// The package imports neither testing nor the harness, so it can serve from
// any code that holds a memtransport end.
package gosdk
