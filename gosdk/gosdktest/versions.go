package gosdktest

import (
	"slices"

	"github.com/mcptestkit/mcptestkit/gosdk/internal/release"
)

// ProtocolVersions returns the protocol versions that the go-sdk release the
// binary is linked with speaks, newest first: 2026-07-28 from go-sdk
// v1.7.0, 2025-11-25 from v1.2.0. It returns nil when the release is not
// known (go-sdk replaced by a directory or a fork, or vendored into a test
// binary). A server built with mcp.ServerOptions.SupportedProtocolVersions
// may offer fewer.
//
// The harness reads it to leave out the server/discover probe of an
// era-neutral start when the server cannot answer it: a go-sdk server
// before 2026-07-28 logs that probe as an ERROR ("method invalid during
// initialization"). Nothing is sent to the server to find out.
func (a *Adapter) ProtocolVersions() []string {
	return slices.Clone(release.ProtocolVersions(release.Linked()))
}

// SDK names the go-sdk release the binary is linked with, "go-sdk v1.4.0",
// or "go-sdk" alone when the release is not known (as for ProtocolVersions).
// mcptest.CheckServer reads it to name the release where it fails a check
// by design of the SDK (go-sdk before v1.7.0 answers an unknown method with
// code 0; every release ends a session on a frame that is not JSON), and
// to say how to leave the check out.
func (a *Adapter) SDK() string {
	if v := release.Linked(); v != "" {
		return "go-sdk " + v
	}
	return "go-sdk"
}
