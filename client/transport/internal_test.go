package transport

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEncodeHeaderValue(t *testing.T) {
	cases := map[string]string{
		"eu-west-1":         "eu-west-1",
		"":                  "",
		"two words":         "two words",
		"tab\tinside":       "tab\tinside",
		" leading":          "=?base64?IGxlYWRpbmc=?=",
		"trailing\t":        "=?base64?dHJhaWxpbmcJ?=",
		"Zürich":            "=?base64?WsO8cmljaA==?=",
		"line\nbreak":       "=?base64?bGluZQpicmVhaw==?=",
		"=?base64?abc?=":    "=?base64?PT9iYXNlNjQ/YWJjPz0=?=", // looks encoded: encode it
		"=?base64?abc":      "=?base64?abc",
		"\x7f":              "=?base64?fw==?=",
		"ok ~!@#$%^&*()_+=": "ok ~!@#$%^&*()_+=",
	}
	for in, want := range cases {
		assert.Equal(t, want, encodeHeaderValue(in), "%q", in)
	}
}

func TestHeaderValueOf(t *testing.T) {
	cases := []struct {
		raw  string
		want string
		ok   bool
	}{
		{`"x"`, "x", true},
		{`"a\u00e9"`, "aé", true},
		{`true`, "true", true},
		{`false`, "false", true},
		{`42`, "42", true},
		{`-7`, "-7", true},
		{`3.0`, "3", true},
		{`1e3`, "1000", true},
		{`9007199254740991`, "9007199254740991", true},
		{`9007199254740992`, "", false}, // beyond 2^53-1
		{`1.5`, "", false},              // number, not integer
		{`null`, "", false},
		{`{"a":1}`, "", false},
		{`[1]`, "", false},
		{``, "", false},
	}
	for _, c := range cases {
		got, ok := headerValueOf(json.RawMessage(c.raw))
		assert.Equal(t, c.ok, ok, "%s", c.raw)
		assert.Equal(t, c.want, got, "%s", c.raw)
	}
}

func TestToolParamBindings(t *testing.T) {
	valid := `{"type":"object","properties":{
		"region":{"type":"string","x-mcp-header":"Region"},
		"n":{"type":["integer","null"],"x-mcp-header":"N"},
		"deep":{"type":"object","properties":{"flag":{"type":"boolean","x-mcp-header":"Flag"}}},
		"description":{"type":"string","description":"mentions x-mcp-header in prose"}}}`
	b, err := toolParamBindings(json.RawMessage(valid))
	require.NoError(t, err)
	assert.Equal(t, []paramBinding{
		{path: []string{"deep", "flag"}, header: "Flag"},
		{path: []string{"n"}, header: "N"},
		{path: []string{"region"}, header: "Region"},
	}, b)

	b, err = toolParamBindings(json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`))
	require.NoError(t, err)
	assert.Nil(t, b)
	b, err = toolParamBindings(nil)
	require.NoError(t, err)
	assert.Nil(t, b)

	invalid := map[string]string{
		"not a token":        `{"properties":{"a":{"type":"string","x-mcp-header":"A B"}}}`,
		"colon":              `{"properties":{"a":{"type":"string","x-mcp-header":"A:B"}}}`,
		"CRLF":               `{"properties":{"a":{"type":"string","x-mcp-header":"A\r\nX-Evil: 1"}}}`,
		"empty":              `{"properties":{"a":{"type":"string","x-mcp-header":""}}}`,
		"not a string":       `{"properties":{"a":{"type":"string","x-mcp-header":7}}}`,
		"number type":        `{"properties":{"a":{"type":"number","x-mcp-header":"A"}}}`,
		"object type":        `{"properties":{"a":{"type":"object","x-mcp-header":"A"}}}`,
		"no type":            `{"properties":{"a":{"x-mcp-header":"A"}}}`,
		"two primitives":     `{"properties":{"a":{"type":["string","integer"],"x-mcp-header":"A"}}}`,
		"duplicate":          `{"properties":{"a":{"type":"string","x-mcp-header":"Same"},"b":{"type":"string","x-mcp-header":"SAME"}}}`,
		"duplicate nested":   `{"properties":{"a":{"type":"string","x-mcp-header":"S"},"o":{"type":"object","properties":{"b":{"type":"string","x-mcp-header":"s"}}}}}`,
		"under items":        `{"properties":{"a":{"type":"array","items":{"type":"string","x-mcp-header":"A"}}}}`,
		"under anyOf":        `{"properties":{"a":{"anyOf":[{"type":"string","x-mcp-header":"A"}]}}}`,
		"under $defs":        `{"$defs":{"x":{"type":"string","x-mcp-header":"A"}},"properties":{}}`,
		"under patternProps": `{"properties":{"o":{"type":"object","patternProperties":{"^a":{"type":"string","x-mcp-header":"A"}}}}}`,
		"on the root":        `{"type":"object","x-mcp-header":"Root"}`,
		"props under items":  `{"properties":{"a":{"type":"array","items":{"type":"object","properties":{"b":{"type":"string","x-mcp-header":"B"}}}}}}`,
		"not JSON":           `{"properties":{"x-mcp-header"`,
	}
	for name, schema := range invalid {
		_, err := toolParamBindings(json.RawMessage(schema))
		assert.Error(t, err, name)
	}
	_, err = toolParamBindings(json.RawMessage(invalid["duplicate"]))
	assert.ErrorContains(t, err, `repeats the one on property "a"`)
	_, err = toolParamBindings(json.RawMessage(invalid["under items"]))
	assert.ErrorContains(t, err, "not reachable")
}

func TestParamHeaders(t *testing.T) {
	b := []paramBinding{
		{path: []string{"region"}, header: "Region"},
		{path: []string{"o", "n"}, header: "N"},
		{path: []string{"absent"}, header: "Absent"},
		{path: []string{"nil"}, header: "Nil"},
	}
	got := paramHeaders(b, json.RawMessage(`{"region":"Zürich","o":{"n":5},"nil":null}`))
	assert.Equal(t, map[string]string{
		"Mcp-Param-Region": "=?base64?WsO8cmljaA==?=",
		"Mcp-Param-N":      "5",
	}, got)
	assert.Empty(t, paramHeaders(b, json.RawMessage(`"not an object"`)))
	assert.Empty(t, paramHeaders(nil, json.RawMessage(`{"region":"x"}`)))
}

func readAllEvents(t *testing.T, r *sseReader) []string {
	t.Helper()
	var out []string
	for {
		d, err := r.next()
		if errors.Is(err, io.EOF) {
			return out
		}
		require.NoError(t, err)
		out = append(out, string(d))
	}
}

func TestSSEReader(t *testing.T) {
	stream := ": comment, a keep-alive\n" +
		"id: 1\nretry: 250\ndata: \n\n" + // priming: no message, but id and retry count
		"data: {\"a\":1}\n\n" +
		"event: message\r\ndata: {\"b\":\r\ndata: 2}\r\n\r\n" + // CRLF, two data lines
		"event: endpoint\ndata: /elsewhere\n\n" + // not a message
		"id: with\x00nul\ndata:{\"c\":3}\n\n" + // an id with NUL is ignored; no space after the colon is fine
		"retry: soon\ndata\n\n" + // a bad retry is ignored; a bare field name has an empty value
		"id: 9\ndata: {\"unfinished\":true}\n" // the stream ends mid-event: discarded
	r := newSSEReader(strings.NewReader(stream), 1<<20)
	assert.Equal(t, []string{`{"a":1}`, "{\"b\":\n2}", `{"c":3}`}, readAllEvents(t, r))
	assert.Equal(t, "1", r.lastID, "the id of the last dispatched event; the unfinished one does not count")
	assert.True(t, r.retrySet)
	assert.Equal(t, 250*time.Millisecond, r.retry)

	big := newSSEReader(strings.NewReader("data: "+strings.Repeat("x", 100)+"\n\n"), 50)
	_, err := big.next()
	var tooLarge errEventTooLarge
	assert.ErrorAs(t, err, &tooLarge)

	split := newSSEReader(strings.NewReader("data: {\"x\":\ndata: "+strings.Repeat("y", 50)+"\n\n"), 50)
	_, err = split.next()
	assert.ErrorAs(t, err, &tooLarge, "the limit counts all data lines of an event")
}

func TestSSEReaderLineEndings(t *testing.T) {
	// The event-stream format ends lines with CRLF, LF or a bare CR.
	const events = "id: 7\nretry: 10\ndata: {\"a\":\ndata: 1}\n\n: keep-alive\ndata: {\"b\":2}\n\n"
	for _, eol := range []string{"\n", "\r\n", "\r"} {
		stream := strings.ReplaceAll(events, "\n", eol)
		for name, r := range map[string]io.Reader{
			"whole":        strings.NewReader(stream),
			"byte by byte": iotest.OneByteReader(strings.NewReader(stream)), // CR and LF in separate reads
		} {
			sr := newSSEReader(r, 1<<10)
			assert.Equal(t, []string{"{\"a\":\n1}", `{"b":2}`}, readAllEvents(t, sr), "%q %s", eol, name)
			assert.Equal(t, "7", sr.lastID, "%q %s", eol, name)
			assert.Equal(t, 10*time.Millisecond, sr.retry, "%q %s", eol, name)
		}
	}
	// Mixed endings; CR CR is a line and an empty line, CR LF is one ending.
	sr := newSSEReader(strings.NewReader("data: 1\r\rdata: 2\r\n\ndata: 3\n\r"), 1<<10)
	assert.Equal(t, []string{"1", "2", "3"}, readAllEvents(t, sr))
}

func TestSSEReaderResetKeepsState(t *testing.T) {
	r := newSSEReader(strings.NewReader("id: a\nretry: 5\ndata: {}\n\n"), 1<<10)
	assert.Equal(t, []string{"{}"}, readAllEvents(t, r))
	r.reset(strings.NewReader("data: {\"x\":1}\n\n"))
	assert.Equal(t, []string{`{"x":1}`}, readAllEvents(t, r))
	assert.Equal(t, "a", r.lastID, "a resumed stream continues the old one")
	assert.Equal(t, 5*time.Millisecond, r.retry)
}

func TestReadLine(t *testing.T) {
	// Lines longer than the bufio buffer are assembled; the limit holds.
	long := strings.Repeat("z", 200<<10)
	br := newBufReader(long + "\nshort\nlast-without-newline")
	line, err := readLine(br, 300<<10)
	require.NoError(t, err)
	assert.Equal(t, long, string(line))
	line, err = readLine(br, 300<<10)
	require.NoError(t, err)
	assert.Equal(t, "short", string(line))
	line, err = readLine(br, 300<<10)
	require.NoError(t, err)
	assert.Equal(t, "last-without-newline", string(line))
	_, err = readLine(br, 300<<10)
	assert.ErrorIs(t, err, io.EOF)

	_, err = readLine(newBufReader(long+"\n"), 100<<10)
	assert.ErrorAs(t, err, new(errLineTooLong))
	line, err = readLine(newBufReader("exact\n"), 5)
	require.NoError(t, err)
	assert.Equal(t, "exact", string(line))
	_, err = readLine(newBufReader("exact!\n"), 5)
	assert.ErrorAs(t, err, new(errLineTooLong))
}

func newBufReader(s string) *bufio.Reader {
	return bufio.NewReaderSize(strings.NewReader(s), 64<<10)
}
