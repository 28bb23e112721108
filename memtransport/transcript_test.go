package memtransport_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/memtransport"
)

// timeOffsets hides the one part of a rendered transcript that varies.
var timeOffsets = regexp.MustCompile(`\+\d+\.\d{3}ms`)

func TestTranscriptRecordsBothDirectionsInOrder(t *testing.T) {
	t.Parallel()
	c, s := pair(t)
	ctx := t.Context()
	require.NoError(t, c.Send(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)))
	_, err := s.Receive(ctx)
	require.NoError(t, err)
	require.NoError(t, s.Send(ctx, []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`)))
	require.NoError(t, c.SendRaw(ctx, []byte(`{"jsonrpc":`)))
	require.NoError(t, c.SendRaw(ctx, []byte("bad\x00bytes\n")))

	tr := s.Transcript()
	assert.Equal(t, c.Transcript(), tr, "both ends share one transcript")
	require.Len(t, tr.Entries, 4)
	for i, e := range tr.Entries {
		assert.Equal(t, i+1, e.Seq)
		if i > 0 {
			assert.GreaterOrEqual(t, e.At, tr.Entries[i-1].At)
		}
	}
	want := strings.Join([]string{
		`#1 +X client→server {"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`#2 +X server→client {"jsonrpc":"2.0","id":1,"result":{}}`,
		`#3 +X client→server [raw] {"jsonrpc":`,
		`#4 +X client→server [raw] "bad\x00bytes\n"`,
	}, "\n")
	assert.Equal(t, want, timeOffsets.ReplaceAllString(tr.String(), "+X"))
}

func TestTranscriptIsASnapshot(t *testing.T) {
	t.Parallel()
	c, _ := pair(t)
	require.NoError(t, c.Send(t.Context(), []byte(`{"a":1}`)))
	tr := c.Transcript()
	require.NoError(t, c.Send(t.Context(), []byte(`{"a":2}`)))
	assert.Len(t, tr.Entries, 1, "a snapshot does not change afterwards")
	assert.Len(t, c.Transcript().Entries, 2)
}

func TestTranscriptEmptyAndLongFrames(t *testing.T) {
	t.Parallel()
	c, _ := pair(t)
	assert.Equal(t, "(no messages)", c.Transcript().String())

	long := []byte(`"` + strings.Repeat("x", 5000) + `"`)
	require.NoError(t, c.Send(t.Context(), long))
	line := c.Transcript().String()
	assert.Contains(t, line, "… (906 more bytes)")
	assert.Less(t, len(line), 4200, "a huge frame is cut when rendered")
	assert.Len(t, c.Transcript().Entries[0].Data, 5002, "but kept whole in the entry")
}

func TestTranscriptLimit(t *testing.T) {
	t.Parallel()
	c, s := pair(t, memtransport.WithTranscriptLimit(3), memtransport.WithBufferSize(100))
	for i := range 10 {
		require.NoError(t, c.Send(t.Context(), []byte{'0' + byte(i)}))
	}
	tr := s.Transcript()
	assert.Equal(t, 7, tr.Omitted)
	require.Len(t, tr.Entries, 3)
	assert.Equal(t, "7", string(tr.Entries[0].Data))
	assert.Equal(t, 8, tr.Entries[0].Seq)
	assert.True(t, strings.HasPrefix(tr.String(), "(7 earlier messages omitted)\n#8 "), tr.String())
}

func TestTranscriptOff(t *testing.T) {
	t.Parallel()
	c, s := pair(t, memtransport.WithTranscriptLimit(0))
	require.NoError(t, c.Send(t.Context(), []byte(`{}`)))
	got, err := s.Receive(t.Context())
	require.NoError(t, err)
	assert.Equal(t, `{}`, string(got))
	tr := s.Transcript()
	assert.Empty(t, tr.Entries)
	assert.Equal(t, 1, tr.Omitted)
}
