package servercheck

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The list of checks in the package documentation is the table's: the code
// block after the "# Checks" heading of doc.go is generated from it, and
// this test fails when it is stale. MCPTEST_UPDATE=1 (go generate) rewrites
// it, as it rewrites mcptest's golden files.
func TestCheckList(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	require.NoError(t, err)
	lines := strings.Split(string(doc), "\n")
	update, _ := strconv.ParseBool(os.Getenv("MCPTEST_UPDATE"))
	for _, block := range []struct {
		heading string
		want    []string
	}{
		{"// # Checks", checkList(checkTable())},
		{"// # Conformance", conformanceList(conformanceTable())},
	} {
		heading := slices.Index(lines, block.heading)
		require.GreaterOrEqual(t, heading, 0, "doc.go has no %q heading", block.heading)
		from := heading + 1
		for from < len(lines) && !strings.HasPrefix(lines[from], "//\t") {
			from++
		}
		to := from
		for to < len(lines) && strings.HasPrefix(lines[to], "//\t") {
			to++
		}
		require.Less(t, from, len(lines), "doc.go has no code block after the %q heading", block.heading)
		if update {
			lines = slices.Concat(lines[:from], block.want, lines[to:])
			continue
		}
		if diff := cmp.Diff(block.want, lines[from:to]); diff != "" {
			t.Errorf("doc.go's block after %q is not the table's (table.go, conformance.go), which is (-) where doc.go says (+):\n%s\n"+
				"Regenerate it with go generate ./mcptest/servercheck (or MCPTEST_UPDATE=1 go test -run TestCheckList "+
				"./mcptest/servercheck) and review the change.", block.heading, diff)
		}
	}
	if update {
		require.NoError(t, os.WriteFile("doc.go", []byte(strings.Join(lines, "\n")), 0o644))
	}
}

// conformanceList renders the conformance table: a scenario a line, the
// checks that cover it, and what they do not, wrapped under itself.
func conformanceList(table []scenarioMap) []string {
	col := 0
	for _, m := range table {
		col = max(col, len(m.scenario))
	}
	var out []string
	for _, m := range table {
		text := strings.Join(m.checks, ", ")
		switch {
		case text == "":
			text = m.note
		case m.note != "":
			text += "; " + m.note
		}
		out = append(out, wrap(fmt.Sprintf("//\t%-*s  ", col, m.scenario), "//\t"+strings.Repeat(" ", col+2), text)...)
	}
	return out
}

// wrap writes text after prefix, its further lines after indent, in lines
// of about 76 characters of text.
func wrap(prefix, indent, text string) []string {
	const width = 76
	var out []string
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && len(line)+1+len(w) > width {
			out = append(out, strings.TrimRight(prefix+line, " "))
			prefix, line = indent, ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	return append(out, prefix+line)
}

// The conformance table maps the suite's scenarios, every one once, to
// checks that exist.
func TestConformanceTable(t *testing.T) {
	list, err := os.ReadFile("testdata/conformance-server-" + conformanceRelease + ".txt")
	require.NoError(t, err)
	var scenarios []string
	for _, l := range strings.Split(strings.TrimSpace(string(list)), "\n") {
		name, _, _ := strings.Cut(l, " ")
		scenarios = append(scenarios, name)
	}
	var mapped []string
	checks := map[string]bool{}
	for _, f := range checkTable() {
		checks[f.name] = true
	}
	for _, m := range conformanceTable() {
		mapped = append(mapped, m.scenario)
		for _, c := range m.checks {
			assert.True(t, checks[c], "%s: no check %q", m.scenario, c)
		}
		assert.True(t, len(m.checks) > 0 || m.note != "", "%s: neither a check nor why none", m.scenario)
	}
	assert.Equal(t, scenarios, mapped, "the table's scenarios, in the suite's order (list --server of %s)", conformanceRelease)
}

// checkList renders the table as the code block of the package
// documentation: a row a line, its text wrapped under itself.
func checkList(table []family) []string {
	const width = 76 // of the text column
	col := 0
	for _, f := range table {
		col = max(col, len(f.name))
	}
	var out []string
	for _, f := range table {
		level := "F"
		if f.level == Warn {
			level = "W"
		}
		text := strings.Join(strings.Fields(f.doc), " ") + " (" + f.spec + ")"
		if f.warns != "" {
			text += "; W " + strings.Join(strings.Fields(f.warns), " ")
		}
		prefix := fmt.Sprintf("//\t%-*s  %s  ", col, f.name, level)
		line := ""
		for _, w := range strings.Fields(text) {
			if line != "" && len(line)+1+len(w) > width {
				out = append(out, strings.TrimRight(prefix+line, " "))
				prefix, line = "//\t"+strings.Repeat(" ", col+5), ""
			}
			if line != "" {
				line += " "
			}
			line += w
		}
		out = append(out, prefix+line)
	}
	return out
}

// Every row is well-formed: what the runner and the list rely on.
func TestCheckTable(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range checkTable() {
		assert.False(t, seen[f.name], "%s: two rows", f.name)
		seen[f.name] = true
		assert.Equal(t, cleanName(f.name), f.name, "%s: a name has no spaces or control characters", f.name)
		last := f.name[strings.LastIndexByte(f.name, '/')+1:]
		placeholder := strings.HasPrefix(last, "<") && strings.HasSuffix(last, ">")
		assert.NotContains(t, f.name[:len(f.name)-len(last)], "<", "%s: only the last element is a placeholder", f.name)
		if placeholder {
			assert.True(t, f.items != nil && f.run == nil, "%s: a family has items and no run", f.name)
		} else {
			assert.True(t, f.run != nil && f.items == nil, "%s: a check has a run and no items", f.name)
		}
		assert.Contains(t, []Status{Fail, Warn}, f.level, "%s: the level is Fail or Warn", f.name)
		assert.True(t, f.warns == "" || f.level == Fail, "%s: only a Fail row warns besides", f.name)
		assert.NotEmpty(t, f.doc, f.name)
		assert.NotEmpty(t, f.spec, f.name)
		assert.Contains(t, []string{"", "tools", "resources", "prompts"}, f.needs, f.name)
		if f.needs != "" {
			assert.False(t, placeholder, "%s: a family's items come from what the server lists", f.name)
		}
	}
}
