package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A tool that requires a task runs as one, and --task runs any tool as one:
// call waits for it, printing its statuses on stderr. The server (mcp-go
// v1.2.1) has tasks at 2025-11-25 only, which call picks by itself.
func TestCallTask(t *testing.T) {
	bin, err := taskServer()
	require.NoError(t, err)
	var res struct {
		Content []struct{ Type, Text string }
		IsError bool
	}

	r := mcptestkit(t, nil, "call", "render_report", "title=Q3", "sections=1", "--", bin)
	require.Equal(t, exitOK, r.code, "%s", r)
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &res), r.stdout)
	assert.Equal(t, `Report "Q3": 1 sections.`, res.Content[0].Text)
	assert.Contains(t, r.stderr, "the server has no tasks at 2026-07-28 (it does not declare the io.modelcontextprotocol/tasks extension): calling at 2025-11-25, where it has\n")
	assert.Regexp(t, `(?m)^task [0-9a-f-]+ working\ntask [0-9a-f-]+ completed\n`, r.stderr)

	r = mcptestkit(t, nil, "call", "--task", "word_count", "text=to be", "--version", "2025-11-25", "--", bin)
	require.Equal(t, exitOK, r.code, "%s", r)
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &res), r.stdout)
	assert.Equal(t, "2 words", res.Content[0].Text)
	assert.NotContains(t, r.stderr, "calling at", "the version was given")
	assert.Contains(t, r.stderr, " completed\n")

	// A tool error through the task: printed, exit status 1.
	r = mcptestkit(t, nil, "call", "render_report", "title= ", "--", bin)
	require.Equal(t, exitFail, r.code, "%s", r)
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &res), r.stdout)
	assert.True(t, res.IsError)
	assert.Equal(t, "A report needs a title.", res.Content[0].Text)

	// Pinned to 2026-07-28, where the server has no tasks: its refusal.
	r = mcptestkit(t, nil, "call", "render_report", "title=Q3", "--version", "2026-07-28", "--", bin)
	require.Equal(t, exitFail, r.code, "%s", r)
	assert.Contains(t, r.stderr, `tools/call "render_report": error -32601: tool 'render_report' requires task augmentation`)
}
