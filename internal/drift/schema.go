package drift

import (
	"fmt"
	"slices"
	"strings"
)

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

func (d *differ) schema(path *loc, old, new any, dir direction) {
	om, ok1 := old.(map[string]any)
	nm, ok2 := new.(map[string]any)
	if !ok1 || !ok2 {
		if !d.equal(old, new) {
			d.unclassified(path, dir, "the schema changed from %s to %s", show(old), show(new))
		}
		return
	}
	for _, k := range union(om, nm) {
		o, n := om[k], nm[k]
		if d.equal(o, n) {
			continue
		}
		p := path.at("." + k)
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
func (d *differ) unclassified(path *loc, _ direction, format string, args ...any) {
	d.breaking(path, format+" (a change this check does not classify: review it)", args...)
}

func (d *differ) types(path *loc, o, n any, dir direction) {
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

func (d *differ) enum(path *loc, k string, o, n any, dir direction) {
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

func (d *differ) bound(path *loc, k string, o, n any, dir direction) {
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

func (d *differ) pattern(path *loc, k string, o, n any, dir direction) {
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

func (d *differ) required(path *loc, om, nm map[string]any, dir direction) {
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

func (d *differ) properties(path *loc, om, nm map[string]any, dir direction) {
	op, _ := om["properties"].(map[string]any)
	np, _ := nm["properties"].(map[string]any)
	closed := nm["additionalProperties"] == false
	for _, name := range keysOnly(op, np) {
		p := path.at(member(name))
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
		d.compatible(path.at(member(name)), "%s", what)
	}
	for _, name := range sortedKeys(op) {
		if n, ok := np[name]; ok && !d.equal(op[name], n) {
			d.schema(path.at(member(name)), op[name], n, dir)
		}
	}
}

func (d *differ) additional(path *loc, o, n any, dir direction) {
	switch {
	case dir == input && n == false:
		d.breaking(path, "closed (false): clients that send arguments the schema does not name get an error")
	case o != nil && n != nil && o != false && n != false && o != true && n != true:
		d.schema(path, o, n, dir)
	default:
		d.compatible(path, "additionalProperties %s → %s", show(o), show(n))
	}
}
