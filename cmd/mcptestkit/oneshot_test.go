package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestList(t *testing.T) {
	r := mcptestkit(t, nil, "list")
	require.Equal(t, exitOK, r.code, "%s", r)
	assert.Contains(t, r.stdout, "Bookshop v1.0.0, protocol 2026-07-28\n")
	assert.Regexp(t, `(?m)^Tools \(2\):\n  books_by_author +List the books`, r.stdout)
	assert.Regexp(t, `(?m)^  books://\{title\} +book +text/plain$`, r.stdout)
	assert.Regexp(t, `(?m)^  recommend\(title\*\) +Ask for books`, r.stdout)

	r = mcptestkit(t, []string{"STDIOSERVER_BROKEN=1"}, "list", "--", serverBinary(t))
	require.Equal(t, exitOK, r.code, "%s", r)
	assert.Equal(t, "broken 0.0.1, protocol 2026-07-28\n\nTools (1):\n  explode  \n\nNot offered (not in the server's capabilities): resources, prompts\n", r.stdout)

	// The same server over stdio, as JSON, at a pinned legacy version.
	r = mcptestkit(t, nil, "list", "--format", "json", "--version", "2025-06-18", "--", serverBinary(t))
	require.Equal(t, exitOK, r.code, "%s", r)
	var s session
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &s), r.stdout)
	assert.Equal(t, "2025-06-18", s.ProtocolVersion)
	assert.Equal(t, "Bookshop", s.Server)
	require.Len(t, s.Tools, 2)
	assert.JSONEq(t, `{"type":"object","required":["title"],"properties":{"title":{"type":"string","description":"the exact title of the book"}},"additionalProperties":false}`,
		string(findTool(s, "get_author").InputSchema))
}

func TestCall(t *testing.T) {
	r := mcptestkit(t, nil, "call", "get_author", "title=Dune")
	require.Equal(t, exitOK, r.code, "%s", r)
	var res struct {
		Content []struct{ Type, Text string }
		IsError bool
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &res), r.stdout)
	require.Len(t, res.Content, 1)
	assert.Equal(t, "Frank Herbert", res.Content[0].Text)

	// A tool error: printed, exit status 1.
	r = mcptestkit(t, nil, "call", "--json", `{"title": "Nothing"}`, "get_author", "--", serverBinary(t))
	require.Equal(t, exitFail, r.code, "%s", r)
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &res), r.stdout)
	assert.True(t, res.IsError)
	assert.Equal(t, `No book titled "Nothing" in the catalog.`, res.Content[0].Text)

	// A JSON-RPC error: on stderr with its code, exit status 1.
	r = mcptestkit(t, nil, "call", "no_such_tool")
	require.Equal(t, exitFail, r.code, "%s", r)
	assert.Contains(t, r.stderr, `mcptestkit call: tools/call "no_such_tool"`)
	assert.Contains(t, r.stderr, "-32602")
	assert.Empty(t, r.stdout)
}

// key=value is typed by the tool's input schema: "1984" stays a string for a
// string property; key:=JSON gives any value.
func TestToolArgumentsTyping(t *testing.T) {
	r := mcptestkit(t, nil, "call", "get_author", "title=1984")
	require.Equal(t, exitFail, r.code, "%s", r)
	assert.Contains(t, r.stdout, `No book titled \"1984\"`)

	// A number where the schema wants a string: the server's schema
	// validation rejects it as a tool error.
	r = mcptestkit(t, nil, "call", "get_author", "title:=1984")
	require.Equal(t, exitFail, r.code, "%s", r)
	assert.Contains(t, r.stdout, `validating`)
	assert.Contains(t, r.stdout, `"isError": true`)
}

func TestIsStringType(t *testing.T) {
	for typ, want := range map[string]bool{`"string"`: true, `["string","null"]`: true, `"integer"`: false, `["string","integer"]`: false, `null`: false} {
		var v any
		require.NoError(t, json.Unmarshal([]byte(typ), &v))
		assert.Equal(t, want, isStringType(v), typ)
	}
}

// A session recorded from the Bookshop in process replays clean against
// the same server over stdio, fails with a diff when the recording no
// longer matches, and fails against another server.
func TestRecordReplay(t *testing.T) {
	golden := filepath.Join(t.TempDir(), "session.golden")
	r := mcptestkit(t, nil, "record", "--script", "testdata/script.json", "-o", golden)
	require.Equal(t, exitOK, r.code, "%s", r)
	assert.Equal(t, "recorded "+golden+": 2 tool(s), 0 resource(s), 1 template(s), 1 prompt(s), 5 step(s)\n", r.stderr)
	data, err := os.ReadFile(golden)
	require.NoError(t, err)
	rec := string(data)
	// Normalised as mcptest's golden files are: no stamps, no cache hints.
	assert.NotContains(t, rec, "io.modelcontextprotocol/")
	assert.NotContains(t, rec, "cacheScope")
	assert.NotContains(t, rec, `"version"`)
	assert.Contains(t, rec, `"text": "Neuromancer by William Gibson"`)
	assert.Contains(t, rec, `"code": -32602`)
	assert.Contains(t, rec, `"uri": "books://Nothing"`)

	r = mcptestkit(t, nil, "replay", golden, "--", serverBinary(t))
	require.Equal(t, exitOK, r.code, "%s", r)
	assert.Equal(t, golden+": the server answers as recorded (5 step(s))\n", r.stdout)

	// The recording on stdout is the same document.
	r = mcptestkit(t, nil, "record", "--script", "testdata/script.json")
	require.Equal(t, exitOK, r.code, "%s", r)
	assert.Equal(t, rec, r.stdout)

	// An answer changed: exit status 1 and the difference.
	edited := filepath.Join(t.TempDir(), "edited.golden")
	require.NoError(t, os.WriteFile(edited, bytes.Replace(data, []byte("William Gibson"), []byte("W. Gibson"), 1), 0o644))
	r = mcptestkit(t, nil, "replay", edited)
	require.Equal(t, exitFail, r.code, "%s", r)
	assert.Contains(t, r.stdout, edited+": the server's answers differ from the recording:\n--- "+edited+" (recorded)\n+++ the bundled Bookshop")
	assert.Contains(t, r.stdout, "\n-            \"text\": \"Neuromancer by W. Gibson\",\n+            \"text\": \"Neuromancer by William Gibson\",\n")

	// Another server: its lists differ, and a step's tool is unknown.
	r = mcptestkit(t, []string{"STDIOSERVER_BROKEN=1"}, "replay", golden, "--", serverBinary(t))
	require.Equal(t, exitFail, r.code, "%s", r)
	assert.Contains(t, r.stdout, "\n-  \"server\": \"Bookshop\",\n")
	assert.Contains(t, r.stdout, "\n+  \"server\": \"broken\",\n")
	assert.Contains(t, r.stdout, "+        \"message\": \"unknown tool \\\"get_author\\\"\"\n")
}

// A server that dies during a replayed step fails the replay (exit 1):
// that is a regression, not a connection problem.
func TestReplayServerDies(t *testing.T) {
	golden := filepath.Join(t.TempDir(), "explode.golden")
	require.NoError(t, os.WriteFile(golden, []byte(`{"protocolVersion": "2025-11-25", "server": "broken", "capabilities": {},
		"steps": [{"tool": "explode", "arguments": {"fuse": "short"}, "result": {"content": []}}]}`), 0o644))
	r := mcptestkit(t, []string{"STDIOSERVER_BROKEN=1"}, "replay", golden, "--", serverBinary(t))
	require.Equal(t, exitFail, r.code, "%s", r)
	assert.Contains(t, r.stderr, `mcptestkit replay: the session broke off: tool "explode": tools/call "explode"`)
	assert.Contains(t, r.stderr, "server process exited")
}

// Bad usage: exit status 2, a message naming what was wrong, and the
// command's usage. These run in the test's process.
func TestUsageErrors(t *testing.T) {
	script := filepath.Join(t.TempDir(), "bad.json")
	require.NoError(t, os.WriteFile(script, []byte(`[{"tool": "a", "resource": "b"}]`), 0o644))
	notSession := filepath.Join(t.TempDir(), "x.golden")
	require.NoError(t, os.WriteFile(notSession, []byte(`[1, 2]`), 0o644))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "mcptestkit checks, calls and records MCP servers."},
		{[]string{"frobnicate"}, `mcptestkit: unknown command "frobnicate"`},
		{[]string{"check", "--bogus"}, "mcptestkit check: flag provided but not defined: -bogus"},
		{[]string{"check", "--format", "xml"}, `--format "xml": use text, json, sarif or markdown`},
		{[]string{"check", "--fuzz-calls", "-1"}, "--fuzz-calls -1: give 0 or more"},
		{[]string{"check", "--run", "tools/("}, `pattern "tools/(": error parsing regexp`},
		{[]string{"check", "--version", "2099-01-01"}, `--version "2099-01-01" is not a protocol version mcptestkit speaks; use one of 2026-07-28,`},
		{[]string{"check", "--timeout", "0s"}, "--timeout 0s: give a positive duration"},
		{[]string{"check", "server.py"}, `unexpected argument "server.py": a server URL starts with http:// or https://, a server command goes after --`},
		{[]string{"check", "--"}, `no server command after "--"`},
		{[]string{"check", "http://a/mcp", "http://b/mcp"}, "two server URLs, http://a/mcp and http://b/mcp: give one"},
		{[]string{"check", "http://a/mcp", "--", "./srv"}, `both a URL (http://a/mcp) and a command after "--" (./srv): give one server`},
		{[]string{"check", "--header", "X-Key: 1", "--", "./srv"}, "--header applies to a server URL"},
		{[]string{"check", "--header", "no colon", "http://a/mcp"}, `--header "no colon": write it as "Name: value"`},
		{[]string{"check", "--junit", "/nonexistent/dir/r.xml"}, "--junit: open /nonexistent/dir/r.xml: no such file or directory"},
		{[]string{"call"}, "name the tool to call (mcptestkit list shows them)"},
		{[]string{"call", "t", "x=1", "--json", "{}"}, "give the arguments either as key=value or with --json, not both"},
		{[]string{"call", "t", "--json", "[1]"}, "--json [1]: not a JSON object"},
		{[]string{"call", "t", "novalue"}, `argument "novalue": write it as key=value or key:=JSON`},
		{[]string{"list", "extra"}, `unexpected argument "extra"`},
		{[]string{"record", "--script", script}, `step 1: give exactly one of "tool", "resource" and "prompt"`},
		{[]string{"record", "--script", "/nonexistent.json"}, "--script: open /nonexistent.json"},
		{[]string{"replay"}, "give the recorded session's file (and the server), got 0 argument(s)"},
		{[]string{"replay", notSession}, "is not a session recorded by mcptestkit record"},
		{[]string{"help", "nope"}, `mcptestkit help: unknown command "nope"`},
	} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), tc.args, terminal{stdout: &stdout, stderr: &stderr})
		assert.Equal(t, exitUsage, code, "%q", tc.args)
		assert.Contains(t, stderr.String(), tc.want, "%q", tc.args)
		if len(tc.args) > 0 && lookup(tc.args[0]) != nil {
			assert.Contains(t, stderr.String(), "Usage: mcptestkit "+tc.args[0], "%q: the command's usage follows the error", tc.args)
		}
		assert.Empty(t, stdout.String(), "%q", tc.args)
	}
}

func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"--help"}, {"help", "check"}, {"check", "-h"}, {"call", "--help"}} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), args, terminal{stdout: &stdout, stderr: &stderr})
		assert.Equal(t, exitOK, code, "%q", args)
		assert.Contains(t, stdout.String(), "Usage:", "%q", args)
		assert.Empty(t, stderr.String(), "%q", args)
	}
	var stdout bytes.Buffer
	run(context.Background(), []string{"help", "check"}, terminal{stdout: &stdout, stderr: &stdout})
	for _, flag := range []string{"-format", "-junit", "-skip", "-run", "-fuzz-calls", "-timeout", "-version", "-header"} {
		assert.Contains(t, stdout.String(), "  "+flag+" ", "check's usage lists %s", flag)
	}
}

// Flags may come after positional arguments; everything after -- is the
// server's, flags included.
func TestParseArgs(t *testing.T) {
	fs, conn, _ := lookup("call").newFlags()
	pos, cmdline, err := parseArgs(fs, []string{"get_author", "--timeout", "3s", "title=Dune", "--", "srv", "--timeout", "9s"})
	require.NoError(t, err)
	assert.Equal(t, []string{"get_author", "title=Dune"}, pos)
	assert.Equal(t, []string{"srv", "--timeout", "9s"}, cmdline)
	assert.Equal(t, "3s", conn.timeout.String())
}

func TestShellQuote(t *testing.T) {
	assert.Equal(t, `python server.py --name 'my shop' 'it'\''s'`, shellQuote([]string{"python", "server.py", "--name", "my shop", "it's"}))
}

func TestTextReportColour(t *testing.T) {
	var out strings.Builder
	tr := newTextReport(terminal{stdout: &out, stderr: &out, color: true}, false)
	tr.check(checkResult{Name: "ping", Status: "pass"})
	tr.check(checkResult{Name: "tools/calls/x", Status: "fail", Detail: "boom", Transcript: []string{"→ " + strings.Repeat("x", 500)}})
	tr.summary(&report{Passed: 1, Failed: 1})
	assert.Contains(t, out.String(), ansiGreen+"PASS"+ansiReset+"  ping\n")
	assert.Contains(t, out.String(), ansiRed+ansiBold+"FAIL"+ansiReset)
	assert.Contains(t, out.String(), "… (264 bytes more)")
	assert.Contains(t, out.String(), "1 passed, "+ansiRed+ansiBold+"1 failed"+ansiReset+" in 0.0s\n")
}

func findTool(s session, name string) *struct{ InputSchema json.RawMessage } {
	for _, tl := range s.Tools {
		if tl.Name == name {
			return &struct{ InputSchema json.RawMessage }{tl.InputSchema}
		}
	}
	return &struct{ InputSchema json.RawMessage }{json.RawMessage("null")}
}

// A malformed step, in a script or a recorded session, is bad usage that
// names the step; none crashes the command.
func TestMalformedSteps(t *testing.T) {
	dir := t.TempDir()
	for i, tc := range []struct {
		steps, want string
	}{
		{`[null]`, `step 1 is null: give an object with "tool", "resource" or "prompt"`},
		{`[{"tool": "get_author"}, null]`, "step 2 is null"},
		{`[1]`, "step 1: 1 is not a step such as"},
		{`["get_author"]`, `step 1: "get_author" is not a step such as`},
		{`[[]]`, "step 1: [] is not a step such as"},
		{`[{}]`, `step 1: give exactly one of "tool", "resource" and "prompt"`},
		{`[{"tool": 5}]`, `step 1: {"tool": 5} is not a step such as`},
		{`[{"tool": ""}]`, `step 1: give exactly one of "tool", "resource" and "prompt"`},
		{`[{"tool": "a", "arguments": [1]}]`, `step 1: "arguments" must be a JSON object, not [1]`},
		{`[{"tool": "a", "arguments": null}]`, `step 1: "arguments" must be a JSON object, not null`},
		{`[{"resource": "r", "arguments": {}}]`, `step 1: a resource step takes no "arguments"`},
		{`[{"prompt": "p", "arguments": {"n": 1}}]`, `step 1: a prompt's "arguments" are strings`},
		{`[{"tool": "a"}, {"tool": "b", "error": 5}]`, "step 2: "},
	} {
		script := filepath.Join(dir, fmt.Sprintf("script%d.json", i))
		require.NoError(t, os.WriteFile(script, []byte(tc.steps), 0o644))
		session := filepath.Join(dir, fmt.Sprintf("session%d.golden", i))
		require.NoError(t, os.WriteFile(session, []byte(`{"protocolVersion": "2025-11-25", "server": "x", "capabilities": {}, "steps": `+tc.steps+`}`), 0o644))
		for _, args := range [][]string{{"record", "--script", script}, {"replay", session}} {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), args, terminal{stdout: &stdout, stderr: &stderr})
			assert.Equal(t, exitUsage, code, "%s %s", args[0], tc.steps)
			assert.Contains(t, stderr.String(), tc.want, "%s %s", args[0], tc.steps)
			assert.Empty(t, stdout.String(), "%s %s", args[0], tc.steps)
		}
	}
	// Not an array at all.
	for _, bad := range []string{`null`, `{"tool": "a"}`, `3`} {
		script := filepath.Join(dir, "whole.json")
		require.NoError(t, os.WriteFile(script, []byte(bad), 0o644))
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), []string{"record", "--script", script}, terminal{stdout: &stdout, stderr: &stderr})
		assert.Equal(t, exitUsage, code, bad)
		assert.Contains(t, stderr.String(), "not a JSON array of steps", bad)
	}
}

// Issue 30.15: replay compares the lists in any order (the protocol gives
// their order no meaning), and --ignore leaves out a field that changes
// from run to run.
func TestReplayMatching(t *testing.T) {
	golden := filepath.Join(t.TempDir(), "session.golden")
	r := mcptestkit(t, nil, "record", "--script", "testdata/script.json", "-o", golden)
	require.Equal(t, exitOK, r.code, "%s", r)
	data, err := os.ReadFile(golden)
	require.NoError(t, err)
	var rec map[string]any
	require.NoError(t, json.Unmarshal(data, &rec))
	tools := rec["tools"].([]any)
	require.Greater(t, len(tools), 1)
	slices.Reverse(tools)
	step := rec["steps"].([]any)[0].(map[string]any)["result"].(map[string]any)
	step["_meta"] = map[string]any{"recordedAt": "2026-12-04T10:00:00Z"}
	edited, err := json.MarshalIndent(rec, "", "  ")
	require.NoError(t, err)
	file := filepath.Join(t.TempDir(), "edited.golden")
	require.NoError(t, os.WriteFile(file, edited, 0o644))

	r = mcptestkit(t, nil, "replay", file)
	require.Equal(t, exitFail, r.code, "%s", r)
	assert.Contains(t, r.stdout, `-          "recordedAt": "2026-12-04T10:00:00Z"`)
	assert.NotContains(t, r.stdout, `"name": "get_author"`, "the tools in another order are no difference")

	for _, ignore := range [][]string{{"--ignore", "recordedAt"}, {"--ignore", "x, recordedAt"}} {
		r = mcptestkit(t, nil, append(append([]string{"replay"}, ignore...), file)...)
		require.Equal(t, exitOK, r.code, "%s", r)
		assert.Equal(t, file+": the server answers as recorded (5 step(s))\n", r.stdout)
	}
}
