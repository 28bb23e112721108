package surface

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Summary is one line per server for source (Tests, Check, Fuzz): how much
// of what the server declares the source exercised.
func (r *Report) Summary(source string) string {
	var lines []string
	for _, name := range slices.Sorted(maps.Keys(r.Servers)) {
		s := r.Servers[name]
		c := s.count(source)
		all := func(kind string, n int) string {
			if listed, offered := s.Listed[kind]; offered && !listed {
				return "?" // never listed: how many there are is unknown
			}
			return strconv.Itoa(n)
		}
		lines = append(lines, fmt.Sprintf("mcp surface of %s (%s): tools %d/%s, arguments %d/%d, optional omitted %d/%d, "+
			"enum values %d/%d, resources %d/%s, templates %d/%s, prompts %d/%s; outcomes: %s",
			show(name), source, c.tools, all("tools", c.toolsAll), c.args, c.argsAll, c.omitted, c.optional, c.enums, c.enumsAll,
			c.resources, all("resources", c.resourcesAll), c.templates, all("templates", c.templatesAll), c.prompts, all("prompts", c.promptsAll), c.outcomes))
	}
	if len(lines) == 0 {
		return "mcp surface: no server was connected to"
	}
	return strings.Join(lines, "\n")
}

type counts struct {
	tools, toolsAll, args, argsAll, omitted, optional, enums, enumsAll    int
	resources, resourcesAll, templates, templatesAll, prompts, promptsAll int
	outcomes                                                              string
}

func (s *Server) count(source string) counts {
	var c counts
	seen := map[string]int{}
	for _, t := range s.Tools {
		for o, n := range t.Outcomes[source] {
			seen[o] += n
		}
		if !t.Declared {
			continue
		}
		c.toolsAll++
		if t.Calls[source] > 0 {
			c.tools++
		}
		for _, a := range t.Arguments {
			if !a.Declared {
				continue
			}
			c.argsAll++
			if a.Given[source] > 0 {
				c.args++
			}
			if !a.Required {
				c.optional++
				if t.Calls[source] > a.Given[source] {
					c.omitted++
				}
			}
			c.enumsAll += len(a.Enum)
			for _, v := range a.Enum {
				if a.Sent[source][v] > 0 {
					c.enums++
				}
			}
		}
	}
	for _, x := range s.Resources {
		if x.Declared {
			c.resourcesAll++
			if x.Reads[source] > 0 {
				c.resources++
			}
		}
	}
	used := s.templatesUsed(source)
	for t, x := range s.Templates {
		if x.Declared {
			c.templatesAll++
			if used[t] {
				c.templates++
			}
		}
	}
	for _, p := range s.Prompts {
		if p.Declared {
			c.promptsAll++
			if p.Calls[source] > 0 {
				c.prompts++
			}
		}
	}
	var parts []string
	for _, o := range outcomes {
		parts = append(parts, fmt.Sprintf("%d %s", seen[o], o))
	}
	c.outcomes = strings.Join(parts, ", ")
	return c
}

// templateMatchers returns a regular expression per declared template that
// matches the URIs it expands to ({id} matches one path segment, {+x} and
// {/x*} anything).
func (s *Server) templateMatchers() map[string]*regexp.Regexp {
	out := map[string]*regexp.Regexp{}
	for t, x := range s.Templates {
		if !x.Declared {
			continue
		}
		var b strings.Builder
		b.WriteString("^")
		rest := t
		for {
			i := strings.IndexByte(rest, '{')
			j := strings.IndexByte(rest, '}')
			if i < 0 || j < i {
				b.WriteString(regexp.QuoteMeta(rest))
				break
			}
			b.WriteString(regexp.QuoteMeta(rest[:i]))
			if expr := rest[i+1 : j]; strings.ContainsAny(expr[:min(1, len(expr))], "+#/.;?&") || strings.HasSuffix(expr, "*") {
				b.WriteString(".*")
			} else {
				b.WriteString("[^/?#]*")
			}
			rest = rest[j+1:]
		}
		b.WriteString("$")
		if re, err := regexp.Compile(b.String()); err == nil {
			out[t] = re
		}
	}
	return out
}

// Missing lists what source never exercised of what the servers declare:
// each tool never called, resource never read, template never used and
// prompt never got, as "tool get_author" ("server: tool name" when the
// report has several servers). An exempt name (the item's name or URI, or
// that with its kind, "tool get_author") is left out.
func (r *Report) Missing(source string, exempt ...string) []string {
	var out []string
	many := len(r.Servers) > 1
	for _, sname := range slices.Sorted(maps.Keys(r.Servers)) {
		s := r.Servers[sname]
		add := func(kind, name string) {
			if slices.Contains(exempt, name) || slices.Contains(exempt, kind+" "+name) {
				return
			}
			item := kind + " " + show(name)
			if many {
				item = show(sname) + ": " + item
			}
			out = append(out, item)
		}
		for _, kind := range kinds {
			if listed, offered := s.Listed[kind]; offered && !listed && !slices.Contains(exempt, kind) {
				item := kind + " (never listed: no connection asked the server for them, so which it declares is unknown; " +
					"list them in a test, or run mcptest.CheckServer in the same test binary)"
				if many {
					item = show(sname) + ": " + item
				}
				out = append(out, item)
			}
		}
		for _, name := range slices.Sorted(maps.Keys(s.Tools)) {
			if t := s.Tools[name]; t.Declared && t.Calls[source] == 0 {
				add("tool", name)
			}
		}
		for _, uri := range slices.Sorted(maps.Keys(s.Resources)) {
			if x := s.Resources[uri]; x.Declared && x.Reads[source] == 0 {
				add("resource", uri)
			}
		}
		used := s.templatesUsed(source)
		for _, t := range slices.Sorted(maps.Keys(s.Templates)) {
			if x := s.Templates[t]; x.Declared && !used[t] {
				add("template", t)
			}
		}
		for _, name := range slices.Sorted(maps.Keys(s.Prompts)) {
			if p := s.Prompts[name]; p.Declared && p.Calls[source] == 0 {
				add("prompt", name)
			}
		}
	}
	return out
}

func (s *Server) templatesUsed(source string) map[string]bool {
	used := map[string]bool{}
	matchers := s.templateMatchers()
	for uri, x := range s.Resources {
		if x.Reads[source] == 0 {
			continue
		}
		for t, re := range matchers {
			if re.MatchString(uri) {
				used[t] = true
			}
		}
	}
	for t, x := range s.Templates {
		if x.Reads[source] > 0 {
			used[t] = true
		}
	}
	return used
}

// Listing says, for a person, what source never exercised: the items
// Missing lists, then each declared argument never given, each optional
// one never omitted, each enum value never sent, each tool never seen to
// succeed or fail.
func (r *Report) Listing(source string) string {
	var b strings.Builder
	b.WriteString(r.Summary(source))
	b.WriteString("\n")
	if m := r.Missing(source); len(m) > 0 {
		fmt.Fprintf(&b, "never exercised:\n")
		for _, x := range m {
			fmt.Fprintf(&b, "\t%s\n", x)
		}
	}
	many := len(r.Servers) > 1
	for _, sname := range slices.Sorted(maps.Keys(r.Servers)) {
		s := r.Servers[sname]
		prefix := ""
		if many {
			prefix = show(sname) + ": "
		}
		var lines []string
		for _, tname := range slices.Sorted(maps.Keys(s.Tools)) {
			t := s.Tools[tname]
			if !t.Declared || t.Calls[source] == 0 {
				continue // listed above
			}
			lines = append(lines, argLines(prefix+"tool "+show(tname), t.Arguments, t.Calls[source], source)...)
			o := t.Outcomes[source]
			if o["success"] == 0 {
				lines = append(lines, fmt.Sprintf("%stool %s: never succeeded", prefix, show(tname)))
			}
			if o["isError"] == 0 {
				lines = append(lines, fmt.Sprintf("%stool %s: never failed (no isError result)", prefix, show(tname)))
			}
		}
		for _, pname := range slices.Sorted(maps.Keys(s.Prompts)) {
			if p := s.Prompts[pname]; p.Declared && p.Calls[source] > 0 {
				lines = append(lines, argLines(prefix+"prompt "+show(pname), p.Arguments, p.Calls[source], source)...)
			}
		}
		if len(lines) > 0 {
			b.WriteString("not covered:\n")
			for _, l := range lines {
				fmt.Fprintf(&b, "\t%s\n", l)
			}
		}
	}
	return b.String()
}

func argLines(what string, args map[string]*Argument, calls int, source string) []string {
	var out []string
	for _, name := range slices.Sorted(maps.Keys(args)) {
		a := args[name]
		if !a.Declared {
			continue
		}
		if a.Given[source] == 0 {
			out = append(out, fmt.Sprintf("%s: argument %s never given", what, show(name)))
		}
		if !a.Required && calls <= a.Given[source] {
			out = append(out, fmt.Sprintf("%s: optional argument %s never left out", what, show(name)))
		}
		for _, v := range a.Enum {
			if a.Sent[source][v] == 0 {
				out = append(out, fmt.Sprintf("%s: argument %s never sent %s", what, show(name), show(v)))
			}
		}
	}
	return out
}

// kinds are the kinds of item a server declares, in the order reports
// list them.
var kinds = []string{"tools", "resources", "templates", "prompts"}

// show returns name as a report prints it: as it is, or quoted when it has
// what is not printable text (a newline would forge a line of the listing).
func show(name string) string {
	if strings.IndexFunc(name, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
		return strconv.Quote(name)
	}
	return name
}
