package mcptest_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/mcptest"
)

func ExampleConnect() {
	runTest(func(t testing.TB) { // t stands in for the test's *testing.T; it prints what the test reports.
		// The server under test: its SDK's adapter (gosdktest.Server(s) for a
		// go-sdk *mcp.Server, mcpgotest.Server(s) for an mcp-go
		// *server.MCPServer), or here the greeter of the ServerFunc example.
		c := mcptest.Connect(t, mcptest.ServerFunc(greeter))

		res, err := c.CallTool(t.Context(), "greet", map[string]any{"name": "Ada"})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Println(res.Text())
	})
	// Output:
	// Hello, Ada
}

// WithProtocolVersion pins the version a connection speaks; the server
// answers with the one it speaks. EachVersion runs a test once per version
// in subtests of a *testing.T.
func ExampleWithProtocolVersion() {
	runTest(func(t testing.TB) { // t stands in for the test's *testing.T; it prints what the test reports.
		for _, v := range []string{client.Version20241105, client.Version20250618, client.LatestLegacyVersion} {
			c := mcptest.Connect(t, mcptest.ServerFunc(greeter), mcptest.WithProtocolVersion(v))
			fmt.Println(v, "->", c.ProtocolVersion())
		}
	})
	// Output:
	// 2024-11-05 -> 2024-11-05
	// 2025-06-18 -> 2025-06-18
	// 2025-11-25 -> 2025-11-25
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

// WithTranscript hands the test its connection's messages: a whole session,
// which mcptest.Assert(t).Golden("greet-session", tr.Messages()) would compare with
// a golden file.
func ExampleWithTranscript() {
	runTest(func(t testing.TB) { // t stands in for the test's *testing.T; it prints what the test reports.
		var tr mcptest.Transcript
		c := mcptest.Connect(t, mcptest.ServerFunc(greeter), mcptest.WithProtocolVersion(client.LatestLegacyVersion), mcptest.WithTranscript(&tr))
		if _, err := c.CallTool(t.Context(), "greet", map[string]any{"name": "Ada"}); err != nil {
			t.Fatal(err)
		}
		for _, e := range tr.Snapshot().Entries {
			fmt.Println(e.Dir, string(e.Data))
		}
	})
	// Output:
	// client→server {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"mcptestkit","version":"v0"}}}
	// server→client {"id":1,"jsonrpc":"2.0","result":{"capabilities":{"logging":{},"tools":{}},"protocolVersion":"2025-11-25","serverInfo":{"name":"greeter","version":"v1.0.0"}}}
	// client→server {"jsonrpc":"2.0","method":"notifications/initialized"}
	// client→server {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"greet","arguments":{"name":"Ada"}}}
	// server→client {"id":2,"jsonrpc":"2.0","result":{"content":[{"text":"Hello, Ada","type":"text"}]}}
}

// RecordNotifications shows a test what the server sent besides its
// answers: here the log message the greeter sends while greet runs, which
// it sends only at the level client.Options.LogLevel asks for.
func ExampleRecordNotifications() {
	runTest(func(t testing.TB) { // t stands in for the test's *testing.T; it prints what the test reports.
		var n mcptest.Notifications
		c := mcptest.Connect(t, mcptest.ServerFunc(greeter), mcptest.WithClient(client.Options{LogLevel: client.LevelInfo}), mcptest.RecordNotifications(&n))
		if _, err := c.CallTool(t.Context(), "greet", map[string]any{"name": "Ada"}); err != nil {
			t.Fatal(err)
		}
		// Sent while the call was served, so recorded by now; use n.Wait
		// for what a server sends later on its own.
		for _, m := range n.Logs() {
			fmt.Println(m.Level, string(m.Data))
		}
	})
	// Output:
	// info "greeting Ada"
}
