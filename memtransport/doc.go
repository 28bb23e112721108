// Package memtransport connects two ends of one in-memory connection that
// carries whole JSON-RPC messages, one message per frame.
//
// [Pair] returns the client end and the server end. Each end sends with
// [Conn.Send] and receives with [Conn.Receive]; both take a context and both
// ends may send at once. [Conn.Close] on either end ends the connection: the
// other end first receives what was already sent, then an error.
//
// Every call on an ended connection, whichever end closed it, returns an
// error matching [io.ErrClosedPipe] (test it with errors.Is; the text begins
// "memtransport: " and says which end closed). A Pair is a pipe, so it fails
// the way the standard library's pipes do: the ends of net.Pipe and io.Pipe
// also return io.ErrClosedPipe once the pipe is closed. net.ErrClosed would
// say that the caller had used its own connection after closing it, which
// is only one of the two cases here.
//
// What a test needs beyond a pipe is here too:
//
//   - a shared [Transcript] of every frame that crossed, in order and with its
//     direction, that renders as text for a failure message;
//   - [Conn.SendRaw], which delivers bytes as they are (malformed JSON,
//     oversized frames) so a test can feed a server bad input;
//   - [WithMaxMessageSize], past which [Conn.Send] fails with a [*SizeError];
//   - [WithFault], a hook that can drop, replace, delay or hold a frame, or
//     break the connection, to simulate a lost or corrupt message;
//   - [Conn.Stream], a newline-delimited byte-stream view of an end (the stdio
//     framing) for servers that only take a reader and a writer.
//
// An end holds no goroutines: a buffered channel per direction and a shared
// done channel carry everything, so nothing outlives Close and hundreds of
// pairs can run in parallel tests. There is no package-level state.
package memtransport
