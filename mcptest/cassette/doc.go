// Package cassette plays recorded MCP sessions back in go test, both ways:
// [Server] is an mcptest.Server that answers as the recorded server did, for
// the tests of a client or an agent; [Replay] sends the recorded calls to a
// live server and diffs its answers against the recording.
//
// A cassette is recorded by `mcptestkit record -o FILE.cassette -- SERVER...`
// (or `--listen ADDR URL` for a streamable HTTP server), a proxy that a real
// client (an IDE agent, the Inspector) talks to in place of the server; its
// secrets are replaced by [redacted] before anything is written. Replay
// redacts the live answers the same way before it compares them, so that
// a diff shows no secret. This package is a module of its own: it carries
// gitleaks' rule set, which a user of mcptest alone does not pay for.
//
//	// a client's or an agent's test, against the recorded server
//	c := mcptest.Connect(t, cassette.Server(t, "testdata/session.cassette"))
//	res, err := c.CallTool(t.Context(), "get_author", map[string]any{"title": "Dune"})
//
//	// the server's regression test, against the recorded answers
//	cassette.Replay(t, mcptest.Connect(t, gosdktest.Server(myserver.New())), "testdata/session.cassette")
//
// MCPTEST_UPDATE=1 makes Replay write the live answers into the cassette.
// The format is package internal/cassette's: a versioned header line, then
// one JSON-RPC message per line with its direction and time.
package cassette
