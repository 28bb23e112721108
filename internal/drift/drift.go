package drift

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Change is one difference between two surfaces.
type Change struct {
	// Path locates the change: tools["search"].inputSchema.properties.limit.maximum.
	Path string
	// Breaking says a client that worked with the old surface may fail with
	// the new one.
	Breaking bool
	// Reason says what changed and, for a breaking change, what breaks.
	Reason string
}

func (c Change) String() string {
	kind := "compatible"
	if c.Breaking {
		kind = "BREAKING"
	}
	return fmt.Sprintf("%-10s  %s: %s", kind, c.Path, c.Reason)
}

// ErrNoSurface is returned by [Parse] for JSON that holds none of the lists
// of a server.
var ErrNoSurface = errors.New("holds no tools, resources, resource templates, prompts or capabilities")

// Surface is what a server offers, as its lists and its capabilities give
// it. A list a document does not hold is not compared.
type Surface struct {
	lists [nKinds]map[string]map[string]any // by kind, by key; nil: not in the document
	caps  map[string]any                    // nil: not in the document
}

type kind int

const (
	tools kind = iota
	resources
	templates
	prompts
	nKinds
)

// kinds names each list as the protocol does, with the member that
// identifies an item.
var kinds = [nKinds]struct{ list, key string }{
	tools:     {"tools", "name"},
	resources: {"resources", "uri"},
	templates: {"resourceTemplates", "uriTemplate"},
	prompts:   {"prompts", "name"},
}

// Parse reads a surface from JSON: what `mcptestkit list --format json`
// prints, a golden file of a list result ({"tools": [...]}), or a bare list
// (an array of tools, resources, templates or prompts).
func Parse(data []byte) (*Surface, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	s := &Surface{}
	switch v := v.(type) {
	case map[string]any:
		for k := range nKinds {
			items, ok := v[kinds[k].list]
			if !ok {
				continue
			}
			arr, ok := items.([]any)
			if !ok && items != nil {
				return nil, fmt.Errorf("%q is not a list", kinds[k].list)
			}
			if err := s.add(k, arr); err != nil {
				return nil, err
			}
		}
		if c, ok := v["capabilities"].(map[string]any); ok {
			s.caps = c
			// A listing leaves out an empty list: a declared capability
			// whose list is absent lists nothing.
			for k, capName := range [nKinds]string{tools: "tools", resources: "resources", templates: "resources", prompts: "prompts"} {
				if _, declared := c[capName]; declared && s.lists[k] == nil {
					s.lists[k] = map[string]map[string]any{}
				}
			}
		}
	case []any:
		if len(v) == 0 {
			return nil, fmt.Errorf("an empty list: %w", ErrNoSurface)
		}
		k, ok := guess(v[0])
		if !ok {
			return nil, ErrNoSurface
		}
		if err := s.add(k, v); err != nil {
			return nil, err
		}
	default:
		return nil, ErrNoSurface
	}
	if s.caps == nil && !slices.ContainsFunc(s.lists[:], func(m map[string]map[string]any) bool { return m != nil }) {
		return nil, ErrNoSurface
	}
	return s, nil
}

// guess says which list a bare array holds from its first item.
func guess(item any) (kind, bool) {
	m, ok := item.(map[string]any)
	if !ok {
		return 0, false
	}
	switch {
	case m["inputSchema"] != nil:
		return tools, true
	case m["uriTemplate"] != nil:
		return templates, true
	case m["uri"] != nil:
		return resources, true
	case m["name"] != nil:
		return prompts, true
	}
	return 0, false
}

func (s *Surface) add(k kind, items []any) error {
	s.lists[k] = map[string]map[string]any{}
	for i, it := range items {
		m, ok := it.(map[string]any)
		if !ok {
			return fmt.Errorf("%s[%d] is not an object", kinds[k].list, i)
		}
		key, ok := m[kinds[k].key].(string)
		if !ok {
			return fmt.Errorf("%s[%d] has no %q string", kinds[k].list, i, kinds[k].key)
		}
		s.lists[k][key] = m
	}
	return nil
}

// Compare returns the changes from old to new, breaking ones first, each
// group in path order. Lists and capabilities are compared where both
// surfaces have them.
func Compare(old, new *Surface) []Change {
	d := &differ{}
	for k := range nKinds {
		if old.lists[k] != nil && new.lists[k] != nil {
			d.list(k, old.lists[k], new.lists[k])
		}
	}
	if old.caps != nil && new.caps != nil {
		d.capabilities("capabilities", old.caps, new.caps)
	}
	sort.SliceStable(d.out, func(i, j int) bool {
		a, b := d.out[i], d.out[j]
		if a.Breaking != b.Breaking {
			return a.Breaking
		}
		return a.Path < b.Path
	})
	return d.out
}

// Report formats changes: a summary line, then one line a change. It is ""
// for no change.
func Report(changes []Change) string {
	if len(changes) == 0 {
		return ""
	}
	n := 0
	for _, c := range changes {
		if c.Breaking {
			n++
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "schema drift: %d breaking, %d compatible\n", n, len(changes)-n)
	for _, c := range changes {
		b.WriteString("  " + c.String() + "\n")
	}
	return b.String()
}

// Breaking reports whether any change breaks clients.
func Breaking(changes []Change) bool {
	return slices.ContainsFunc(changes, func(c Change) bool { return c.Breaking })
}

type differ struct{ out []Change }

func (d *differ) breaking(path, format string, args ...any) {
	d.out = append(d.out, Change{Path: path, Breaking: true, Reason: fmt.Sprintf(format, args...)})
}

func (d *differ) compatible(path, format string, args ...any) {
	d.out = append(d.out, Change{Path: path, Reason: fmt.Sprintf(format, args...)})
}

// what each kind's removal breaks.
var removed = [nKinds]string{
	tools:     "tool removed: clients that call it get an error",
	resources: "resource removed: clients that read it get an error",
	templates: "resource template removed: clients that read URIs made from it get an error",
	prompts:   "prompt removed: clients that get it get an error",
}

var added = [nKinds]string{tools: "new tool", resources: "new resource", templates: "new resource template", prompts: "new prompt"}

func (d *differ) list(k kind, old, new map[string]map[string]any) {
	gone, fresh := keysOnly(old, new), keysOnly(new, old)
	renamed := map[string]string{} // new key -> old key
	if k == tools {
		renamed = renames(old, new, gone, fresh)
	}
	for _, key := range gone {
		path := item(k, key)
		if to, ok := renamedTo(renamed, key); ok {
			d.breaking(path, "tool renamed to %q (same input schema and description): clients that call %q get an error", to, key)
			continue
		}
		d.breaking(path, "%s", removed[k])
	}
	for _, key := range fresh {
		if _, ok := renamed[key]; !ok {
			d.compatible(item(k, key), "%s", added[k])
		}
	}
	for _, key := range sortedKeys(old) {
		if n, ok := new[key]; ok {
			switch k {
			case tools:
				d.tool(item(k, key), old[key], n)
			case prompts:
				d.prompt(item(k, key), old[key], n)
			default:
				d.resource(item(k, key), old[key], n)
			}
		}
	}
}

// renames pairs a removed tool with an added one that has the same input
// schema and description, when the pair is the only one with them.
func renames(old, new map[string]map[string]any, gone, fresh []string) map[string]string {
	sig := func(t map[string]any) string { return canon(t["inputSchema"]) + "\x00" + canon(t["description"]) }
	count := map[string]int{}
	for _, k := range gone {
		count["-"+sig(old[k])]++
	}
	for _, k := range fresh {
		count["+"+sig(new[k])]++
	}
	out := map[string]string{}
	for _, g := range gone {
		s := sig(old[g])
		if count["-"+s] != 1 || count["+"+s] != 1 {
			continue
		}
		for _, f := range fresh {
			if sig(new[f]) == s {
				out[f] = g
			}
		}
	}
	return out
}

func renamedTo(renamed map[string]string, from string) (string, bool) {
	for to, f := range renamed {
		if f == from {
			return to, true
		}
	}
	return "", false
}

func (d *differ) tool(path string, old, new map[string]any) {
	for _, f := range union(old, new) {
		p := path + "." + f
		o, n := old[f], new[f]
		if equal(o, n) {
			continue
		}
		switch f {
		case "inputSchema":
			d.schema(p, o, n, input)
		case "outputSchema":
			switch {
			case n == nil:
				d.breaking(p, "output schema removed: clients that read structuredContent may find none")
			case o == nil:
				d.compatible(p, "output schema added")
			default:
				d.schema(p, o, n, output)
			}
		case "execution":
			d.taskSupport(p+".taskSupport", str(field(o, "taskSupport")), str(field(n, "taskSupport")))
		default:
			d.compatible(p, "%s changed", f)
		}
	}
}

func (d *differ) taskSupport(path, old, new string) {
	norm := func(s string) string {
		if s == "" {
			return "forbidden"
		}
		return s
	}
	old, new = norm(old), norm(new)
	switch {
	case old == new:
	case new == "required":
		d.breaking(path, "%s → required: a plain tools/call (no task) now fails", old)
	case old == "optional" || old == "required" && new == "forbidden":
		d.breaking(path, "%s → %s: a call made as a task now fails", old, new)
	default:
		d.compatible(path, "%s → %s", old, new)
	}
}

func (d *differ) resource(path string, old, new map[string]any) {
	for _, f := range union(old, new) {
		o, n := old[f], new[f]
		if equal(o, n) {
			continue
		}
		if f == "mimeType" {
			d.breaking(path+".mimeType", "mimeType %s → %s: clients that parse the contents may fail", show(o), show(n))
			continue
		}
		d.compatible(path+"."+f, "%s changed", f)
	}
}

func (d *differ) prompt(path string, old, new map[string]any) {
	args := func(p map[string]any) map[string]map[string]any {
		out := map[string]map[string]any{}
		list, _ := p["arguments"].([]any)
		for _, a := range list {
			if m, ok := a.(map[string]any); ok {
				if name, ok := m["name"].(string); ok {
					out[name] = m
				}
			}
		}
		return out
	}
	oa, na := args(old), args(new)
	for _, name := range keysOnly(oa, na) {
		d.breaking(path+".arguments"+member(name), "argument removed: clients that send it may be refused")
	}
	for _, name := range keysOnly(na, oa) {
		if na[name]["required"] == true {
			d.breaking(path+".arguments"+member(name), "a new required argument: clients that do not send it fail")
		} else {
			d.compatible(path+".arguments"+member(name), "a new optional argument")
		}
	}
	for _, name := range sortedKeys(oa) {
		n, ok := na[name]
		if !ok {
			continue
		}
		o := oa[name]
		p := path + ".arguments" + member(name)
		switch {
		case o["required"] != true && n["required"] == true:
			d.breaking(p+".required", "now required: clients that do not send it fail")
		case o["required"] == true && n["required"] != true:
			d.compatible(p+".required", "now optional")
		}
		for _, f := range union(o, n) {
			if f != "required" && f != "name" && !equal(o[f], n[f]) {
				d.compatible(p+"."+f, "%s changed", f)
			}
		}
	}
	for _, f := range union(old, new) {
		if f != "arguments" && !equal(old[f], new[f]) {
			d.compatible(path+"."+f, "%s changed", f)
		}
	}
}

// capabilities compares declared capabilities: one removed (or set to
// false) breaks the clients that use it.
func (d *differ) capabilities(path string, old, new map[string]any) {
	for _, k := range union(old, new) {
		p := path + member(k)
		o, oin := old[k]
		n, nin := new[k]
		om, omap := o.(map[string]any)
		nm, nmap := n.(map[string]any)
		switch {
		case oin && o != false && (!nin || n == false):
			d.breaking(p, "capability removed: clients that use it lose it")
		case (!oin || o == false) && nin && n != false:
			d.compatible(p, "capability added")
		case omap && nmap:
			d.capabilities(p, om, nm)
		case !equal(o, n):
			d.compatible(p, "changed from %s to %s", show(o), show(n))
		}
	}
}

// direction says whether a schema describes what clients send (input) or
// what they read (output): a change that narrows an input, or widens an
// output, breaks clients.
type direction int

const (
	input direction = iota
	output
)

// cosmetic keywords change nothing a client sends or reads.
var cosmetic = map[string]bool{"description": true, "title": true, "examples": true, "$comment": true,
	"deprecated": true, "readOnly": true, "writeOnly": true, "$schema": true, "$id": true}

var (
	upper = map[string]bool{"maximum": true, "exclusiveMaximum": true, "maxLength": true, "maxItems": true, "maxProperties": true}
	lower = map[string]bool{"minimum": true, "exclusiveMinimum": true, "minLength": true, "minItems": true, "minProperties": true}
)

func (d *differ) schema(path string, old, new any, dir direction) {
	om, ok1 := old.(map[string]any)
	nm, ok2 := new.(map[string]any)
	if !ok1 || !ok2 {
		if !equal(old, new) {
			d.unclassified(path, dir, "the schema changed from %s to %s", show(old), show(new))
		}
		return
	}
	for _, k := range union(om, nm) {
		o, n := om[k], nm[k]
		if equal(o, n) {
			continue
		}
		p := path + "." + k
		switch {
		case cosmetic[k]:
			d.compatible(p, "%s changed", k)
		case k == "default":
			d.compatible(p, "default %s → %s: a call that leaves it out behaves differently", show(o), show(n))
		case k == "type":
			d.types(p, o, n, dir)
		case k == "enum" || k == "const":
			d.enum(p, k, o, n, dir)
		case upper[k] || lower[k]:
			d.bound(p, k, o, n, dir)
		case k == "pattern" || k == "format":
			d.pattern(p, k, o, n, dir)
		case k == "required":
			d.required(p, om, nm, dir)
		case k == "properties":
			d.properties(p, om, nm, dir)
		case k == "additionalProperties":
			d.additional(p, o, n, dir)
		case k == "items":
			if o != nil && n != nil {
				d.schema(p, o, n, dir)
			} else {
				d.unclassified(p, dir, "items %s → %s", show(o), show(n))
			}
		default:
			d.unclassified(p, dir, "%s changed from %s to %s", k, show(o), show(n))
		}
	}
}

// unclassified reports a change the package does not classify as breaking,
// so that a review looks at it.
func (d *differ) unclassified(path string, _ direction, format string, args ...any) {
	d.breaking(path, format+" (a change this check does not classify: review it)", args...)
}

func (d *differ) types(path string, o, n any, dir direction) {
	ot, nt := typeSet(o), typeSet(n)
	lost := slices.DeleteFunc(slices.Clone(ot.list()), func(t string) bool { return nt.accepts(t) })
	gained := slices.DeleteFunc(slices.Clone(nt.list()), func(t string) bool { return ot.accepts(t) })
	from, to := ot.String(), nt.String()
	switch {
	case dir == input && len(lost) > 0:
		d.breaking(path, "type narrowed from %s to %s: clients that send %s get an error", from, to, strings.Join(lost, " or "))
	case dir == output && len(gained) > 0:
		d.breaking(path, "type changed from %s to %s: clients may receive %s", from, to, strings.Join(gained, " or "))
	default:
		d.compatible(path, "type %s → %s", from, to)
	}
}

// types is a schema's "type": nil accepts anything.
type types []string

func typeSet(v any) types {
	switch v := v.(type) {
	case string:
		return types{v}
	case []any:
		out := types{}
		for _, t := range v {
			if s, ok := t.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

func (t types) accepts(name string) bool {
	return t == nil || slices.Contains(t, name) || name == "integer" && slices.Contains(t, "number")
}

// list names what t admits; "any type" for none given.
func (t types) list() []string {
	if t == nil {
		return []string{"any type"}
	}
	return t
}

func (t types) String() string {
	if t == nil {
		return "any type"
	}
	return strings.Join(t, "|")
}

func (d *differ) enum(path, k string, o, n any, dir direction) {
	values := func(v any) (map[string]bool, bool) {
		if v == nil {
			return nil, false
		}
		out := map[string]bool{}
		if k == "const" {
			out[canon(v)] = true
			return out, true
		}
		list, _ := v.([]any)
		for _, x := range list {
			out[canon(x)] = true
		}
		return out, true
	}
	ov, oset := values(o)
	nv, nset := values(n)
	change := fmt.Sprintf("%s %s → %s", k, show(o), show(n))
	switch {
	case dir == input && !oset:
		d.breaking(path, "%s: clients that send another value get an error", change)
	case dir == input && nset && len(keysOnly(ov, nv)) > 0:
		d.breaking(path, "%s no longer allowed: clients that send it get an error", strings.Join(keysOnly(ov, nv), ", "))
	case dir == output && !nset:
		d.breaking(path, "%s: clients may receive values the old %s did not allow", change, k)
	case dir == output && oset && len(keysOnly(nv, ov)) > 0:
		d.breaking(path, "%s may now be returned: clients may not handle it", strings.Join(keysOnly(nv, ov), ", "))
	default:
		d.compatible(path, "%s", change)
	}
}

func (d *differ) bound(path, k string, o, n any, dir direction) {
	of, oset := number(o)
	nf, nset := number(n)
	// tighter: new admits less than old did.
	tighter := nset && (!oset || upper[k] && nf < of || lower[k] && nf > of)
	looser := oset && (!nset || upper[k] && nf > of || lower[k] && nf < of)
	change := fmt.Sprintf("%s %s → %s", k, show(o), show(n))
	switch {
	case dir == input && tighter:
		d.breaking(path, "%s: clients that send values the old bound allowed get an error", change)
	case dir == output && looser:
		d.breaking(path, "%s: clients may receive values past the old bound", change)
	default:
		d.compatible(path, "%s", change)
	}
}

func (d *differ) pattern(path, k string, o, n any, dir direction) {
	change := fmt.Sprintf("%s %s → %s", k, show(o), show(n))
	switch {
	case dir == input && n != nil:
		d.breaking(path, "%s: values that matched before may be refused", change)
	case dir == output && o != nil:
		d.breaking(path, "%s: clients may receive values the old %s did not allow", change, k)
	default:
		d.compatible(path, "%s", change)
	}
}

func (d *differ) required(path string, om, nm map[string]any, dir direction) {
	names := func(m map[string]any) map[string]bool {
		out := map[string]bool{}
		list, _ := m["required"].([]any)
		for _, x := range list {
			if s, ok := x.(string); ok {
				out[s] = true
			}
		}
		return out
	}
	or, nr := names(om), names(nm)
	oprops, _ := om["properties"].(map[string]any)
	for _, name := range keysOnly(nr, or) {
		switch {
		case dir == output:
			d.compatible(path, "%q is now always present", name)
		case oprops[name] == nil:
			d.breaking(path, "%q is a new required argument: clients that do not send it get an error", name)
		default:
			d.breaking(path, "%q is now required: clients that leave it out get an error", name)
		}
	}
	nprops, _ := nm["properties"].(map[string]any)
	for _, name := range keysOnly(or, nr) {
		if _, ok := nprops[name]; !ok && oprops[name] != nil {
			continue // removed: reported by properties
		}
		if dir == output {
			d.breaking(path, "%q is no longer required: clients that read it may find nothing", name)
		} else {
			d.compatible(path, "%q is now optional", name)
		}
	}
}

func (d *differ) properties(path string, om, nm map[string]any, dir direction) {
	op, _ := om["properties"].(map[string]any)
	np, _ := nm["properties"].(map[string]any)
	closed := nm["additionalProperties"] == false
	for _, name := range keysOnly(op, np) {
		p := path + member(name)
		switch {
		case dir == output:
			d.breaking(p, "field removed: clients that read it find nothing")
		case closed:
			d.breaking(p, "argument removed, and additionalProperties is false: clients that send it get an error")
		default:
			d.compatible(p, "argument removed: a value sent for it is ignored")
		}
	}
	newRequired, _ := nm["required"].([]any)
	for _, name := range keysOnly(np, op) {
		if dir == input && slices.Contains(newRequired, any(name)) {
			continue // reported by required
		}
		what := "a new optional argument"
		if dir == output {
			what = "a new field"
		}
		d.compatible(path+member(name), "%s", what)
	}
	for _, name := range sortedKeys(op) {
		if n, ok := np[name]; ok && !equal(op[name], n) {
			d.schema(path+member(name), op[name], n, dir)
		}
	}
}

func (d *differ) additional(path string, o, n any, dir direction) {
	switch {
	case dir == input && n == false:
		d.breaking(path, "closed (false): clients that send arguments the schema does not name get an error")
	case o != nil && n != nil && o != false && n != false && o != true && n != true:
		d.schema(path, o, n, dir)
	default:
		d.compatible(path, "additionalProperties %s → %s", show(o), show(n))
	}
}

// Helpers.

func item(k kind, key string) string { return kinds[k].list + "[" + strconv.Quote(key) + "]" }

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
func canon(v any) string {
	b, err := json.Marshal(v) // encoding/json sorts map keys
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func equal(a, b any) bool { return canon(a) == canon(b) }

// show is v for a reason: JSON, "absent" for nil, shortened.
func show(v any) string {
	if v == nil {
		return "absent"
	}
	s := canon(v)
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
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
