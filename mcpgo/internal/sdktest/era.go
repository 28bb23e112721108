package sdktest

import (
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/mcpgo/internal/adaptertest"
)

// EachEra runs f in one parallel subtest per era ([adaptertest.Eras]); the
// 2026-07-28 one is skipped on a release without it.
func EachEra(t *testing.T, f func(t *testing.T, era adaptertest.Era)) {
	t.Helper()
	adaptertest.EachEra(t, func(t testing.TB, version string) {
		t.Helper()
		if version == client.Version20260728 {
			SkipUnlessModern(t)
		}
	}, f)
}

// SpeaksModern reports whether the linked mcp-go release speaks 2026-07-28,
// as it says itself (mcp.ValidProtocolVersions, which every supported
// release has; 2026-07-28 is in it from v1.0.0).
func SpeaksModern() bool { return slices.Contains(mcp.ValidProtocolVersions, client.Version20260728) }

// SkipUnlessModern skips the test on an mcp-go release that does not speak
// 2026-07-28, naming the release.
func SkipUnlessModern(t testing.TB) {
	t.Helper()
	if !SpeaksModern() {
		t.Skipf("%s does not speak protocol %s (mcp-go does from v1.0.0)", Release(), client.Version20260728)
	}
}

// Release names the mcp-go release the test binary is linked with, as
// "mark3labs/mcp-go v1.2.1", for skip messages.
func Release() string {
	if v := ReleaseVersion(); v != "" {
		return "mark3labs/mcp-go " + v
	}
	return "mark3labs/mcp-go (version unknown)"
}

// ReleaseVersion returns the version of the linked mcp-go module
// ("v1.2.1"), or "" when it cannot be told. A test binary's build info
// lists no modules, so it is read from where mcp-go's code was compiled
// from: the module cache's directory "mcp-go@v1.2.1" (also under
// -trimpath); a replacement by a local directory has no version.
func ReleaseVersion() string {
	pc := reflect.ValueOf(server.NewMCPServer).Pointer()
	file, _ := runtime.FuncForPC(pc).FileLine(pc)
	_, after, ok := strings.Cut(file, "/mcp-go@")
	if !ok {
		return ""
	}
	v, _, _ := strings.Cut(after, "/")
	return v
}

// ReleaseAtLeast reports whether the linked mcp-go release is version
// ("v1.2.0") or newer, comparing major, minor and patch numbers; false when
// the release cannot be told.
func ReleaseAtLeast(version string) bool {
	have, ok := semver(ReleaseVersion())
	want, wantOK := semver(version)
	return ok && wantOK && slices.Compare(have, want) >= 0
}

// semver returns the numbers of "vX.Y.Z", ignoring a pre-release or build
// suffix.
func semver(v string) ([]int, bool) {
	v, ok := strings.CutPrefix(v, "v")
	if !ok {
		return nil, false
	}
	v, _, _ = strings.Cut(v, "-")
	v, _, _ = strings.Cut(v, "+")
	parts := strings.Split(v, ".")
	if len(parts) != 3 {
		return nil, false
	}
	nums := make([]int, 3)
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil {
			return nil, false
		}
		nums[i] = n
	}
	return nums, true
}
