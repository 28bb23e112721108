package main

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/gosdk/gosdktest"
	"github.com/mcptestkit/mcptestkit/mcptest/servercheck"
)

// lintBait is a go-sdk server that breaks every lint rule once.
func lintBait() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "lintbait", Version: "v0"}, nil)
	text := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
	}
	yes := true
	s.AddTool(&mcp.Tool{
		Name:        "Delete_Note",
		Description: "Deletes",                                                       // one word
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: &yes}, // both, and read-only for a delete
		InputSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"id":   map[string]any{"type": "string"},                                                       // required, undescribed
				"mode": map[string]any{"type": "string", "enum": []any{"soft", "hard"}, "description": "How."}, // values unexplained
			},
			"required": []any{"id"},
		},
	}, text)
	s.AddTool(&mcp.Tool{ // one name with Delete_Note once case is folded
		Name:        "delete_note",
		Description: "Delete one note by its id; it cannot be undone.",
		InputSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"mode": map[string]any{"type": "string", "enum": []any{"soft", "hard"}},
			},
		},
	}, text)
	s.AddTool(&mcp.Tool{
		Name:         "report",
		Description:  "Summarize the notes as counts by tag.",
		InputSchema:  map[string]any{"type": "object"},
		OutputSchema: map[string]any{"type": "object", "properties": map[string]any{"notes": map[string]any{"type": "integer"}}},
	}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		// structuredContent, and no text block for a client that reads
		// only content.
		return &mcp.CallToolResult{Content: []mcp.Content{}, StructuredContent: map[string]any{"notes": 3}}, nil
	})
	return s
}

// Every lint rule finds what lintBait breaks, as a warning or a note with
// a fix, never a failure; Options.Skip (--skip) leaves a rule's check out
// by its id.
func TestLintRules(t *testing.T) {
	results := map[string]servercheck.Result{}
	err := servercheck.Run(t.Context(), servercheck.InProcess(gosdktest.Server(lintBait())), &servercheck.Options{
		Run:         "tools|lint",
		Skip:        []string{"lint/enums/delete_note", "tools/invalid-arguments"}, // the untyped handlers validate nothing
		Calls:       2,
		Tokens:      countTokens,
		TokenBudget: 10,
		OnResult:    func(r servercheck.Result) { results[r.Name] = r },
	})
	require.NoError(t, err, "lint warns; it never fails a run")
	expect := func(name string, status servercheck.Status, contains ...string) {
		t.Helper()
		r, ok := results[name]
		require.True(t, ok, "no check %s", name)
		assert.Equal(t, status, r.Status, "%s: %s", name, r.Detail)
		for _, s := range contains {
			assert.Contains(t, r.Detail, s, name)
		}
		if status != servercheck.Skip {
			assert.Contains(t, r.Detail, "fix:", "%s names a fix", name)
		}
	}
	expect("lint/descriptions/Delete_Note", servercheck.Warn, `described in one word: "Deletes"`, `the required parameter "id" has no description`)
	expect("lint/descriptions/delete_note", servercheck.Pass, `the optional parameter "mode" has no description`)
	expect("lint/enums/Delete_Note", servercheck.Pass, `"mode" takes the values ["soft","hard"], and its description names none of them`)
	expect("lint/enums/delete_note", servercheck.Skip, "left out by Options.Skip")
	expect("lint/annotations/Delete_Note", servercheck.Warn, "readOnlyHint true and destructiveHint true", `named for deleting ("delete")`)
	expect("lint/names", servercheck.Warn, `the tools ["Delete_Note" "delete_note"] have one name once case is folded`)
	expect("lint/output-text/report", servercheck.Warn, "successful call(s) with structuredContent had a text block")
	expect("lint/tokens", servercheck.Warn, "past the budget of 10", "report")
	assert.Equal(t, servercheck.Pass, results["lint/annotations/report"].Status)
	assert.NotContains(t, results, "lint/output-text/Delete_Note", "only a tool with an outputSchema has the check")
	assert.Equal(t, servercheck.Rule{ID: "lint/names", Level: servercheck.Warn,
		Spec: `server/tools, "Tool Names": SHOULD be unique within a server`}.Spec, results["lint/names"].Rule.Spec)
	assert.Equal(t, "lint/tokens", results["lint/tokens"].Rule.ID)

	// The counts are o200k_base's: a tool's JSON as listed.
	data, err := json.Marshal(map[string]any{"name": "report"})
	require.NoError(t, err)
	assert.Equal(t, 5, countTokens(string(data)), `{"name":"report"}`)
}
