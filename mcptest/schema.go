package mcptest

import (
	"bytes"
	"errors"
	"fmt"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/internal/toolschema"
)

// checkToolSchema reports what is wrong with one of a tool's schemas, or nil.
// MCP requires both schemas to be objects of "type": "object".
func checkToolSchema(raw []byte, which string, matchTimeout time.Duration) error {
	if len(bytes.TrimSpace(raw)) == 0 {
		return errors.New("missing")
	}
	if _, err := toolschema.Compile(raw, which, matchTimeout); err != nil {
		return err
	}
	doc, _ := jsonschema.UnmarshalJSON(bytes.NewReader(raw)) // compiled above, so it parses
	obj, ok := doc.(map[string]any)
	if !ok {
		return errors.New(`must be a JSON object`)
	}
	if obj["type"] != "object" {
		return fmt.Errorf(`must have "type": "object" at the root (MCP requires it), has %s`, show(obj["type"]))
	}
	return nil
}

// ValidSchemas checks every tool's inputSchema, and its outputSchema when
// it has one: each must be valid JSON Schema (2020-12 unless it names
// another draft with $schema) with "type": "object" at the root, as MCP
// requires. It reports every broken schema, by tool name, and returns whether
// all were valid. A schema that refers to an external document is reported
// too: mcptest never fetches one.
//
//	list, err := c.ListTools(t.Context(), "")
//	require.NoError(t, err)
//	mcptest.Assert(t).ValidSchemas(list.Tools...)
func (a *Assertions) ValidSchemas(tools ...*client.Tool) bool {
	a.h.Helper()
	ok := true
	timeout := a.matchTimeout()
	for _, tool := range tools {
		if tool == nil {
			a.t.Errorf("mcptest: ValidSchemas: a nil tool")
			ok = false
			continue
		}
		if err := checkToolSchema(tool.InputSchema, tool.Name+"/inputSchema", timeout); err != nil {
			a.schemaError(tool.Name, "inputSchema", tool.InputSchema, err)
			ok = false
		}
		if len(bytes.TrimSpace(tool.OutputSchema)) == 0 {
			continue
		}
		if err := checkToolSchema(tool.OutputSchema, tool.Name+"/outputSchema", timeout); err != nil {
			a.schemaError(tool.Name, "outputSchema", tool.OutputSchema, err)
			ok = false
		}
	}
	return a.end(ok)
}

// schemaError reports what checkToolSchema found wrong with one of tool's
// schemas, which: raw. A schema too big to check is neither valid nor
// invalid, and not shown.
func (a *Assertions) schemaError(tool, which string, raw []byte, err error) {
	a.h.Helper()
	if errors.Is(err, toolschema.ErrTooBig) {
		a.t.Errorf("mcptest: tool %q: %s was not checked: %v", tool, which, err)
		return
	}
	a.t.Errorf("mcptest: tool %q: %s is not a valid schema: %v\n%s: %s", tool, which, err, which, compact(raw))
}

// OutputSchema checks that the structuredContent of res validates against
// tool's outputSchema. A tool with an outputSchema must return structured
// content with every successful result, so a result without it fails; a
// tool error is reported too, since it has no output to check.
//
//	tool := mcptest.Require(t).Tool(list.Tools, "search_books")
//	mcptest.Assert(t).OutputSchema(tool, res)
func (a *Assertions) OutputSchema(tool *client.Tool, res *client.CallToolResult) bool {
	a.h.Helper()
	switch {
	case tool == nil:
		return a.fail("mcptest: OutputSchema: no tool given")
	case len(bytes.TrimSpace(tool.OutputSchema)) == 0:
		return a.fail("mcptest: tool %q has no outputSchema to validate against", tool.Name)
	case res == nil:
		return a.fail("mcptest: expected a result of tool %q to validate against its outputSchema, got no result", tool.Name)
	case res.IsError:
		return a.fail("mcptest: expected a successful result of tool %q to validate against its outputSchema, got a tool error:\n%s", tool.Name, indent(res.Text()))
	case !hasStructured(res):
		return a.fail("mcptest: tool %q declares an outputSchema but its result has no structuredContent\nresult: %s", tool.Name, show(res))
	}
	sch, err := toolschema.Compile(tool.OutputSchema, tool.Name+"/outputSchema", a.matchTimeout())
	if errors.Is(err, toolschema.ErrTooBig) {
		return a.fail("mcptest: tool %q: outputSchema was not read, so structuredContent was not checked: %v", tool.Name, err)
	}
	if err != nil {
		return a.fail("mcptest: tool %q: outputSchema is not a valid schema: %v", tool.Name, err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(res.StructuredContent))
	if err != nil {
		return a.fail("mcptest: tool %q: structuredContent is not valid JSON: %v", tool.Name, err)
	}
	timed := toolschema.TimedMatches()
	err = sch.Validate(inst)
	if toolschema.TimedMatches() != timed {
		a.stopClockAtCleanup()
	}
	if err != nil {
		return a.fail("mcptest: tool %q: structuredContent does not match the outputSchema:\n%v\nstructuredContent: %s\noutputSchema:      %s",
			tool.Name, err, compact(res.StructuredContent), compact(tool.OutputSchema))
	}
	return true
}

// stopClockAtCleanup stops regexp2's timing goroutine, which a lookahead
// pattern started, when the test ends (or now, for a t without Cleanup): it
// would outlive the test by a second, a leak to a user's goleak.
func (a *Assertions) stopClockAtCleanup() {
	if c, ok := a.t.(interface{ Cleanup(func()) }); ok {
		c.Cleanup(toolschema.StopClock)
		return
	}
	toolschema.StopClock()
}

// matchTimeout bounds a pattern's match (toolschema.MatchTimeout), but not
// in a synctest bubble, where the bound's clock must not start.
func (a *Assertions) matchTimeout() time.Duration {
	if inBubble(a.t) {
		return 0
	}
	return toolschema.MatchTimeout
}

// Tool returns the tool called name from tools, as [client.Client]'s
// ListTools returns them; if there is none, it reports a failure naming the
// tools there are and returns nil.
func (a *Assertions) Tool(tools []*client.Tool, name string) *client.Tool {
	a.h.Helper()
	var names []string
	for _, tool := range tools {
		if tool == nil {
			continue
		}
		if tool.Name == name {
			return tool
		}
		names = append(names, tool.Name)
	}
	a.fail("mcptest: no tool named %q; the tools are %q", name, names)
	return nil
}
