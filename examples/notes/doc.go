// Package notes is a small note-taking server, written with the official Go
// SDK (github.com/modelcontextprotocol/go-sdk), and a test suite that
// measures what it exercises of the server's surface with package
// github.com/mcptestkit/mcptestkit/mcptest/surface.
//
// The suite's TestMain runs the tests through surface.Run, which prints,
// after them, what they exercised of what the server declares:
//
//	mcp surface of notes (tests): tools 1/2, arguments 1/3, optional omitted 1/1, enum values 0/2, resources 0/0, templates 0/0, prompts 0/0; outcomes: 1 success, 1 isError, 0 error, 0 crash, 0 timeout
//
// The suite leaves gaps on purpose, to show how they read: delete_note is
// never called, and add_note's optional argument tag is never given, so
// neither of its values is sent. Run it with
//
//	MCPTEST_SURFACE=surface.json go test ./examples/notes
//
// for the report as JSON, which `mcptestkit surface surface.json` lists.
package notes
