// Package surface measures what a test suite exercised of an MCP server's
// surface, as -cover measures code: every tool, resource, template and
// prompt the server declares, against the calls the tests made; for tools,
// each top-level argument given and left out, each enum value sent, and
// each outcome seen (success, isError, a JSON-RPC error, the crash guard's
// answer, no answer).
//
// Every connection package mcptest makes is observed once recording is on:
// with the environment variable MCPTEST_SURFACE naming a directory (each
// test binary writes a file of its own there) or a file (each binary
// writes its part of it), or when the test binary runs through [Run] in
// TestMain. mcptest.Connect's calls count as the tests' ([Tests]),
// mcptest.CheckServer's and mcptest.Fuzz's apart ([Check], [Fuzz]): the
// question is what your tests cover.
//
// The observer reads; it never sends. What a server declares is learnt
// from the lists its connections make: a test's own, and those of a
// mcptest.CheckServer in the same test binary, which lists everything (the
// first test to write for a server anyway). A kind of item the server
// offers that no connection listed is reported as unknown ("tools 1/?"),
// and [Require] names it, rather than counting nothing as all.
//
//	func TestMain(m *testing.M) {
//		os.Exit(surface.Run(m, surface.Require("debug_dump")))
//	}
//
// prints, after the tests,
//
//	mcp surface of bookshop (tests): tools 1/2, arguments 1/2, optional omitted 0/1, enum values 0/0, resources 0/0, templates 1/1, prompts 0/1; outcomes: 2 success, 1 isError, 0 error, 0 crash, 0 timeout
//
// and, with [Require], fails the binary naming each declared item the tests
// never exercised, when they all ran (not under -run, -skip or -fuzz). `mcptestkit surface FILE...` merges reports (of several
// packages, and of `mcptestkit check`) and lists what was never exercised.
package surface
