package mcptest

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/mcptest/servercheck"
)

// schemaServer is a handwritten server listing tools with the given input
// schemas (raw JSON, by name), each answering any arguments with a success.
func schemaServer(schemas map[string]string) *handServer {
	h := goodServer()
	var tools []any
	for name, schema := range schemas {
		tools = append(tools, map[string]any{"name": name, "description": "d", "inputSchema": json.RawMessage(schema)})
	}
	h.handlers["tools/list"] = func(json.RawMessage) (any, *rpcError) { return map[string]any{"tools": tools}, nil }
	h.handlers["tools/call"] = func(p json.RawMessage) (any, *rpcError) {
		var call struct{ Name string }
		if json.Unmarshal(p, &call) != nil || schemas[call.Name] == "" {
			return nil, &rpcError{Code: -32602, Message: "Unknown tool"}
		}
		return map[string]any{"content": []any{map[string]any{"type": "text", "text": "ok"}}}, nil
	}
	return h
}

// runToolChecks runs the tools checks on srv and returns their results by
// name. A run that does not end within a minute fails the test instead of
// hanging it (a schema's compilation cannot be interrupted).
func runToolChecks(t *testing.T, srv Server) map[string]servercheck.Result {
	t.Helper()
	results := map[string]servercheck.Result{}
	done := make(chan error, 1)
	go func() {
		done <- servercheck.Run(t.Context(), memDialer(srv), &servercheck.Options{
			Run: "tools/(schemas|calls|invalid-arguments)", OnResult: func(r servercheck.Result) { results[r.Name] = r },
		})
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("the checks did not end within a minute")
	}
	return results
}

func requireResult(t *testing.T, results map[string]servercheck.Result, name string, status servercheck.Status, detail ...string) {
	t.Helper()
	r, ok := results[name]
	require.True(t, ok, "check %s did not run", name)
	require.Equal(t, status, r.Status, "%s: %s", name, r.Detail)
	for _, d := range detail {
		assert.Contains(t, r.Detail, d, name)
	}
}

// A schema whose numbers ask for more than the generator makes is a finding
// about that tool, named by its keyword: minItems 1e19 made the generator
// panic in makeslice, in CheckServer and in Fuzz, and took the test binary
// down.
func TestCheckServerSchemaAsksTooMuch(t *testing.T) {
	t.Parallel()
	srv := schemaServer(map[string]string{
		"huge_array":  `{"type":"object","properties":{"list":{"type":"array","minItems":1e19}},"required":["list"]}`,
		"huge_string": `{"type":"object","properties":{"s":{"type":"string","minLength":1e19}},"required":["s"]}`,
		"multiplied":  `{"type":"object","properties":{"m":{"type":"array","minItems":1000,"items":{"type":"array","minItems":1000}}},"required":["m"]}`,
	})
	results := runToolChecks(t, srv)
	for tool, why := range map[string]string{
		"huge_array":  "minItems 1e19 asks for more than the generator makes (at most 10000)",
		"huge_string": "minLength 1e19 asks for more than the generator makes (at most 10000)",
		"multiplied":  "the inputSchema asks for more than 100000 values and characters in one argument set",
	} {
		requireResult(t, results, "tools/schemas/"+tool, servercheck.Pass)
		requireResult(t, results, "tools/calls/"+tool, servercheck.Skip, fmt.Sprintf("tool %q: no arguments generated from the inputSchema: %s", tool, why))
		requireResult(t, results, "tools/invalid-arguments/"+tool, servercheck.Skip, why)
	}

	fz, err := servercheck.NewFuzzer(t.Context(), memDialer(srv), nil)
	require.NoError(t, err)
	defer fz.Close()
	for _, seed := range fz.Seeds() {
		require.NoError(t, fz.Input(seed), "seed %x", seed)
	}
}

// JSON Schema patterns are ECMA-262: a lookahead, which Go's RE2 lacks, is
// valid, and the tool's calls are checked; the generator aims at patterns,
// leaving out what Go's syntax cannot read and naming what stopped it.
func TestCheckServerECMAPatterns(t *testing.T) {
	t.Parallel()
	prop := func(pattern string) string {
		b, _ := json.Marshal(map[string]any{"type": "object", "required": []string{"p"},
			"properties": map[string]any{"p": map[string]any{"type": "string", "pattern": pattern}}})
		return string(b)
	}
	results := runToolChecks(t, schemaServer(map[string]string{
		"user":  prop(`^(?!admin$)[A-Z][a-z]+-\d{3}$`),
		"code":  prop(`^[A-Z]{3}-\d{4}$`),
		"twice": prop(`^(ab)\1$`),
	}))
	for _, tool := range []string{"user", "code", "twice"} {
		requireResult(t, results, "tools/schemas/"+tool, servercheck.Pass)
	}
	requireResult(t, results, "tools/calls/user", servercheck.Pass, "succeeded, 0 tool error(s)")
	requireResult(t, results, "tools/calls/code", servercheck.Pass, "succeeded, 0 tool error(s)")
	requireResult(t, results, "tools/calls/twice", servercheck.Skip, `tool "twice": no arguments generated from the inputSchema: none of 8 generated argument sets validated`,
		`pattern "^(ab)\\1$": the generator cannot aim at it (error parsing regexp: invalid escape sequence: `+"`\\1`")

	tool := &client.Tool{Name: "user", InputSchema: json.RawMessage(prop(`^(?!admin$)[a-z]+$`))}
	runFake(t, func(tb testing.TB) { Assert(tb).ValidSchemas(tool) }).expectPass(t)
}

func deepSchema(levels int) string {
	return strings.Repeat(`{"type":"object","properties":{"a":`, levels) + `{"type":"string"}` + strings.Repeat(`}}`, levels)
}

func allOfSchema(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf(`{"properties":{"p%d":{"type":"string"}},"required":["p%d"]}`, i, i)
	}
	return `{"type":"object","allOf":[` + strings.Join(parts, ",") + `]}`
}

// The work on one schema is bounded: one nested 2000 levels deep is not
// compiled (it took minutes, and each check compiled it again), and is
// reported as too big, not as invalid; one whose arguments would be huge
// (an allOf of 4000 required properties: 37 s for 4 calls) is reported by
// the generator's bound.
func TestCheckServerHugeSchemas(t *testing.T) {
	t.Parallel()
	results := runToolChecks(t, schemaServer(map[string]string{
		"deep": deepSchema(2000),
		"wide": allOfSchema(4000),
	}))
	tooDeep := "too big to check: the schema nests JSON objects and arrays more than 64 levels deep"
	requireResult(t, results, "tools/schemas/deep", servercheck.Skip, `tool "deep": inputSchema `+tooDeep)
	requireResult(t, results, "tools/calls/deep", servercheck.Skip, `tool "deep": the inputSchema was not read: `+tooDeep)
	requireResult(t, results, "tools/invalid-arguments/deep", servercheck.Skip, tooDeep)
	requireResult(t, results, "tools/schemas/wide", servercheck.Pass)
	// Whether an argument set fits the bound depends on the strings drawn:
	// the first does, and the check says the others did not.
	requireResult(t, results, "tools/calls/wide", servercheck.Pass, "more than 100000 values and characters in one argument set")

	tool := &client.Tool{Name: "deep", InputSchema: json.RawMessage(deepSchema(2000))}
	runFake(t, func(tb testing.TB) { Assert(tb).ValidSchemas(tool) }).expectFailure(t, `tool "deep": inputSchema was not checked: `+tooDeep)
}

// CheckServer of a server with a lookahead pattern waits for regexp2's
// timing goroutine to end: a user's goleak.VerifyTestMain would otherwise
// find it when the test binary ends just after. Not parallel: no other
// test's check may start the clock meanwhile.
func TestCheckServerLeavesNoPatternClock(t *testing.T) {
	schema := `{"type":"object","required":["p"],"properties":{"p":{"type":"string","pattern":"^(?!admin$)[a-z]+$"}}}`
	runCheck(t, schemaServer(map[string]string{"user": schema}))
	buf := make([]byte, 1<<20)
	if stacks := string(buf[:runtime.Stack(buf, true)]); strings.Contains(stacks, "regexp2.runClock") {
		t.Errorf("regexp2's clock goroutine is still running after CheckServer returned")
	}
}
