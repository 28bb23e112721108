package mcptest

import (
	"testing"

	"github.com/mcptestkit/mcptestkit/client"
)

// EachVersion runs fn once per protocol version the client supports, newest
// first, each as a subtest named after the version. Pin the connection to it
// with [WithProtocolVersion]:
//
//	mcptest.EachVersion(t, func(t *testing.T, version string) {
//		c := mcptest.Connect(t, srv, mcptest.WithProtocolVersion(version))
//		// ...
//	})
//
// The subtests run one after another; call t.Parallel in fn to run them in
// parallel.
func EachVersion(t *testing.T, fn func(t *testing.T, version string)) {
	t.Helper()
	for _, v := range client.SupportedVersions() {
		t.Run(v, func(t *testing.T) { fn(t, v) })
	}
}
