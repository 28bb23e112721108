package drift

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"unsafe"
)

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
		d.capabilities(&loc{elem: "capabilities"}, old.caps, new.caps)
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

type differ struct {
	out     []Change
	digests map[unsafe.Pointer]digest // of the objects and arrays compared, see digestOf
}

func (d *differ) breaking(path *loc, format string, args ...any) {
	d.out = append(d.out, Change{Path: path.String(), Breaking: true, Reason: fmt.Sprintf(format, args...)})
}

func (d *differ) compatible(path *loc, format string, args ...any) {
	d.out = append(d.out, Change{Path: path.String(), Reason: fmt.Sprintf(format, args...)})
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
		renamed = d.renames(old, new, gone, fresh)
	}
	renamedTo := make(map[string]string, len(renamed))
	for to, from := range renamed {
		renamedTo[from] = to
	}
	for _, key := range gone {
		path := item(k, key)
		if to, ok := renamedTo[key]; ok {
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
// schema and description, when the pair is the only one with them. It maps
// each new name to the old one.
func (d *differ) renames(old, new map[string]map[string]any, gone, fresh []string) map[string]string {
	type sig struct{ schema, description digest }
	sigOf := func(t map[string]any) sig { return sig{d.digestOf(t["inputSchema"]), d.digestOf(t["description"])} }
	was := map[sig][]string{} // removed tools by signature
	for _, k := range gone {
		s := sigOf(old[k])
		was[s] = append(was[s], k)
	}
	is := map[sig][]string{}
	for _, k := range fresh {
		s := sigOf(new[k])
		is[s] = append(is[s], k)
	}
	out := map[string]string{}
	for s, g := range was {
		if f := is[s]; len(g) == 1 && len(f) == 1 {
			out[f[0]] = g[0]
		}
	}
	return out
}

func (d *differ) tool(path *loc, old, new map[string]any) {
	for _, f := range union(old, new) {
		p := path.at("." + f)
		o, n := old[f], new[f]
		if d.equal(o, n) {
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
			d.taskSupport(p.at(".taskSupport"), str(field(o, "taskSupport")), str(field(n, "taskSupport")))
		default:
			d.compatible(p, "%s changed", f)
		}
	}
}

func (d *differ) taskSupport(path *loc, old, new string) {
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

func (d *differ) resource(path *loc, old, new map[string]any) {
	for _, f := range union(old, new) {
		o, n := old[f], new[f]
		if d.equal(o, n) {
			continue
		}
		if f == "mimeType" {
			d.breaking(path.at(".mimeType"), "mimeType %s → %s: clients that parse the contents may fail", show(o), show(n))
			continue
		}
		d.compatible(path.at("."+f), "%s changed", f)
	}
}

func (d *differ) prompt(path *loc, old, new map[string]any) {
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
		d.breaking(path.at(".arguments"+member(name)), "argument removed: clients that send it may be refused")
	}
	for _, name := range keysOnly(na, oa) {
		if na[name]["required"] == true {
			d.breaking(path.at(".arguments"+member(name)), "a new required argument: clients that do not send it fail")
		} else {
			d.compatible(path.at(".arguments"+member(name)), "a new optional argument")
		}
	}
	for _, name := range sortedKeys(oa) {
		n, ok := na[name]
		if !ok {
			continue
		}
		o := oa[name]
		p := path.at(".arguments" + member(name))
		switch {
		case o["required"] != true && n["required"] == true:
			d.breaking(p.at(".required"), "now required: clients that do not send it fail")
		case o["required"] == true && n["required"] != true:
			d.compatible(p.at(".required"), "now optional")
		}
		for _, f := range union(o, n) {
			if f != "required" && f != "name" && !d.equal(o[f], n[f]) {
				d.compatible(p.at("."+f), "%s changed", f)
			}
		}
	}
	for _, f := range union(old, new) {
		if f != "arguments" && !d.equal(old[f], new[f]) {
			d.compatible(path.at("."+f), "%s changed", f)
		}
	}
}

// capabilities compares declared capabilities: one removed (or set to
// false) breaks the clients that use it.
func (d *differ) capabilities(path *loc, old, new map[string]any) {
	for _, k := range union(old, new) {
		p := path.at(member(k))
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
		case !d.equal(o, n):
			d.compatible(p, "changed from %s to %s", show(o), show(n))
		}
	}
}
