package adaptertest

import (
	"context"
	"fmt"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/guard"
	"github.com/mcptestkit/mcptestkit/logcapture"
)

// The crash guards of both SDKs give a server the same contract (see the
// docs of gosdk and mcpgo). Each guard's tests list the cases for its SDK,
// as Crash and Failure values; the checks below say once what each case
// means. E is the type a test states JSON-RPC errors in (go-sdk's
// jsonrpc.Error, or the test kit's client.Error), and each check takes the
// SDK's wireError, which reads one as E from what the client got.

// Answer is what the client should get for a request: a tool result with
// exactly one text content, Text, or the JSON-RPC error Err.
type Answer[E any] struct {
	// Text is the tool result's one text block (unused when Err is set).
	Text    string
	IsError bool // for a tool result: whether it is an error result
	// Err is the JSON-RPC error the request should fail with; nil for a tool
	// result.
	Err *E
}

// assertAnswer checks what Request got against want.
func assertAnswer[E any](t testing.TB, res *client.CallToolResult, err error, want Answer[E], wireError func(testing.TB, error) *E) {
	t.Helper()
	if want.Err != nil {
		assert.Equal(t, want.Err, wireError(t, err))
		return
	}
	require.NoError(t, err, "a tool result, not a protocol error")
	assert.Equal(t, want.IsError, res.IsError, "isError")
	assert.Equal(t, []client.Content{&client.TextContent{Text: want.Text}}, res.Content)
}

// A Crash is one crash row of the guard contract: a request whose handler
// panics.
type Crash[E any] struct {
	// Name names the case's subtest.
	Name string
	// Send makes the request whose handler panics.
	Send Request
	Want Answer[E] // never the panic's text
	// Method is the MCP method the ERROR record names ("tools/call").
	Method string
	// Record is what the one ERROR record has, besides its level and method.
	Record []logcapture.Matcher
	// Func is the function that panicked (as "pkg.Func("): the record's
	// stack must name it, and its source must be in it.
	Func string
}

// AssertCrash sends c's request on cl and checks that the client got
// c.Want, that no panic text (containing "kaboom" or "nil map") crossed the
// connection (transcript, the connection's messages), and that logs has
// exactly one record at WARN or above: the ERROR record c describes.
func AssertCrash[E any](t testing.TB, cl *client.Client, transcript fmt.Stringer, logs *logcapture.Recorder, c Crash[E], wireError func(testing.TB, error) *E) {
	t.Helper()
	res, err := c.Send(t.Context(), cl)
	assertAnswer(t, res, err, c.Want, wireError)
	if res != nil {
		assert.Nil(t, res.StructuredContent)
	}
	tr := transcript.String()
	assert.NotContains(t, tr, "kaboom", "the panic text reached the client")
	assert.NotContains(t, tr, "nil map", "the panic text reached the client")

	ms := append([]logcapture.Matcher{logcapture.Level(slog.LevelError), logcapture.Attr(guard.MethodKey, c.Method)}, c.Record...)
	rec := logs.RequireLogged(t, ms...)
	assert.Contains(t, rec.Stack(), c.Func, "the stack names the panicking function")
	if src := rec.Source(); assert.NotNil(t, src, "the record has no source") {
		assert.Contains(t, src.Function+"(", c.Func, "the record's source (slog's AddSource) is in the panicking function")
	}
	logs.AssertCount(t, 1, logcapture.AtLeast(slog.LevelWarn))
}

// A Failure is one expected-failure row of the guard contract (or a
// success): a request whose handler, or the SDK, answers with an error.
type Failure[E any] struct {
	// Name names the case's subtest.
	Name string
	// Send makes the request.
	Send Request
	// Want is what the client should get.
	Want Answer[E]
	// Record is what the one INFO record the guard writes has, besides its
	// level; nil when the guard logs nothing.
	Record []logcapture.Matcher
}

// AssertFailure sends f's request on c and checks that the client got
// f.Want and that the guard wrote f's INFO record, once and without a stack,
// or nothing; and that nothing was logged at WARN or above.
func AssertFailure[E any](t testing.TB, c *client.Client, logs *logcapture.Recorder, f Failure[E], wireError func(testing.TB, error) *E) {
	t.Helper()
	res, err := f.Send(t.Context(), c)
	assertAnswer(t, res, err, f.Want, wireError)

	guardRecords := logcapture.Any(logcapture.Message(guard.MsgToolError), logcapture.Message(guard.MsgRequestFailed))
	if f.Record == nil {
		logs.AssertNone(t, guardRecords)
	} else {
		logs.AssertLogged(t, append([]logcapture.Matcher{logcapture.Level(slog.LevelInfo)}, f.Record...)...)
		logs.AssertCount(t, 1, guardRecords)
	}
	logs.AssertNone(t, logcapture.HasAttr(guard.StackKey))
	logs.AssertNoWarnings(t)
}

// PanicsFrom is a slog.Handler that panics on every record at or above its
// level: the broken logger a guard must survive.
type PanicsFrom slog.Level

func (h PanicsFrom) Enabled(context.Context, slog.Level) bool { return true }
func (h PanicsFrom) Handle(_ context.Context, r slog.Record) error {
	if r.Level >= slog.Level(h) {
		panic("the handler broke")
	}
	return nil
}
func (h PanicsFrom) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h PanicsFrom) WithGroup(string) slog.Handler      { return h }
