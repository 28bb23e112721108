package mcptest

import (
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/logcapture"
)

// A server that lists only legacy versions gets no server/discover probe:
// the client starts with initialize at the newest version both speak, and
// the server logs nothing.
func TestLegacyServerIsNotProbed(t *testing.T) {
	t.Parallel()
	logs := logcapture.New(t)
	// 2025-09-01 is no version the client knows: the newest shared one is
	// 2025-06-18.
	srv := listingServer{newScriptedServer(), []string{"2025-03-26", "2025-09-01", "2025-06-18"}}
	srv.logger = logs.Logger()
	c := Connect(t, srv)
	assert.Equal(t, "2025-06-18", c.ProtocolVersion())
	assert.Zero(t, srv.discovered.Load(), "server/discover requests")
	logs.AssertNone(t, logcapture.AtLeast(slog.LevelWarn))
}

// Otherwise the start is as without the method: the probe when the list
// has a modern version, is nil or shares no version with the client; the
// pinned version when the test pins one.
func TestProtocolVersionsChangeNothingElse(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		list      []string
		opts      []Option
		discovers int32
		version   string
	}{
		{"modern", []string{client.Version20260728, "2025-06-18"}, nil, 1, "2025-11-25"},
		{"nil", nil, nil, 1, "2025-11-25"},
		{"none shared", []string{"2023-01-01"}, nil, 1, "2025-11-25"},
		{"pinned", []string{"2025-06-18"}, []Option{WithProtocolVersion("2025-03-26")}, 0, "2025-03-26"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := listingServer{newScriptedServer(), tc.list}
			c := Connect(t, srv, tc.opts...)
			assert.Equal(t, tc.version, c.ProtocolVersion())
			assert.Equal(t, tc.discovers, srv.discovered.Load(), "server/discover requests")
		})
	}
}

// In EachVersion every connection speaks the subtest's version, not the
// newest of the server's list.
func TestEachVersionOverridesProtocolVersions(t *testing.T) {
	t.Parallel()
	EachVersion(t, func(t *testing.T, version string) {
		srv := listingServer{newScriptedServer(), []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}}
		c := Connect(t, srv)
		assert.Equal(t, version, c.ProtocolVersion())
		assert.Zero(t, srv.discovered.Load())
	}, Before(client.Version20260728))
}

// CheckServer's connections start the same way; only the handshake check
// of 2026-07-28 sends server/discover, on purpose.
func TestCheckServerDoesNotProbeALegacyServer(t *testing.T) {
	t.Parallel()
	srv := listingServer{newScriptedServer(), []string{"2025-11-25"}}
	CheckServer(t, srv, SkipChecks("handshake/2026-07-28", "tools/calls")) // the tools sleep an hour, or hang
	assert.Zero(t, srv.discovered.Load(), "server/discover requests")
}
