package gosdktest_test

import (
	"log/slog"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/gosdk/gosdktest"
	"github.com/mcptestkit/mcptestkit/gosdk/internal/release"
	"github.com/mcptestkit/mcptestkit/gosdk/internal/sdktest"
	"github.com/mcptestkit/mcptestkit/logcapture"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

// ProtocolVersions is what the linked release does: of the versions the
// client knows, the server negotiates exactly those listed, when asked for
// each.
func TestProtocolVersionsAreWhatTheServerSpeaks(t *testing.T) {
	t.Parallel()
	a := gosdktest.Server(newServer(nil))
	listed := a.ProtocolVersions()
	if listed == nil {
		t.Skip("go-sdk's release is unknown here (replaced by a directory or a fork)")
	}
	t.Logf("go-sdk %s: %v", release.Linked(), listed)
	var spoken []string
	for _, v := range client.SupportedVersions() { // newest first, as listed
		c, s := memtransport.Pair()
		done := make(chan error, 1)
		go func() { done <- a.Serve(t.Context(), s) }()
		cl, err := client.Connect(t.Context(), c, &client.Options{ProtocolVersion: v})
		if err == nil {
			if cl.ProtocolVersion() == v {
				spoken = append(spoken, v)
			}
			require.NoError(t, cl.Close())
		}
		require.NoError(t, <-done, "Serve, asked for %s", v)
	}
	assert.Equal(t, spoken, listed)

	listed[0] = "changed"
	assert.NotEqual(t, "changed", a.ProtocolVersions()[0], "each call returns a copy")
}

// The probe the harness leaves out when ProtocolVersions lacks 2026-07-28:
// a server of such a release refuses server/discover before initialize and
// logs that as an ERROR; the client then falls back to the initialize
// handshake. A release with 2026-07-28 answers it.
func TestServerDiscoverProbe(t *testing.T) {
	t.Parallel()
	logs := logcapture.New(t)
	sv := sdktest.Serve(t, gosdktest.Server(newServer(logs.Logger())))
	c, err := client.Connect(t.Context(), sv.Client, nil) // era-neutral: probes
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	// The client's first message (a server may notify before it: go-sdk
	// v1.2.0 sends list_changed as its tools are added).
	var first string
	for _, e := range sv.Client.Transcript().Entries {
		if e.Dir == memtransport.ClientToServer {
			first = string(e.Data)
			break
		}
	}
	assert.Contains(t, first, `"method":"server/discover"`)

	versions := gosdktest.Server(newServer(nil)).ProtocolVersions()
	if versions == nil {
		t.Skip("go-sdk's release is unknown here (replaced by a directory or a fork)")
	}
	if slices.Contains(versions, client.Version20260728) {
		assert.Equal(t, client.Version20260728, c.ProtocolVersion())
		logs.AssertNoWarnings(t)
		return
	}
	assert.Equal(t, versions[0], c.ProtocolVersion(), "the newest legacy version the release speaks")
	logs.AssertLogged(t, logcapture.Level(slog.LevelError), logcapture.Message("method invalid during initialization"),
		logcapture.Attr("method", "server/discover"))
}
