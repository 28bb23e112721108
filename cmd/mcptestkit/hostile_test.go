package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Text a server controls reaches the terminal escaped, from every command,
// on stdout and on stderr, and a newline inside one field does not break
// the layout.
func TestHostileText(t *testing.T) {
	srv := hostileServer(t)
	env := []string{hostileEnv + "=text"}
	script := filepath.Join(t.TempDir(), "script.json")
	require.NoError(t, os.WriteFile(script, []byte(`[{"tool": "echo", "arguments": {"text": "hi"}}, {"tool": "fail"}]`), 0o644))
	golden := filepath.Join(t.TempDir(), "hostile.golden")
	const visible = `\x1b]0;pwned\x07\x1b[2J\x1b]8;;https://evil.example/\x1b\click\x1b]8;;\x1b\\rFAKE\x00\x7f\u009b31m\u202eok`

	r := mcptestkit(t, env, "list", "--", srv)
	assertPrintable(t, r)
	require.Equal(t, exitOK, r.code, "%s", r)
	assert.Equal(t, visible+" "+visible+", protocol 2025-11-25\n", firstLine(r.stdout)+"\n")
	assert.Regexp(t, `(?m)^Tools \(3\):\n  two\\nlines\\x1b\S* +\\x1b.*\n  echo +echoes \\x1b.*\n  fail  `, r.stdout)
	assert.Equal(t, 15, strings.Count(r.stdout, "\n"), "one line per tool, resource, template and prompt:\n%s", r.stdout)

	r = mcptestkit(t, env, "check", "--fuzz-calls", "2", "-v", "--", srv)
	assertPrintable(t, r)
	require.Equal(t, exitFail, r.code, "%s", r)
	assert.Contains(t, r.stdout, `got JSON-RPC error -32601 "resources/read \x1b]0;pwned\a`) // the check's own %q
	assert.Contains(t, r.stdout, "      read file:///"+visible+", which resources/list lists")
	assert.Regexp(t, `(?m)^        ← .*\\u001b\]0;pwned\\u0007`, r.stdout) // the transcript, JSON as sent
	for _, l := range strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n") {
		assert.Regexp(t, `^(|Checking .*|(PASS|FAIL|SKIP|WARN)  \S.*|      .*|\d+ check\(s\) warned, .*|\d+ passed, \d+ failed.*)$`, l, "a line the report did not lay out")
	}

	r = mcptestkit(t, env, "call", "echo", "text=hi", "--", srv)
	assertPrintable(t, r)
	require.Equal(t, exitFail, r.code, "%s", r)
	var res struct {
		Content []struct{ Text, MIMEType string }
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &res), r.stdout)
	require.Len(t, res.Content, 2)
	assert.Equal(t, evil, res.Content[0].Text, "the JSON means what the server sent")
	assert.Equal(t, "image/"+evil, res.Content[1].MIMEType)

	r = mcptestkit(t, env, "call", "fail", "--", srv)
	assertPrintable(t, r)
	require.Equal(t, exitFail, r.code, "%s", r)
	assert.True(t, strings.HasPrefix(r.stderr, `mcptestkit call: tools/call "fail": error -32000: `+visible+" ("), r.stderr)

	r = mcptestkit(t, env, "call", "--task", "echo", "text=hi", "--", srv)
	assertPrintable(t, r)
	require.Equal(t, exitFail, r.code, "%s", r)
	assert.Equal(t, "task task-"+visible+" working: "+visible+"\ntask task-"+visible+" completed: done\\n"+visible+"\n", r.stderr)

	r = mcptestkit(t, env, "record", "--script", script, "--", srv)
	assertPrintable(t, r)
	require.Equal(t, exitOK, r.code, "%s", r)
	var rec session
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &rec), r.stdout)
	assert.Equal(t, evil, rec.Server)

	r = mcptestkit(t, env, "record", "--script", script, "-o", golden, "--", srv)
	assertPrintable(t, r)
	require.Equal(t, exitOK, r.code, "%s", r)
	data, err := os.ReadFile(golden)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(golden, []byte(strings.ReplaceAll(string(data), "echoes", "echoed")), 0o644))
	r = mcptestkit(t, env, "replay", golden, "--", srv)
	assertPrintable(t, r)
	require.Equal(t, exitFail, r.code, "%s", r)
	assert.Contains(t, r.stdout, "\n"+`-      "description": "echoed \u001b]0;pwned\u0007`)

	// A server that dies at once: its stderr, quoted in the error, escaped.
	r = mcptestkit(t, []string{hostileEnv + "=exit"}, "list", "--", srv)
	assertPrintable(t, r)
	require.Equal(t, exitUsage, r.code, "%s", r)
	assert.Contains(t, r.stderr, "stderr ends with:\nstarting "+visible+"\nconfig: "+visible+"\n")
}

// A server whose tools/list never ends: every command that lists returns,
// with the client's error (its page bound) and not the command's usage.
// This needs the page bound of the client's list-all functions.
func TestEndlessPages(t *testing.T) {
	srv := hostileServer(t)
	for _, args := range [][]string{{"list"}, {"record"}, {"call", "t1", "x=1"}} {
		t.Run(args[0], func(t *testing.T) {
			t.Parallel()
			r := mcptestkitWithin(t, 30*time.Second, []string{hostileEnv + "=pages"}, append(args, "--", srv)...)
			assert.Contains(t, []int{exitFail, exitUsage}, r.code, "%s", r)
			assert.Regexp(t, `^mcptestkit `+args[0]+`: .*tools/list`, r.stderr)
			assert.NotContains(t, r.stderr, "Usage:")
		})
	}
}

// A tools/list that fails while call types its key=value arguments is the
// server's failure (exit status 1), not bad usage.
func TestCallListFails(t *testing.T) {
	r := mcptestkit(t, []string{hostileEnv + "=nolist"}, "call", "echo", "text=hi", "--", hostileServer(t))
	assert.Equal(t, exitFail, r.code, "%s", r)
	assert.Equal(t, "mcptestkit call: reading tools/list to type the arguments: tools/list: error -32603: the catalog is down\n", r.stderr)
}

// assertPrintable fails if what the command wrote holds a character a
// terminal acts on, other than the newlines and tabs of its layout.
func assertPrintable(t *testing.T, r result) {
	t.Helper()
	for name, out := range map[string]string{"stdout": r.stdout, "stderr": r.stderr} {
		if !utf8.ValidString(out) {
			t.Errorf("%s is not UTF-8:\n%q", name, out)
		}
		for i, c := range out {
			// C0 and C1 controls, DEL, and the bidirectional overrides and isolates
			if c != '\n' && c != '\t' && (c < 0x20 || 0x7f <= c && c <= 0x9f || 0x202a <= c && c <= 0x202e || 0x2066 <= c && c <= 0x2069) {
				t.Errorf("%s has a raw %U at byte %d: %q", name, c, i, out[max(0, i-60):min(len(out), i+60)])
				break
			}
		}
	}
}

// hostileServer returns the command line of the hostile server: the test
// binary itself (TestMain serves it when hostileEnv is set).
func hostileServer(t testing.TB) string {
	t.Helper()
	self, err := os.Executable()
	require.NoError(t, err)
	return self
}

// The hostile server: a stdio MCP server written against the wire, so that
// it can send what no SDK would. TestMain serves it when the test binary
// runs with hostileEnv set to a mode: the tests name the test binary itself
// as the server (-- os.Executable()).
//
//	text   control characters in every string a person may see: names,
//	       descriptions, the server's name, URIs, an image's mimeType, errors,
//	       task statuses, its stderr
//	exit   evil on stderr, then exit 3 before answering anything
//	pages  every tools/list page hands out a new nextCursor, at once
//	nolist tools/list fails
//	big    every tool call answered with a 10 MB text
//	slow   100 tools, each call answered after 300ms
//	slowgen  the same after "fast" and "heavy", whose arguments take seconds
//	       to generate
const hostileEnv = "MCPTESTKIT_HOSTILE"

// evil is what a terminal obeys: a window title (OSC 0 ... BEL), clear
// screen (CSI 2J), an OSC 8 link, a carriage return that would overwrite
// the line, NUL, DEL, an 8-bit CSI (U+009B) and a right-to-left override.
const evil = "\x1b]0;pwned\a\x1b[2J\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\\rFAKE\x00\x7f\u009b31m\u202eok"

const hostileTime = "2026-01-01T00:00:00Z"

func serveHostile(mode string) int {
	if mode == "exit" {
		fmt.Fprintf(os.Stderr, "starting %s\nconfig: %s\n", evil, evil)
		return 3
	}
	fmt.Fprintf(os.Stderr, "hostile server %s\n", evil)
	h := &hostile{mode: mode, out: bufio.NewWriter(os.Stdout)}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 16<<20)
	for in.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(in.Bytes(), &req) != nil || len(req.ID) == 0 {
			continue // a notification, a response, or garbage: nothing to answer
		}
		if mode == "big" && req.Method == "tools/call" {
			// A 10 MB result, in lines of every printable ASCII character.
			var b strings.Builder
			for b.Len() < 10<<20 {
				for c := byte(' '); c <= '~'; c++ {
					b.WriteByte(c)
				}
				b.WriteString("\n")
			}
			h.answer(req.ID, map[string]any{"content": []any{map[string]any{"type": "text", "text": b.String()}}})
			continue
		}
		if mode == "slow" && req.Method == "tools/call" {
			go func() {
				time.Sleep(300 * time.Millisecond)
				h.answer(req.ID, h.handle(req.Method, req.Params))
			}()
			continue
		}
		h.answer(req.ID, h.handle(req.Method, req.Params))
	}
	return 0
}

type hostile struct {
	mode  string
	mu    sync.Mutex
	out   *bufio.Writer
	pages int
}

// rpcError is a JSON-RPC error to answer with.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (h *hostile) answer(id json.RawMessage, v any) {
	msg := map[string]any{"jsonrpc": "2.0", "id": id}
	if e, ok := v.(rpcError); ok {
		msg["error"] = e
	} else {
		msg["result"] = v
	}
	b, _ := json.Marshal(msg)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.out.Write(append(b, '\n'))
	h.out.Flush()
}

func (h *hostile) handle(method string, params json.RawMessage) any {
	var p struct {
		Name   string          `json:"name"`
		Cursor string          `json:"cursor"`
		Task   json.RawMessage `json:"task"`
		TaskID string          `json:"taskId"`
	}
	_ = json.Unmarshal(params, &p)
	text := h.mode == "text"
	switch method {
	case "initialize":
		caps := map[string]any{"tools": map[string]any{}}
		name := "hostile"
		if text {
			name = evil
			caps["resources"] = map[string]any{}
			caps["prompts"] = map[string]any{}
			caps["tasks"] = map[string]any{"requests": map[string]any{"tools": map[string]any{"call": map[string]any{}}}}
		}
		return map[string]any{"protocolVersion": "2025-11-25", "capabilities": caps,
			"serverInfo": map[string]any{"name": name, "version": name}, "instructions": name}
	case "ping":
		return map[string]any{}
	case "tools/list":
		if h.mode == "nolist" {
			return rpcError{-32603, "the catalog is down"}
		}
		return h.tools(p.Cursor)
	case "tools/call":
		switch {
		case h.mode == "slow" || h.mode == "slowgen":
			return map[string]any{"content": []any{map[string]any{"type": "text", "text": "done"}}}
		case p.Name == "fail":
			return rpcError{-32000, evil}
		case len(p.Task) > 0:
			return map[string]any{"task": hostileTask("working", evil)}
		}
		return hostileResult()
	case "tasks/get":
		return hostileTask("completed", "done\n"+evil)
	case "tasks/result":
		return hostileResult()
	case "resources/list":
		return map[string]any{"resources": []any{map[string]any{"uri": "file:///" + evil, "name": evil, "mimeType": evil}}}
	case "resources/templates/list":
		return map[string]any{"resourceTemplates": []any{map[string]any{"uriTemplate": "file:///{x}" + evil, "name": evil, "mimeType": evil}}}
	case "prompts/list":
		return map[string]any{"prompts": []any{map[string]any{"name": evil, "description": evil,
			"arguments": []any{map[string]any{"name": evil, "required": true}}}}}
	}
	return rpcError{-32601, method + " " + evil}
}

func (h *hostile) tools(cursor string) any {
	object := map[string]any{"type": "object"}
	switch h.mode {
	case "pages":
		h.pages++
		return map[string]any{"tools": []any{map[string]any{"name": "t" + strconv.Itoa(h.pages), "inputSchema": object}},
			"nextCursor": "page-" + strconv.Itoa(h.pages)}
	case "slow", "slowgen":
		var tools []any
		if h.mode == "slowgen" {
			// Arguments for "heavy" take the generator seconds to make.
			heavy := map[string]any{"type": "object", "required": []any{"a"}, "properties": map[string]any{
				"a": map[string]any{"type": "array", "minItems": 2000000, "items": map[string]any{"type": "string"}}}}
			tools = append(tools, map[string]any{"name": "fast", "inputSchema": object}, map[string]any{"name": "heavy", "inputSchema": heavy})
		}
		for i := range 100 {
			tools = append(tools, map[string]any{"name": fmt.Sprintf("slow_%03d", i), "description": "answers after 300ms", "inputSchema": object})
		}
		return map[string]any{"tools": tools}
	}
	text := map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}}
	return map[string]any{"tools": []any{
		map[string]any{"name": "two\nlines" + evil, "description": evil + "\nsecond line", "inputSchema": object},
		map[string]any{"name": "echo", "description": "echoes " + evil, "inputSchema": text, "execution": map[string]any{"taskSupport": "optional"}},
		map[string]any{"name": "fail", "description": strings.Repeat(evil, 3), "inputSchema": object},
	}}
}

func hostileTask(status, msg string) map[string]any {
	return map[string]any{"taskId": "task-" + evil, "status": status, "statusMessage": msg,
		"createdAt": hostileTime, "lastUpdatedAt": hostileTime, "ttl": 60000, "pollInterval": 10}
}

func hostileResult() map[string]any {
	return map[string]any{"isError": true, "content": []any{
		map[string]any{"type": "text", "text": evil},
		map[string]any{"type": "image", "data": "AAAA", "mimeType": "image/" + evil},
	}}
}
