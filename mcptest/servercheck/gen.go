package servercheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcptestkit/mcptestkit/internal/toolschema"
)

// entropy is where the generator's choices come from: a seeded random
// source for CheckServer, the fuzzer's bytes for Fuzz.
type entropy interface {
	// intn returns a number in [0, n), n > 0.
	intn(n int) int
	// raw returns up to n bytes to use as a string as they are, or false
	// when the source has none (the seeded source picks from a pool).
	raw(n int) ([]byte, bool)
}

type seeded struct{ r *rand.Rand }

func newSeeded(seed uint64, name string) *seeded {
	h := uint64(14695981039346656037)
	for i := 0; i < len(name); i++ {
		h = (h ^ uint64(name[i])) * 1099511628211
	}
	return &seeded{rand.New(rand.NewPCG(seed, h))}
}

func (s *seeded) intn(n int) int         { return s.r.IntN(n) }
func (s *seeded) raw(int) ([]byte, bool) { return nil, false }

// fuzzBytes reads choices from the fuzzer's input, one byte per small
// choice, so that a mutated byte changes one choice. Past the end, every
// choice is 0.
type fuzzBytes struct{ b []byte }

func (f *fuzzBytes) next() byte {
	if len(f.b) == 0 {
		return 0
	}
	c := f.b[0]
	f.b = f.b[1:]
	return c
}

func (f *fuzzBytes) intn(n int) int {
	if n <= 256 {
		return int(f.next()) % n
	}
	return (int(f.next())<<8 | int(f.next())) % n
}

func (f *fuzzBytes) raw(n int) ([]byte, bool) {
	if len(f.b) == 0 {
		return nil, false
	}
	k := min(int(f.next())%(n+1), len(f.b))
	s := f.b[:k]
	f.b = f.b[k:]
	return s, true
}

// Edge values the generator favours: the empty string, format directives,
// quotes, non-ASCII text, what looks like a number or a path; integers at
// the edges of the common widths.
var (
	edgeStrings = []string{
		"", "a", "hello", "Hello, World!", "%", "100%", "%s%d%n", "0", "-1", "null", "true",
		" ", "  padded  ", "ünïcödé ✓ 日本語", "emoji 🎉", "line\nbreak", "tab\there",
		`quote"quote`, `back\slash`, "<b>html</b>", "../../etc/passwd", "' OR 1=1 --",
		strings.Repeat("x", 300),
	}
	edgeInts    = []int64{0, 1, -1, 2, 7, 42, 100, -100, 255, 256, math.MaxInt32, math.MinInt32, 1 << 53, -(1 << 53)}
	edgeNumbers = []float64{0.5, -0.5, 3.14159, 1e-9, -1e9, 1e300}
)

// gen generates JSON values from a JSON Schema.
type gen struct {
	e    entropy
	root any // for "$ref": "#/..."
}

const maxDepth = 6

// value returns a value meant to conform to schema s.
func (g *gen) value(s any, depth int) any {
	m, ok := s.(map[string]any)
	if !ok || depth > maxDepth {
		return nil // true, false or too deep: null is as good as anything
	}
	if ref, ok := m["$ref"].(string); ok {
		if t := g.resolve(ref); t != nil {
			return g.value(t, depth+1)
		}
	}
	if c, ok := m["const"]; ok {
		return c
	}
	if en, ok := m["enum"].([]any); ok && len(en) > 0 {
		return en[g.e.intn(len(en))]
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if alts, ok := m[k].([]any); ok && len(alts) > 0 {
			merged := merge(m, alts[g.e.intn(len(alts))], k)
			return g.value(merged, depth+1)
		}
	}
	if all, ok := m["allOf"].([]any); ok && len(all) > 0 {
		merged := m
		for _, a := range all {
			merged = merge(merged, a, "allOf")
		}
		return g.value(merged, depth+1)
	}
	if g.e.intn(8) == 0 {
		if d, ok := m["default"]; ok {
			return d
		}
		if ex, ok := m["examples"].([]any); ok && len(ex) > 0 {
			return ex[g.e.intn(len(ex))]
		}
	}
	switch typ := schemaType(m, g.e); typ {
	case "object":
		return g.object(m, depth)
	case "array":
		return g.array(m, depth)
	case "string":
		return g.str(m)
	case "integer":
		return g.integer(m)
	case "number":
		if g.e.intn(2) == 0 {
			return float64(g.integer(m))
		}
		return g.number(m)
	case "boolean":
		return g.e.intn(2) == 0
	case "null":
		return nil
	default:
		return g.str(m)
	}
}

// merge returns parent without key, with the keywords of alt added (alt
// wins). It is enough for the schemas SDKs generate.
func merge(parent map[string]any, alt any, key string) map[string]any {
	out := map[string]any{}
	for k, v := range parent {
		if k != key {
			out[k] = v
		}
	}
	if am, ok := alt.(map[string]any); ok {
		for k, v := range am {
			if k == "properties" {
				props := map[string]any{}
				if pp, ok := out["properties"].(map[string]any); ok {
					for pk, pv := range pp {
						props[pk] = pv
					}
				}
				if ap, ok := v.(map[string]any); ok {
					for pk, pv := range ap {
						props[pk] = pv
					}
				}
				out[k] = props
				continue
			}
			if k == "required" {
				req, _ := out["required"].([]any)
				ar, _ := v.([]any)
				out[k] = append(slices.Clone(req), ar...)
				continue
			}
			out[k] = v
		}
	}
	return out
}

func (g *gen) resolve(ref string) any {
	if !strings.HasPrefix(ref, "#") {
		return nil
	}
	cur := g.root
	for _, p := range strings.Split(strings.TrimPrefix(ref, "#"), "/") {
		if p == "" {
			continue
		}
		p = strings.ReplaceAll(strings.ReplaceAll(p, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[p]
	}
	return cur
}

// schemaType picks the type a value will have.
func schemaType(m map[string]any, e entropy) string {
	switch t := m["type"].(type) {
	case string:
		return t
	case []any:
		var ts []string
		for _, x := range t {
			if s, ok := x.(string); ok {
				ts = append(ts, s)
			}
		}
		if len(ts) > 0 {
			return ts[e.intn(len(ts))]
		}
	}
	switch {
	case m["properties"] != nil || m["required"] != nil || m["additionalProperties"] != nil:
		return "object"
	case m["items"] != nil || m["prefixItems"] != nil:
		return "array"
	case m["minimum"] != nil || m["maximum"] != nil:
		return "number"
	}
	return "string"
}

func (g *gen) object(m map[string]any, depth int) any {
	out := map[string]any{}
	props, _ := m["properties"].(map[string]any)
	required := map[string]bool{}
	if req, ok := m["required"].([]any); ok {
		for _, r := range req {
			if s, ok := r.(string); ok {
				required[s] = true
			}
		}
	}
	names := make([]string, 0, len(props))
	for k := range props {
		names = append(names, k)
	}
	slices.Sort(names) // map order must not change what a seed generates
	for _, k := range names {
		if required[k] || g.e.intn(2) == 0 {
			out[k] = g.value(props[k], depth+1)
		}
	}
	for k := range required {
		if _, ok := out[k]; !ok {
			out[k] = g.str(nil) // required but not described
		}
	}
	return out
}

func (g *gen) array(m map[string]any, depth int) any {
	lo, hi := intKeyword(m, "minItems", 0), intKeyword(m, "maxItems", -1)
	if hi < 0 {
		hi = lo + 3
	}
	n := lo
	if hi > lo {
		n += g.e.intn(min(hi, lo+4) - lo + 1)
	}
	prefix, _ := m["prefixItems"].([]any)
	items := m["items"]
	out := make([]any, 0, n)
	for i := 0; i < n; i++ {
		if i < len(prefix) {
			out = append(out, g.value(prefix[i], depth+1))
			continue
		}
		out = append(out, g.value(items, depth+1))
	}
	if b, _ := m["uniqueItems"].(bool); b {
		out = uniq(out)
	}
	return out
}

func uniq(vs []any) []any {
	seen := map[string]bool{}
	var out []any
	for _, v := range vs {
		b, _ := json.Marshal(v)
		if !seen[string(b)] {
			seen[string(b)] = true
			out = append(out, v)
		}
	}
	return out
}

func intKeyword(m map[string]any, k string, def int) int {
	if f, ok := m[k].(float64); ok {
		return int(f)
	}
	return def
}

var formats = map[string][]string{
	"date-time": {"2026-01-02T15:04:05Z", "1970-01-01T00:00:00Z"},
	"date":      {"2026-01-02", "1999-12-31"},
	"time":      {"15:04:05Z"},
	"email":     {"someone@example.com"},
	"uri":       {"https://example.com/a?b=c", "file:///tmp/x"},
	"uuid":      {"123e4567-e89b-12d3-a456-426614174000"},
	"ipv4":      {"127.0.0.1"},
	"ipv6":      {"::1"},
	"hostname":  {"example.com"},
}

func (g *gen) str(m map[string]any) string {
	if f, ok := m["format"].(string); ok {
		if vs, ok := formats[f]; ok {
			return vs[g.e.intn(len(vs))]
		}
	}
	var s string
	if b, ok := g.e.raw(64); ok && g.e.intn(2) == 0 {
		s = string(b)
	} else {
		s = edgeStrings[g.e.intn(len(edgeStrings))]
	}
	lo, hi := intKeyword(m, "minLength", 0), intKeyword(m, "maxLength", -1)
	r := []rune(s)
	if hi >= 0 && len(r) > hi {
		r = r[:hi]
	}
	for len(r) < lo {
		r = append(r, 'x')
	}
	return string(r)
}

// bounds returns the inclusive range a number must be in.
func bounds(m map[string]any) (lo, hi float64) {
	lo, hi = math.Inf(-1), math.Inf(1)
	if v, ok := m["minimum"].(float64); ok {
		lo = v
	}
	if v, ok := m["maximum"].(float64); ok {
		hi = v
	}
	if v, ok := m["exclusiveMinimum"].(float64); ok {
		lo = math.Nextafter(v, math.Inf(1))
	}
	if v, ok := m["exclusiveMaximum"].(float64); ok {
		hi = math.Nextafter(v, math.Inf(-1))
	}
	return lo, hi
}

func (g *gen) integer(m map[string]any) int64 {
	lo, hi := bounds(m)
	cands := []int64{}
	for _, v := range edgeInts {
		if float64(v) >= lo && float64(v) <= hi {
			cands = append(cands, v)
		}
	}
	if !math.IsInf(lo, 0) {
		l := int64(math.Ceil(lo))
		cands = append(cands, l, l+1)
	}
	if !math.IsInf(hi, 0) {
		h := int64(math.Floor(hi))
		cands = append(cands, h, h-1)
	}
	var v int64
	if len(cands) > 0 {
		v = cands[g.e.intn(len(cands))]
	}
	if mo, ok := m["multipleOf"].(float64); ok && mo >= 1 {
		v = int64(math.Round(float64(v)/mo) * mo)
	}
	return v
}

func (g *gen) number(m map[string]any) float64 {
	lo, hi := bounds(m)
	var cands []float64
	for _, v := range edgeNumbers {
		if v >= lo && v <= hi {
			cands = append(cands, v)
		}
	}
	if len(cands) == 0 {
		if !math.IsInf(lo, 0) {
			return lo
		}
		return hi
	}
	return cands[g.e.intn(len(cands))]
}

// schema is a tool's input schema, decoded and compiled.
type schema struct {
	doc      any
	compiled *jsonschema.Schema
}

func compile(raw json.RawMessage, name string) (*schema, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, fmt.Errorf("missing")
	}
	sch, err := toolschema.Compile(raw, name)
	if err != nil {
		return nil, err
	}
	// The generator reads plain JSON values (float64 numbers).
	var plain any
	_ = json.Unmarshal(raw, &plain)
	return &schema{doc: plain, compiled: sch}, nil
}

// validate checks v against the schema.
func (s *schema) validate(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return s.validateJSON(b)
}

func (s *schema) validateJSON(b []byte) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return err
	}
	return s.compiled.Validate(inst)
}

// conforming generates arguments that validate against s, trying a few
// times; ok is false if none did (a pattern the generator cannot meet).
func (s *schema) conforming(e entropy) (args map[string]any, ok bool) {
	g := &gen{e: e, root: s.doc}
	var last map[string]any
	for range 8 {
		v, _ := g.value(s.doc, 0).(map[string]any)
		if v == nil {
			v = map[string]any{}
		}
		if s.validate(v) == nil {
			return v, true
		}
		last = v
	}
	return last, false
}

// violation is a way to break a schema, with what it sends.
type violation struct {
	what string
	args map[string]any
}

// violations returns arguments that each break s in one way: a required
// property left out, a property of the wrong type, a property the schema
// forbids. Each is checked to really fail validation.
func (s *schema) violations(e entropy) []violation {
	base, ok := s.conforming(e)
	if !ok {
		return nil
	}
	root, _ := s.doc.(map[string]any)
	var out []violation
	add := func(what string, args map[string]any) {
		if s.validate(args) != nil {
			out = append(out, violation{what, args})
		}
	}
	if req, ok := root["required"].([]any); ok && len(req) > 0 {
		k, _ := req[0].(string)
		args := clone(base)
		delete(args, k)
		add(fmt.Sprintf("required property %q left out", k), args)
	}
	props, _ := root["properties"].(map[string]any)
	names := make([]string, 0, len(props))
	for k := range props {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		pm, _ := props[k].(map[string]any)
		t, _ := pm["type"].(string)
		if t == "" {
			continue
		}
		args := clone(base)
		wrong := wrongValue(t)
		args[k] = wrong
		add(fmt.Sprintf("property %q of type %s given %s", k, t, compactJSON(wrong)), args)
		break
	}
	if ap, ok := root["additionalProperties"].(bool); ok && !ap {
		args := clone(base)
		args["mcptestkit_unexpected"] = "x"
		add(`property "mcptestkit_unexpected", which additionalProperties: false forbids`, args)
	}
	return out
}

func wrongValue(typ string) any {
	switch typ {
	case "string":
		return 12345
	case "integer", "number":
		return "not a number"
	case "boolean":
		return "yes"
	case "array":
		return "not an array"
	case "object":
		return "not an object"
	}
	return map[string]any{"unexpected": true}
}

func clone(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
