package servercheck

import (
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client/transport"
)

// A Command's connection notes when its process had to be signalled, so
// that the Dialer's later processes get the short grace period. The grace
// is short only for the process that never exits on its own: one that exits
// when its stdin closes gets a minute, so a loaded machine cannot make it
// look like one that ignores its stdin.
func TestCommandNotesAProcessIgnoringStdinClosing(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "stdioserver")
	out, err := exec.Command("go", "build", "-o", bin, "./testdata/stdioserver").CombinedOutput()
	require.NoError(t, err, "go build: %s", out)
	for _, ignore := range []bool{false, true} {
		grace := time.Minute
		if ignore {
			t.Setenv("STDIOSERVER_IGNORE_EOF", "1")
			grace = 100 * time.Millisecond
		}
		dial := Command(exec.Command(bin), transport.WithGracePeriod(grace))
		tr, err := dial(t.Context())
		require.NoError(t, err)
		ct := tr.(*commandTransport)
		require.NoError(t, ct.Close())
		assert.Equal(t, ignore, ct.ignoresEOF.Load(), "ignores EOF: %v; ended: %s", ignore, ct.ended())
	}
}
