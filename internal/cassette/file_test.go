package cassette_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/internal/cassette"
)

func pingCassette(n int) *cassette.Cassette {
	return &cassette.Cassette{Frames: []cassette.Frame{
		{Dir: cassette.ClientToServer, Msg: json.RawMessage(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, n))},
	}}
}

// A symlink planted where a fixed temporary name would be is not followed:
// its target keeps its content, and the cassette lands at its path.
func TestWriteFileIgnoresPlantedSymlink(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	require.NoError(t, os.WriteFile(victim, []byte("precious"), 0o600))
	path := filepath.Join(dir, "s.cassette")
	for _, planted := range []string{path + ".tmp", path + ".0.tmp", filepath.Join(dir, ".s.cassette.tmp")} {
		require.NoError(t, os.Symlink(victim, planted))
	}
	require.NoError(t, pingCassette(1).WriteFile(path))
	data, err := os.ReadFile(victim)
	require.NoError(t, err)
	assert.Equal(t, "precious", string(data))
	c, err := cassette.ReadFile(path)
	require.NoError(t, err)
	assert.Len(t, c.Frames, 1)
	fi, err := os.Lstat(path)
	require.NoError(t, err)
	assert.True(t, fi.Mode().IsRegular())
	assert.Equal(t, os.FileMode(0o644), fi.Mode().Perm())
}

// Writers of one path at once all succeed; the file is one of theirs,
// whole, and no temporary file is left behind.
func TestWriteFileConcurrently(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.cassette")
	var wg sync.WaitGroup
	errs := make([]error, 16)
	for i := range errs {
		wg.Go(func() { errs[i] = pingCassette(i).WriteFile(path) })
	}
	wg.Wait()
	for i, err := range errs {
		assert.NoError(t, err, "writer %d", i)
	}
	c, err := cassette.ReadFile(path)
	require.NoError(t, err)
	assert.Len(t, c.Frames, 1)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "only the cassette is left")
}

// A file with no header (empty, or blank lines only) is no cassette: the
// error names the file. Blank lines before the header are allowed.
func TestReadNoHeader(t *testing.T) {
	for _, text := range []string{"", "\n", "  \n\t\n\r\n", "   "} {
		path := filepath.Join(t.TempDir(), "blank.cassette")
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
		_, err := cassette.ReadFile(path)
		require.Error(t, err, "%q", text)
		assert.Contains(t, err.Error(), path)
		assert.Contains(t, err.Error(), "empty: no cassette header")
	}
	c, err := cassette.Read(strings.NewReader("\n\n" + `{"cassette":1}` + "\n" + `{"dir":"c2s","ms":0,"msg":{"jsonrpc":"2.0","id":1,"method":"ping"}}`))
	require.NoError(t, err)
	assert.Len(t, c.Frames, 1)
}

// What the writer writes, the reader reads, however long a message: lines
// have no limit on either side (the recorder keeps a session in memory, as
// the reader does).
func TestReadWhatIsWritten(t *testing.T) {
	text := strings.Repeat("x", 65<<20) // beyond what a 64 MB line limit allowed
	c := &cassette.Cassette{Frames: []cassette.Frame{
		{Dir: cassette.ServerToClient, Msg: json.RawMessage(`{"jsonrpc":"2.0","id":1,"result":{"text":"` + text + `"}}`)},
	}}
	path := filepath.Join(t.TempDir(), "big.cassette")
	require.NoError(t, c.WriteFile(path))
	got, err := cassette.ReadFile(path)
	require.NoError(t, err)
	require.Len(t, got.Frames, 1)
	assert.Equal(t, len(c.Frames[0].Msg), len(got.Frames[0].Msg))
}
