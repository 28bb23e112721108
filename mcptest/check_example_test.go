package mcptest_test

import (
	"fmt"
	"testing"

	"github.com/mcptestkit/mcptestkit/mcptest"
)

// The first test of a server: every check of package servercheck, each a
// subtest of a *testing.T. The greeter of the ServerFunc example passes
// them all but two, which only warn (its tool and the tool's parameter have
// no description), so the test passes; with StrictChecks the warnings would
// fail it. A failure
// reads the same way: what the server broke, what the protocol expects, and
// the messages around it.
func ExampleCheckServer() {
	runTest(func(t testing.TB) { // t stands in for the test's *testing.T; it prints what the test reports.
		mcptest.CheckServer(t, mcptest.ServerFunc(greeter))
		fmt.Println("failed:", t.Failed())
	})
	// Output:
	// tools/descriptions: warning: tools without a description: ["greet"]
	// expected: every tool describes what it does; the description is how a model decides to call it (optional in the schema: a convention, not a rule)
	// messages (→ client to server, ← server to client):
	// 	→ {"jsonrpc":"2.0","id":14,"method":"tools/list"}
	// 	← {"id":14,"jsonrpc":"2.0","result":{"tools":[{"inputSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]},"name":"greet"}]}}
	// lint/descriptions/greet: warning: tool "greet": the required parameter "name" has no description (a convention: a model fills the arguments from the descriptions)
	// fix: add a description to its schema: what the value is, its format or unit, an example (with go-sdk, a jsonschema:"..." struct tag; with mcp-go, mcp.Description(...))
	// failed: false
}
