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
// versions, build it with mcp.ServerOptions.SupportedProtocolVersions
// (go-sdk v1.8.0 and later): the adapter serves the server as it is.
//
// # go-sdk releases
//
// The adapter works with go-sdk v1.2.0 and later, the release the module
// requires, so adding it to a server's tests moves neither the server's
// go-sdk nor its other dependencies. It uses only what v1.2.0 has, and
// follows the linked release where releases differ: a server speaks the
// protocol versions of its release, and where go-sdk does not cancel the
// handlers still running when a connection ends (before v1.7.0), the
// adapter does, so that Serve returns.
//
// [Adapter.ProtocolVersions] lists the protocol versions the linked release
// speaks, newest first:
//
//	go-sdk                 protocol versions
//	v1.7.0 and later       2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05
//	v1.2.0 to v1.6.x       2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05
//
// The harness reads it to start a connection the way the server can answer:
// a release before v1.7.0 does not know server/discover, the probe of an
// era-neutral start, and logs it as an ERROR ("method invalid during
// initialization"), so the harness goes straight to the initialize
// handshake there. The release is read from the binary's build information
// or, in a test binary (whose build information lists no dependencies),
// from the module cache path of the SDK's source files; nothing is sent to
// the server. ProtocolVersions returns nil when the release is not known
// (go-sdk replaced by a directory or a fork, or vendored into a test
// binary), and the harness then probes as before.
//
// [Adapter.SDK] names the release ("go-sdk v1.4.0"), and mcptest.CheckServer
// names it where the release fails a check by design, saying how to leave
// the check out: before v1.7.0 go-sdk answers an unknown method with code 0
// (mcptest.SkipChecks("unknown-method")), and every release ends a session
// on a frame that is not JSON (mcptest.SkipChecks("malformed-frame")).
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
