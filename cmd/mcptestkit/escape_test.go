package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestEscape(t *testing.T) {
	for _, tc := range []struct {
		in, field, lines string
	}{
		{"plain ünïcödé ✓ 日本語 🎉 \ufffd", "plain ünïcödé ✓ 日本語 🎉 \ufffd", "plain ünïcödé ✓ 日本語 🎉 \ufffd"},
		{"a\tb\nc", `a\tb\nc`, "a\tb\nc"},
		{"line\r\nnext\rover", `line\r\nnext\rover`, "line\nnext\\rover"},
		{"\x1b[2J\x07\x00\x7f", `\x1b[2J\x07\x00\x7f`, `\x1b[2J\x07\x00\x7f`},
		{"\u009b31m \u202eevil\u2069", `\u009b31m \u202eevil\u2069`, `\u009b31m \u202eevil\u2069`},
		{"bad \x9b\xff byte", `bad \x9b\xff byte`, `bad \x9b\xff byte`},
	} {
		assert.Equal(t, tc.field, escape(tc.in, false), "%q", tc.in)
		assert.Equal(t, tc.lines, escape(tc.in, true), "%q", tc.in)
	}
	assert.Equal(t, `{"a": "\u007f\u009b\ufffd ok ✓"}`, string(jsonSafe([]byte("{\"a\": \"\x7f\u009b\xff ok ✓\"}"))))
}

// On a terminal the report keeps its own colours, and only those: a
// check's name, detail and transcript are escaped.
func TestTextReportHostile(t *testing.T) {
	var out strings.Builder
	tr := newTextReport(terminal{stdout: &out, stderr: &out, color: true, progress: true}, true)
	tr.progress("tools/calls/x\x1b[2J", 0)
	tr.check(checkResult{Name: "tools/calls/x\x1b]0;t\a", Status: "fail", Detail: "got \x1b[31mred\r\nFAKE", Transcript: []string{"← \u009b2J"}})
	tr.check(checkResult{Name: "skipped\rPASS", Status: "skip", Detail: "why\x1b[2J\nmore"})
	tr.check(checkResult{Name: "ok", Status: "pass", Detail: "note\x07"})
	got := out.String()
	assert.Contains(t, got, clearLine+`  [0 done] running tools/calls/x\x1b[2J ...`)
	assert.Contains(t, got, ansiRed+ansiBold+"FAIL"+ansiReset+"  "+ansiBold+`tools/calls/x\x1b]0;t\x07`+ansiReset+"\n      got \\x1b[31mred\n      FAKE\n")
	assert.Contains(t, got, ansiDim+`        ← \u009b2J`+ansiReset)
	assert.Contains(t, got, ansiYellow+"SKIP"+ansiReset+`  skipped\rPASS`+ansiDim+` (why\x1b[2J)`+ansiReset+"\n")
	assert.Contains(t, got, ansiDim+`      note\x07`+ansiReset)
	for _, seq := range []string{ansiReset, ansiBold, ansiDim, ansiRed, ansiGreen, ansiYellow, clearLine} {
		got = strings.ReplaceAll(got, seq, "")
	}
	assert.NotContains(t, got, "\x1b", "an escape sequence that is not the report's own")
	assert.NotContains(t, got, "\r")
	assert.NotContains(t, got, "\u009b")
}
