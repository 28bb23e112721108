// Package transport has the transports that connect the MCP client of
// package [github.com/mcptestkit/mcptestkit/client] to real servers: a
// server run as a subprocess and spoken to on stdin/stdout, and a server
// behind the streamable HTTP transport. Both satisfy client.Transport (Send,
// Receive and Close of whole JSON-RPC messages) without importing the client,
// so they serve any JSON-RPC code as well.
//
// # Subprocess (stdio)
//
// [Command] starts an *exec.Cmd and returns a [*Stdio]:
//
//	tr, err := transport.Command(exec.Command("my-server", "--stdio"),
//		transport.WithStderrLines(func(line string) { t.Log(line) }))
//	c, err := client.Connect(ctx, tr, nil)
//
// Messages are newline-delimited JSON. The server's stderr is kept
// ([Stdio.Stderr]) and can be copied out as it comes ([WithStderr],
// [WithStderrLines]). A server that exits, closes stdout, prints something
// that is not JSON on stdout, or writes a line over [WithMaxLineSize] ends
// the connection with a [*ProcessError] that says which, with the exit
// status and the end of its stderr. Close closes the server's stdin, waits
// [WithGracePeriod], sends SIGTERM, waits again, sends SIGKILL, and reaps the
// process (and, on Unix, stops what is left of its process group), so no
// process, zombie or goroutine outlives it.
//
// # Streamable HTTP
//
// [HTTP] returns a [*StreamableHTTP] for an endpoint URL; [Handler] returns
// one that calls an http.Handler in the same process, with no socket, which
// is how a test talks to go-sdk's mcp.NewStreamableHTTPHandler or mcp-go's
// server.NewStreamableHTTPServer exactly as a remote client would:
//
//	tr := transport.Handler(mcp.NewStreamableHTTPHandler(getServer, nil))
//	c, err := client.Connect(ctx, tr, nil)
//
// The transport serves both protocol eras, deciding per request from what the
// client puts in it:
//
//   - Legacy sessions (2025-03-26 to 2025-11-25) start with initialize. The
//     transport keeps the Mcp-Session-Id the server hands out and the
//     negotiated version (sent as MCP-Protocol-Version from 2025-06-18 on),
//     opens the GET stream for the server's own messages once the client
//     sends notifications/initialized, resumes an SSE stream that ends early
//     with GET and Last-Event-ID after the server's retry hint, reports an
//     expired session (HTTP 404) with [CodeSessionExpired], and DELETEs the
//     session on Close.
//   - 2026-07-28 requests carry their version in params._meta. The transport
//     adds MCP-Protocol-Version, Mcp-Method, Mcp-Name and the Mcp-Param-*
//     headers that the tools' x-mcp-header annotations ask for; the client
//     package hands those over as it lists tools
//     ([StreamableHTTP.LearnToolHeaders]) and drops the tools whose
//     annotations are invalid, with a warning on its logger. Cancelling such a
//     request (notifications/cancelled) closes its HTTP response instead of
//     sending the notification, as that era prescribes.
//
// Every request gets exactly one response through Receive. An HTTP error
// whose body is a JSON-RPC error is delivered as that error, so a dual-era
// client probing with a modern request sees the server's own code (-32022,
// -32601, ...). A request that gets no usable answer at all receives an error
// response with [CodeHTTPError], whose message names the HTTP status; that
// code is deliberately none of the modern ones, so a probing client falls
// back to initialize.
//
// After Close, every call on a transport returns an error that matches
// [github.com/mcptestkit/mcptestkit/client.ErrClosed] (errors.Is), the one
// error for an ended connection whether the code holds a client or the
// transport itself.
//
// Redirects that keep the method and body (307, 308) are followed; a 301,
// 302 or 303, after which net/http would send the POST again as a GET, is
// refused with an error naming the status and the new URL.
//
// Custom headers ([WithHeader], [WithHeaders]), a caller's *http.Client
// ([WithHTTPClient]) and a body size cap ([WithMaxBodySize]) are options.
// Each request runs in a goroutine of its own until its response arrives;
// Close ends them all, and the GET stream, before it returns.
package transport
