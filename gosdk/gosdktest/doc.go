// Package gosdktest serves a server built with the official Go SDK
// (github.com/modelcontextprotocol/go-sdk/mcp) to the mcptest harness, in
// memory. It is for tests; the crash guard a server installs in production
// is package gosdk.
//
//	c := mcptest.Connect(t, gosdktest.Server(srv))
//
// # Serving a server to the harness
//
// [Server] returns an [*Adapter] whose Serve method is what the harness
// calls for each connection; one Adapter serves any number of connections,
// each with its own server session. Messages are encoded and decoded at the
// boundary with the SDK's own jsonrpc codec, so what crosses the connection
// (and lands in its transcript) is exactly what a stdio or HTTP transport
// would carry, and client and server share no Go values.
// [WithRequestExtra] gives handlers the HTTP headers or token info an HTTP
// transport would. To test a server that offers only some protocol
// versions, build it with mcp.ServerOptions.SupportedProtocolVersions: the
// adapter serves the server as it is.
//
// # The last-resort recovery
//
// go-sdk runs each handler on a goroutine of its own, where a panic kills
// the test binary, and its only hook around handlers is the server's
// receiving middleware. So Serve adds one recovering middleware to the
// server, as its outermost layer, once per server: serving the same server
// again, through the same Adapter or another, one after another or at once,
// finds it there and adds nothing (unless middleware was added outside it
// since; then the new outermost layer is the one that acts). The layer acts
// only on requests of sessions an Adapter serves; for any other session
// (the server served over stdio or HTTP after the test) it calls the next
// handler and nothing else, so the server behaves as it did before.
//
// A panic that gets that far (the server has no crash guard) is answered
// with a JSON-RPC -32603 error naming the panic, so the client is not left
// waiting, and is reported with its stack to the harness, which fails the
// test and says how to install the guard (gosdk). The guard recovers the panic first, so the harness never
// sees it: assert on the log records instead.
//
// # Limits
//
//   - go-sdk ends a session that receives malformed JSON rather than
//     answering -32700; served by an Adapter, Serve then returns the
//     decoding error.
package gosdktest
