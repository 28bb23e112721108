package mcptest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/mcptest"
)

// Connect needs a test, so this example shows a test function rather than
// running one; the package's own tests and examples/bookshop run it for real.
func ExampleConnect() {
	// The server under test behind its SDK's adapter: gosdktest.Server(s)
	// for a go-sdk *mcp.Server, mcpgotest.Server(s) for an mcp-go
	// *server.MCPServer. Here a greeter with a tool "greet".
	var srv mcptest.Server

	testGreet := func(t *testing.T) {
		c := mcptest.Connect(t, srv)
		res, err := c.CallTool(t.Context(), "greet", map[string]any{"name": "Ada"})
		require.NoError(t, err)
		mcptest.Assert(t).Text(res, "Hello, Ada")
	}
	_ = testGreet
}

// EachVersion runs the same test at every protocol version.
func ExampleEachVersion() {
	var srv mcptest.Server // gosdktest.Server(s), mcpgotest.Server(s)
	testVersions := func(t *testing.T) {
		mcptest.EachVersion(t, func(t *testing.T, version string) {
			c := mcptest.Connect(t, srv)
			if c.ProtocolVersion() != version {
				t.Errorf("connected at %s, want %s", c.ProtocolVersion(), version)
			}
		})
	}
	_ = testVersions
}

// printer stands in for the *testing.T of a test, to show what a failure
// looks like: Errorf prints the failure, FailNow says where a test stops.
type printer struct{}

func (printer) Errorf(format string, args ...any) { fmt.Printf(format+"\n", args...) }
func (printer) FailNow()                          { fmt.Println("--- FailNow: the test stops here") }

func ExampleAssertions_ToolError() {
	var t printer // in a test, its *testing.T
	failed := &client.CallToolResult{IsError: true, Content: []client.Content{&client.TextContent{Text: `No book titled "Nothing" in the catalog.`}}}
	fmt.Println(mcptest.Assert(t).ToolError(failed, "No book titled"))

	succeeded := &client.CallToolResult{Content: []client.Content{&client.TextContent{Text: "Frank Herbert"}}}
	fmt.Println(mcptest.Assert(t).ToolError(succeeded, "No book titled"))
	// Output:
	// true
	// mcptest: expected a tool error result (isError: true), got a successful result
	// result: {"content":[{"type":"text","text":"Frank Herbert"}]}
	// false
}

func ExampleAssertions_ResourceNotFound() {
	var t printer // in a test, its *testing.T
	err := &client.Error{Code: client.CodeInvalidParams, Message: "Resource not found", Data: json.RawMessage(`{"uri":"books://Nothing"}`), Method: "resources/read"}
	fmt.Println(mcptest.Assert(t).ResourceNotFound(err, "books://Nothing"))

	legacy := &client.Error{Code: client.CodeLegacyResourceNotFound, Message: "resource not found"}
	fmt.Println(mcptest.Assert(t).ResourceNotFound(legacy, "books://Nothing"))

	// What a TypeScript-SDK server sends: no data, the URI in the message.
	typescript := &client.Error{Code: client.CodeInvalidParams, Message: "MCP error -32602: Resource books://Nothing not found", Method: "resources/read", Name: "books://Nothing"}
	fmt.Println(mcptest.Assert(t).ResourceNotFound(typescript, "books://Nothing"))

	internal := &client.Error{Code: client.CodeInternalError, Message: "disk on fire"}
	fmt.Println(mcptest.Assert(t).ResourceNotFound(internal, "books://Nothing"))
	// Output:
	// true
	// true
	// true
	// mcptest: expected resource not found for "books://Nothing" (code -32002, or -32602 with data.uri or a message naming the resource)
	// actual code: -32603
	// message:     "disk on fire"
	// data:        (none)
	// false
}

// Require has the methods of Assert, and stops the test at a failure; a
// method that finds a value returns it for further checks.
func ExampleRequire() {
	var t printer // in a test, its *testing.T
	err := fmt.Errorf("calling tool: %w", &client.Error{Code: client.CodeInvalidParams, Message: `unknown tool "nope"`})
	e := mcptest.Require(t).ProtocolError(err, client.CodeInvalidParams)
	fmt.Println(e.Message)

	mcptest.Require(t).ProtocolError(err, client.CodeMethodNotFound)
	// Output:
	// unknown tool "nope"
	// mcptest: the protocol error has another code
	// expected code: -32601
	// actual code:   -32602
	// message:       "unknown tool \"nope\""
	// data:          (none)
	// --- FailNow: the test stops here
}

func ExampleNormalize() {
	response := json.RawMessage(`{"jsonrpc":"2.0","id":7,"result":{
		"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"v1.2.3"}},
		"resultType":"complete","ttlMs":0,"cacheScope":"public",
		"tools":[{"name":"greet","inputSchema":{"type":"object"}}]}}`)
	out, err := mcptest.Normalize(response)
	if err != nil {
		panic(err)
	}
	fmt.Print(string(out))
	// Output:
	// {
	//   "id": 1,
	//   "jsonrpc": "2.0",
	//   "result": {
	//     "tools": [
	//       {
	//         "inputSchema": {
	//           "type": "object"
	//         },
	//         "name": "greet"
	//       }
	//     ]
	//   }
	// }
}

// A server written in any language is started as a subprocess and spoken to
// over stdio. If the test fails, the end of the server's stderr is printed
// after the transcript; the test also fails if the server does not exit
// cleanly when its stdin closes.
func ExampleCommand() {
	testSearch := func(t *testing.T) {
		c := mcptest.Connect(t, mcptest.Command(exec.Command("python3", "bookshop_server.py")))
		res, err := c.CallTool(t.Context(), "search_books", map[string]any{"query": "dune"})
		require.NoError(t, err)
		mcptest.Assert(t).ToolSuccess(res)
	}
	_ = testSearch
}

// A streamable HTTP handler is called in the test's process, with no socket,
// exactly as a remote client would call it; a URL server does the same for
// a server listening on an address.
func ExampleHandler() {
	// The server's handler: go-sdk's mcp.NewStreamableHTTPHandler,
	// mcp-go's server.NewStreamableHTTPServer.
	var handler http.Handler

	testTools := func(t *testing.T) {
		c := mcptest.Connect(t, mcptest.Handler(handler), mcptest.WithProtocolVersion(client.LatestLegacyVersion))
		list, err := c.ListTools(t.Context(), "")
		require.NoError(t, err)
		mcptest.Assert(t).ValidSchemas(list.Tools...)
	}
	_ = testTools
}

// A whole session, compared with testdata/greet-session.json.
func ExampleWithTranscript() {
	var srv mcptest.Server // gosdktest.Server(s), mcpgotest.Server(s)
	testSession := func(t *testing.T) {
		var tr mcptest.Transcript
		c := mcptest.Connect(t, srv, mcptest.WithProtocolVersion(client.LatestLegacyVersion), mcptest.WithTranscript(&tr))
		_, err := c.ListTools(t.Context(), "")
		require.NoError(t, err)
		mcptest.Assert(t).Golden("greet-session", tr.Messages())
	}
	_ = testSession
}

// RecordNotifications shows a test what the server sent besides its
// answers: here the log message a tool sends while it runs, which a server
// sends only at the level client.Options.LogLevel asks for.
func ExampleRecordNotifications() {
	// A server whose tool "import" logs "imported 2 books" at level info,
	// behind its SDK's adapter.
	var srv mcptest.Server

	testImportLogs := func(t *testing.T) {
		var n mcptest.Notifications
		c := mcptest.Connect(t, srv, mcptest.WithClient(client.Options{LogLevel: client.LevelInfo}), mcptest.RecordNotifications(&n))
		_, err := c.CallTool(t.Context(), "import", nil)
		require.NoError(t, err)
		// Sent while the call was served, so recorded by now; use n.Wait
		// for what a server sends later on its own.
		logs := n.Logs()
		require.Len(t, logs, 1)
		require.JSONEq(t, `"imported 2 books"`, string(logs[0].Data))
	}
	_ = testImportLogs
}

// Since runs a test only at the versions that have a feature: elicitation
// came in 2025-06-18.
func ExampleSince() {
	var srv mcptest.Server // gosdktest.Server(s), mcpgotest.Server(s)
	answer := func(context.Context, *client.ElicitRequest) (*client.ElicitResult, error) {
		return &client.ElicitResult{Action: client.ElicitDecline}, nil
	}
	testElicitation := func(t *testing.T) {
		mcptest.EachVersion(t, func(t *testing.T, version string) {
			c := mcptest.Connect(t, srv, mcptest.WithClient(client.Options{Elicit: answer})) // at version
			if c.Capabilities().Elicitation == nil {
				t.Errorf("no elicitation at %s", version)
			}
		}, mcptest.Since(client.Version20250618))
	}
	_ = testElicitation
}
