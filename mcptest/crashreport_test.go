package mcptest

import (
	"context"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/client/transport"
	"github.com/mcptestkit/mcptestkit/logcapture"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

// recoveredStack recovers explode's panic the way the adapters do and
// returns the stack taken in the deferred recover.
func recoveredStack() (stack []byte) {
	defer func() {
		recover()
		stack = debug.Stack()
	}()
	explode()
	return nil
}

func TestPanicStackStartsAtThePanic(t *testing.T) {
	t.Parallel()
	full := recoveredStack()
	require.Contains(t, string(full), "runtime/debug.Stack()", "the raw stack has the recovery's frames")
	got := string(panicStack(full))
	require.True(t, strings.HasPrefix(got, "panic("), got)
	lines := strings.Split(got, "\n")
	require.GreaterOrEqual(t, len(lines), 3, got)
	assert.Contains(t, lines[2], "mcptest.explode", "the panicking function comes next")
	assert.NotContains(t, got, "runtime/debug.Stack")
	assert.NotContains(t, got, "recoveredStack.func1")
	assert.True(t, strings.HasSuffix(string(full), got), "nothing after the panic is lost")

	noPanic := debug.Stack()
	assert.Equal(t, string(noPanic), string(panicStack(noPanic)), "a stack without a panic frame is kept whole")
}

// stackSection returns what a crash report prints after its hint.
func stackSection(t *testing.T, out string) string {
	t.Helper()
	_, stack, ok := strings.Cut(out, "Stack of the panicking goroutine:\n")
	require.True(t, ok, out)
	return stack
}

// Every crash report, whoever recovered the panic (the server's adapter, the
// HTTP transport, the harness), starts its stack at the panic: no frames of
// runtime/debug or of the recovery. (The SDK adapters' reports are checked
// in the integration module.)
func TestCrashReportsStartAtThePanic(t *testing.T) {
	t.Parallel()
	boom := probeServer(boomTool())
	for _, tc := range []struct {
		name  string
		body  func(tb testing.TB)
		frame string // the panicking function, right under panic(
	}{
		{"server", func(tb testing.TB) {
			c := Connect(tb, boom)
			_, _ = c.CallTool(tb.Context(), "boom", nil)
		}, "mcptest.explode"},
		{"http", func(tb testing.TB) {
			c := Connect(tb, Handler(boom.handler()), WithProtocolVersion(client.LatestLegacyVersion))
			_, _ = c.CallTool(tb.Context(), "boom", nil)
		}, "mcptest.explode"},
		{"serve", func(tb testing.TB) {
			// A server that panics in Serve never answers the handshake; a short
			// timeout keeps the test from sitting out the 10 s default.
			Connect(tb, ServerFunc(func(context.Context, *memtransport.Conn) error { explode(); return nil }), WithClient(client.Options{Timeout: time.Second}))
		}, "mcptest.explode"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := runFake(t, tc.body)
			f.expectFailure(t, "panicked", "kaboom")
			stack := stackSection(t, f.output())
			require.True(t, strings.HasPrefix(stack, "panic("), stack)
			lines := strings.Split(stack, "\n")
			require.GreaterOrEqual(t, len(lines), 3)
			assert.Contains(t, lines[2], tc.frame)
			for _, noise := range []string{"runtime/debug.Stack", "fakeRequest).serve.func", "harness).serve", "goroutine "} {
				assert.NotContains(t, stack[:strings.Index(stack, tc.frame)], noise)
			}
		})
	}
}

// Under WithoutCrashReports a recovered panic leaves one line in the log:
// no hint, no stack.
func TestWithoutCrashReportsLogsOneLine(t *testing.T) {
	t.Parallel()
	multiline := probeServer(newTool("boom", func(context.Context, *fakeCall) (*fakeResult, error) {
		panic("multi\nline")
	}))
	for _, tc := range []struct {
		name string
		body func(tb testing.TB)
		want string
	}{
		{"server", func(tb testing.TB) {
			c := Connect(tb, multiline, WithoutCrashReports())
			_, err := c.CallTool(tb.Context(), "boom", nil)
			Assert(tb).ProtocolError(err, client.CodeInternalError)
		}, `mcptest: the server panicked in tools/call "boom": "multi\nline" (recovered; the test goes on because of mcptest.WithoutCrashReports)`},
		{"http", func(tb testing.TB) {
			c := Connect(tb, Handler(probeServer(boomTool()).handler()), WithProtocolVersion(client.LatestLegacyVersion), WithoutCrashReports())
			_, err := c.CallTool(tb.Context(), "boom", nil)
			Assert(tb).ProtocolError(err, transport.CodeHTTPError)
		}, `mcptest: the HTTP handler panicked serving a POST request: kaboom (recovered; the test goes on because of mcptest.WithoutCrashReports)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := runFake(t, tc.body)
			f.expectPass(t)
			out := f.output()
			assert.Equal(t, 1, strings.Count(out, "panicked"), out)
			var note string
			for _, line := range strings.Split(out, "\n") {
				if strings.Contains(line, "panicked") {
					note = line
				}
			}
			assert.Equal(t, tc.want, note)
			assert.NotContains(t, out, "Install the crash guard")
			assert.NotContains(t, out, "goroutine ")
		})
	}
}

func explodeElsewhere() { panic("kaboom elsewhere") }

// CheckServer calls a tool that crashes on every call many times: its stack
// is printed once, and each later crash with the same stack is one line that
// says so. A second tool that crashes elsewhere gets its own stack. (Over
// HTTP, where the harness, not the checks, reports a handler's panic.)
func TestCheckServerPrintsEachCrashStackOnce(t *testing.T) {
	t.Parallel()
	count := `{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`
	boom := boomTool()
	boom.input = count
	bang := newTool("bang", func(context.Context, *fakeCall) (*fakeResult, error) {
		explodeElsewhere()
		return nil, nil
	})
	bang.input = count
	f := runFake(t, func(tb testing.TB) { CheckServer(tb, Handler(probeServer(boom, bang).handler())) })
	f.expectFailure(t, "the HTTP handler panicked serving a POST request: kaboom\n")
	out := f.output()
	for _, frame := range []string{"mcptest.explode(", "mcptest.explodeElsewhere("} {
		assert.Equal(t, 1, strings.Count(out, frame), "the stack of %s is printed once:\n%s", frame, out)
	}
	assert.Equal(t, 2, strings.Count(out, "Stack of the panicking goroutine:"), out)
	assert.Contains(t, out, "mcptest: the HTTP handler panicked serving a POST request: kaboom (crash 2 with the same stack as reported above)\n")
	assert.Contains(t, out, "mcptest: the HTTP handler panicked serving a POST request: kaboom elsewhere (crash 2 with the same stack as reported above)\n")
}

// Connect's harness prints a stack once too: a test that calls a crashing
// tool three times gets one stack and two lines.
func TestConnectPrintsACrashStackOnce(t *testing.T) {
	t.Parallel()
	f := runFake(t, func(tb testing.TB) {
		c := Connect(tb, probeServer(boomTool()))
		for range 3 {
			_, _ = c.CallTool(tb.Context(), "boom", nil)
		}
	})
	f.expectFailure(t, `mcptest: the server panicked in tools/call "boom": kaboom`+"\n")
	out := f.output()
	assert.Equal(t, 1, strings.Count(out, "mcptest.explode("), out)
	assert.Contains(t, out, `mcptest: the server panicked in tools/call "boom": kaboom (crash 3 with the same stack as reported above)`)
}

// Behind a crash guard, the crashes are the server's ERROR records, which
// the failing test's log dump lists: there too each stack is written once.
func TestCheckServerLogDumpWritesEachCrashStackOnce(t *testing.T) {
	t.Parallel()
	count := `{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`
	boom := boomTool()
	boom.input = count
	bang := newTool("bang", func(context.Context, *fakeCall) (*fakeResult, error) {
		explodeElsewhere()
		return nil, nil
	})
	bang.input = count
	f := runFake(t, func(tb testing.TB) {
		logs := logcapture.New(tb)
		CheckServer(tb, &fakeServer{name: "guarded", guard: true, logger: logs.Logger(), tools: []*fakeTool{boom, bang}}, CheckLogs(logs))
	})
	f.expectFailure(t, "Captured log", "the handler crashed (the crash guard caught it")
	out := f.output()
	for _, frame := range []string{"mcptest.explode(", "mcptest.explodeElsewhere("} {
		assert.Equal(t, 1, strings.Count(out, frame), "the stack of %s is written once:\n%s", frame, out)
	}
	assert.Contains(t, out, "stack: the same as written above (record 2 with this stack)")
}
