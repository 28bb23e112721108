// Package mcpgotest serves a server built with github.com/mark3labs/mcp-go to
// the mcptest harness, in memory. It is for tests; the crash guard a server
// installs in production is package mcpgo.
//
//	c := mcptest.Connect(t, mcpgotest.Server(srv))
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
// # mcp-go releases
//
// The adapter works with every mcp-go release from v0.46.0 (the oldest the
// module requires, so that adding it as a test dependency does not move a
// server's mcp-go) to v1.2.1, and names no API newer than v0.46.0's. A
// server speaks the protocol versions of the release it is built with:
// 2026-07-28 (server/discover, per-request versions) from v1.0.0, only the
// initialize handshake's versions before. [Adapter.ProtocolVersions] lists
// them, newest first, from mcp.ValidProtocolVersions (which every
// supported release has) narrowed by WithProtocolVersions, so that the
// harness need not probe a server that cannot answer server/discover:
//
//	a := mcpgotest.Server(srv)
//	a.ProtocolVersions() // v0.46.0: [2025-11-25 2025-06-18 2025-03-26 2024-11-05]
//	                     // v1.2.1: [2026-07-28 2025-11-25 2025-06-18 2025-03-26 2024-11-05]
//
// Each request's goroutine has a last-resort recovery, on the adapter's side
// of the boundary: the server is not changed. A panic that gets that far
// (the server has no crash guard, or it happened where the guard cannot
// reach) is answered with a JSON-RPC -32603 error naming the panic, so the
// client is not left waiting, and is reported with its stack to the harness,
// which fails the test and says how to install the guard (mcpgo). The
// guard recovers the panic first, so the harness never sees it: assert on
// the log records instead.
package mcpgotest
