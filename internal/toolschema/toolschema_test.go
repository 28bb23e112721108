package toolschema_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcptestkit/mcptestkit/internal/toolschema"
)

func TestCompile(t *testing.T) {
	for _, tc := range []struct {
		name, raw, wantErr string
	}{
		{"valid", `{"type":"object","properties":{"n":{"type":"integer"}}}`, ""},
		{"draft 2020 by default", `{"type":"object","prefixItems":[{"type":"string"}]}`, ""},
		{"not JSON", `{`, "not valid JSON"},
		{"external ref", `{"$ref":"https://example.com/s.json"}`, "external schemas are not loaded"},
		{"invalid keyword value", `{"type":7}`, "type"},
		// JSON Schema patterns are ECMA-262: what Go's RE2 lacks is valid.
		{"lookahead", `{"type":"string","pattern":"^(?!admin$)[a-z]+$"}`, ""},
		{"lookbehind", `{"type":"string","pattern":"(?<!x)y"}`, ""},
		{"backreference", `{"type":"string","pattern":"^(a)\\1$"}`, ""},
		{"u escape", `{"type":"string","pattern":"^\\u00e9+$"}`, ""},
		{"pattern property", `{"type":"object","patternProperties":{"^(?!x_)":{"type":"string"}}}`, ""},
		{"invalid in both syntaxes", `{"type":"string","pattern":"a(b"}`, "is not valid regex"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := toolschema.Compile([]byte(tc.raw), "tool with space/inputSchema", toolschema.MatchTimeout)
			if tc.wantErr == "" {
				if err != nil || s == nil {
					t.Fatalf("Compile(%s) = %v, %v; want a schema", tc.raw, s, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("Compile(%s) error = %v; want one containing %q", tc.raw, err, tc.wantErr)
			}
		})
	}
}

// An ECMA-262 pattern means what it says: the lookahead, the
// backreference and the \u escape are applied, not only accepted.
func TestECMAPatternsMatch(t *testing.T) {
	for _, tc := range []struct {
		pattern, good, bad string
	}{
		{`^(?!admin$)[a-z]+$`, "bob", "admin"},
		{`^(a)\1$`, "aa", "ab"},
		{`^\u00e9+$`, "éé", "e"},
		{`^[a-z]+$`, "bob", "Bob"}, // RE2 runs it
	} {
		raw, _ := json.Marshal(map[string]any{"type": "string", "pattern": tc.pattern})
		s, err := toolschema.Compile(raw, "p", toolschema.MatchTimeout)
		if err != nil {
			t.Fatalf("pattern %q: %v", tc.pattern, err)
		}
		if err := s.Validate(tc.good); err != nil {
			t.Errorf("pattern %q rejects %q: %v", tc.pattern, tc.good, err)
		}
		if err := s.Validate(tc.bad); err == nil {
			t.Errorf("pattern %q accepts %q", tc.pattern, tc.bad)
		}
	}
}

// A pattern that backtracks for ever (the lookahead makes regexp2 run it)
// gives up after MatchTimeout, counting as a match: the kit never
// hangs, nor fails a value, on its own engine's limit.
func TestCatastrophicPatternIsBounded(t *testing.T) {
	s, err := toolschema.Compile([]byte(`{"type":"string","pattern":"^(?=a)(a+)+$"}`), "p", toolschema.MatchTimeout)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Validate(strings.Repeat("a", 40) + "!") }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("a match that ran out of time counts as a match; got %v", err)
		}
	case <-time.After(30 * time.Second): // turns a hang into a failure; the bound is 250ms
		t.Fatal("the match did not end")
	}
}

// The compiler reads a count into an int, and one past int64 wrapped
// around: maxItems 1e19 failed every array. Such counts mean what they
// say; the values a schema holds (const) are left as they are.
func TestHugeCounts(t *testing.T) {
	for _, tc := range []struct {
		schema, instance string
		valid            bool
	}{
		{`{"maxItems":1e19}`, `[1,2,3]`, true},
		{`{"maxLength":1e400}`, `"abc"`, true},
		{`{"minItems":1e19}`, `[1,2,3]`, false},
		{`{"minProperties":18446744073709551616}`, `{"a":1}`, false},
		{`{"const":{"maxItems":1e19}}`, `{"maxItems":1e19}`, true},
		{`{"const":{"maxItems":1e19}}`, `{"maxItems":9223372036854775807}`, false},
	} {
		s, err := toolschema.Compile([]byte(tc.schema), "p", toolschema.MatchTimeout)
		if err != nil {
			t.Fatalf("%s: %v", tc.schema, err)
		}
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(tc.instance))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Validate(inst); (err == nil) != tc.valid {
			t.Errorf("%s against %s: valid = %v, want %v (%v)", tc.instance, tc.schema, err == nil, tc.valid, err)
		}
	}
}

func deep(levels int) string {
	return strings.Repeat(`{"type":"object","properties":{"a":`, levels) + `{}` + strings.Repeat(`}}`, levels)
}

// Compiling costs more than linear time in the nesting: a schema beyond the
// bounds is refused at once, as too big, not as invalid.
func TestCompileBounds(t *testing.T) {
	for _, tc := range []struct {
		name, raw, wantErr string
	}{
		{"at the depth bound", deep(toolschema.MaxDepth/2 - 1), ""},
		{"braces in strings do not count", `{"description":"` + strings.Repeat("{[", 500) + `\"{"}`, ""},
		{"past the depth bound", deep(toolschema.MaxDepth / 2), "nests JSON objects and arrays more than 64 levels deep"},
		{"2000 levels", deep(2000), "nests JSON objects and arrays more than 64 levels deep"},
		{"past the size bound", `{"description":"` + strings.Repeat("x", toolschema.MaxBytes) + `"}`, "more than the 262144 the kit compiles"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := toolschema.Compile([]byte(tc.raw), "p", toolschema.MatchTimeout)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("Compile: %v", err)
				}
				return
			}
			if !errors.Is(err, toolschema.ErrTooBig) || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("Compile error = %v; want ErrTooBig with %q", err, tc.wantErr)
			}
		})
	}
}

// BenchmarkCompileHostile measures what the bounds save: the 2000-level
// schema is refused before the compiler sees it (it took over a minute).
func BenchmarkCompileHostile(b *testing.B) {
	for _, bc := range []struct{ name, raw string }{
		{"depth=2000", deep(2000)},
		{"depth=31", deep(31)},
		{"allOf=4000", allOf(4000)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				_, _ = toolschema.Compile([]byte(bc.raw), "p", toolschema.MatchTimeout)
			}
		})
	}
}

func allOf(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = `{"properties":{"p` + strings.Repeat("x", i%7) + `":{"type":"string"}}}`
	}
	return `{"type":"object","allOf":[` + strings.Join(parts, ",") + `]}`
}
