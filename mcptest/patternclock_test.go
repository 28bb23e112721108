package mcptest

import (
	"encoding/json"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/mcptest/servercheck"
)

// The tests below are not parallel: no other test may match a lookahead
// pattern meanwhile, which starts regexp2's clock goroutine again. Each
// checks that what it ran stopped that goroutine before handing back: it
// outlives the last match by over a second, which a user's
// goleak.VerifyTestMain, run just after the last test, reports as a leak.

const lookahead = `{"type":"object","required":["p"],"properties":{"p":{"type":"string","pattern":"^(?!admin$)[a-z]+$"}}}`

func patternClockRunning() bool {
	buf := make([]byte, 1<<20)
	return strings.Contains(string(buf[:runtime.Stack(buf, true)]), "regexp2.runClock")
}

func TestOutputSchemaLeavesNoPatternClock(t *testing.T) {
	tool := &client.Tool{Name: "user", InputSchema: json.RawMessage(`{"type":"object"}`), OutputSchema: json.RawMessage(lookahead)}
	res := &client.CallToolResult{StructuredContent: json.RawMessage(`{"p":"alice"}`)}
	t.Run("assert", func(t *testing.T) {
		Assert(t).OutputSchema(tool, res)
		Require(t).OutputSchema(tool, res)
	})
	if patternClockRunning() {
		t.Error("regexp2's clock goroutine is still running after the test of Assert(t).OutputSchema ended")
	}
}

func TestServercheckRunLeavesNoPatternClock(t *testing.T) {
	srv := schemaServer(map[string]string{"user": lookahead})
	_ = servercheck.Run(t.Context(), memDialer(srv), &servercheck.Options{Run: "tools/"})
	if patternClockRunning() {
		t.Error("regexp2's clock goroutine is still running after servercheck.Run returned")
	}
}

func TestFuzzerCloseLeavesNoPatternClock(t *testing.T) {
	fz, err := servercheck.NewFuzzer(t.Context(), memDialer(schemaServer(map[string]string{"user": lookahead})), nil)
	require.NoError(t, err)
	for _, seed := range fz.Seeds() {
		_ = fz.Input(seed)
	}
	fz.Close()
	if patternClockRunning() {
		t.Error("regexp2's clock goroutine is still running after Fuzzer.Close")
	}
}
