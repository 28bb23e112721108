package drift

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unsafe"
)

// Values: paths, comparison and display of JSON values, key sets.

// A loc locates a value, as a path (tools["search"].inputSchema.required):
// built one element at a time as the differ descends, and spelt out only
// for a change, so that descending costs the same at every depth.
type loc struct {
	up   *loc
	elem string // ".name" or `["name"]`, or the root's whole name
}

func (l *loc) at(elem string) *loc { return &loc{up: l, elem: elem} }

func (l *loc) String() string {
	var elems []string
	for ; l != nil; l = l.up {
		elems = append(elems, l.elem)
	}
	slices.Reverse(elems)
	return strings.Join(elems, "")
}

func item(k kind, key string) *loc { return &loc{elem: kinds[k].list + "[" + strconv.Quote(key) + "]"} }

var ident = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)

// member is a path element for a member name: .name, or ["odd name"].
func member(name string) string {
	if ident.MatchString(name) {
		return "." + name
	}
	return "[" + strconv.Quote(name) + "]"
}

func field(v any, name string) any {
	m, _ := v.(map[string]any)
	return m[name]
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func number(v any) (float64, bool) {
	switch v := v.(type) {
	case json.Number:
		f, err := v.Float64()
		return f, err == nil
	case float64:
		return v, true
	}
	return 0, false
}

// canon is v as compact JSON with sorted keys: equal values, equal strings.
// For enum values and short displays; comparing schemas uses digests.
func canon(v any) string {
	b, err := json.Marshal(v) // encoding/json sorts map keys
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// A digest stands for a JSON value: equal values (canon), equal digests.
type digest [sha256.Size]byte

// digestOf returns v's digest, computed once for each object and array
// (by its identity) from its members' digests: comparing two schemas at
// every level of their nesting then costs their size, once, rather than
// their size at each level, as encoding them at each level did (a schema
// nested 9000 levels deep took 40 s).
func (d *differ) digestOf(v any) digest {
	var id unsafe.Pointer
	switch x := v.(type) {
	case map[string]any:
		id = reflect.ValueOf(x).UnsafePointer()
	case []any:
		if len(x) > 0 {
			id = unsafe.Pointer(unsafe.SliceData(x))
		}
	}
	if id != nil {
		if dg, ok := d.digests[id]; ok {
			return dg
		}
	}
	h := sha256.New()
	switch x := v.(type) {
	case map[string]any:
		h.Write([]byte{'{'})
		for _, k := range sortedKeys(x) {
			dg := d.digestOf(x[k])
			fmt.Fprintf(h, "%d:%s", len(k), k)
			h.Write(dg[:])
		}
	case []any:
		h.Write([]byte{'['})
		for _, e := range x {
			dg := d.digestOf(e)
			h.Write(dg[:])
		}
	default:
		h.Write([]byte{'='})
		h.Write([]byte(canon(x)))
	}
	var dg digest
	h.Sum(dg[:0])
	if id != nil {
		if d.digests == nil {
			d.digests = map[unsafe.Pointer]digest{}
		}
		d.digests[id] = dg
	}
	return dg
}

// equal reports whether a and b are the same JSON value.
func (d *differ) equal(a, b any) bool { return d.digestOf(a) == d.digestOf(b) }

// show is v for a reason: JSON, "absent" for nil, shortened; encoding
// stops at the length shown.
func show(v any) string {
	if v == nil {
		return "absent"
	}
	const limit = 60
	var b strings.Builder
	encode(&b, v, limit+1)
	s := b.String()
	if len(s) > limit {
		s = s[:limit-3] + "..."
	}
	return s
}

// encode writes v as canon does, stopping once b holds more than limit
// bytes.
func encode(b *strings.Builder, v any, limit int) {
	if b.Len() > limit {
		return
	}
	switch x := v.(type) {
	case map[string]any:
		b.WriteByte('{')
		for i, k := range sortedKeys(x) {
			if b.Len() > limit {
				return
			}
			if i > 0 {
				b.WriteByte(',')
			}
			encode(b, k, limit)
			b.WriteByte(':')
			encode(b, x[k], limit)
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if b.Len() > limit {
				return
			}
			if i > 0 {
				b.WriteByte(',')
			}
			encode(b, e, limit)
		}
		b.WriteByte(']')
	case string:
		if len(x) > 2*limit {
			x = x[:2*limit] // what is shown of it, and more
		}
		b.WriteString(canon(x))
	default:
		b.WriteString(canon(x))
	}
}

func union[V any](a, b map[string]V) []string {
	seen := map[string]bool{}
	for k := range a {
		seen[k] = true
	}
	for k := range b {
		seen[k] = true
	}
	return sortedKeys(seen)
}

// keysOnly returns the keys of a that b does not have, sorted.
func keysOnly[V, W any](a map[string]V, b map[string]W) []string {
	var out []string
	for k := range a {
		if _, ok := b[k]; !ok {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
