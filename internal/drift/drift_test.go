package drift_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mcptestkit/mcptestkit/internal/drift"
)

// tool is one tool "t" with these input properties (JSON) and required
// list, for the schema cases.
func tool(props, required string, extra ...string) string {
	s := fmt.Sprintf(`{"name":"t","inputSchema":{"type":"object","properties":%s,"required":%s%s}}`, props, required, strings.Join(extra, ""))
	return `{"tools":[` + s + `]}`
}

func outTool(props, required string) string {
	return fmt.Sprintf(`{"tools":[{"name":"t","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":%s,"required":%s}}]}`, props, required)
}

// Each rule has a case each way: the change one way is breaking, the same
// change back is compatible (or the reverse for outputs).
func TestCompareRules(t *testing.T) {
	cases := []struct {
		name     string
		old, new string
		path     string
		breaking bool
		reason   string // a substring of the reason
	}{
		{"tool removed", `{"tools":[{"name":"a","inputSchema":{"type":"object"}},{"name":"b","inputSchema":{"type":"object","properties":{"x":{}}}}]}`,
			`{"tools":[{"name":"b","inputSchema":{"type":"object","properties":{"x":{}}}}]}`, `tools["a"]`, true, "tool removed"},
		{"tool added", `{"tools":[]}`, `{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}`, `tools["a"]`, false, "new tool"},
		{"tool renamed", `{"tools":[{"name":"a","description":"d","inputSchema":{"type":"object","properties":{"x":{}}}}]}`,
			`{"tools":[{"name":"b","description":"d","inputSchema":{"type":"object","properties":{"x":{}}}}]}`, `tools["a"]`, true, `renamed to "b"`},
		{"new required argument", tool(`{}`, `[]`), tool(`{"id":{"type":"string"}}`, `["id"]`), `tools["t"].inputSchema.required`, true, `"id" is a new required argument`},
		{"required argument dropped", tool(`{"id":{"type":"string"}}`, `["id"]`), tool(`{}`, `[]`), `tools["t"].inputSchema.properties.id`, false, "argument removed"},
		{"argument made required", tool(`{"id":{}}`, `[]`), tool(`{"id":{}}`, `["id"]`), `tools["t"].inputSchema.required`, true, `"id" is now required`},
		{"argument made optional", tool(`{"id":{}}`, `["id"]`), tool(`{"id":{}}`, `[]`), `tools["t"].inputSchema.required`, false, `"id" is now optional`},
		{"new optional argument", tool(`{}`, `[]`), tool(`{"n":{"type":"integer"}}`, `[]`), `tools["t"].inputSchema.properties.n`, false, "a new optional argument"},
		{"argument removed from a closed schema", tool(`{"n":{}}`, `[]`, `,"additionalProperties":false`), tool(`{}`, `[]`, `,"additionalProperties":false`),
			`tools["t"].inputSchema.properties.n`, true, "additionalProperties is false"},
		{"type narrowed", tool(`{"n":{"type":"number"}}`, `[]`), tool(`{"n":{"type":"integer"}}`, `[]`), `tools["t"].inputSchema.properties.n.type`, true, "type narrowed from number to integer"},
		{"type widened", tool(`{"n":{"type":"integer"}}`, `[]`), tool(`{"n":{"type":["integer","string"]}}`, `[]`), `tools["t"].inputSchema.properties.n.type`, false, "type integer → integer|string"},
		{"type given to an untyped argument", tool(`{"n":{}}`, `[]`), tool(`{"n":{"type":"string"}}`, `[]`), `tools["t"].inputSchema.properties.n.type`, true, "narrowed from any type to string"},
		{"enum value removed", tool(`{"c":{"enum":["a","b"]}}`, `[]`), tool(`{"c":{"enum":["a"]}}`, `[]`), `tools["t"].inputSchema.properties.c.enum`, true, `"b" no longer allowed`},
		{"enum value added", tool(`{"c":{"enum":["a"]}}`, `[]`), tool(`{"c":{"enum":["a","b"]}}`, `[]`), `tools["t"].inputSchema.properties.c.enum`, false, `enum ["a"] → ["a","b"]`},
		{"enum added", tool(`{"c":{}}`, `[]`), tool(`{"c":{"enum":["a"]}}`, `[]`), `tools["t"].inputSchema.properties.c.enum`, true, "clients that send another value"},
		{"maximum lowered", tool(`{"n":{"maximum":100}}`, `[]`), tool(`{"n":{"maximum":50}}`, `[]`), `tools["t"].inputSchema.properties.n.maximum`, true, "maximum 100 → 50"},
		{"maximum raised", tool(`{"n":{"maximum":50}}`, `[]`), tool(`{"n":{"maximum":100}}`, `[]`), `tools["t"].inputSchema.properties.n.maximum`, false, "maximum 50 → 100"},
		{"minLength raised", tool(`{"s":{"minLength":1}}`, `[]`), tool(`{"s":{"minLength":3}}`, `[]`), `tools["t"].inputSchema.properties.s.minLength`, true, "minLength 1 → 3"},
		{"minLength removed", tool(`{"s":{"minLength":3}}`, `[]`), tool(`{"s":{}}`, `[]`), `tools["t"].inputSchema.properties.s.minLength`, false, "minLength 3 → absent"},
		{"pattern added", tool(`{"s":{}}`, `[]`), tool(`{"s":{"pattern":"^a"}}`, `[]`), `tools["t"].inputSchema.properties.s.pattern`, true, "values that matched before"},
		{"pattern removed", tool(`{"s":{"pattern":"^a"}}`, `[]`), tool(`{"s":{}}`, `[]`), `tools["t"].inputSchema.properties.s.pattern`, false, `pattern "^a" → absent`},
		{"additionalProperties closed", tool(`{}`, `[]`), tool(`{}`, `[]`, `,"additionalProperties":false`), `tools["t"].inputSchema.additionalProperties`, true, "closed"},
		{"additionalProperties opened", tool(`{}`, `[]`, `,"additionalProperties":false`), tool(`{}`, `[]`), `tools["t"].inputSchema.additionalProperties`, false, "false → absent"},
		{"nested item narrowed", tool(`{"l":{"type":"array","items":{"type":"number"}}}`, `[]`), tool(`{"l":{"type":"array","items":{"type":"integer"}}}`, `[]`),
			`tools["t"].inputSchema.properties.l.items.type`, true, "type narrowed"},
		{"description changed", tool(`{"s":{"description":"x"}}`, `[]`), tool(`{"s":{"description":"y"}}`, `[]`), `tools["t"].inputSchema.properties.s.description`, false, "description changed"},
		{"unclassified keyword", tool(`{"s":{"anyOf":[{"type":"string"}]}}`, `[]`), tool(`{"s":{"anyOf":[{"type":"number"}]}}`, `[]`),
			`tools["t"].inputSchema.properties.s.anyOf`, true, "review it"},
		{"tool annotations", `{"tools":[{"name":"t","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}]}`,
			`{"tools":[{"name":"t","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":false}}]}`, `tools["t"].annotations`, false, "annotations changed"},

		{"output field removed", outTool(`{"a":{"type":"string"},"b":{}}`, `[]`), outTool(`{"b":{}}`, `[]`), `tools["t"].outputSchema.properties.a`, true, "field removed"},
		{"output field added", outTool(`{"b":{}}`, `[]`), outTool(`{"a":{"type":"string"},"b":{}}`, `[]`), `tools["t"].outputSchema.properties.a`, false, "a new field"},
		{"output type widened", outTool(`{"a":{"type":"string"}}`, `[]`), outTool(`{"a":{"type":["string","null"]}}`, `[]`), `tools["t"].outputSchema.properties.a.type`, true, "clients may receive null"},
		{"output type narrowed", outTool(`{"a":{"type":["string","null"]}}`, `[]`), outTool(`{"a":{"type":"string"}}`, `[]`), `tools["t"].outputSchema.properties.a.type`, false, "type string|null → string"},
		{"output field made optional", outTool(`{"a":{}}`, `["a"]`), outTool(`{"a":{}}`, `[]`), `tools["t"].outputSchema.required`, true, `"a" is no longer required`},
		{"output field made required", outTool(`{"a":{}}`, `[]`), outTool(`{"a":{}}`, `["a"]`), `tools["t"].outputSchema.required`, false, `"a" is now always present`},
		{"output enum widened", outTool(`{"a":{"enum":[1]}}`, `[]`), outTool(`{"a":{"enum":[1,2]}}`, `[]`), `tools["t"].outputSchema.properties.a.enum`, true, "2 may now be returned"},
		{"output enum narrowed", outTool(`{"a":{"enum":[1,2]}}`, `[]`), outTool(`{"a":{"enum":[1]}}`, `[]`), `tools["t"].outputSchema.properties.a.enum`, false, "enum [1,2] → [1]"},
		{"output maximum raised", outTool(`{"a":{"maximum":1}}`, `[]`), outTool(`{"a":{"maximum":2}}`, `[]`), `tools["t"].outputSchema.properties.a.maximum`, true, "past the old bound"},
		{"output schema removed", outTool(`{}`, `[]`), `{"tools":[{"name":"t","inputSchema":{"type":"object"}}]}`, `tools["t"].outputSchema`, true, "output schema removed"},
		{"output schema added", `{"tools":[{"name":"t","inputSchema":{"type":"object"}}]}`, outTool(`{}`, `[]`), `tools["t"].outputSchema`, false, "output schema added"},

		{"task required", `{"tools":[{"name":"t","inputSchema":{"type":"object"},"execution":{"taskSupport":"optional"}}]}`,
			`{"tools":[{"name":"t","inputSchema":{"type":"object"},"execution":{"taskSupport":"required"}}]}`, `tools["t"].execution.taskSupport`, true, "plain tools/call"},
		{"task optional", `{"tools":[{"name":"t","inputSchema":{"type":"object"}}]}`,
			`{"tools":[{"name":"t","inputSchema":{"type":"object"},"execution":{"taskSupport":"optional"}}]}`, `tools["t"].execution.taskSupport`, false, "forbidden → optional"},

		{"resource removed", `{"resources":[{"uri":"a://1","name":"1"}]}`, `{"resources":[]}`, `resources["a://1"]`, true, "resource removed"},
		{"resource added", `{"resources":[]}`, `{"resources":[{"uri":"a://1","name":"1"}]}`, `resources["a://1"]`, false, "new resource"},
		{"resource mimeType", `{"resources":[{"uri":"a://1","name":"1","mimeType":"text/plain"}]}`, `{"resources":[{"uri":"a://1","name":"1","mimeType":"application/json"}]}`,
			`resources["a://1"].mimeType`, true, "clients that parse"},
		{"template removed", `{"resourceTemplates":[{"uriTemplate":"a://{x}","name":"x"}]}`, `{"resourceTemplates":[]}`, `resourceTemplates["a://{x}"]`, true, "template removed"},
		{"template added", `{"resourceTemplates":[]}`, `{"resourceTemplates":[{"uriTemplate":"a://{x}","name":"x"}]}`, `resourceTemplates["a://{x}"]`, false, "new resource template"},
		{"prompt removed", `{"prompts":[{"name":"p"}]}`, `{"prompts":[]}`, `prompts["p"]`, true, "prompt removed"},
		{"prompt added", `{"prompts":[]}`, `{"prompts":[{"name":"p"}]}`, `prompts["p"]`, false, "new prompt"},
		{"prompt required argument", `{"prompts":[{"name":"p"}]}`, `{"prompts":[{"name":"p","arguments":[{"name":"a","required":true}]}]}`,
			`prompts["p"].arguments.a`, true, "new required argument"},
		{"prompt optional argument", `{"prompts":[{"name":"p"}]}`, `{"prompts":[{"name":"p","arguments":[{"name":"a"}]}]}`, `prompts["p"].arguments.a`, false, "optional argument"},
		{"prompt argument made required", `{"prompts":[{"name":"p","arguments":[{"name":"a"}]}]}`, `{"prompts":[{"name":"p","arguments":[{"name":"a","required":true}]}]}`,
			`prompts["p"].arguments.a.required`, true, "now required"},
		{"prompt argument made optional", `{"prompts":[{"name":"p","arguments":[{"name":"a","required":true}]}]}`, `{"prompts":[{"name":"p","arguments":[{"name":"a"}]}]}`,
			`prompts["p"].arguments.a.required`, false, "now optional"},

		{"capability removed", `{"capabilities":{"tools":{"listChanged":true},"logging":{}}}`, `{"capabilities":{"tools":{"listChanged":true}}}`, `capabilities.logging`, true, "capability removed"},
		{"capability added", `{"capabilities":{}}`, `{"capabilities":{"logging":{}}}`, `capabilities.logging`, false, "capability added"},
		{"sub-capability removed", `{"capabilities":{"resources":{"subscribe":true}}}`, `{"capabilities":{"resources":{}}}`, `capabilities.resources.subscribe`, true, "capability removed"},
		{"sub-capability added", `{"capabilities":{"resources":{}}}`, `{"capabilities":{"resources":{"subscribe":true}}}`, `capabilities.resources.subscribe`, false, "capability added"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			changes := compare(t, tc.old, tc.new)
			if len(changes) != 1 {
				t.Fatalf("want one change at %s, got %d:\n%s", tc.path, len(changes), drift.Report(changes))
			}
			c := changes[0]
			if c.Path != tc.path || c.Breaking != tc.breaking || !strings.Contains(c.Reason, tc.reason) {
				t.Errorf("got  %v\nwant %s breaking=%v, reason containing %q", c, tc.path, tc.breaking, tc.reason)
			}
			if drift.Breaking(changes) != tc.breaking {
				t.Errorf("Breaking = %v, want %v", !tc.breaking, tc.breaking)
			}
		})
	}
}

func compare(t *testing.T, old, new string) []drift.Change {
	t.Helper()
	o, err := drift.Parse([]byte(old))
	if err != nil {
		t.Fatalf("Parse(old): %v", err)
	}
	n, err := drift.Parse([]byte(new))
	if err != nil {
		t.Fatalf("Parse(new): %v", err)
	}
	return drift.Compare(o, n)
}

func TestCompareEqualAndOrderFree(t *testing.T) {
	a := `{"tools":[{"name":"a","inputSchema":{"type":"object"}},{"name":"b","inputSchema":{"type":"object"}}]}`
	b := `{"tools":[{"name":"b","inputSchema":{"type":"object"}},{"name":"a","inputSchema":{"type":"object"}}]}`
	if c := compare(t, a, b); len(c) != 0 {
		t.Errorf("the same tools in another order: %s", drift.Report(c))
	}
}

// A list only one side holds is not compared: a golden of tools/list
// against a full listing is not "every resource removed".
func TestCompareOnlyWhatBothHold(t *testing.T) {
	c := compare(t, `{"tools":[],"resources":[{"uri":"a://1","name":"1"}]}`, `{"tools":[]}`)
	if len(c) != 0 {
		t.Errorf("%s", drift.Report(c))
	}
}

func TestParse(t *testing.T) {
	for _, tc := range []struct{ in, err string }{
		{`{"tools":[{"inputSchema":{}}]}`, `tools[0] has no "name" string`},
		{`{"tools":{}}`, `"tools" is not a list`},
		{`{"protocolVersion":"x"}`, "holds no tools"},
		{`[]`, "an empty list"},
		{`{"tools":[`, "not JSON"},
	} {
		_, err := drift.Parse([]byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("Parse(%s) = %v, want an error containing %q", tc.in, err, tc.err)
		}
	}
	if _, err := drift.Parse([]byte(`{"x":1}`)); !errors.Is(err, drift.ErrNoSurface) {
		t.Errorf("Parse of no list: %v, want ErrNoSurface", err)
	}
	// A bare list of tools, as Golden writes a []*client.Tool.
	s, err := drift.Parse([]byte(`[{"name":"a","inputSchema":{"type":"object"}}]`))
	if err != nil {
		t.Fatal(err)
	}
	empty, _ := drift.Parse([]byte(`{"tools":[]}`))
	if c := drift.Compare(s, empty); len(c) != 1 || !c[0].Breaking {
		t.Errorf("bare list against an empty one: %s", drift.Report(c))
	}
}

func TestReport(t *testing.T) {
	got := drift.Report(compare(t, tool(`{"n":{"maximum":100}}`, `[]`), tool(`{"n":{"maximum":50},"m":{}}`, `[]`)))
	want := `schema drift: 1 breaking, 1 compatible
  BREAKING    tools["t"].inputSchema.properties.n.maximum: maximum 100 → 50: clients that send values the old bound allowed get an error
  compatible  tools["t"].inputSchema.properties.m: a new optional argument
`
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if drift.Report(nil) != "" {
		t.Error("Report(nil) is not empty")
	}
}

// mcptestkit list --format json leaves out an empty list: with the
// capability declared, that is a list of nothing, not a list not given.
func TestParseDeclaredEmptyList(t *testing.T) {
	c := compare(t, `{"capabilities":{"tools":{}},"tools":[{"name":"a","inputSchema":{"type":"object"}}]}`, `{"capabilities":{"tools":{}}}`)
	if len(c) != 1 || c[0].Path != `tools["a"]` || !c[0].Breaking {
		t.Errorf("%s", drift.Report(c))
	}
}
