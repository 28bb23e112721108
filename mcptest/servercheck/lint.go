package servercheck

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/mcptestkit/mcptestkit/client"
)

// The lint of the model-facing surface: what makes a tool hard for a model
// to pick and to call right. Nothing here breaks a MUST: a lint check warns
// (a SHOULD of the specification, or a convention clients and models rely
// on) or passes with a note, and never fails. Each finding says how to fix
// it. The rules come from the specification's tool rules (server/tools:
// names, annotations, structured content) and from public rule sets
// (mcp-assert's lint, the MCP documentation's tool-design guidance); see
// lintRows for which and why.

// DefaultTokenBudget is the size of tools/list, in tokens, past which
// lint/tokens warns when [Options.TokenBudget] is zero. Measured in
// o200k_base: the Bookshop's 2 tools cost 194 tokens, server-everything's
// 13 cost 1,705 (131 a tool); 3000 is some 20 tools of that size, where
// tool-design guidance (and mcp-assert's W112) puts the most a model picks
// from well.
const DefaultTokenBudget = 3000

// lintRows are the lint checks, after the protocol's.
func lintRows() []family {
	return []family{
		{name: "lint/descriptions/<tool>", level: Warn, spec: "a convention: the MCP documentation's tool-design guidance",
			doc: `the tool's description is more than one word; a required parameter has a description (warned), an
				optional one too, and none is one word (noted): the descriptions are how a model picks the tool and fills its
				arguments (a tool with no description at all is tools/descriptions')`,
			items: perTool((*state).lintDescriptions)},
		{name: "lint/enums/<tool>", level: Warn, spec: "a convention: the MCP documentation's tool-design guidance",
			doc: `a parameter with enum values says what they mean: its description names them, or each value is a
				oneOf/anyOf const with a title or description (noted otherwise)`,
			items: perTool((*state).lintEnums)},
		{name: "lint/annotations/<tool>", level: Warn, spec: `server/tools, "Tool Annotations" (ToolAnnotations in the schema)`,
			doc: `the hints agree with each other and with the name: destructiveHint true with readOnlyHint true (destructiveHint
				is meaningful only when readOnlyHint is false), readOnlyHint on a tool named for deleting (delete, remove, drop,
				destroy, purge, erase, truncate, wipe) are warned; destructiveHint false on such a tool is noted`,
			items: perTool((*state).lintAnnotations)},
		{name: "lint/output-text/<tool>", level: Warn,
			spec: `server/tools, "Structured Content": SHOULD also return the serialized JSON in a TextContent block`,
			doc: `a tool with an outputSchema whose successful calls in tools/calls returned structuredContent also returned a
				text block: a client that passes only content to the model otherwise shows it nothing; skipped when no call
				succeeded`,
			items: func(s *suite) []item {
				var out []item
				for _, t := range s.inv.tools {
					if len(t.OutputSchema) > 0 {
						out = append(out, item{elem(t.Name), func(c *state) { c.lintOutputText(t) }})
					}
				}
				return out
			}},
		{name: "lint/names", level: Warn, spec: `server/tools, "Tool Names": SHOULD be unique within a server`, needs: "tools",
			doc: `no two tools' names are equal once case is folded (a client or model that folds case calls the wrong one);
				a name past 64 characters or with a dot, which some clients refuse (their pattern is ^[a-zA-Z0-9_-]{1,64}$), is
				noted (the specification's own rules are tools/names')`,
			run: (*state).lintNames},
		{name: "lint/tokens", level: Warn, spec: "a convention: every tool's definition is in the model's context on every request", needs: "tools",
			doc: `the tokens tools/list costs a model's context, per tool and in all, counted with Options.Tokens (mcptestkit check
				counts with o200k_base); warned past Options.TokenBudget (default 3000); skipped without a tokenizer`,
			run: (*state).lintTokens},
	}
}

// lintState is what the lint checks learn from the other checks: per tool
// with an outputSchema, its successful calls with structuredContent and how
// many of them also had a text block.
type lintState struct {
	structured map[string]*[2]int
}

// sawResult records a successful call's result for lint/output-text.
func (l *lintState) sawResult(tool string, res *client.CallToolResult) {
	if res == nil || res.IsError || len(res.StructuredContent) == 0 || string(res.StructuredContent) == "null" {
		return
	}
	if l.structured == nil {
		l.structured = map[string]*[2]int{}
	}
	n := l.structured[tool]
	if n == nil {
		n = &[2]int{}
		l.structured[tool] = n
	}
	n[0]++
	if slices.ContainsFunc(res.Content, func(c client.Content) bool { return c.ContentType() == "text" }) {
		n[1]++
	}
}

// property is one parameter of a tool's inputSchema.
type property struct {
	name     string
	required bool
	schema   map[string]any
}

// properties returns the top-level parameters of the tool's inputSchema,
// in name order.
func properties(t *client.Tool) []property {
	var s struct {
		Properties map[string]map[string]any `json:"properties"`
		Required   []string                  `json:"required"`
	}
	if json.Unmarshal(t.InputSchema, &s) != nil {
		return nil
	}
	var out []property
	for name, p := range s.Properties {
		out = append(out, property{name, slices.Contains(s.Required, name), p})
	}
	slices.SortFunc(out, func(a, b property) int { return strings.Compare(a.name, b.name) })
	return out
}

func (p property) description() string {
	d, _ := p.schema["description"].(string)
	return strings.TrimSpace(d)
}

func oneWord(s string) bool { return len(strings.Fields(s)) == 1 }

func (c *state) lintDescriptions(t *client.Tool) {
	if oneWord(t.Description) {
		c.breakf("tool %q is described in one word: %q (a convention: the description is what a model reads to "+
			"choose a tool)\nfix: say what the tool does, when to use it and what it returns, in a sentence or two",
			t.Name, strings.TrimSpace(t.Description))
	}
	for _, p := range properties(t) {
		d := p.description()
		switch {
		case d == "" && p.required:
			c.breakf("tool %q: the required parameter %q has no description (a convention: a model fills the "+
				"arguments from the descriptions)\nfix: add a description to its schema: what the value is, its format or unit, an example "+
				"(with go-sdk, a jsonschema:\"...\" struct tag; with mcp-go, mcp.Description(...))", t.Name, p.name)
		case d == "":
			c.notef("tool %q: the optional parameter %q has no description; fix: say what it changes and what "+
				"leaving it out means", t.Name, p.name)
		case oneWord(d):
			c.notef("tool %q: the parameter %q is described in one word (%q); fix: say what the value is and its "+
				"format", t.Name, p.name, d)
		}
	}
}

func (c *state) lintEnums(t *client.Tool) {
	for _, p := range properties(t) {
		values, _ := p.schema["enum"].([]any)
		if items, ok := p.schema["items"].(map[string]any); ok && values == nil {
			values, _ = items["enum"].([]any) // an array of enum values
		}
		if len(values) < 2 || explainedByConsts(p.schema) {
			continue
		}
		// Explained: the description names the values (all, or some
		// as examples of a kind); a model guesses at the rest.
		d := strings.ToLower(p.description())
		if slices.ContainsFunc(values, func(v any) bool { return strings.Contains(d, strings.ToLower(fmt.Sprint(v))) }) {
			continue
		}
		c.notef("tool %q: the parameter %q takes the values %s, and its description names none of them\n"+
			"fix: explain each value in the description (\"fast: ...; thorough: ...\"), or write the choices as "+
			"oneOf of {\"const\": value, \"description\": ...}", t.Name, p.name, compactJSON(values))
	}
}

// explainedByConsts reports whether schema gives its values as oneOf or
// anyOf consts, each with a title or a description.
func explainedByConsts(schema map[string]any) bool {
	for _, k := range []string{"oneOf", "anyOf"} {
		alts, _ := schema[k].([]any)
		if len(alts) == 0 {
			continue
		}
		all := true
		for _, a := range alts {
			m, _ := a.(map[string]any)
			_, hasConst := m["const"]
			title, _ := m["title"].(string)
			desc, _ := m["description"].(string)
			all = all && hasConst && (title != "" || desc != "")
		}
		if all {
			return true
		}
	}
	return false
}

// destructiveVerbs name tools that delete: one marked read-only is a hint
// that lies.
var destructiveVerbs = []string{"delete", "remove", "drop", "destroy", "purge", "erase", "truncate", "wipe"}

// nameWords splits a tool name into its lower-case words: at _ - . and
// spaces, and where a lower-case letter meets an upper-case one.
func nameWords(name string) []string {
	var words []string
	var cur []rune
	prevLower := false
	for _, r := range name {
		switch {
		case r == '_' || r == '-' || r == '.' || r == ' ' || r == '/':
			if len(cur) > 0 {
				words = append(words, string(cur))
			}
			cur, prevLower = nil, false
			continue
		case unicode.IsUpper(r) && prevLower:
			words = append(words, string(cur))
			cur = nil
		}
		cur = append(cur, unicode.ToLower(r))
		prevLower = unicode.IsLower(r)
	}
	if len(cur) > 0 {
		words = append(words, string(cur))
	}
	return words
}

func (c *state) lintAnnotations(t *client.Tool) {
	a := t.Annotations
	if a == nil {
		return
	}
	readOnly := a.ReadOnlyHint != nil && *a.ReadOnlyHint
	if readOnly && a.DestructiveHint != nil && *a.DestructiveHint {
		c.breakf("tool %q: readOnlyHint true and destructiveHint true: a tool that changes nothing destroys nothing "+
			"(destructiveHint is meaningful only when readOnlyHint is false: server/tools, ToolAnnotations; a convention "+
			"clients rely on)\n"+
			"fix: drop destructiveHint from a read-only tool, or readOnlyHint from one that changes something", t.Name)
	}
	var verb string
	for _, w := range nameWords(t.Name) {
		if slices.Contains(destructiveVerbs, w) {
			verb = w
			break
		}
	}
	switch {
	case verb != "" && readOnly:
		c.breakf("tool %q is named for deleting (%q) and says readOnlyHint true: a client may run it without asking, "+
			"trusting the hint (a convention: hints that contradict the name mislead a client's confirmation policy)\nfix: set readOnlyHint false (and destructiveHint true, its default), or rename the "+
			"tool if it only reads", t.Name, verb)
	case verb != "" && a.DestructiveHint != nil && !*a.DestructiveHint:
		c.notef("tool %q is named for deleting (%q) and says destructiveHint false; fix: if it deletes what it "+
			"names, leave destructiveHint true (the default) so that clients ask before running it", t.Name, verb)
	}
}

func (c *state) lintOutputText(t *client.Tool) {
	n := c.s.lint.structured[t.Name]
	if n == nil {
		c.skipf("no call of tool %q in tools/calls succeeded with structuredContent", t.Name)
	}
	if n[1] == 0 {
		c.breakf("tool %q: none of its %d successful call(s) with structuredContent had a text block in content: a "+
			"client that gives the model only content (most, before 2025-06-18) shows it nothing (for backwards "+
			"compatibility, a tool that returns structured content SHOULD also return the serialized JSON in a "+
			"TextContent block: server/tools, \"Structured Content\")\n"+
			"fix: add a text block with the JSON (go-sdk does when the handler returns a nil result and a typed output; "+
			"mcp-go's mcp.NewToolResultStructured(out, text) takes it)", t.Name, n[0])
	} else if n[1] < n[0] {
		c.notef("tool %q: %d of its %d successful call(s) with structuredContent had no text block", t.Name, n[0]-n[1], n[0])
	}
}

func (c *state) lintNames() {
	c.useSpan(c.s.inv.toolsListed)
	tools := c.s.inv.tools
	if len(tools) == 0 {
		c.skipf("the server lists no tools")
	}
	folded := map[string][]string{}
	var keys []string
	for _, t := range tools {
		k := strings.ToLower(t.Name)
		if folded[k] == nil {
			keys = append(keys, k)
		}
		folded[k] = append(folded[k], t.Name)
	}
	for _, k := range keys {
		if names := folded[k]; len(names) > 1 {
			c.breakf("the tools %q have one name once case is folded: a client or a model that folds case (or "+
				"keys tools case-insensitively) calls the wrong one (tool names SHOULD be unique within a server: "+
				"server/tools, \"Tool Names\")\nfix: rename all but one so that they differ in more than case", names)
		}
	}
	for _, t := range tools {
		switch {
		case len(t.Name) > 64:
			c.notef("tool %q: %d characters; clients that check tool names against ^[a-zA-Z0-9_-]{1,64}$ (and "+
				"prefix them with the server's) refuse it; fix: a name of 64 characters or fewer", t.Name, len(t.Name))
		case strings.Contains(t.Name, "."):
			c.notef("tool %q: a dot, which the specification allows but clients that check tool names against "+
				"^[a-zA-Z0-9_-]{1,64}$ refuse; fix: _ or - instead", t.Name)
		}
	}
}

func (c *state) lintTokens() {
	c.useSpan(c.s.inv.toolsListed)
	count := c.s.opts.Tokens
	if count == nil {
		c.skipf("no tokenizer: Options.Tokens is nil (mcptestkit check counts with o200k_base)")
	}
	tools := c.s.inv.tools
	if len(tools) == 0 {
		c.skipf("the server lists no tools")
	}
	budget := c.s.opts.TokenBudget
	if budget <= 0 {
		budget = DefaultTokenBudget
	}
	type cost struct {
		name   string
		tokens int
	}
	var costs []cost
	total := 0
	for _, t := range tools {
		data, err := json.Marshal(t)
		if err != nil {
			continue
		}
		n := count(string(data))
		costs = append(costs, cost{t.Name, n})
		total += n
	}
	slices.SortStableFunc(costs, func(a, b cost) int { return b.tokens - a.tokens })
	var b strings.Builder
	fmt.Fprintf(&b, "tools/list: %d tokens for %d tool(s) (the tools' JSON as listed); by tool:", total, len(tools))
	for i, k := range costs {
		if i == 10 {
			fmt.Fprintf(&b, "\n  ... and %d more", len(costs)-10)
			break
		}
		fmt.Fprintf(&b, "\n  %6d  %s", k.tokens, k.name)
	}
	if total > budget {
		c.breakf("%s\ntools/list costs %d tokens, past the budget of %d: every request pays for every tool's "+
			"definition in the model's context (a convention: the budget is --token-budget, Options.TokenBudget)\nfix: shorten the longest schemas and descriptions (drop what the names "+
			"and types already say), merge tools that differ by a parameter, or split the server by task", b.String(), total, budget)
		return
	}
	c.notef("%s", b.String())
}
