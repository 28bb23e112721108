package mcptest

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcptestkit/mcptestkit/client"
)

// recorder is a TestingT that records what an assertion reports, how often
// it stopped the test, and where each failure would be reported: it marks
// helpers and skips them as the testing package does (testing.common's
// Helper and frameSkip), so a method that forgets to call Helper shows up
// as a failure reported inside mcptest instead of at the caller's line.
type recorder struct {
	msgs     []string
	at       []string // file:line of each failure
	failNows int
	helpers  map[string]bool // functions that called Helper
}

func (r *recorder) Errorf(format string, args ...any) {
	r.msgs = append(r.msgs, fmt.Sprintf(format, args...))
	r.at = append(r.at, r.caller())
}

// FailNow only counts: the assertion must return at once by itself, and a
// second FailNow would show.
func (r *recorder) FailNow() { r.failNows++ }

func (r *recorder) Helper() {
	var pc [1]uintptr
	runtime.Callers(2, pc[:]) // the function calling Helper
	f, _ := runtime.CallersFrames(pc[:]).Next()
	if r.helpers == nil {
		r.helpers = map[string]bool{}
	}
	r.helpers[f.Function] = true
}

// caller returns file:line of the first caller of Errorf not marked as a
// helper, the line the testing package would print.
func (r *recorder) caller() string {
	pcs := make([]uintptr, 64)
	n := runtime.Callers(3, pcs) // skip runtime.Callers, caller, Errorf
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		if !r.helpers[f.Function] {
			return fmt.Sprintf("%s:%d", filepath.Base(f.File), f.Line)
		}
		if !more {
			return "?"
		}
	}
}

func (r *recorder) text() string { return strings.Join(r.msgs, "\n") }

// check runs an assertion against a fresh recorder, as [Assert] and as
// [Require], and compares its verdict and message with the expectation:
// Require stops the test exactly once when the assertion fails, Assert never,
// and every failure is reported in a test file, where the assertion was
// called.
func check(t *testing.T, wantOK bool, assertion func(a *Assertions) bool, contains ...string) {
	t.Helper()
	for _, mode := range []func(TestingT) *Assertions{Assert, Require} {
		r := &recorder{}
		a := mode(r)
		ok := assertion(a)
		if ok != wantOK {
			t.Fatalf("the assertion returned %v, want %v; it reported:\n%s", ok, wantOK, r.text())
		}
		if ok != (len(r.msgs) == 0) {
			t.Fatalf("the assertion returned %v but reported %d failure(s):\n%s", ok, len(r.msgs), r.text())
		}
		wantStops := 0
		if !ok && a.stop {
			wantStops = 1
		}
		if r.failNows != wantStops {
			t.Fatalf("stop %v: the assertion called FailNow %d times, want %d", a.stop, r.failNows, wantStops)
		}
		for _, at := range r.at {
			if !strings.Contains(at, "_test.go:") {
				t.Fatalf("a failure is reported at %s, not at the caller's line (a missing Helper call)", at)
			}
		}
		for _, s := range contains {
			assert.Contains(t, r.text(), s)
		}
	}
}

func textResult(isError bool, text string) *client.CallToolResult {
	return &client.CallToolResult{IsError: isError, Content: []client.Content{&client.TextContent{Text: text}}}
}

func TestAssertToolSuccess(t *testing.T) {
	t.Parallel()
	check(t, true, func(a *Assertions) bool { return a.ToolSuccess(textResult(false, "ok")) })
	check(t, false, func(a *Assertions) bool { return a.ToolSuccess(textResult(true, "database down")) },
		"expected a successful tool result, got a tool error", "database down")
	check(t, false, func(a *Assertions) bool { return a.ToolSuccess(nil) }, "got no result")
}

func TestAssertToolError(t *testing.T) {
	t.Parallel()
	res := textResult(true, `No book titled "Nothing" in the catalog.`)
	check(t, true, func(a *Assertions) bool { return a.ToolError(res) })
	check(t, true, func(a *Assertions) bool { return a.ToolError(res, "No book titled", `"Nothing"`) })
	check(t, false, func(a *Assertions) bool { return a.ToolError(res, "Unknown author") },
		`expected substring: "Unknown author"`, `actual text:        "No book titled \"Nothing\" in the catalog."`)
	check(t, false, func(a *Assertions) bool { return a.ToolError(textResult(false, "Frank Herbert")) },
		"expected a tool error result (isError: true), got a successful result", "Frank Herbert")
	check(t, false, func(a *Assertions) bool { return a.ToolError(nil) }, "A protocol error is not a tool error")

	withStructured := textResult(true, "failed")
	withStructured.StructuredContent = json.RawMessage(`{"partial":1}`)
	check(t, false, func(a *Assertions) bool { return a.ToolError(withStructured) },
		`a tool error must not carry structuredContent, got {"partial":1}`)
	withNull := textResult(true, "failed")
	withNull.StructuredContent = json.RawMessage(`null`)
	check(t, true, func(a *Assertions) bool { return a.ToolError(withNull) })
}

func TestAssertText(t *testing.T) {
	t.Parallel()
	res := &client.CallToolResult{Content: []client.Content{&client.TextContent{Text: "a"}, &client.ImageContent{}, &client.TextContent{Text: "b"}}}
	check(t, true, func(a *Assertions) bool { return a.Text(res, "a\nb") })
	check(t, false, func(a *Assertions) bool { return a.Text(res, "a b") },
		`expected: "a b"`, `actual:   "a\nb"`, "diff (-expected +actual)")
	check(t, false, func(a *Assertions) bool { return a.Text(nil, "x") }, "got no result")
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
	check(t, true, func(a *Assertions) bool {
		return a.Structured(res, out{Books: []book{{"Dune", "Frank Herbert"}}})
	})
	check(t, true, func(a *Assertions) bool {
		return a.Structured(res, map[string]any{"books": []any{map[string]any{"title": "Dune", "author": "Frank Herbert"}}})
	})
	check(t, false, func(a *Assertions) bool {
		return a.Structured(res, out{Books: []book{{"Dune", "F. Herbert"}}})
	}, "the structuredContent differs", `"F. Herbert"`, `"Frank Herbert"`, "diff (-expected +actual)")

	extra := &client.CallToolResult{StructuredContent: json.RawMessage(`{"books":[],"total":0}`)}
	check(t, false, func(a *Assertions) bool { return a.Structured(extra, out{Books: []book{}}) }, `"total"`)

	check(t, false, func(a *Assertions) bool { return a.Structured(textResult(false, "x"), out{}) }, "the result has none")
	check(t, false, func(a *Assertions) bool { return a.Structured(res, make(chan int)) }, "the expected value")
}

func TestAssertNoStructured(t *testing.T) {
	t.Parallel()
	check(t, true, func(a *Assertions) bool { return a.NoStructured(textResult(true, "x")) })
	check(t, false, func(a *Assertions) bool {
		return a.NoStructured(&client.CallToolResult{StructuredContent: json.RawMessage(` {"a": 1} `)})
	}, `expected no structuredContent, got {"a":1}`)
}

func TestAssertProtocolError(t *testing.T) {
	t.Parallel()
	err := fmt.Errorf("wrapped: %w", &client.Error{Code: -32602, Message: "unknown tool \"nope\"", Method: "tools/call"})
	check(t, true, func(a *Assertions) bool { return a.ProtocolError(err, client.CodeInvalidParams) != nil })
	runFake(t, func(tb testing.TB) {
		assert.Equal(t, `unknown tool "nope"`, Require(tb).ProtocolError(err, client.CodeInvalidParams).Message)
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
		check(t, false, func(a *Assertions) bool { return a.ProtocolError(tc.err, client.CodeInternalError) != nil }, tc.want)
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
		check(t, true, func(a *Assertions) bool { return a.ResourceNotFound(e, uri) })
	}

	check(t, false, func(a *Assertions) bool { return a.ResourceNotFound(modern, "books://Other") },
		`resource not found for another URI`, `expected: "books://Other"`, `read:     "books://Nothing"`)
	wrongData := &client.Error{Code: -32602, Message: "No book", Data: json.RawMessage(`{"uri":"books://Else"}`)}
	check(t, false, func(a *Assertions) bool { return a.ResourceNotFound(wrongData, uri) },
		`expected data.uri: "books://Nothing"`, `actual data.uri:   "books://Else"`)
	check(t, false, func(a *Assertions) bool {
		return a.ResourceNotFound(read(&client.Error{Code: -32602, Message: "Invalid request parameters"}), uri)
	}, "actual code: -32602", "Invalid request parameters")
	check(t, false, func(a *Assertions) bool {
		return a.ResourceNotFound(&client.Error{Code: -32603, Message: "disk on fire"}, uri)
	}, "actual code: -32603", "disk on fire")
	check(t, false, func(a *Assertions) bool { return a.ResourceNotFound(nil, uri) }, "got no error")
	check(t, false, func(a *Assertions) bool { return a.ResourceNotFound(client.ErrClosed, uri) }, "not a server's error response")

	// The strict 2026-07-28 form, opt in: data.uri present.
	f := runFake(t, func(tb testing.TB) {
		e := Require(tb).ProtocolError(mcpgoModern, client.CodeResourceNotFound)
		var got string
		assert.True(tb, e.DataField("uri", &got), "data.uri is missing")
	})
	f.expectFailure(t, "data.uri is missing")
}

// The Require forms stop the test (FailNow) after reporting.
func TestRequireStopsTheTest(t *testing.T) {
	t.Parallel()
	cases := map[string]func(tb testing.TB){
		"RequireToolSuccess":   func(tb testing.TB) { Require(tb).ToolSuccess(textResult(true, "x")) },
		"RequireToolError":     func(tb testing.TB) { Require(tb).ToolError(textResult(false, "x")) },
		"RequireProtocolError": func(tb testing.TB) { Require(tb).ProtocolError(nil, -32602) },
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
		Require(tb).ToolSuccess(textResult(false, "x"))
		Require(tb).ToolError(textResult(true, "x"), "x")
		assert.NotNil(t, Require(tb).ProtocolError(&client.Error{Code: -32602}, -32602))
	}).expectPass(t)
}
