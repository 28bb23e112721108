package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Issue 34: diff classifies the changes between two listings and exits 1
// only on a breaking one.
func TestDiff(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	listed := mcptestkit(t, nil, "list", "--format", "json")
	require.Equal(t, exitOK, listed.code, "%s", listed)
	old := filepath.Join(dir, "old.json")
	require.NoError(t, os.WriteFile(old, []byte(listed.stdout), 0o644))

	// edit writes the listing changed by fn to a file.
	edit := func(name string, fn func(tools []any)) string {
		var v map[string]any
		require.NoError(t, json.Unmarshal([]byte(listed.stdout), &v))
		fn(v["tools"].([]any))
		data, err := json.Marshal(v)
		require.NoError(t, err)
		file := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(file, data, 0o644))
		return file
	}
	tool := func(tools []any, name string) map[string]any {
		for _, x := range tools {
			if m := x.(map[string]any); m["name"] == name {
				return m
			}
		}
		t.Fatalf("the Bookshop has no tool %q", name)
		return nil
	}
	breaking := edit("breaking.json", func(tools []any) {
		in := tool(tools, "books_by_author")["inputSchema"].(map[string]any)
		in["properties"].(map[string]any)["year"] = map[string]any{"type": "integer"}
		in["required"] = append(in["required"].([]any), "year")
		tool(tools, "get_author")["description"] = "Look an author up."
	})
	compatible := edit("compatible.json", func(tools []any) {
		tool(tools, "get_author")["description"] = "Look an author up."
	})

	r := mcptestkit(t, nil, "diff", old, breaking)
	assert.Equal(t, exitFail, r.code, "%s", r)
	assert.Equal(t, `schema drift: 1 breaking, 1 compatible
  BREAKING    tools["books_by_author"].inputSchema.required: "year" is a new required argument: clients that do not send it get an error
  compatible  tools["get_author"].description: description changed
`, r.stdout)

	r = mcptestkit(t, nil, "diff", old, compatible)
	assert.Equal(t, exitOK, r.code, "%s", r)
	assert.Contains(t, r.stdout, "schema drift: 0 breaking, 1 compatible")

	// Back the other way, the required argument is dropped: compatible, but
	// the Bookshop's schemas forbid additional properties, so a client that
	// still sends it gets an error.
	r = mcptestkit(t, nil, "diff", breaking, old)
	assert.Equal(t, exitFail, r.code, "%s", r)
	assert.Contains(t, r.stdout, `tools["books_by_author"].inputSchema.properties.year: argument removed, and additionalProperties is false`)

	// A server as NEW: the same server lists the same surface.
	srv := serverBinary(t)
	listed = mcptestkit(t, nil, "list", "--format", "json", "--", srv)
	require.Equal(t, exitOK, listed.code, "%s", listed)
	own := filepath.Join(dir, "stdio.json")
	require.NoError(t, os.WriteFile(own, []byte(listed.stdout), 0o644))
	r = mcptestkit(t, nil, "diff", own, "--", srv)
	assert.Equal(t, exitOK, r.code, "%s", r)
	assert.Equal(t, "no change\n", r.stdout)
}

func TestDiffBadOperands(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"tools": [`), 0o644))
	none := filepath.Join(dir, "none.json")
	require.NoError(t, os.WriteFile(none, []byte(`{"steps": []}`), 0o644))
	dup := filepath.Join(dir, "dup.json")
	require.NoError(t, os.WriteFile(dup, []byte(`{"tools": [{"name":"a","inputSchema":{}},{"name":"a","inputSchema":{}}]}`), 0o644))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"diff", bad}, "give OLD and NEW (got 1)"},
		{[]string{"diff", bad, bad}, bad + ": not JSON"},
		{[]string{"diff", none, none}, none + ": holds no tools, resources, resource templates, prompts or capabilities"},
		{[]string{"diff", filepath.Join(dir, "absent.json"), bad}, "absent.json: no such file"},
		{[]string{"diff", dup, dup}, dup + `: tools[0] and tools[1] have the same name "a"`},
	} {
		r := mcptestkit(t, nil, tc.args...)
		assert.Equal(t, exitUsage, r.code, "%s", r)
		assert.Contains(t, r.stderr, tc.want)
	}
}
