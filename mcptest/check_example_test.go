package mcptest_test

import (
	"fmt"
	"testing"

	"github.com/mcptestkit/mcptestkit/mcptest"
)

// The first test of a server: every check of package servercheck, each a
// subtest of a *testing.T. The greeter of the ServerFunc example passes
// them all but one, which only warns (its tool has no description), so the
// test passes; with StrictChecks the warning would fail it. A failure
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
	// 	→ {"jsonrpc":"2.0","id":9,"method":"tools/list"}
	// 	← {"id":9,"jsonrpc":"2.0","result":{"tools":[{"inputSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]},"name":"greet"}]}}
	// failed: false
}
