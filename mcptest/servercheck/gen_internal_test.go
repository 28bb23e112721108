package servercheck

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcptestkit/mcptestkit/internal/toolschema"
)

func mustCompile(t testing.TB, raw string) *schema {
	t.Helper()
	s, err := compileSchema(json.RawMessage(raw), "t/inputSchema", toolschema.MatchTimeout)
	if err != nil {
		t.Fatalf("compile %s: %v", raw, err)
	}
	return s
}

// Every number in a schema comes from the server: none may size an
// allocation (minItems 1e19 made the generator panic in makeslice and took
// the test binary down) or multiply into one. A schema that asks for more
// than the generator makes is a reason named by its keyword; one it can
// meet still gets arguments.
func TestGeneratorBoundsTheServersNumbers(t *testing.T) {
	obj := func(prop string) string { return `{"type":"object","properties":{"p":` + prop + `},"required":["p"]}` }
	for _, tc := range []struct {
		name, schema, why string // why: "" when arguments must be generated
	}{
		{"minItems 1e19", obj(`{"type":"array","minItems":1e19}`), "minItems 1e19 asks for more than the generator makes (at most 10000)"},
		{"minLength 1e19", obj(`{"type":"string","minLength":1e19}`), "minLength 1e19 asks for more than the generator makes (at most 10000)"},
		{"minItems past int64", obj(`{"type":"array","minItems":1e300}`), "minItems 1e300 asks for more"},
		{"counts that multiply", obj(`{"type":"array","minItems":1000,"items":{"type":"array","minItems":1000,"items":{"type":"array","minItems":1000}}}`),
			"more than 100000 values and characters in one argument set"},
		{"long strings in a long array", obj(`{"type":"array","minItems":100,"items":{"type":"string","minLength":5000}}`), "more than 100000 values and characters"},
		{"minProperties 1e19", `{"type":"object","minProperties":1e19}`, "minProperties"},
		{"maximum past float64", obj(`{"type":"number","maximum":-1e400}`), "maximum"},
		{"minimum past int64", obj(`{"type":"integer","minimum":1e300,"multipleOf":1e299}`), ""},
		{"multipleOf huge", obj(`{"type":"integer","multipleOf":1e300}`), ""},
		{"maxItems and maxLength 1e19", obj(`{"type":"array","maxItems":1e19,"items":{"type":"string","maxLength":1e19}}`), ""},
		{"minItems within the bound", obj(`{"type":"array","minItems":300,"items":{"type":"integer"}}`), ""},
		{"allOf of 1000", allOfSchema(1000), ""},
		{"allOf of 4000", allOfSchema(4000), "more than 100000 values and characters"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := mustCompile(t, tc.schema)
			args, why := s.conforming(newSeeded(1, tc.name))
			if tc.why == "" {
				if why != "" {
					t.Fatalf("no arguments: %s", why)
				}
				if err := s.validate(args); err != nil {
					t.Fatalf("the arguments do not conform: %v", err)
				}
				return
			}
			if !strings.Contains(why, tc.why) {
				t.Fatalf("why = %q; want it to contain %q", why, tc.why)
			}
		})
	}
}

// Numbers no valid schema has (the fuzzer's raw requests build their own
// schemas, and a value's subschema may be anything) are read as absent.
func TestGeneratorReadsInvalidCountsAsAbsent(t *testing.T) {
	for _, sch := range []string{
		`{"type":"array","minItems":-5}`, `{"type":"array","minItems":2.5,"maxItems":-1}`, `{"type":"string","minLength":-1e19,"maxLength":-3}`,
		`{"type":"array","minItems":"many"}`, `{"type":"integer","minimum":1e400,"maximum":-1e400}`,
	} {
		doc, err := jsonschema.UnmarshalJSON(strings.NewReader(sch))
		if err != nil {
			t.Fatal(err)
		}
		g := newGen(newSeeded(1, sch), doc)
		v := g.value(doc, 0)
		if g.stop != "" {
			t.Errorf("%s: the generator gave up: %s", sch, g.stop)
		}
		if _, err := json.Marshal(v); err != nil {
			t.Errorf("%s: made %v, which is not JSON: %v", sch, v, err)
		}
	}
}

// The fuzzer's bytes drive the same generator: on random inputs it never
// panics and never makes more than its budget, whatever the schema asks.
func TestGeneratorOnFuzzBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, sch := range []string{
		`{"type":"object","properties":{"a":{"type":"array","minItems":1e19}}}`,
		`{"type":"object","properties":{"a":{"type":"array","maxItems":1e19,"items":{"type":"string","maxLength":1e19,"pattern":"^(x{1000}){1000}$"}}}}`,
		`{"type":"object","properties":{"a":{"$ref":"#"},"b":{"$ref":"#"},"c":{"$ref":"#"},"d":{"type":"array","minItems":9000,"items":{"$ref":"#"}}}}`,
	} {
		s := mustCompile(t, sch)
		for range 20 {
			data := make([]byte, r.IntN(64))
			for i := range data {
				data[i] = byte(r.IntN(256))
			}
			g := newGen(&fuzzBytes{b: data}, s.doc)
			v := g.value(s.doc, 0)
			if b, _ := json.Marshal(v); len(b) > 16*genBudget {
				t.Fatalf("%s: made %d bytes of arguments", sch, len(b))
			}
		}
	}
}

// A pattern is aimed at: strings are made from its syntax, with what Go's
// syntax lacks of ECMA-262 translated (\u) or left out (lookaround) for the
// validator to apply; one the generator cannot read (a backreference) is
// named with the construct in the reason.
func TestGeneratorAimsAtPatterns(t *testing.T) {
	for _, tc := range []struct{ pattern, why string }{
		{`^[A-Z]{3}-\d{4}$`, ""},
		{`^(?!admin$)[a-z]{4,8}$`, ""},
		{`^(?<!x)[a-f0-9]{8}(?=$)`, ""},
		{`^\u00e9{2}[\u0041-\u005A]$`, ""},
		{`^[^\s@]+@[^\s@]+\.(com|org)$`, ""},
		{`^(ab)\1$`, `pattern "^(ab)\\1$": the generator cannot aim at it (error parsing regexp: invalid escape sequence: ` + "`\\1`" + `: ECMA-262 syntax`},
	} {
		t.Run(tc.pattern, func(t *testing.T) {
			raw, _ := json.Marshal(map[string]any{"type": "object", "required": []string{"p"},
				"properties": map[string]any{"p": map[string]any{"type": "string", "pattern": tc.pattern}}})
			s := mustCompile(t, string(raw))
			args, why := s.conforming(newSeeded(1, tc.pattern))
			if tc.why == "" {
				if why != "" {
					t.Fatalf("no arguments: %s", why)
				}
				t.Logf("%s", compactJSON(args))
				return
			}
			if !strings.Contains(why, tc.why) {
				t.Fatalf("why = %q; want it to contain %q", why, tc.why)
			}
		})
	}
}

// A schema is compiled once per run, whichever checks read it.
func TestSchemasCompiledOncePerRun(t *testing.T) {
	s := &suite{matchTimeout: toolschema.MatchTimeout}
	raw := json.RawMessage(`{"type":"object"}`)
	a, err := s.compile(raw, "t/inputSchema")
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := s.compile(raw, "t/inputSchema"); a != b {
		t.Fatal("compiled twice")
	}
}

func allOfSchema(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf(`{"properties":{"p%d":{"type":"string"}},"required":["p%d"]}`, i, i)
	}
	return `{"type":"object","allOf":[` + strings.Join(parts, ",") + `]}`
}

func deepSchema(levels int) string {
	return strings.Repeat(`{"type":"object","properties":{"a":`, levels) + `{"type":"string"}` + strings.Repeat(`}}`, levels)
}

// BenchmarkHostileSchemas measures a hostile schema's cost to the checks:
// compiling it, and generating arguments (tools/calls does it up to
// Options.Calls times). Before the bounds, the 2000-level schema took 40-170 s
// to compile (and each of three checks compiled it again) and the allOf of
// 4000 entries 3 s per argument set.
func BenchmarkHostileSchemas(b *testing.B) {
	for _, bc := range []struct{ name, raw string }{
		{"depth=2000", deepSchema(2000)},
		{"allOf=4000", allOfSchema(4000)},
	} {
		b.Run(bc.name+"/compile", func(b *testing.B) {
			for b.Loop() {
				_, _ = compileSchema(json.RawMessage(bc.raw), "t/inputSchema", toolschema.MatchTimeout)
			}
		})
		s, err := compileSchema(json.RawMessage(bc.raw), "t/inputSchema", toolschema.MatchTimeout)
		if err != nil {
			continue // refused: nothing to generate from
		}
		b.Run(bc.name+"/conforming", func(b *testing.B) {
			for b.Loop() {
				s.gaveUp = "" // what one argument set costs, not the memo of a schema given up on
				s.conforming(newSeeded(1, bc.name))
			}
		})
	}
}
