package mcptest

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"

	"github.com/mcptestkit/mcptestkit/memtransport"
)

func entry(seq int, dir memtransport.Direction, data string) memtransport.Entry {
	return memtransport.Entry{Seq: seq, Dir: dir, Data: []byte(data)}
}

// renderTranscript prints tr as a failing test does, without compacting.
func renderTranscript(tr memtransport.Transcript, head, tail, lineMax int) string {
	return transcriptFormat{head: head, tail: tail, lineMax: lineMax}.render(tr)
}

func TestRenderTranscriptCutsTheMiddleOfLongRuns(t *testing.T) {
	t.Parallel()
	var tr memtransport.Transcript
	for i := 1; i <= 100; i++ {
		tr.Entries = append(tr.Entries, entry(i, memtransport.ClientToServer, fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"n":%d}}`, i)))
	}
	out := renderTranscript(tr, 3, 2, 0)
	assert.Contains(t, out, "(100 messages)")
	assert.Contains(t, out, "... 95 message(s) cut from the middle ...")
	for _, kept := range []int{1, 2, 3, 99, 100} {
		assert.Contains(t, out, fmt.Sprintf(`"n":%d}`, kept))
	}
	for _, cut := range []int{4, 50, 98} {
		assert.NotContains(t, out, fmt.Sprintf(`"n":%d}`, cut))
	}
	assert.Equal(t, 1+3+1+2, strings.Count(out, "\n")+1, "header, head, the cut note, tail")

	all := renderTranscript(tr, -1, -1, 0)
	assert.NotContains(t, all, "cut from the middle")
	assert.Contains(t, all, `"n":50}`)
}

func TestRenderTranscriptEdges(t *testing.T) {
	t.Parallel()
	assert.Contains(t, renderTranscript(memtransport.Transcript{}, 5, 5, 0), "(no messages)")
	tr := memtransport.Transcript{Omitted: 7, Entries: []memtransport.Entry{entry(8, memtransport.ServerToClient, `{"jsonrpc":"2.0","method":"x"}`)}}
	out := renderTranscript(tr, 5, 5, 0)
	assert.Contains(t, out, "(8 messages)")
	assert.Contains(t, out, "7 earlier message(s) not recorded")
}

func TestCutLineKeepsBothEndsOnRuneBoundaries(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 1000) + "END"
	got := cutLine(long, 100)
	assert.True(t, utf8.ValidString(got))
	assert.True(t, strings.HasPrefix(got, "éé"))
	assert.True(t, strings.HasSuffix(got, "END"))
	assert.Contains(t, got, "bytes cut)…")
	assert.Less(t, len(got), 150)
	assert.Equal(t, "short", cutLine("short", 100))
	assert.Equal(t, long, cutLine(long, 0))
}

func TestRequestNotes(t *testing.T) {
	t.Parallel()
	c2s, s2c := memtransport.ClientToServer, memtransport.ServerToClient
	entries := []memtransport.Entry{
		entry(1, c2s, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fine"}}`),
		entry(2, s2c, `{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`),
		entry(3, c2s, `{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"books://x"}}`),
		entry(4, s2c, `{"jsonrpc":"2.0","id":1,"method":"roots/list"}`), // the server's own id 1: another space
		entry(5, c2s, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"slow"}}`),
		entry(6, c2s, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3,"reason":"timeout"}}`),
		{Seq: 7, Dir: s2c, Data: []byte(`{"jsonrpc":"2.0","id":3,"result":{}}`), Note: "dropped"},
		entry(8, c2s, `not json at all`),
	}
	assert.Equal(t, []string{
		`the client cancelled tools/call "slow" (id 3, message #5) at message #6: timeout`,
		`no response to resources/read "books://x" (id 2, message #3, client→server)`,
		`no response to roots/list (id 1, message #4, server→client)`,
		`no response to tools/call "slow" (id 3, message #5, client→server)`,
	}, requestNotes(entries))
}
