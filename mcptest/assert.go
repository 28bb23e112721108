package mcptest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/google/go-cmp/cmp"

	"github.com/mcptestkit/mcptestkit/client"
)

// TestingT is what the Assert functions need from a test: *testing.T,
// *testing.B, testify's mocks and any fake with an Errorf method (testify's
// assert.TestingT shape). If it also has a Helper method, as testing.TB does,
// the assertions call it so that failures point at the caller's line.
type TestingT interface {
	Errorf(format string, args ...any)
}

// RequireT is a [TestingT] that can stop the test, as *testing.T can. The
// Require functions call FailNow after reporting a failure.
type RequireT interface {
	TestingT
	FailNow()
}

// tHelper is the Helper method of testing.TB. Each assertion calls it
// itself: Helper marks its direct caller, so a shared wrapper would mark
// only the wrapper.
type tHelper interface{ Helper() }

func failNowUnless(t RequireT, ok bool) {
	if !ok {
		t.FailNow()
	}
}

// AssertToolSuccess checks that res is a successful tool result (isError is
// false). On failure it prints the result, whose text usually says why the
// tool failed.
func AssertToolSuccess(t TestingT, res *client.CallToolResult) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	if res == nil {
		t.Errorf("mcptest: expected a successful tool result, got no result (did the call return an error?)")
		return false
	}
	if res.IsError {
		t.Errorf("mcptest: expected a successful tool result, got a tool error:\n%s\nresult: %s%s", indent(res.Text()), show(res), callbackHint(res.Text()))
		return false
	}
	return true
}

// RequireToolSuccess is [AssertToolSuccess] that stops the test on failure.
func RequireToolSuccess(t RequireT, res *client.CallToolResult) {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	failNowUnless(t, AssertToolSuccess(t, res))
}

// AssertToolError checks that res is a tool error: the request succeeded and
// the tool reports failure in the result (isError is true), where the model
// reads it. Its text must contain every substring given, and the result must
// not carry structuredContent (a failed call has no value to structure).
//
//	res, err := c.CallTool(t.Context(), "get_author", map[string]any{"title": "Nothing"})
//	require.NoError(t, err)
//	mcptest.AssertToolError(t, res, "No book titled")
func AssertToolError(t TestingT, res *client.CallToolResult, contains ...string) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	if res == nil {
		t.Errorf("mcptest: expected a tool error result (isError: true), got no result (did the call return an error? A protocol error is not a tool error)")
		return false
	}
	if !res.IsError {
		t.Errorf("mcptest: expected a tool error result (isError: true), got a successful result\nresult: %s", show(res))
		return false
	}
	ok := true
	text := res.Text()
	for _, s := range contains {
		if !strings.Contains(text, s) {
			t.Errorf("mcptest: the tool error's text does not contain the expected substring\nexpected substring: %q\nactual text:        %q%s", s, text, callbackHint(text))
			ok = false
		}
	}
	if hasStructured(res) {
		t.Errorf("mcptest: a tool error must not carry structuredContent, got %s", res.StructuredContent)
		ok = false
	}
	return ok
}

// RequireToolError is [AssertToolError] that stops the test on failure.
func RequireToolError(t RequireT, res *client.CallToolResult, contains ...string) {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	failNowUnless(t, AssertToolError(t, res, contains...))
}

// AssertText checks that the text of res (every text block, joined by
// newlines: what the model reads) is exactly want.
func AssertText(t TestingT, res *client.CallToolResult, want string) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	if res == nil {
		t.Errorf("mcptest: expected a tool result with text %q, got no result", want)
		return false
	}
	got := res.Text()
	if got == want {
		return true
	}
	t.Errorf("mcptest: the tool result's text differs\nexpected: %q\nactual:   %q\ndiff (-expected +actual):\n%s%s", want, got, cmp.Diff(want, got), callbackHint(got))
	return false
}

// AssertStructured checks the structuredContent of res against want, any Go
// value that encodes to JSON (a struct, a map, a slice). Both sides are
// compared as JSON, so field names follow want's json tags, and a member the
// server sent that want lacks is a difference. Numbers compare by value, as
// JSON means them: an int 3 in want equals a 3, 3.0 or 3e0 from the server,
// and the diff prints them as numbers.
func AssertStructured(t TestingT, res *client.CallToolResult, want any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	if res == nil {
		t.Errorf("mcptest: expected a tool result with structuredContent, got no result")
		return false
	}
	if !hasStructured(res) {
		t.Errorf("mcptest: expected structuredContent, the result has none\nexpected: %s\nresult:   %s%s", show(want), show(res), callbackHint(res.Text()))
		return false
	}
	wantJSON, err := toGeneric(want)
	if err != nil {
		t.Errorf("mcptest: AssertStructured: the expected value: %v", err)
		return false
	}
	gotJSON, err := toGeneric(res.StructuredContent)
	if err != nil {
		t.Errorf("mcptest: the result's structuredContent is not valid JSON: %v", err)
		return false
	}
	if diff := cmp.Diff(numbersByValue(wantJSON), numbersByValue(gotJSON)); diff != "" {
		t.Errorf("mcptest: the structuredContent differs\nexpected: %s\nactual:   %s\ndiff (-expected +actual):\n%s", show(want), compact(res.StructuredContent), diff)
		return false
	}
	return true
}

// AssertNoStructured checks that res carries no structuredContent (absent or
// null), as a tool error must not.
func AssertNoStructured(t TestingT, res *client.CallToolResult) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	if res != nil && hasStructured(res) {
		t.Errorf("mcptest: expected no structuredContent, got %s", compact(res.StructuredContent))
		return false
	}
	return true
}

func hasStructured(res *client.CallToolResult) bool {
	s := bytes.TrimSpace(res.StructuredContent)
	return len(s) > 0 && !bytes.Equal(s, []byte("null"))
}

// AssertProtocolError checks that err is a JSON-RPC error response from the
// server (a [*client.Error], possibly wrapped) with the given code. It fails
// for no error, for another kind of error (a closed connection, a timeout)
// and for another code. To check the error's Message or Data as well, use
// [RequireProtocolError], which returns it.
func AssertProtocolError(t TestingT, err error, code int64) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	return protocolError(t, err, code) != nil
}

// RequireProtocolError is [AssertProtocolError] that stops the test on
// failure, and returns the error for further checks:
//
//	_, err := c.CallTool(t.Context(), "nope", nil)
//	e := mcptest.RequireProtocolError(t, err, client.CodeInvalidParams)
//	assert.Contains(t, e.Message, "unknown tool")
func RequireProtocolError(t RequireT, err error, code int64) *client.Error {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	e := protocolError(t, err, code)
	failNowUnless(t, e != nil)
	return e
}

// protocolError is AssertProtocolError returning the error, nil after
// reporting a failure.
func protocolError(t TestingT, err error, code int64) *client.Error {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	if err == nil {
		t.Errorf("mcptest: expected a protocol error with code %d, got no error", code)
		return nil
	}
	if fromCallback(err) {
		// A callback's *client.Error, wrapped by the multi round-trip loop, is
		// this client's own refusal: the server never answered with it.
		t.Errorf("mcptest: expected a protocol error with code %d from the server, got this client's own input callback failing during a multi round-trip request: %v%s", code, err, callbackHint(err.Error()))
		return nil
	}
	var e *client.Error
	if !errors.As(err, &e) {
		t.Errorf("mcptest: expected a protocol error with code %d, got an error that is not a server's error response (%T): %v%s", code, err, err, callbackHint(err.Error()))
		return nil
	}
	if e.Code != code {
		t.Errorf("mcptest: the protocol error has another code\nexpected code: %d\nactual code:   %d\nmessage:       %q\ndata:          %s%s", code, e.Code, e.Message, dataText(e.Data), callbackHint(e.Message))
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

// AssertResourceNotFound checks that err is a server's "resource not found"
// for uri, as [client.IsResourceNotFound] recognises it (every shape real
// SDKs send), and that it is about uri: the URI the request read and, when
// the error carries data.uri, that one too.
//
// The 2026-07-28 form also carries data.uri, which lets a client tell which
// read failed; servers SHOULD send it, and not all do (mcp-go, the
// TypeScript SDK). To require it, check the error's Data:
//
//	e := mcptest.RequireProtocolError(t, err, client.CodeResourceNotFound)
//	assert.JSONEq(t, `{"uri":"books://Nothing"}`, string(e.Data))
func AssertResourceNotFound(t TestingT, err error, uri string) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	if err == nil {
		t.Errorf("mcptest: expected resource not found for %q, got no error", uri)
		return false
	}
	var e *client.Error
	if !errors.As(err, &e) {
		t.Errorf("mcptest: expected resource not found for %q, got an error that is not a server's error response (%T): %v", uri, err, err)
		return false
	}
	if !client.IsResourceNotFound(err) {
		t.Errorf("mcptest: expected resource not found for %q (code %d, or %d with data.uri or a message naming the resource)\nactual code: %d\nmessage:     %q\ndata:        %s",
			uri, client.CodeLegacyResourceNotFound, client.CodeResourceNotFound, e.Code, e.Message, dataText(e.Data))
		return false
	}
	if e.Name != "" && e.Name != uri {
		t.Errorf("mcptest: resource not found for another URI\nexpected: %q\nread:     %q", uri, e.Name)
		return false
	}
	var got string
	if e.DataField("uri", &got) && got != uri {
		t.Errorf("mcptest: resource not found names another URI\nexpected data.uri: %q\nactual data.uri:   %q", uri, got)
		return false
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
