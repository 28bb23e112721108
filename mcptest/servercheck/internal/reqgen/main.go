// Command reqgen extracts from the MCP specification every normative
// sentence (MUST, MUST NOT, SHOULD, SHOULD NOT, and REQUIRED, SHALL,
// RECOMMENDED read as their RFC 2119 equivalents) that binds a server, and
// writes them as servercheck's requirement rows (requirements_table.go).
// servercheck's go:generate runs it when $MCP_SPEC names a checkout of
// github.com/modelcontextprotocol/modelcontextprotocol (and $MCP_EXT_TASKS
// one of github.com/modelcontextprotocol/ext-tasks); without them it leaves
// the table as it is. A checkout can be a git work tree, or the files of a
// commit (git archive) with the commit given by $MCP_SPEC_COMMIT and
// $MCP_EXT_TASKS_COMMIT:
//
//	MCP_SPEC=/path/spec MCP_EXT_TASKS=/path/ext-tasks go generate ./mcptest/servercheck
//
// The table then changes only where the specification's text did: IDs are
// made of the text, so a reworded sentence is a new row, and the map's test
// names the entries left without a row.
//
// Which sentences bind a server: each keyword's subject is the first actor
// named in its clause (the text since the last comma, semicolon or colon
// before it), else the first actor in the sentence before it, else the
// page's (server/ pages: the server; client/ pages: the client; others:
// either side). "Server", "MCP server" and "resource server" are the
// server; "client" and "host" the client; "receiver", "sender",
// "implementation", "party" and "peer" either side; "authorization server"
// neither. A sentence is kept when one of its keywords binds the server or
// either side; its level is the strongest of those. A list item under a
// lead sentence that ends with a keyword and a colon ("Servers MUST:") is
// read as the lead followed by the item. overrides (overrides.go) corrects
// the sentences this reading gets wrong.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// The revisions read, oldest first.
var revisions = []string{"2025-11-25", "2026-07-28"}

// The tasks extension's revision: it extends 2026-07-28.
const tasksRevision = "2026-07-28"

func main() {
	spec := flag.String("spec", "", "a checkout of modelcontextprotocol/modelcontextprotocol")
	tasks := flag.String("tasks", "", "a checkout of modelcontextprotocol/ext-tasks")
	specCommit := flag.String("spec-commit", "", "the commit of -spec (default: git rev-parse HEAD in it)")
	tasksCommit := flag.String("tasks-commit", "", "the commit of -tasks (default: git rev-parse HEAD in it)")
	out := flag.String("o", "requirements_table.go", "the file written")
	list := flag.Bool("list", false, "print the rows (id, level, revisions, text) instead of writing the file")
	excluded := flag.Bool("excluded", false, "print the sentences left out (as binding only clients) instead of writing the file")
	flag.Parse()
	listRows = *list
	listExcluded = *excluded
	if *spec == "" || *tasks == "" {
		fmt.Fprintln(os.Stderr, "reqgen: no -spec or -tasks checkout (set MCP_SPEC and MCP_EXT_TASKS for go generate); requirements_table.go left as it is")
		return
	}
	if listRows || listExcluded { // what is read, not where from
		*specCommit, *tasksCommit = "-", "-"
	}
	sc, err := commit(*spec, *specCommit, "-spec-commit")
	if err == nil {
		var tc string
		if tc, err = commit(*tasks, *tasksCommit, "-tasks-commit"); err == nil {
			err = run(*spec, *tasks, sc, tc, *out)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "reqgen:", err)
		os.Exit(1)
	}
}

// commit is the commit a checkout is at: given, or git's answer.
func commit(dir, given, flagName string) (string, error) {
	if given != "" {
		return given, nil
	}
	b, err := exec.Command("git", "-C", dir, "rev-parse", "HEAD").Output()
	if err != nil {
		return "", fmt.Errorf("cannot tell which commit %s is (not a git work tree?): give it with %s", dir, flagName)
	}
	return strings.TrimSpace(string(b)), nil
}

// A row is one requirement: a sentence, and where each revision says it.
type row struct {
	id       string
	level    string
	revs     []string
	sections []string
	text     string
	key      string // the normalised text rows merge on
}

func run(spec, tasks, specCommit, tasksCommit, out string) error {
	var rows []*row
	byKey := map[string]*row{}
	add := func(rev, page, url string, blocks []block, defaultActor string) {
		for _, s := range pageSentences(blocks) {
			level, ok := binds(s, defaultActor)
			if o, found := override(s); found {
				ok = o
				if ok && level == "" {
					level = strongest(s.text)
				}
			}
			if !ok {
				if listExcluded {
					fmt.Printf("%s/%s\t%s\n", rev, page, trim(s))
				}
				continue
			}
			text := trim(s)
			key := strings.ToLower(text)
			// The site keeps "/" and ":" in anchors, escaped; GitHub drops them.
			anchor := strings.NewReplacer("/", "%2F", ":", "%3A").Replace(s.anchor)
			if strings.HasPrefix(url, "https://github.com/") {
				anchor = strings.NewReplacer("/", "", ":", "").Replace(s.anchor)
			}
			sec := url + "#" + anchor
			if s.anchor == "" {
				sec = url
			}
			if r := byKey[key]; r != nil {
				if !slices.Contains(r.revs, rev) {
					r.revs = append(r.revs, rev)
					r.sections = append(r.sections, sec)
				}
				continue
			}
			r := &row{level: level, revs: []string{rev}, sections: []string{sec}, text: text, key: key,
				id: rev + "/" + page + "/" + orDefault(strings.NewReplacer("/", "", ":", "").Replace(s.anchor), "top") + "/" + shortSlug(level, s.text)}
			byKey[key] = r
			rows = append(rows, r)
		}
	}
	for _, rev := range revisions {
		root := filepath.Join(spec, "docs", "specification", rev)
		var pages []string
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(path, ".mdx") {
				pages = append(pages, path)
			}
			return err
		})
		if err != nil {
			return err
		}
		slices.Sort(pages)
		for _, path := range pages {
			rel := strings.TrimSuffix(filepath.ToSlash(strings.TrimPrefix(path, root+string(filepath.Separator))), ".mdx")
			if skipPage(rel) {
				continue
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			page := strings.TrimSuffix(strings.TrimSuffix(rel, "index"), "/")
			url := "https://modelcontextprotocol.io/specification/" + rev
			if page != "" {
				url += "/" + page
			}
			var blocks []block
			if rel == "schema" {
				blocks = typedocBlocks(string(src))
			} else {
				blocks = markdownBlocks(string(src))
			}
			add(rev, orDefault(page, "overview"), url, blocks, pageActor(rel))
		}
	}
	src, err := os.ReadFile(filepath.Join(tasks, "specification", "draft", "tasks.md"))
	if err != nil {
		return err
	}
	add(tasksRevision, "tasks-extension", "https://github.com/modelcontextprotocol/ext-tasks/blob/"+tasksCommit+"/specification/draft/tasks.md",
		markdownBlocks(string(src)), "either")

	ids := map[string]int{}
	for _, r := range rows {
		if n := ids[r.id]; n > 0 {
			ids[r.id]++
			r.id += "-" + itoa(n+1)
		} else {
			ids[r.id] = 1
		}
	}
	if listExcluded {
		return nil
	}
	if listRows {
		for _, r := range rows {
			fmt.Printf("%s\t%s\t%s\t%s\n", r.id, r.level, strings.Join(r.revs, ","), r.text)
		}
		return nil
	}
	return write(out, rows, specCommit, tasksCommit)
}

var listRows, listExcluded bool

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// skipPage leaves out pages that state no requirement of their own: the
// changelogs (which describe changes made elsewhere) and the architecture
// overview.
func skipPage(rel string) bool {
	return rel == "changelog" || strings.HasPrefix(rel, "architecture")
}

func pageActor(rel string) string {
	switch {
	case strings.HasPrefix(rel, "server/"):
		return "server"
	case strings.HasPrefix(rel, "client/"):
		return "client"
	}
	return "either"
}

// A sentence is one sentence of a block, with its anchor.
type sentence struct {
	anchor string
	text   string
	lead   string // the last sentence of the paragraph before a list item
}

var keywordRE = regexp.MustCompile(`\b(MUST NOT|MUST|SHALL NOT|SHALL|REQUIRED|SHOULD NOT|SHOULD|NOT RECOMMENDED|RECOMMENDED)\b`)

// pageSentences returns the page's sentences that hold a keyword, list
// items under a keyword lead read after their lead.
func pageSentences(blocks []block) []sentence {
	var out []sentence
	type lead struct {
		text   string
		indent int
		item   bool
		row    int // the lead's own row, which its items extend; -1 if they carry it
		own    int // the lead's own row, dropped once an item carries the lead
	}
	var leads []lead
	context := ""
	for _, b := range blocks {
		if !b.item {
			ss := sentences(b.text)
			context = ""
			if len(ss) > 0 {
				context = ss[len(ss)-1]
			}
		}
		for len(leads) > 0 {
			l := leads[len(leads)-1]
			if b.item && (!l.item || b.indent > l.indent) {
				break
			}
			leads = leads[:len(leads)-1]
		}
		ss := sentences(b.text)
		for _, s := range ss {
			text := s
			if !keywordRE.MatchString(s) && len(leads) > 0 && b.item {
				if l := leads[len(leads)-1]; l.row >= 0 {
					sep := "; "
					if strings.HasSuffix(out[l.row].text, ":") {
						sep = " "
					}
					out[l.row].text += sep + strings.TrimSuffix(s, ".")
					continue
				} else {
					text = l.text + " " + s
					out[l.own].text = "" // its items say it
				}
			}
			if keywordRE.MatchString(text) {
				lead := ""
				if b.item {
					lead = context
				}
				out = append(out, sentence{b.anchor, text, lead})
			}
		}
		if len(ss) > 0 {
			last := ss[len(ss)-1]
			if strings.HasSuffix(last, ":") && keywordRE.MatchString(last) {
				row := -1
				if !endsWithKeyword(last) {
					row = len(out) - 1
				}
				leads = append(leads, lead{last, b.indent, b.item, row, len(out) - 1})
			}
		}
	}
	return slices.DeleteFunc(out, func(s sentence) bool { return s.text == "" })
}

// endsWithKeyword reports whether a lead sentence's last keyword has no
// object of its own ("Servers MUST:", "Applications SHOULD:"), so that its
// items complete it.
func endsWithKeyword(s string) bool {
	loc := keywordRE.FindAllStringIndex(s, -1)
	rest := strings.TrimSpace(s[loc[len(loc)-1][1]:])
	return rest == ":" || len(strings.Fields(rest)) <= 3
}

var actorRE = regexp.MustCompile(`(?i)\b((?:mcp )?(?:clients?|servers?) (?:and|or) (?:mcp )?(?:clients?|servers?)|authorization servers?|resource servers?|(?:mcp )?servers?|(?:mcp )?clients?|hosts?|applications?|UIs?|receivers?|recipients?|senders?|implementations?|implementors?|parties|party|peers?|either side|both sides)\b`)

func actor(word string) string {
	w := strings.ToLower(word)
	switch {
	case strings.Contains(w, " and ") || strings.Contains(w, " or "):
		return "either"
	case strings.HasPrefix(w, "authorization server"):
		return "none"
	case strings.Contains(w, "server"):
		return "server"
	case strings.Contains(w, "client"), strings.HasPrefix(w, "host"), strings.HasPrefix(w, "application"), strings.HasPrefix(w, "ui"):
		return "client"
	}
	return "either"
}

var levelRank = map[string]int{"SHOULD": 1, "SHOULD NOT": 2, "MUST": 3, "MUST NOT": 4}

func norm(kw string) string {
	switch kw {
	case "SHALL", "REQUIRED":
		return "MUST"
	case "SHALL NOT":
		return "MUST NOT"
	case "RECOMMENDED":
		return "SHOULD"
	case "NOT RECOMMENDED":
		return "SHOULD NOT"
	}
	return kw
}

// strongest is the strongest level a sentence's keywords say.
func strongest(text string) string {
	level := ""
	for _, kw := range keywordRE.FindAllString(text, -1) {
		if kw = norm(kw); levelRank[kw] > levelRank[level] {
			level = kw
		}
	}
	return level
}

// binds says whether the sentence binds a server, and at which level.
func binds(s sentence, defaultActor string) (string, bool) {
	text := s.text
	level := ""
	for _, loc := range keywordRE.FindAllStringSubmatchIndex(text, -1) {
		if inCode(text, loc[0]) {
			continue
		}
		kw := norm(text[loc[2]:loc[3]])
		before := text[:loc[0]]
		clause := before[strings.LastIndexAny(before, ",;:")+1:]
		for _, conj := range []string{" and ", " but ", " while "} {
			// "Clients SHOULD retry and servers MUST answer": a new clause
			// with its own subject, after one with its own keyword.
			if i := strings.LastIndex(clause, conj); i >= 0 && keywordRE.MatchString(clause[:i]) && actorRE.MatchString(clause[i:]) {
				clause = clause[i+len(conj):]
			}
		}
		who := defaultActor
		if m := actorRE.FindString(clause); m != "" {
			who = actor(m)
		} else if m := actorRE.FindString(before); m != "" {
			who = actor(m)
		} else if s.lead != "" {
			who = leadActor(s.lead, who)
		}
		if who == "server" || who == "either" {
			if levelRank[kw] > levelRank[level] {
				level = kw
			}
		}
	}
	return level, level != ""
}

// leadActor reads the subject of a list item that names none from the
// paragraph before its list: the one side it names, or either side when it
// names both.
func leadActor(lead, def string) string {
	who := ""
	for _, m := range actorRE.FindAllString(lead, -1) {
		switch a := actor(m); {
		case who == "":
			who = a
		case who != a:
			return "either"
		}
	}
	if who == "" {
		return def
	}
	return who
}

func inCode(s string, i int) bool {
	return strings.Count(s[:i], "`")%2 == 1
}

// trim makes a sentence a citation: one line, at most 400 characters.
func trim(s sentence) string {
	t := strings.Join(strings.Fields(s.text), " ")
	if len(t) > 400 {
		cut := strings.LastIndexByte(t[:400], ' ')
		t = t[:cut] + " …"
	}
	return t
}

var stop = map[string]bool{"a": true, "an": true, "the": true, "to": true, "of": true, "be": true, "and": true, "or": true,
	"in": true, "for": true, "with": true, "that": true, "this": true, "it": true, "its": true, "on": true, "as": true,
	"by": true, "is": true, "are": true, "any": true, "all": true, "their": true, "they": true, "from": true, "at": true}

// shortSlug names a sentence by its level and the first words of what it
// requires.
func shortSlug(level, text string) string {
	loc := keywordRE.FindStringIndex(text)
	rest := text
	if loc != nil {
		rest = text[loc[1]:]
	}
	var words []string
	for _, w := range strings.Fields(slugWords(rest)) {
		if stop[w] || len(words) == 5 {
			continue
		}
		words = append(words, w)
	}
	return strings.ReplaceAll(strings.ToLower(level), " ", "-") + "-" + strings.Join(words, "-")
}

func slugWords(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

func write(out string, rows []*row, specCommit, tasksCommit string) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, `// Code generated by reqgen (internal/reqgen) from the MCP specification; DO NOT EDIT.

// The sentences below are quoted from the Model Context Protocol
// specification, github.com/modelcontextprotocol/modelcontextprotocol at
// commit %s (docs/specification/2025-11-25 and 2026-07-28), and from its
// tasks extension, github.com/modelcontextprotocol/ext-tasks at commit
// %s (specification/draft/tasks.md). The specification
// is licensed under the Apache License, Version 2.0 (contributions made
// before its relicensing remain under the MIT License); the tasks extension
// under the Apache License, Version 2.0. Copyright the Model Context Protocol
// authors (a Series of LF Projects, LLC).

package servercheck

// specCommit and tasksCommit are the commits the rows were read at.
const (
	specCommit  = %q
	tasksCommit = %q
)

// specRows are the specification's sentences that bind a server, in the
// order the pages give them.
var specRows = []specRow{
`, specCommit, tasksCommit, specCommit, tasksCommit)
	for _, r := range rows {
		fmt.Fprintf(&b, "\t{%q, %q, %#v, %#v,\n\t\t%q},\n", r.id, r.level, r.revs, r.sections, r.text)
	}
	b.WriteString("}\n")
	src, err := format.Source(b.Bytes())
	if err != nil {
		return fmt.Errorf("formatting %s: %w", out, err)
	}
	return os.WriteFile(out, src, 0o644)
}
