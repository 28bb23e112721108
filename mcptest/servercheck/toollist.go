package servercheck

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/internal/toolschema"
)

// validToolName reports whether name follows the naming rule: 1 to 128
// characters of A-Z, a-z, 0-9, _, - and . (a loop, not a regexp: {1,128}
// compiles to 1,700 allocations, paid at every test binary's start).
func validToolName(name string) bool {
	if len(name) < 1 || len(name) > 128 {
		return false
	}
	for i := 0; i < len(name); i++ {
		switch b := name[i]; {
		case 'a' <= b && b <= 'z', 'A' <= b && b <= 'Z', '0' <= b && b <= '9', b == '_', b == '-', b == '.':
		default:
			return false
		}
	}
	return true
}

func (c *state) toolNames(tools []*client.Tool) {
	if len(tools) == 0 {
		c.skipf("the server lists no tools")
	}
	for _, t := range tools {
		if !validToolName(t.Name) {
			c.breakf("tool name %q does not follow the naming rule: tool names SHOULD be 1 to 128 characters of A-Z, "+
				"a-z, 0-9, _, - and . (no spaces or other characters) (specification 2025-11-25, server/tools, "+
				"\"Tool names\"); some clients refuse or rename such tools", t.Name)
		}
	}
}

func (c *state) toolDescriptions(tools []*client.Tool) {
	if len(tools) == 0 {
		c.skipf("the server lists no tools")
	}
	var missing []string
	for _, t := range tools {
		if strings.TrimSpace(t.Description) == "" {
			missing = append(missing, t.Name)
		}
	}
	if len(missing) > 0 {
		c.breakf("tools without a description: %q\n"+
			"expected: every tool describes what it does; the description is how a model decides to call it "+
			"(optional in the schema: a convention, not a rule)", missing)
	}
}

func (c *state) toolSchemas(t *client.Tool) {
	var tooBig []string
	if err := c.s.objectSchema(t.InputSchema, t.Name+"/inputSchema"); errors.Is(err, toolschema.ErrTooBig) {
		tooBig = append(tooBig, fmt.Sprintf("inputSchema %v", err))
	} else if err != nil {
		c.breakf("tool %q: inputSchema %v\n"+
			"inputSchema: %s\n"+
			"expected: a valid JSON Schema (2020-12 unless it names another draft with $schema) with \"type\": \"object\" at the root", t.Name, err, cut(string(t.InputSchema), 800))
	}
	if len(strings.TrimSpace(string(t.OutputSchema))) > 0 {
		if err := c.s.objectSchema(t.OutputSchema, t.Name+"/outputSchema"); errors.Is(err, toolschema.ErrTooBig) {
			tooBig = append(tooBig, fmt.Sprintf("outputSchema %v", err))
		} else if err != nil {
			c.breakf("tool %q: outputSchema %v\n"+
				"outputSchema: %s\n"+
				"expected: a valid JSON Schema (2020-12 unless it names another draft with $schema) with \"type\": \"object\" at the root", t.Name, err, cut(string(t.OutputSchema), 800))
		}
	}
	if len(tooBig) > 0 {
		// Neither valid nor invalid as far as the checks know.
		c.skipf("tool %q: %s", t.Name, strings.Join(tooBig, "; "))
	}
}

// objectSchema says what is wrong with a tool schema, or nil; an error
// wrapping toolschema.ErrTooBig when it was not read.
func (s *suite) objectSchema(raw json.RawMessage, name string) error {
	sch, err := s.compile(raw, name)
	if errors.Is(err, toolschema.ErrTooBig) {
		return err
	}
	if err != nil {
		return fmt.Errorf("is not valid: %v", err)
	}
	m, ok := sch.doc.(map[string]any)
	if !ok {
		return fmt.Errorf("is not a JSON object")
	}
	if m["type"] != "object" {
		return fmt.Errorf(`has "type": %s at the root; MCP requires "object"`, compactJSON(m["type"]))
	}
	return nil
}

// unknownName is a name no server has.
const unknownName = "mcptestkit_no_such_name"

func (c *state) unknownTool() {
	cn := c.main()
	ctx, cancel := c.ctx()
	defer cancel()
	res, err := cn.cl.CallTool(ctx, unknownName, map[string]any{})
	e, ok := errorCode(err)
	switch {
	case err == nil && res.IsError:
		c.notef("answers an unknown tool with an isError result (as the MCP Python SDK does); the specification's example is -32602")
	case err == nil:
		c.breakf("called tool %q, which the server does not list; it succeeded: %s\nexpected: JSON-RPC error -32602 (Unknown tool), or an isError result", unknownName, describe(res, nil))
	case ok && e.Code == client.CodeInvalidParams:
	case ok:
		c.warnf("called tool %q, which the server does not list; got %s\n"+
			"expected: JSON-RPC error -32602 (Unknown tool: %s), or an isError result (specification, "+
			"server/tools, \"Error Handling\")", unknownName, describe(nil, err), unknownName)
	default:
		c.breakf("called tool %q, which the server does not list; got %v\nexpected: JSON-RPC error -32602", unknownName, err)
	}
}
