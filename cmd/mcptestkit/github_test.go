package main

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/mcptest/servercheck"
)

// GitHub's escaping: a message keeps to one line, a property cannot end
// itself early with "," or "::".
func TestWorkflowCommand(t *testing.T) {
	got := workflowCommand("error", map[string]string{"title": "a, b: 100%", "file": "x.go", "line": "3"}, "50% done\r\nnext: a,b")
	assert.Equal(t, "::error file=x.go,line=3,title=a%2C b%3A 100%25::50%25 done%0D%0Anext: a,b", got)
	assert.Equal(t, "::notice title=t::m", workflowCommand("notice", map[string]string{"title": "t"}, "m"))
}

// The markdown report: counts, each failure and warning folded, a detail
// holding backticks fenced so that it cannot close its block.
func TestMarkdownReport(t *testing.T) {
	rep := &report{Server: "-- ./server <stdio>", started: time.Now()}
	rep.add(servercheck.Result{Name: "ping", Status: servercheck.Pass})
	rep.add(servercheck.Result{Name: "tools/calls/x", Status: servercheck.Fail, Detail: "called x <b>\n```\nnot closed",
		Transcript: []string{`→ {"method":"tools/call"}`}})
	rep.add(servercheck.Result{Name: "tools/names", Status: servercheck.Warn, Detail: "a b"})
	rep.add(servercheck.Result{Name: "resources/list", Status: servercheck.Skip})
	var b strings.Builder
	require.NoError(t, writeMarkdown(&b, rep))
	md := b.String()
	assert.Contains(t, md, "## mcptestkit check: \\-\\- \\./server \\<stdio\\>\n")
	assert.Contains(t, md, "| ✅ passed | 1 |\n| ❌ failed | 1 |\n| ⚠️ warned (counted as passed) | 1 |\n| ⏭️ skipped | 1 |\n")
	assert.Contains(t, md, "### Failures\n\n<details><summary>❌ <code>tools/calls/x</code>: called x &lt;b&gt;</summary>\n\n````\ncalled x <b>\n```\nnot closed\n\nmessages")
	assert.Contains(t, md, "### Warnings\n\n<details><summary>⚠️ <code>tools/names</code>: a b</summary>")
	assert.Equal(t, 2, strings.Count(md, "</details>"))
}
