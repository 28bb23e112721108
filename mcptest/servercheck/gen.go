package servercheck

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
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

// gen generates JSON values from a JSON Schema. Every number it reads
// comes from the server, so none sizes an allocation unchecked: a count
// (minItems, minLength) past maxCount, or an argument set past genBudget,
// makes it give up, saying why, instead of trying.
type gen struct {
	e    entropy
	root any // for "$ref": "#/..."
	left int // of genBudget, for the value being made

	stop     string            // why it gave up, "" while it has not
	patterns map[string]aimed  // the patterns met so far, parsed once
	unaimed  map[string]string // pattern → what in it the generator could not use
}

// Bounds of the generator: schema levels it follows, what a count keyword
// may ask of it, and the values and characters of one argument set (counts
// multiply: minItems inside minItems).
const (
	maxDepth  = 6
	maxCount  = 10_000
	genBudget = 100_000
)

func newGen(e entropy, root any) *gen { return &gen{e: e, root: root, left: genBudget} }

// giveUp records why the generator stops; the first reason is the one
// reported.
func (g *gen) giveUp(format string, args ...any) {
	if g.stop == "" {
		g.stop = fmt.Sprintf(format, args...)
	}
}

// spend takes n from the budget and reports whether any was left.
func (g *gen) spend(n int) bool {
	if g.stop != "" {
		return false
	}
	if g.left -= n; g.left < 0 {
		g.giveUp("the inputSchema asks for more than %d values and characters in one argument set, the generator's bound "+
			"(counts multiply: minItems or minLength inside arrays)", genBudget)
		return false
	}
	return true
}

// value returns a value meant to conform to schema s.
func (g *gen) value(s any, depth int) any {
	if !g.spend(1) {
		return nil
	}
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
			return g.value(merged(m, k, alts[g.e.intn(len(alts))]), depth+1)
		}
	}
	if all, ok := m["allOf"].([]any); ok && len(all) > 0 {
		if !g.spend(len(all)) {
			return nil
		}
		return g.value(merged(m, "allOf", all...), depth+1)
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
		return integral(g.integer(m))
	case "number":
		if g.e.intn(2) == 0 {
			return g.integer(m)
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

// merged returns parent without key, with the keywords of each alt added
// (a later one wins; properties and required add up), copying parent
// once: an allOf of thousands of entries costs as much as its entries.
func merged(parent map[string]any, key string, alts ...any) map[string]any {
	out := make(map[string]any, len(parent))
	for k, v := range parent {
		if k != key {
			out[k] = v
		}
	}
	var props map[string]any // out's own properties, once copied
	var req []any            // out's own required, once copied
	for _, alt := range alts {
		am, _ := alt.(map[string]any)
		for k, v := range am {
			switch k {
			case "properties":
				if props == nil {
					props = map[string]any{}
					if pp, ok := out["properties"].(map[string]any); ok {
						maps.Copy(props, pp)
					}
					out["properties"] = props
				}
				if ap, ok := v.(map[string]any); ok {
					maps.Copy(props, ap)
				}
			case "required":
				if req == nil {
					r, _ := out["required"].([]any)
					req = append(make([]any, 0, len(r)+1), r...)
				}
				ar, _ := v.([]any)
				req = append(req, ar...)
				out["required"] = req
			default:
				out[k] = v
			}
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
		if (required[k] || g.e.intn(2) == 0) && g.spend(len(k)) {
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
	lo, hi := g.count(m, "minItems"), count(m, "maxItems")
	if lo < 0 {
		return nil
	}
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
	for i := 0; i < n && g.stop == ""; i++ {
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

// num reads a schema's number: decoded with json.Number, so that one past
// float64's range (1e400) is ±Inf rather than a failed decoding.
func num(v any) (float64, bool) {
	switch v := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(v), 64)
		return f, err == nil || math.IsInf(f, 0)
	case float64:
		return v, true
	}
	return 0, false
}

// count reads a count keyword (minItems, maxLength): -1 when absent or not
// a non-negative integer, maxCount+1 for any count past maxCount.
func count(m map[string]any, k string) int {
	f, ok := num(m[k])
	switch {
	case !ok || f < 0 || f != math.Trunc(f): // NaN and ±Inf fail too
		return -1
	case f > maxCount:
		return maxCount + 1
	}
	return int(f)
}

// count reads a minimum count: 0 when absent, -1 (having given up) when
// past maxCount.
func (g *gen) count(m map[string]any, k string) int {
	n := count(m, k)
	if n > maxCount {
		g.giveUp("%s %s asks for more than the generator makes (at most %d)", k, compactJSON(m[k]), maxCount)
		return -1
	}
	return max(n, 0)
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
	if p, ok := m["pattern"].(string); ok {
		if s, ok := g.fromPattern(p); ok {
			return s
		}
	}
	var s string
	if b, ok := g.e.raw(64); ok && g.e.intn(2) == 0 {
		s = string(b)
	} else {
		s = edgeStrings[g.e.intn(len(edgeStrings))]
	}
	lo, hi := g.count(m, "minLength"), count(m, "maxLength")
	if lo < 0 || !g.spend(max(lo, len(s))) {
		return ""
	}
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
	if v, ok := num(m["minimum"]); ok {
		lo = v
	}
	if v, ok := num(m["maximum"]); ok {
		hi = v
	}
	if v, ok := num(m["exclusiveMinimum"]); ok {
		lo = math.Nextafter(v, math.Inf(1))
	}
	if v, ok := num(m["exclusiveMaximum"]); ok {
		hi = math.Nextafter(v, math.Inf(-1))
	}
	return lo, hi
}

// integer returns an integral value in m's bounds when it can, as a float64:
// the bounds may lie past int64's range.
func (g *gen) integer(m map[string]any) float64 {
	lo, hi := bounds(m)
	lo, hi = math.Ceil(lo), math.Floor(hi)
	var cands []float64
	for _, v := range edgeInts {
		if f := float64(v); f >= lo && f <= hi {
			cands = append(cands, f)
		}
	}
	if !math.IsInf(lo, 0) {
		cands = append(cands, lo, lo+1)
	}
	if !math.IsInf(hi, 0) {
		cands = append(cands, hi, hi-1)
	}
	var v float64
	if len(cands) > 0 {
		v = cands[g.e.intn(len(cands))]
	}
	if mo, ok := num(m["multipleOf"]); ok && mo >= 1 {
		if q := math.Round(v/mo) * mo; !math.IsInf(q, 0) && !math.IsNaN(q) {
			v = q
		}
	}
	return v
}

// integral returns v as an int64 when it is one exactly, so that it is
// sent without an exponent.
func integral(v float64) any {
	if math.Abs(v) <= 1<<53 {
		return int64(v)
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
		for _, v := range []float64{lo, hi} {
			if !math.IsInf(v, 0) {
				return v
			}
		}
		return 0
	}
	return cands[g.e.intn(len(cands))]
}
