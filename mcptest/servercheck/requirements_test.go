package servercheck

import (
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcptestkit/mcptestkit/mcptest/internal/monitor"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every row of the requirement table has what judges it: checks that exist
// or a reason of a known kind; and every entry of the map judges a row
// that exists.
func TestRequirementMap(t *testing.T) {
	known := map[string]bool{}
	for _, f := range checkTable() {
		known[f.name] = true
	}
	for _, r := range monitor.Rules() {
		known[r.ID] = true
	}
	rows := map[string]bool{}
	used := map[string]int{}
	for _, r := range specRows {
		rows[r.id] = true
		j, ok := judge(r.id)
		if !assert.True(t, ok, "%s: no entry in requirements_map.go judges it (%s %q)", r.id, r.level, r.text) {
			continue
		}
		used[j.id]++
	}
	seen := map[string]bool{}
	for _, j := range judgements {
		assert.False(t, seen[j.id], "%s: two entries", j.id)
		seen[j.id] = true
		if strings.HasSuffix(j.id, "/") {
			assert.Positive(t, used[j.id], "%s: the prefix judges no row (every row under it has its own entry, or none is left)", j.id)
		} else {
			assert.True(t, rows[j.id], "%s: no such row in requirements_table.go (did the specification's text change?)", j.id)
		}
		assert.True(t, (len(j.checks) > 0) != (j.reason != ""), "%s: an entry has checks or a reason, one of them", j.id)
		for _, c := range j.checks {
			assert.True(t, known[c], "%s: no check or monitor rule %q", j.id, c)
		}
		if j.reason != "" {
			assert.True(t, slices.ContainsFunc(reasonKinds, func(k string) bool {
				return strings.HasPrefix(j.reason, k) && len(j.reason) > len(k)
			}), "%s: the reason %q begins with a kind (%q) and says why", j.id, j.reason, reasonKinds)
		}
	}
	for _, r := range Requirements() {
		assert.True(t, len(r.Checks) > 0 || r.Reason != "", "%s: neither a check nor a reason", r.ID)
	}
}

// The generated table cannot be regenerated without the specification's
// text, so the test holds it to what the generator writes: unique IDs made
// of the first revision, the page and section, the level and the words of
// the sentence; sections on the specification's site for each revision;
// the level among the sentence's keywords; rows merged across revisions.
func TestRequirementTable(t *testing.T) {
	src, err := os.ReadFile("requirements_table.go")
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(src), "// Code generated "), "requirements_table.go starts with the generated-code comment")
	assert.Contains(t, string(src), "DO NOT EDIT.")
	assert.Contains(t, string(src), "Apache License, Version 2.0", "the specification's licence is named")
	require.NotEmpty(t, specRows)

	revs := []string{"2025-11-25", "2026-07-28"}
	levels := []string{"MUST", "MUST NOT", "SHOULD", "SHOULD NOT"}
	keyword := regexp.MustCompile(`\b(MUST NOT|MUST|SHALL NOT|SHALL|REQUIRED|SHOULD NOT|SHOULD|NOT RECOMMENDED|RECOMMENDED)\b`)
	ids, texts := map[string]bool{}, map[string]bool{}
	for _, r := range specRows {
		assert.False(t, ids[r.id], "%s: two rows", r.id)
		ids[r.id] = true
		assert.False(t, texts[strings.ToLower(r.text)], "%s: the sentence has another row: rows merge across revisions", r.id)
		texts[strings.ToLower(r.text)] = true
		assert.Contains(t, levels, r.level, r.id)
		require.NotEmpty(t, r.revs, r.id)
		assert.Len(t, r.sections, len(r.revs), "%s: a section for each revision", r.id)
		assert.True(t, slices.IsSorted(r.revs) && len(slices.Compact(slices.Clone(r.revs))) == len(r.revs), "%s: revisions sorted, once each", r.id)
		assert.True(t, strings.HasPrefix(r.id, r.revs[0]+"/"), "%s: the ID begins with the first revision", r.id)
		slug := r.id[strings.LastIndexByte(r.id, '/')+1:]
		assert.True(t, strings.HasPrefix(slug, strings.ToLower(strings.ReplaceAll(r.level, " ", "-"))+"-"), "%s: the ID's last element begins with the level", r.id)
		assert.Equal(t, cleanName(r.id), r.id, "%s: no spaces or control characters", r.id)
		for i, rev := range r.revs {
			assert.Contains(t, revs, rev, r.id)
			sec := r.sections[i]
			if strings.Contains(r.id, "/tasks-extension/") {
				assert.True(t, strings.HasPrefix(sec, "https://github.com/modelcontextprotocol/ext-tasks/blob/"+tasksCommit+"/"), "%s: %s", r.id, sec)
			} else {
				site := "https://modelcontextprotocol.io/specification/" + rev
				assert.True(t, strings.HasPrefix(sec, site+"/") || strings.HasPrefix(sec, site+"#"), "%s: %s is on the site under its revision", r.id, sec)
			}
		}
		text := r.text
		assert.Equal(t, strings.Join(strings.Fields(text), " "), text, "%s: the sentence is one trimmed line", r.id)
		assert.LessOrEqual(t, len(text), 404, "%s: the sentence is trimmed to 400 characters", r.id)
		found := false
		for _, k := range keyword.FindAllString(text, -1) {
			found = found || map[string]string{"SHALL": "MUST", "REQUIRED": "MUST", "SHALL NOT": "MUST NOT",
				"RECOMMENDED": "SHOULD", "NOT RECOMMENDED": "SHOULD NOT"}[k] == r.level || k == r.level
		}
		assert.True(t, found, "%s: the level %s is a keyword of the sentence %q", r.id, r.level, text)
	}
}

// REQUIREMENTS.md and the count in the package documentation are the
// table's. MCPTEST_UPDATE=1 (go generate) rewrites them.
func TestRequirementsDoc(t *testing.T) {
	update, _ := strconv.ParseBool(os.Getenv("MCPTEST_UPDATE"))
	reqs := Requirements()
	want := requirementsDoc(reqs)
	if update {
		require.NoError(t, os.WriteFile("REQUIREMENTS.md", []byte(want), 0o644))
	}
	got, err := os.ReadFile("REQUIREMENTS.md")
	require.NoError(t, err)
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("REQUIREMENTS.md is not the table's, which is (-) where the file says (+):\n%s\n"+
			"Regenerate it with go generate ./mcptest/servercheck (or MCPTEST_UPDATE=1 go test -run TestRequirementsDoc ./mcptest/servercheck).", diff)
	}

	doc, err := os.ReadFile("doc.go")
	require.NoError(t, err)
	lines := strings.Split(string(doc), "\n")
	heading := slices.Index(lines, "// # Requirements")
	require.GreaterOrEqual(t, heading, 0, "doc.go has a # Requirements heading")
	from := heading + 1
	for from < len(lines) && !strings.HasPrefix(lines[from], "//\t") {
		from++
	}
	to := from
	for to < len(lines) && strings.HasPrefix(lines[to], "//\t") {
		to++
	}
	block := wrap("//\t", "//\t", coverage(reqs))
	if update {
		lines = slices.Concat(lines[:from], block, lines[to:])
		require.NoError(t, os.WriteFile("doc.go", []byte(strings.Join(lines, "\n")), 0o644))
		return
	}
	assert.Equal(t, block, lines[from:to], "the count after doc.go's # Requirements heading is the table's; regenerate it with go generate ./mcptest/servercheck")
}
