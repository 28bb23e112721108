package mcptest

import (
	"strings"
	"testing"

	"github.com/mcptestkit/mcptestkit/client"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/memtransport"
)

func TestCompactTranscriptPrintsEachStampOnce(t *testing.T) {
	t.Parallel()
	c2s, s2c := memtransport.ClientToServer, memtransport.ServerToClient
	const stamps = `"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"mcptestkit","version":"v0"}`
	tr := memtransport.Transcript{Entries: []memtransport.Entry{
		entry(1, c2s, `{"jsonrpc":"2.0","id":6,"method":"tools/list","params":{"_meta":{`+stamps+`}}}`),
		entry(2, s2c, `{"jsonrpc":"2.0","id":6,"result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"probe","version":"v0"}},"ttlMs":0,"cacheScope":"public","tools":[]}}`),
		entry(3, c2s, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"n":3.0},"_meta":{"progressToken":1,`+stamps+`}}}`),
		entry(4, s2c, `{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"probe","version":"v0"}},"ttlMs":0,"cacheScope":"public","content":[{"type":"text","text":"<b>"}]}}`),
		entry(5, c2s, `{"jsonrpc":"2.0","id":8,"method":"tools/list","params":{"_meta":{`+strings.Replace(stamps, `"2026-07-28"`, `"2026-09-01"`, 1)+`}}}`),
		entry(6, s2c, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"no stamps here"}}`),
		entry(7, c2s, `not json`),
	}}
	out := transcriptFormat{head: -1, tail: -1, compact: true}.render(tr)
	lines := strings.Split(out, "\n")
	require.Len(t, lines, 10, out) // header, note, 7 messages, "no response to" id 8
	assert.Equal(t, "\t"+elidedNote, lines[1], "the note comes once, right after the header")
	assert.Contains(t, elidedNote, "go test -v prints every message as sent")
	assert.Equal(t, 1, strings.Count(out, "left out"))
	msg := func(i int) string { _, m, _ := strings.Cut(lines[i+1], "→"); _, m, _ = strings.Cut(m, " "); return m }
	// The first request's stamps are news: it is printed as sent.
	assert.Equal(t, string(tr.Entries[0].Data), msg(1))
	// The first result keeps serverInfo and loses the caching hints.
	assert.Equal(t, `{"jsonrpc":"2.0","id":6,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"probe","version":"v0"}},"tools":[]}}`, msg(2))
	// Repeats are left out; the rest is as sent (ids, numbers, a _meta
	// member of the client's own), the envelope first.
	assert.Equal(t, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":{"progressToken":1},"arguments":{"n":3.0},"name":"echo"}}`, msg(3))
	assert.Equal(t, `{"jsonrpc":"2.0","id":7,"result":{"content":[{"text":"<b>","type":"text"}]}}`, msg(4))
	// A stamp that changes is printed again.
	assert.Equal(t, `{"jsonrpc":"2.0","id":8,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-09-01"}}}`, msg(5))
	assert.Equal(t, string(tr.Entries[5].Data), msg(6))
	assert.Equal(t, "not json", msg(7))

	// Verbatim: every byte as sent, and no note.
	verbatim := renderTranscript(tr, -1, -1, 0)
	for _, e := range tr.Entries {
		assert.Contains(t, verbatim, string(e.Data))
	}
	assert.NotContains(t, verbatim, "compacted")

	// Nothing to leave out: no note.
	plain := memtransport.Transcript{Entries: tr.Entries[5:]}
	assert.NotContains(t, transcriptFormat{head: -1, tail: -1, compact: true}.render(plain), elidedNote)
}

// A failing test prints the compact transcript by default, the verbatim one
// on request; the messages a test gets with WithTranscript are as sent.
func TestFailingTestPrintsTheCompactTranscript(t *testing.T) {
	t.Parallel()
	stamps := []string{`"io.modelcontextprotocol/clientInfo"`, `"io.modelcontextprotocol/serverInfo"`, `"ttlMs"`, `"resultType":"complete"`}
	run := func(opts ...Option) (string, *Transcript) {
		var tr Transcript
		f := runFake(t, func(tb testing.TB) {
			c := Connect(tb, probeServer(), append([]Option{WithProtocolVersion(client.LatestVersion), WithTranscript(&tr)}, opts...)...)
			_, err := c.CallTool(tb.Context(), "echo", map[string]any{"text": "hi"})
			require.NoError(tb, err)
			tb.Errorf("failing on purpose")
		})
		f.expectFailure(t, "failing on purpose", "transcript of the connection")
		return f.output(), &tr
	}

	out, tr := run(withVerbatimTranscript(false)) // the default, unless go test -v
	assert.Contains(t, out, elidedNote)
	// server/discover shows the stamps once; the call repeats none of them.
	assert.Contains(t, out, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"arguments":{"text":"hi"},"name":"echo"}}`)
	assert.Contains(t, out, `{"jsonrpc":"2.0","id":2,"result":{"content":[{"text":"hi","type":"text"}]}}`)
	for _, s := range stamps {
		assert.LessOrEqual(t, strings.Count(out, s), 1, s)
	}
	kept := tr.String()
	for _, s := range stamps {
		assert.Contains(t, kept, s, "WithTranscript keeps every message as sent")
	}

	out, _ = run(withVerbatimTranscript(true))
	assert.NotContains(t, out, elidedNote)
	for _, s := range stamps {
		assert.Contains(t, out, s)
	}
	assert.Equal(t, 2, strings.Count(out, `"io.modelcontextprotocol/clientInfo"`), "in both requests")
}
