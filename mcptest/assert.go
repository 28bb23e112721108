package mcptest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/google/go-cmp/cmp"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/mcptest/internal/toolrule"
)

// TestingT is what the assertions need from a test: *testing.T, *testing.B,
// testing.TB, or a fake with these two methods. If it also has a Helper
// method, as testing.TB does, the assertions call it so that failures point
// at the caller's line.
type TestingT interface {
	Errorf(format string, args ...any)
	FailNow()
}

// Assertions checks what an MCP server answered, reporting a failure with
// what was expected, what came and a diff. [Assert] returns the set that lets
// the test go on after a failure, [Require] the set that stops it: the same
// methods, so every check exists both ways. A method that finds a value
// returns it (nil after a failure), the others whether they passed:
//
//	res, err := c.CallTool(t.Context(), "get_author", map[string]any{"title": "Nothing"})
//	require.NoError(t, err)
//	mcptest.Assert(t).ToolError(res, "No book titled")
//	_, err = c.CallTool(t.Context(), "nope", nil)
//	e := mcptest.Require(t).ProtocolError(err, client.CodeInvalidParams)
//	assert.Contains(t, e.Message, "unknown tool")
type Assertions struct {
	t    TestingT
	h    tHelper
	stop bool // FailNow after a failure
}

// Assert returns the assertions that report a failure and let the test go
// on: a method returns false, or nil for the value it would have found.
func Assert(t TestingT) *Assertions { return newAssertions(t, false) }

// Require returns the assertions that report a failure and stop the test
// with t.FailNow.
func Require(t TestingT) *Assertions { return newAssertions(t, true) }

func newAssertions(t TestingT, stop bool) *Assertions {
	h, ok := t.(tHelper)
	if !ok {
		h = noHelper{}
	}
	return &Assertions{t: t, h: h, stop: stop}
}

// tHelper is the Helper method of testing.TB. Each method calls it itself:
// Helper marks its direct caller, so a shared wrapper would mark only the
// wrapper.
type tHelper interface{ Helper() }

type noHelper struct{}

func (noHelper) Helper() {}

// fail reports one failure and ends the assertion: it returns false, after
// stopping the test in Require mode.
func (a *Assertions) fail(format string, args ...any) bool {
	a.h.Helper()
	a.t.Errorf(format, args...)
	return a.end(false)
}

// end returns ok, after stopping the test in Require mode if !ok: for an
// assertion that reported its failures with a.t.Errorf, every one before
// the test stops.
func (a *Assertions) end(ok bool) bool {
	if !ok && a.stop {
		a.t.FailNow()
	}
	return ok
}

// ToolSuccess checks that res is a successful tool result (isError is
// false). On failure it prints the result, whose text usually says why the
// tool failed.
func (a *Assertions) ToolSuccess(res *client.CallToolResult) bool {
	a.h.Helper()
	if res == nil {
		return a.fail("mcptest: expected a successful tool result, got no result (did the call return an error?)")
	}
	if res.IsError {
		return a.fail("mcptest: expected a successful tool result, got a tool error:\n%s\nresult: %s%s", indent(res.Text()), show(res), callbackHint(res.Text()))
	}
	return true
}

// ToolError checks that res is a tool error: the request succeeded and the
// tool reports failure in the result (isError is true), where the model
// reads it. Its text must contain every substring given, and the result must
// not carry structuredContent (a failed call has no value to structure).
//
//	res, err := c.CallTool(t.Context(), "get_author", map[string]any{"title": "Nothing"})
//	require.NoError(t, err)
//	mcptest.Assert(t).ToolError(res, "No book titled")
func (a *Assertions) ToolError(res *client.CallToolResult, contains ...string) bool {
	a.h.Helper()
	if res == nil {
		return a.fail("mcptest: expected a tool error result (isError: true), got no result (did the call return an error? A protocol error is not a tool error)")
	}
	if !res.IsError {
		return a.fail("mcptest: expected a tool error result (isError: true), got a successful result\nresult: %s", show(res))
	}
	ok := true
	text := res.Text()
	for _, s := range contains {
		if !strings.Contains(text, s) {
			a.t.Errorf("mcptest: the tool error's text does not contain the expected substring\nexpected substring: %q\nactual text:        %q%s", s, text, callbackHint(text))
			ok = false
		}
	}
	if broken := toolrule.StructuredOnError(res); broken != "" {
		a.t.Errorf("mcptest: %s", broken) // the rule CheckServer's tools/calls judges by
		ok = false
	}
	return a.end(ok)
}

// Text checks that the text of res (every text block, joined by newlines:
// what the model reads) is exactly want.
func (a *Assertions) Text(res *client.CallToolResult, want string) bool {
	a.h.Helper()
	if res == nil {
		return a.fail("mcptest: expected a tool result with text %q, got no result", want)
	}
	got := res.Text()
	if got == want {
		return true
	}
	return a.fail("mcptest: the tool result's text differs\nexpected: %q\nactual:   %q\ndiff (-expected +actual):\n%s%s", want, got, cmp.Diff(want, got), callbackHint(got))
}

// Structured checks the structuredContent of res against want, any Go value
// that encodes to JSON (a struct, a map, a slice). Both sides are compared
// as JSON, so field names follow want's json tags, and a member the server
// sent that want lacks is a difference. Numbers compare by value, as JSON
// means them: an int 3 in want equals a 3, 3.0 or 3e0 from the server, and
// the diff prints them as numbers.
func (a *Assertions) Structured(res *client.CallToolResult, want any) bool {
	a.h.Helper()
	if res == nil {
		return a.fail("mcptest: expected a tool result with structuredContent, got no result")
	}
	if !hasStructured(res) {
		return a.fail("mcptest: expected structuredContent, the result has none\nexpected: %s\nresult:   %s%s", show(want), show(res), callbackHint(res.Text()))
	}
	wantJSON, err := toGeneric(want)
	if err != nil {
		return a.fail("mcptest: Structured: the expected value: %v", err)
	}
	gotJSON, err := toGeneric(res.StructuredContent)
	if err != nil {
		return a.fail("mcptest: the result's structuredContent is not valid JSON: %v", err)
	}
	if diff := cmp.Diff(numbersByValue(wantJSON), numbersByValue(gotJSON)); diff != "" {
		return a.fail("mcptest: the structuredContent differs\nexpected: %s\nactual:   %s\ndiff (-expected +actual):\n%s", show(want), compact(res.StructuredContent), diff)
	}
	return true
}

// NoStructured checks that res carries no structuredContent (absent or
// null): for a successful result of a tool that declares no outputSchema.
// [Assertions.ToolError] checks it of a tool error already.
func (a *Assertions) NoStructured(res *client.CallToolResult) bool {
	a.h.Helper()
	if res != nil && hasStructured(res) {
		return a.fail("mcptest: expected no structuredContent, got %s", compact(res.StructuredContent))
	}
	return true
}

func hasStructured(res *client.CallToolResult) bool { return toolrule.HasStructured(res) }

// ProtocolError checks that err is a JSON-RPC error response from the
// server (a [*client.Error], possibly wrapped) with the given code, and
// returns it for further checks of its Message or Data; nil after a
// failure. It fails for no error, for another kind of error (a closed
// connection, a timeout) and for another code.
//
//	_, err := c.CallTool(t.Context(), "nope", nil)
//	e := mcptest.Require(t).ProtocolError(err, client.CodeInvalidParams)
//	assert.Contains(t, e.Message, "unknown tool")
func (a *Assertions) ProtocolError(err error, code int64) *client.Error {
	a.h.Helper()
	if err == nil {
		a.fail("mcptest: expected a protocol error with code %d, got no error", code)
		return nil
	}
	if fromCallback(err) {
		// A callback's *client.Error, wrapped by the multi round-trip loop, is
		// this client's own refusal: the server never answered with it.
		a.fail("mcptest: expected a protocol error with code %d from the server, got this client's own input callback failing during a multi round-trip request: %v%s", code, err, callbackHint(err.Error()))
		return nil
	}
	var e *client.Error
	if !errors.As(err, &e) {
		a.fail("mcptest: expected a protocol error with code %d, got an error that is not a server's error response (%T): %v%s", code, err, err, callbackHint(err.Error()))
		return nil
	}
	if e.Code != code {
		a.fail("mcptest: the protocol error has another code\nexpected code: %d\nactual code:   %d\nmessage:       %q\ndata:          %s%s",
			code, e.Code, e.Message, dataText(e.Data), callbackHint(e.Message))
		return nil
	}
	return e
}

// fromCallback reports whether err is a 2026-07-28 multi round-trip request
// that ended because one of this client's own callbacks failed.
func fromCallback(err error) bool {
	var ir *client.InputRequiredError
	return errors.As(err, &ir)
}

// ResourceNotFound checks that err is a server's "resource not found" for
// uri, as [client.IsResourceNotFound] recognises it (every shape real SDKs
// send), and that it is about uri: the URI the request read and, when the
// error carries data.uri, that one too.
//
// The 2026-07-28 form also carries data.uri, which lets a client tell which
// read failed; servers SHOULD send it, and not all do (mcp-go, the
// TypeScript SDK). To require it, check the error's Data:
//
//	e := mcptest.Require(t).ProtocolError(err, client.CodeResourceNotFound)
//	assert.JSONEq(t, `{"uri":"books://Nothing"}`, string(e.Data))
func (a *Assertions) ResourceNotFound(err error, uri string) bool {
	a.h.Helper()
	if err == nil {
		return a.fail("mcptest: expected resource not found for %q, got no error", uri)
	}
	var e *client.Error
	if !errors.As(err, &e) {
		return a.fail("mcptest: expected resource not found for %q, got an error that is not a server's error response (%T): %v", uri, err, err)
	}
	if !client.IsResourceNotFound(err) {
		return a.fail("mcptest: expected resource not found for %q (code %d, or %d with data.uri or a message naming the resource)\nactual code: %d\nmessage:     %q\ndata:        %s",
			uri, client.CodeLegacyResourceNotFound, client.CodeResourceNotFound, e.Code, e.Message, dataText(e.Data))
	}
	if e.Name != "" && e.Name != uri {
		return a.fail("mcptest: resource not found for another URI\nexpected: %q\nread:     %q", uri, e.Name)
	}
	var got string
	if e.DataField("uri", &got) && got != uri {
		return a.fail("mcptest: resource not found names another URI\nexpected data.uri: %q\nactual data.uri:   %q", uri, got)
	}
	return true
}

// show renders v as compact JSON for a failure message.
func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%#v", v)
	}
	return string(b)
}

func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}

func dataText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "(none)"
	}
	return compact(raw)
}

func indent(s string) string {
	return "\t" + strings.ReplaceAll(s, "\n", "\n\t")
}
