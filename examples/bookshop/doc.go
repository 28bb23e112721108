// Package bookshop is the Bookshop server of the MCP error-handling guide,
// written with the official Go SDK (github.com/modelcontextprotocol/go-sdk),
// and its tests are a tour of mcptestkit: every way a tool or a resource can
// fail, and how a test asserts each one.
//
// The server has a get_author tool over a small catalog, a books_by_author
// tool with structured output, a books://{title} resource template and a
// recommend prompt. [New] is the version to copy; [NewStrict] and
// [NewUnchecked] change only get_author, to show the other two ways a tool
// can fail:
//
//	constructor    get_author("Nothing") gives                      the model sees        your log gets
//	New            a result, isError: true, "No book titled ..."    the message           INFO
//	NewStrict      JSON-RPC error -32602, message and data intact   nothing (host only)   INFO
//	NewUnchecked   a result, isError: true, "Error executing tool"  that it failed        ERROR with the stack
//
// Resources only have the protocol path: books://Nothing is "resource not
// found" (-32602 with the URI in data), and a book that is in the catalog but
// cannot be read is an internal error (-32603). Arguments that do not match
// the input schema never reach the handler: the SDK answers with a tool
// error. An unknown tool is a protocol error (-32602).
//
// Every constructor installs the crash guard (gosdk.Guard), which is what
// production code should do: the SDK itself lets a panicking handler kill the
// process.
//
// # Running the tests
//
//	go test ./examples/bookshop/
//
// Start with TestGetAuthorUnknownTitle in bookshop_test.go, then read the
// tests in order: each one covers one row of the guide. The golden file
// testdata/tools.json pins the tools' schemas; after changing a tool, refresh
// it with
//
//	MCPTEST_UPDATE=1 go test ./examples/bookshop/
//
// and review the diff.
package bookshop
