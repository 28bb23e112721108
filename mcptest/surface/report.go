package surface

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
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
	// Packages holds, in a report file that several test binaries write
	// (Env names a file, not a directory), each one's report by its
	// package; Servers is then their sum. Each binary replaces its own.
	Packages map[string]*Report `json:"packages,omitempty"`
}

// Server is one server's surface: what it declared (its lists) and what
// each source exercised.
type Server struct {
	// Listed has each kind of item the server offers ("tools",
	// "resources", "templates", "prompts": its capabilities say so), true
	// once a connection listed them to the end. What a server declares is
	// known only from its lists, which the observer reads but never asks
	// for: a kind offered and never listed has items nobody knows of.
	Listed    map[string]bool      `json:"listed,omitempty"`
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

// Load reads report files and merges them into one. A file with a null
// entry or a negative count is refused, naming where.
func Load(paths ...string) (*Report, error) {
	r := &Report{}
	for _, p := range paths {
		one, err := readReport(p)
		if err != nil {
			return nil, err
		}
		r.Merge(one)
	}
	return r, nil
}

func readReport(p string) (*Report, error) {
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	var one Report
	if err := json.Unmarshal(data, &one); err != nil {
		return nil, fmt.Errorf("%s: not a surface report: %v", p, err)
	}
	if err := one.check(); err != nil {
		return nil, fmt.Errorf("%s: not a surface report: %v", p, err)
	}
	return &one, nil
}

// check reports the first null entry or negative count of r, by its path
// in the JSON document.
func (r *Report) check() error {
	for sname, s := range r.Servers {
		at := "servers." + sname
		if s == nil {
			return fmt.Errorf("%s is null", at)
		}
		for name, t := range s.Tools {
			at := at + ".tools." + name
			if t == nil {
				return fmt.Errorf("%s is null", at)
			}
			if err := errors.Join(counts1(at+".calls", t.Calls), counts2(at+".outcomes", t.Outcomes), checkArgs(at, t.Arguments)); err != nil {
				return err
			}
		}
		for kind, m := range map[string]map[string]*Resource{"resources": s.Resources, "templates": s.Templates} {
			for uri, x := range m {
				at := at + "." + kind + "." + uri
				if x == nil {
					return fmt.Errorf("%s is null", at)
				}
				if err := counts1(at+".reads", x.Reads); err != nil {
					return err
				}
			}
		}
		for name, p := range s.Prompts {
			at := at + ".prompts." + name
			if p == nil {
				return fmt.Errorf("%s is null", at)
			}
			if err := errors.Join(counts1(at+".calls", p.Calls), checkArgs(at, p.Arguments)); err != nil {
				return err
			}
		}
	}
	for pkg, p := range r.Packages {
		if p == nil {
			return fmt.Errorf("packages.%s is null", pkg)
		}
		if err := p.check(); err != nil {
			return fmt.Errorf("packages.%s.%v", pkg, err)
		}
	}
	return nil
}

func checkArgs(at string, args map[string]*Argument) error {
	for name, a := range args {
		at := at + ".arguments." + name
		if a == nil {
			return fmt.Errorf("%s is null", at)
		}
		if err := errors.Join(counts1(at+".given", a.Given), counts2(at+".sent", a.Sent)); err != nil {
			return err
		}
	}
	return nil
}

func counts1(at string, m map[string]int) error {
	for k, n := range m {
		if n < 0 {
			return fmt.Errorf("%s.%s is %d: a count is never negative", at, k, n)
		}
	}
	return nil
}

func counts2(at string, m map[string]map[string]int) error {
	for k, inner := range m {
		if err := counts1(at+"."+k, inner); err != nil {
			return err
		}
	}
	return nil
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
		if os == nil {
			continue
		}
		s := r.Servers[name]
		if s == nil {
			s = &Server{}
			r.Servers[name] = s
		}
		s.merge(os)
	}
}

func (s *Server) merge(o *Server) {
	for kind, listed := range o.Listed {
		if s.Listed == nil {
			s.Listed = map[string]bool{}
		}
		s.Listed[kind] = s.Listed[kind] || listed
	}
	for name, ot := range o.Tools {
		if ot == nil {
			continue
		}
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
		if or == nil {
			continue
		}
		x := getResource(&s.Resources, uri)
		x.Declared = x.Declared || or.Declared
		addCounts(&x.Reads, or.Reads)
	}
	for uri, or := range o.Templates {
		if or == nil {
			continue
		}
		x := getResource(&s.Templates, uri)
		x.Declared = x.Declared || or.Declared
		addCounts(&x.Reads, or.Reads)
	}
	for name, op := range o.Prompts {
		if op == nil {
			continue
		}
		p := getPrompt(&s.Prompts, name)
		p.Declared = p.Declared || op.Declared
		addCounts(&p.Calls, op.Calls)
		mergeArgs(&p.Arguments, op.Arguments)
	}
}

func mergeArgs(dst *map[string]*Argument, src map[string]*Argument) {
	for name, oa := range src {
		if oa == nil {
			continue
		}
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
