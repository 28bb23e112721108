package sdktest

import (
	"testing"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/gosdk/internal/adaptertest"
	"github.com/mcptestkit/mcptestkit/gosdk/internal/release"
	"github.com/mcptestkit/mcptestkit/mcptest"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

// Served is one connection to a server, running for the length of a test
// ([adaptertest.Served]), whose Connect starts as go-sdk needs.
type Served struct {
	*adaptertest.Served
}

// Serve is [adaptertest.Serve], for a go-sdk adapter.
func Serve(t testing.TB, s mcptest.Server, opts ...memtransport.Option) *Served {
	t.Helper()
	return &Served{adaptertest.Serve(t, s, opts...)}
}

// Connect starts the mcptestkit client over the client end, asking for
// version (see [StartVersion] for ""). The tests drive the server with this
// client rather than go-sdk's, whose options for choosing a version differ
// from release to release. The client is closed when the test ends.
func (sv *Served) Connect(t testing.TB, version string) *client.Client {
	t.Helper()
	return sv.Served.Connect(t, StartVersion(version))
}

// StartVersion is the client's Options.ProtocolVersion for a test that asks
// for version. "" starts era-neutrally, as the harness does: with the
// server/discover probe when the linked go-sdk speaks 2026-07-28 (or its
// release is unknown), and otherwise straight with the initialize handshake
// at the newest legacy version, because go-sdk before 2026-07-28 logs the
// probe as an ERROR, which tests that check the server's log would see.
func StartVersion(version string) string {
	if version != "" {
		return version
	}
	if !SpeaksModern() {
		return client.LatestLegacyVersion
	}
	return ""
}

// SpeaksModern reports whether the linked go-sdk release speaks 2026-07-28,
// or may: true when the release is unknown (replaced by a directory or a
// fork).
func SpeaksModern() bool {
	speaks, known := release.Speaks(release.Linked(), client.Version20260728)
	return speaks || !known
}

// SkipUnlessSpeaks skips the test when the linked go-sdk release is known
// not to speak the protocol version proto, naming the release.
func SkipUnlessSpeaks(t testing.TB, proto string) {
	t.Helper()
	v := release.Linked()
	if speaks, known := release.Speaks(v, proto); known && !speaks {
		t.Skipf("go-sdk %s does not speak protocol version %s (first in go-sdk %s)", v, proto, release.Since(proto))
	}
}

// EachEra runs f in one parallel subtest per era ([adaptertest.Eras]); an
// era the linked go-sdk release does not speak is skipped, naming the
// release.
func EachEra(t *testing.T, f func(t *testing.T, era adaptertest.Era)) {
	t.Helper()
	adaptertest.EachEra(t, SkipUnlessSpeaks, f)
}
