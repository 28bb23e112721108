package surface

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// The sources a call is counted under: the user's own tests (connections
// of mcptest.Connect and EachVersion), mcptest.CheckServer's calls, and
// mcptest.Fuzz's, and `mcptestkit check`'s, which count as Check.
const (
	Tests = "tests"
	Check = "check"
	Fuzz  = "fuzz"
)

// Report is what the connections exercised of each server's surface, by
// server name (its serverInfo.name), against what the server declared. Its
// JSON form is the report file; reports merge by adding counts.
type Report struct {
	Servers map[string]*Server `json:"servers"`
}

// Server is one server's surface: what it declared (its lists) and what
// each source exercised.
type Server struct {
	Tools     map[string]*Tool     `json:"tools,omitempty"`
	Resources map[string]*Resource `json:"resources,omitempty"` // by URI
	Templates map[string]*Resource `json:"templates,omitempty"` // by URI template
	Prompts   map[string]*Prompt   `json:"prompts,omitempty"`
}

// Tool is one tool: declared (listed by tools/list) or only called.
type Tool struct {
	Declared  bool                 `json:"declared"`
	Arguments map[string]*Argument `json:"arguments,omitempty"` // its inputSchema's top-level properties
	Calls     map[string]int       `json:"calls,omitempty"`     // by source
	// Outcomes counts, by source, the answers: success, isError, error (a
	// JSON-RPC error), crash (the crash guard's "Error executing tool
	// <name>"), timeout (no answer: cancelled, or the connection closed).
	Outcomes map[string]map[string]int `json:"outcomes,omitempty"`
}

// Argument is one top-level argument of a tool or a prompt.
type Argument struct {
	// Declared: the inputSchema (the prompt's arguments) has it. A call may
	// give an argument that is not declared; it is counted, not listed.
	Declared bool           `json:"declared"`
	Required bool           `json:"required,omitempty"`
	Enum     []string       `json:"enum,omitempty"`  // each allowed value, as JSON
	Given    map[string]int `json:"given,omitempty"` // calls that gave it, by source (the others left it out)
	// Sent counts, by source, the calls that sent each enum value.
	Sent map[string]map[string]int `json:"sent,omitempty"`
}

// Resource is one resource, or one resource template.
type Resource struct {
	Declared bool           `json:"declared"`
	Reads    map[string]int `json:"reads,omitempty"` // by source
}

// Prompt is one prompt.
type Prompt struct {
	Declared  bool                 `json:"declared"`
	Arguments map[string]*Argument `json:"arguments,omitempty"`
	Calls     map[string]int       `json:"calls,omitempty"` // prompts/get, by source
}

// Outcomes in the order reports list them.
var outcomes = []string{"success", "isError", "error", "crash", "timeout"}

// Load reads report files and merges them into one.
func Load(paths ...string) (*Report, error) {
	r := &Report{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		var one Report
		if err := json.Unmarshal(data, &one); err != nil {
			return nil, fmt.Errorf("%s: not a surface report: %v", p, err)
		}
		r.Merge(&one)
	}
	return r, nil
}

// WriteFile writes r as JSON to path, through a temporary file renamed over
// it, so that a reader never sees half a report.
func (r *Report) WriteFile(path string) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".surface-*.json")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(append(data, '\n'))
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// Merge adds o's counts and declarations to r.
func (r *Report) Merge(o *Report) {
	if o == nil {
		return
	}
	if r.Servers == nil {
		r.Servers = map[string]*Server{}
	}
	for name, os := range o.Servers {
		s := r.Servers[name]
		if s == nil {
			s = &Server{}
			r.Servers[name] = s
		}
		s.merge(os)
	}
}

func (s *Server) merge(o *Server) {
	for name, ot := range o.Tools {
		t := getTool(&s.Tools, name)
		t.Declared = t.Declared || ot.Declared
		addCounts(&t.Calls, ot.Calls)
		for src, m := range ot.Outcomes {
			t.Outcomes = ensure(t.Outcomes)
			addCounts(ptr(t.Outcomes, src), m)
		}
		mergeArgs(&t.Arguments, ot.Arguments)
	}
	for uri, or := range o.Resources {
		x := getResource(&s.Resources, uri)
		x.Declared = x.Declared || or.Declared
		addCounts(&x.Reads, or.Reads)
	}
	for uri, or := range o.Templates {
		x := getResource(&s.Templates, uri)
		x.Declared = x.Declared || or.Declared
		addCounts(&x.Reads, or.Reads)
	}
	for name, op := range o.Prompts {
		p := getPrompt(&s.Prompts, name)
		p.Declared = p.Declared || op.Declared
		addCounts(&p.Calls, op.Calls)
		mergeArgs(&p.Arguments, op.Arguments)
	}
}

func mergeArgs(dst *map[string]*Argument, src map[string]*Argument) {
	for name, oa := range src {
		a := getArg(dst, name)
		a.Declared = a.Declared || oa.Declared
		a.Required = a.Required || oa.Required
		for _, v := range oa.Enum {
			if !slices.Contains(a.Enum, v) {
				a.Enum = append(a.Enum, v)
			}
		}
		addCounts(&a.Given, oa.Given)
		for src, m := range oa.Sent {
			a.Sent = ensure(a.Sent)
			addCounts(ptr(a.Sent, src), m)
		}
	}
}

// Summary is one line per server for source (Tests, Check, Fuzz): how much
// of what the server declares the source exercised.
func (r *Report) Summary(source string) string {
	var lines []string
	for _, name := range slices.Sorted(maps.Keys(r.Servers)) {
		s := r.Servers[name]
		c := s.count(source)
		lines = append(lines, fmt.Sprintf("mcp surface of %s (%s): tools %d/%d, arguments %d/%d, optional omitted %d/%d, "+
			"enum values %d/%d, resources %d/%d, templates %d/%d, prompts %d/%d; outcomes: %s",
			name, source, c.tools, c.toolsAll, c.args, c.argsAll, c.omitted, c.optional, c.enums, c.enumsAll,
			c.resources, c.resourcesAll, c.templates, c.templatesAll, c.prompts, c.promptsAll, c.outcomes))
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
			item := kind + " " + name
			if many {
				item = sname + ": " + item
			}
			out = append(out, item)
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
			prefix = sname + ": "
		}
		var lines []string
		for _, tname := range slices.Sorted(maps.Keys(s.Tools)) {
			t := s.Tools[tname]
			if !t.Declared || t.Calls[source] == 0 {
				continue // listed above
			}
			lines = append(lines, argLines(prefix+"tool "+tname, t.Arguments, t.Calls[source], source)...)
			o := t.Outcomes[source]
			if o["success"] == 0 {
				lines = append(lines, fmt.Sprintf("%stool %s: never succeeded", prefix, tname))
			}
			if o["isError"] == 0 {
				lines = append(lines, fmt.Sprintf("%stool %s: never failed (no isError result)", prefix, tname))
			}
		}
		for _, pname := range slices.Sorted(maps.Keys(s.Prompts)) {
			if p := s.Prompts[pname]; p.Declared && p.Calls[source] > 0 {
				lines = append(lines, argLines(prefix+"prompt "+pname, p.Arguments, p.Calls[source], source)...)
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
			out = append(out, fmt.Sprintf("%s: argument %s never given", what, name))
		}
		if !a.Required && calls <= a.Given[source] {
			out = append(out, fmt.Sprintf("%s: optional argument %s never left out", what, name))
		}
		for _, v := range a.Enum {
			if a.Sent[source][v] == 0 {
				out = append(out, fmt.Sprintf("%s: argument %s never sent %s", what, name, v))
			}
		}
	}
	return out
}

func addCounts(dst *map[string]int, src map[string]int) {
	for k, n := range src {
		if *dst == nil {
			*dst = map[string]int{}
		}
		(*dst)[k] += n
	}
}

func ensure(m map[string]map[string]int) map[string]map[string]int {
	if m == nil {
		return map[string]map[string]int{}
	}
	return m
}

// ptr returns a pointer-like handle to m[k] for addCounts.
func ptr(m map[string]map[string]int, k string) *map[string]int {
	inner := m[k]
	if inner == nil {
		inner = map[string]int{}
		m[k] = inner
	}
	return &inner
}

// entry returns m[k], made (and m with it) if missing.
func entry[T any](m *map[string]*T, k string) *T {
	if *m == nil {
		*m = map[string]*T{}
	}
	v := (*m)[k]
	if v == nil {
		v = new(T)
		(*m)[k] = v
	}
	return v
}

func getTool(m *map[string]*Tool, name string) *Tool            { return entry(m, name) }
func getResource(m *map[string]*Resource, uri string) *Resource { return entry(m, uri) }
func getPrompt(m *map[string]*Prompt, name string) *Prompt      { return entry(m, name) }
func getArg(m *map[string]*Argument, name string) *Argument     { return entry(m, name) }

// prune keeps, of the values sent for each argument, only those of its
// enum: the others were kept in case the argument had one.
func (s *Server) prune() {
	for _, t := range s.Tools {
		for _, a := range t.Arguments {
			a.prune()
		}
	}
	for _, p := range s.Prompts {
		for _, a := range p.Arguments {
			a.prune()
		}
	}
}

func (a *Argument) prune() {
	for src, m := range a.Sent {
		for v := range m {
			if !slices.Contains(a.Enum, v) {
				delete(m, v)
			}
		}
		if len(m) == 0 {
			delete(a.Sent, src)
		}
	}
	if len(a.Sent) == 0 {
		a.Sent = nil
	}
}
