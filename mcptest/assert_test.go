package mcptest

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcptestkit/mcptestkit/client"
)

// recorder is the smallest TestingT: Errorf only, as testify's
// assert.TestingT. The assertions must work with it.
type recorder struct{ msgs []string }

func (r *recorder) Errorf(format string, args ...any) {
	r.msgs = append(r.msgs, fmt.Sprintf(format, args...))
}
func (r *recorder) text() string { return strings.Join(r.msgs, "\n") }

// check runs an assertion against a fresh recorder and compares its verdict
// and message with the expectation.
func check(t *testing.T, wantOK bool, assertion func(TestingT) bool, contains ...string) {
	t.Helper()
	r := &recorder{}
	ok := assertion(r)
	if ok != wantOK {
		t.Fatalf("the assertion returned %v, want %v; it reported:\n%s", ok, wantOK, r.text())
	}
	if ok != (len(r.msgs) == 0) {
		t.Fatalf("the assertion returned %v but reported %d failure(s):\n%s", ok, len(r.msgs), r.text())
	}
	for _, s := range contains {
		assert.Contains(t, r.text(), s)
	}
}

func textResult(isError bool, text string) *client.CallToolResult {
	return &client.CallToolResult{IsError: isError, Content: []client.Content{&client.TextContent{Text: text}}}
}

func TestAssertToolSuccess(t *testing.T) {
	t.Parallel()
	check(t, true, func(r TestingT) bool { return AssertToolSuccess(r, textResult(false, "ok")) })
	check(t, false, func(r TestingT) bool { return AssertToolSuccess(r, textResult(true, "database down")) },
		"expected a successful tool result, got a tool error", "database down")
	check(t, false, func(r TestingT) bool { return AssertToolSuccess(r, nil) }, "got no result")
}

func TestAssertToolError(t *testing.T) {
	t.Parallel()
	res := textResult(true, `No book titled "Nothing" in the catalog.`)
	check(t, true, func(r TestingT) bool { return AssertToolError(r, res) })
	check(t, true, func(r TestingT) bool { return AssertToolError(r, res, "No book titled", `"Nothing"`) })
	check(t, false, func(r TestingT) bool { return AssertToolError(r, res, "Unknown author") },
		`expected substring: "Unknown author"`, `actual text:        "No book titled \"Nothing\" in the catalog."`)
	check(t, false, func(r TestingT) bool { return AssertToolError(r, textResult(false, "Frank Herbert")) },
		"expected a tool error result (isError: true), got a successful result", "Frank Herbert")
	check(t, false, func(r TestingT) bool { return AssertToolError(r, nil) }, "A protocol error is not a tool error")

	withStructured := textResult(true, "failed")
	withStructured.StructuredContent = json.RawMessage(`{"partial":1}`)
	check(t, false, func(r TestingT) bool { return AssertToolError(r, withStructured) },
		`a tool error must not carry structuredContent, got {"partial":1}`)
	withNull := textResult(true, "failed")
	withNull.StructuredContent = json.RawMessage(`null`)
	check(t, true, func(r TestingT) bool { return AssertToolError(r, withNull) })
}

func TestAssertText(t *testing.T) {
	t.Parallel()
	res := &client.CallToolResult{Content: []client.Content{&client.TextContent{Text: "a"}, &client.ImageContent{}, &client.TextContent{Text: "b"}}}
	check(t, true, func(r TestingT) bool { return AssertText(r, res, "a\nb") })
	check(t, false, func(r TestingT) bool { return AssertText(r, res, "a b") },
		`expected: "a b"`, `actual:   "a\nb"`, "diff (-expected +actual)")
	check(t, false, func(r TestingT) bool { return AssertText(r, nil, "x") }, "got no result")
}

func TestAssertStructured(t *testing.T) {
	t.Parallel()
	type book struct {
		Title  string `json:"title"`
		Author string `json:"author"`
	}
	type out struct {
		Books []book `json:"books"`
	}
	res := &client.CallToolResult{StructuredContent: json.RawMessage(`{"books":[{"title":"Dune","author":"Frank Herbert"}]}`)}
	check(t, true, func(r TestingT) bool {
		return AssertStructured(r, res, out{Books: []book{{"Dune", "Frank Herbert"}}})
	})
	check(t, true, func(r TestingT) bool {
		return AssertStructured(r, res, map[string]any{"books": []any{map[string]any{"title": "Dune", "author": "Frank Herbert"}}})
	})
	check(t, false, func(r TestingT) bool {
		return AssertStructured(r, res, out{Books: []book{{"Dune", "F. Herbert"}}})
	}, "the structuredContent differs", `"F. Herbert"`, `"Frank Herbert"`, "diff (-expected +actual)")

	extra := &client.CallToolResult{StructuredContent: json.RawMessage(`{"books":[],"total":0}`)}
	check(t, false, func(r TestingT) bool { return AssertStructured(r, extra, out{Books: []book{}}) }, `"total"`)

	check(t, false, func(r TestingT) bool { return AssertStructured(r, textResult(false, "x"), out{}) }, "the result has none")
	check(t, false, func(r TestingT) bool { return AssertStructured(r, res, make(chan int)) }, "the expected value")
}

func TestAssertNoStructured(t *testing.T) {
	t.Parallel()
	check(t, true, func(r TestingT) bool { return AssertNoStructured(r, textResult(true, "x")) })
	check(t, false, func(r TestingT) bool {
		return AssertNoStructured(r, &client.CallToolResult{StructuredContent: json.RawMessage(` {"a": 1} `)})
	}, `expected no structuredContent, got {"a":1}`)
}

func TestAssertProtocolError(t *testing.T) {
	t.Parallel()
	err := fmt.Errorf("wrapped: %w", &client.Error{Code: -32602, Message: "unknown tool \"nope\"", Method: "tools/call"})
	check(t, true, func(r TestingT) bool { return AssertProtocolError(r, err, client.CodeInvalidParams) })
	runFake(t, func(tb testing.TB) {
		assert.Equal(t, `unknown tool "nope"`, RequireProtocolError(tb, err, client.CodeInvalidParams).Message)
	}).expectPass(t)

	for _, tc := range []struct {
		err  error
		want string
	}{
		{nil, "expected a protocol error with code -32603, got no error"},
		{client.ErrClosed, "not a server's error response"},
		{&client.Error{Code: 0, Message: "raw boom", Data: json.RawMessage(`{"k":1}`)}, "expected code: -32603\nactual code:   0\nmessage:       \"raw boom\"\ndata:          {\"k\":1}"},
		// A sampling callback's own refusal, wrapped by the 2026-07-28 input
		// loop, carries the right code but never came from the server.
		{&client.InputRequiredError{Method: "tools/call", Name: "t", Rounds: 1, Reason: "sampling callback failed", Err: &client.Error{Code: client.CodeInternalError, Message: "no"}}, "got this client's own input callback failing"},
	} {
		check(t, false, func(r TestingT) bool { return AssertProtocolError(r, tc.err, client.CodeInternalError) }, tc.want)
	}
}

func TestAssertResourceNotFound(t *testing.T) {
	t.Parallel()
	const uri = "books://Nothing"
	read := func(e *client.Error) *client.Error { e.Method, e.Name = "resources/read", uri; return e }
	modern := read(&client.Error{Code: -32602, Message: "No book", Data: json.RawMessage(`{"uri":"books://Nothing"}`)})
	legacy := read(&client.Error{Code: -32002, Message: "resource not found"})
	legacyURI := read(&client.Error{Code: -32002, Message: "resource not found", Data: json.RawMessage(`{"uri":"books://Nothing"}`)})
	// What mcp-go sends at 2026-07-28 and the TypeScript SDK at every
	// version: -32602 without data. client.IsResourceNotFound and the
	// assertion agree on it (issue 15.2).
	mcpgoModern := read(&client.Error{Code: -32602, Message: "handler not found for resource URI 'books://Nothing': resource not found"})
	typescript := read(&client.Error{Code: -32602, Message: "MCP error -32602: Resource books://Nothing not found"})
	for _, e := range []*client.Error{modern, legacy, legacyURI, mcpgoModern, typescript} {
		assert.True(t, client.IsResourceNotFound(e), e.Message)
		check(t, true, func(r TestingT) bool { return AssertResourceNotFound(r, e, uri) })
	}

	check(t, false, func(r TestingT) bool { return AssertResourceNotFound(r, modern, "books://Other") },
		`resource not found for another URI`, `expected: "books://Other"`, `read:     "books://Nothing"`)
	wrongData := &client.Error{Code: -32602, Message: "No book", Data: json.RawMessage(`{"uri":"books://Else"}`)}
	check(t, false, func(r TestingT) bool { return AssertResourceNotFound(r, wrongData, uri) },
		`expected data.uri: "books://Nothing"`, `actual data.uri:   "books://Else"`)
	check(t, false, func(r TestingT) bool {
		return AssertResourceNotFound(r, read(&client.Error{Code: -32602, Message: "Invalid request parameters"}), uri)
	}, "actual code: -32602", "Invalid request parameters")
	check(t, false, func(r TestingT) bool {
		return AssertResourceNotFound(r, &client.Error{Code: -32603, Message: "disk on fire"}, uri)
	}, "actual code: -32603", "disk on fire")
	check(t, false, func(r TestingT) bool { return AssertResourceNotFound(r, nil, uri) }, "got no error")
	check(t, false, func(r TestingT) bool { return AssertResourceNotFound(r, client.ErrClosed, uri) }, "not a server's error response")

	// The strict 2026-07-28 form, opt in: data.uri present.
	f := runFake(t, func(tb testing.TB) {
		e := RequireProtocolError(tb, mcpgoModern, client.CodeResourceNotFound)
		var got string
		assert.True(tb, e.DataField("uri", &got), "data.uri is missing")
	})
	f.expectFailure(t, "data.uri is missing")
}

// The Require forms stop the test (FailNow) after reporting.
func TestRequireStopsTheTest(t *testing.T) {
	t.Parallel()
	cases := map[string]func(tb testing.TB){
		"RequireToolSuccess":   func(tb testing.TB) { RequireToolSuccess(tb, textResult(true, "x")) },
		"RequireToolError":     func(tb testing.TB) { RequireToolError(tb, textResult(false, "x")) },
		"RequireProtocolError": func(tb testing.TB) { RequireProtocolError(tb, nil, -32602) },
	}
	for name, fn := range cases {
		reached := false
		f := runFake(t, func(tb testing.TB) {
			fn(tb)
			reached = true
		})
		f.expectFailure(t, "mcptest:")
		assert.False(t, reached, "%s did not stop the test", name)
	}
	runFake(t, func(tb testing.TB) {
		RequireToolSuccess(tb, textResult(false, "x"))
		RequireToolError(tb, textResult(true, "x"), "x")
		assert.NotNil(t, RequireProtocolError(tb, &client.Error{Code: -32602}, -32602))
	}).expectPass(t)
}
