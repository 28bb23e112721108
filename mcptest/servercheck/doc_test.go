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
	heading := slices.Index(lines, "// # Checks")
	require.GreaterOrEqual(t, heading, 0, `doc.go has no "# Checks" heading`)
	from := heading + 1
	for from < len(lines) && !strings.HasPrefix(lines[from], "//\t") {
		from++
	}
	to := from
	for to < len(lines) && strings.HasPrefix(lines[to], "//\t") {
		to++
	}
	require.Less(t, from, len(lines), `doc.go has no code block after the "# Checks" heading`)

	want := checkList(checkTable())
	if update, _ := strconv.ParseBool(os.Getenv("MCPTEST_UPDATE")); update {
		out := slices.Concat(lines[:from], want, lines[to:])
		require.NoError(t, os.WriteFile("doc.go", []byte(strings.Join(out, "\n")), 0o644))
		return
	}
	if diff := cmp.Diff(want, lines[from:to]); diff != "" {
		t.Errorf("doc.go's list of checks is not the table's (table.go), which is (-) where doc.go says (+):\n%s\n"+
			"Regenerate it with go generate ./mcptest/servercheck (or MCPTEST_UPDATE=1 go test -run TestCheckList "+
			"./mcptest/servercheck) and review the change.", diff)
	}
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
