package mcptest

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcptestkit/mcptestkit/client"
)

func tool(name, input, output string) *client.Tool {
	t := &client.Tool{Name: name, InputSchema: json.RawMessage(input)}
	if output != "" {
		t.OutputSchema = json.RawMessage(output)
	}
	return t
}

func TestAssertValidSchemas(t *testing.T) {
	t.Parallel()
	good := tool("good", `{"type":"object","properties":{"n":{"type":"integer","minimum":0}},"required":["n"]}`,
		`{"type":"object","properties":{"sum":{"type":"number"}}}`)
	check(t, true, func(a *Assertions) bool { return a.ValidSchemas(good) })
	check(t, true, func(a *Assertions) bool {
		return a.ValidSchemas(tool("draft7", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object"}`, ""))
	})

	for _, tc := range []struct {
		tool *client.Tool
		want []string
	}{
		{tool("badtype", `{"type":"object","properties":{"n":{"type":"integr"}}}`, ""), []string{`tool "badtype": inputSchema is not a valid schema`, "integr"}},
		{tool("notobject", `{"type":"string"}`, ""), []string{`must have "type": "object" at the root`}},
		{tool("boolean", `true`, ""), []string{"must be a JSON object"}},
		{tool("array", `[]`, ""), []string{"got array, want boolean or object"}},
		{tool("missing", ``, ""), []string{"inputSchema is not a valid schema: missing"}},
		{tool("broken", `{"type":`, ""), []string{"not valid JSON"}},
		{tool("remote", `{"type":"object","properties":{"a":{"$ref":"https://example.com/s.json"}}}`, ""), []string{"external schemas are not loaded"}},
		{tool("badoutput", `{"type":"object"}`, `{"type":"object","required":"sum"}`), []string{`tool "badoutput": outputSchema is not a valid schema`}},
	} {
		check(t, false, func(a *Assertions) bool { return a.ValidSchemas(tc.tool) }, tc.want...)
	}
	check(t, false, func(a *Assertions) bool { return a.ValidSchemas(nil) }, "a nil tool")
	// Every broken tool is reported, not only the first.
	r := &recorder{}
	assert.False(t, Assert(r).ValidSchemas(good, tool("a", `{}`, ""), tool("b", `{}`, "")))
	assert.Len(t, r.msgs, 2)
}

func TestAssertOutputSchema(t *testing.T) {
	t.Parallel()
	tl := tool("sum", `{"type":"object"}`, `{"type":"object","properties":{"sum":{"type":"number"}},"required":["sum"],"additionalProperties":false}`)
	ok := &client.CallToolResult{StructuredContent: json.RawMessage(`{"sum":3}`)}
	check(t, true, func(a *Assertions) bool { return a.OutputSchema(tl, ok) })

	bad := &client.CallToolResult{StructuredContent: json.RawMessage(`{"sum":"three","extra":1}`)}
	check(t, false, func(a *Assertions) bool { return a.OutputSchema(tl, bad) },
		`tool "sum": structuredContent does not match the outputSchema`, `{"sum":"three","extra":1}`)
	check(t, false, func(a *Assertions) bool { return a.OutputSchema(tl, textResult(false, "3")) }, "has no structuredContent")
	check(t, false, func(a *Assertions) bool { return a.OutputSchema(tl, textResult(true, "overflow")) }, "got a tool error", "overflow")
	check(t, false, func(a *Assertions) bool { return a.OutputSchema(tool("plain", `{"type":"object"}`, ""), ok) }, "has no outputSchema")
	check(t, false, func(a *Assertions) bool { return a.OutputSchema(nil, ok) }, "no tool given")
	check(t, false, func(a *Assertions) bool { return a.OutputSchema(tl, nil) }, "got no result")
}

func TestRequireTool(t *testing.T) {
	t.Parallel()
	tools := []*client.Tool{{Name: "a"}, nil, {Name: "b"}}
	runFake(t, func(tb testing.TB) { assert.Equal(t, "b", Require(tb).Tool(tools, "b").Name) }).expectPass(t)
	reached := false
	runFake(t, func(tb testing.TB) {
		Require(tb).Tool(tools, "c")
		reached = true
	}).expectFailure(t, `no tool named "c"; the tools are ["a" "b"]`)
	assert.False(t, reached)
}
