package release

import (
	"cmp"
	"reflect"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Module is go-sdk's module path.
const Module = "github.com/modelcontextprotocol/go-sdk"

// The protocol versions go-sdk speaks, newest first, by the first release
// that spoke them (its mcp/shared.go supportedProtocolVersions). Releases
// before v1.2.0 do not build the adapter; their row is here so that the
// table is whole.
var table = []struct {
	since    string
	versions []string
}{
	{"v1.7.0-pre.1", []string{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}},
	{"v1.2.0", []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}},
	{"v1.0.0", []string{"2025-06-18", "2025-03-26", "2024-11-05"}},
}

// Linked returns the version of go-sdk the running binary is linked with,
// or "" when that is not known: go-sdk replaced by a directory or by another
// module (a fork may speak anything), or vendored into a test binary. A
// replacement by another version of go-sdk itself is that version.
//
// The build information says, except in test binaries, where go test
// leaves the dependencies out (golang/go#76926). There the file name the
// binary records for an SDK function says instead: a module is compiled
// from the module cache, at .../module@version/, or module@version/ with
// -trimpath.
var Linked = sync.OnceValue(func() string {
	if bi, ok := debug.ReadBuildInfo(); ok && len(bi.Deps) > 0 {
		return linked(bi.Deps)
	}
	f := runtime.FuncForPC(reflect.ValueOf(mcp.NewServer).Pointer())
	if f == nil {
		return ""
	}
	file, _ := f.FileLine(f.Entry())
	return fromFile(file)
})

// linked returns go-sdk's version in a binary's dependencies.
func linked(deps []*debug.Module) string {
	for _, m := range deps {
		if m.Path != Module {
			continue
		}
		if r := m.Replace; r != nil {
			if r.Path == Module {
				return r.Version // "" for a directory
			}
			return ""
		}
		return m.Version
	}
	return ""
}

// fromFile returns the go-sdk version in the name of a file compiled from
// the module cache, or "".
func fromFile(file string) string {
	const dir = Module + "@"
	i := strings.Index(file, dir)
	if i < 0 || i > 0 && file[i-1] != '/' {
		return ""
	}
	v, _, ok := strings.Cut(file[i+len(dir):], "/")
	if !ok {
		return ""
	}
	// The module cache writes an upper-case letter as '!' and the letter.
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] == '!' && i+1 < len(v) {
			i++
			b.WriteString(strings.ToUpper(v[i : i+1]))
			continue
		}
		b.WriteByte(v[i])
	}
	return b.String()
}

// ProtocolVersions returns the protocol versions go-sdk speaks at version
// (as go.mod spells it), newest first, or nil when that is not known: not a
// release version, older than v1.0.0, or a pseudo-version (a commit between
// releases may speak more than the release before it) older than the newest
// row of the table. The slice is shared: do not modify it.
func ProtocolVersions(version string) []string {
	pseudo := isPseudo(version)
	for i, row := range table {
		c, ok := compare(version, row.since)
		if !ok {
			return nil
		}
		if c >= 0 {
			if pseudo && i > 0 {
				return nil
			}
			return row.versions
		}
	}
	return nil
}

// Speaks reports whether go-sdk at version speaks the protocol version
// proto, and whether that is known.
func Speaks(version, proto string) (speaks, known bool) {
	vs := ProtocolVersions(version)
	if vs == nil {
		return false, false
	}
	return slices.Contains(vs, proto), true
}

// Older reports whether the go-sdk version is older than release, or not
// known to be as new: unknown, unreadable, or a pseudo-version (a commit
// before release may or may not have what release has).
func Older(version, release string) bool {
	c, ok := compare(version, release)
	return !ok || c < 0 || isPseudo(version)
}

// Since returns the first go-sdk release that spoke the protocol version
// proto, or "" if none did.
func Since(proto string) string {
	for i := len(table) - 1; i >= 0; i-- {
		if slices.Contains(table[i].versions, proto) {
			return table[i].since
		}
	}
	return ""
}

// isPseudo reports whether v is a Go pseudo-version: its pre-release ends
// in a timestamp and a commit hash ("v1.7.0-0.20260101120000-0123456789ab").
func isPseudo(v string) bool {
	_, pre, _ := split(v)
	parts := strings.Split(pre, "-")
	if len(parts) < 2 {
		return false
	}
	hash := parts[len(parts)-1]
	stamp := parts[len(parts)-2]
	if i := strings.LastIndexByte(stamp, '.'); i >= 0 {
		stamp = stamp[i+1:]
	}
	return len(hash) == 12 && isHex(hash) && len(stamp) == 14 && isDigits(stamp)
}

// split cuts a semantic version "vX.Y.Z-pre+build" into "X.Y.Z", "pre" and
// whether it is well formed enough to compare.
func split(v string) (core, pre string, ok bool) {
	if !strings.HasPrefix(v, "v") {
		return "", "", false
	}
	v = v[1:]
	if i := strings.IndexByte(v, '+'); i >= 0 {
		v = v[:i]
	}
	core, pre, _ = strings.Cut(v, "-")
	return core, pre, true
}

// compare compares two semantic versions as semver orders them, and
// reports whether both could be read.
func compare(a, b string) (int, bool) {
	ac, ap, ok1 := split(a)
	bc, bp, ok2 := split(b)
	if !ok1 || !ok2 {
		return 0, false
	}
	an, bn := strings.Split(ac, "."), strings.Split(bc, ".")
	if len(an) != 3 || len(bn) != 3 {
		return 0, false
	}
	for i := range an {
		if !isDigits(an[i]) || !isDigits(bn[i]) {
			return 0, false
		}
		if c := compareNumbers(an[i], bn[i]); c != 0 {
			return c, true
		}
	}
	switch {
	case ap == bp:
		return 0, true
	case ap == "": // a release sorts after its pre-releases
		return 1, true
	case bp == "":
		return -1, true
	}
	ai, bi := strings.Split(ap, "."), strings.Split(bp, ".")
	for i := 0; i < len(ai) && i < len(bi); i++ {
		x, y := ai[i], bi[i]
		var c int
		switch xd, yd := isDigits(x), isDigits(y); {
		case xd && yd:
			c = compareNumbers(x, y)
		case xd: // numeric identifiers sort before alphanumeric ones
			c = -1
		case yd:
			c = 1
		default:
			c = strings.Compare(x, y)
		}
		if c != 0 {
			return c, true
		}
	}
	return cmp.Compare(len(ai), len(bi)), true
}

// compareNumbers compares two decimal numbers of any length.
func compareNumbers(x, y string) int {
	x, y = strings.TrimLeft(x, "0"), strings.TrimLeft(y, "0")
	if c := cmp.Compare(len(x), len(y)); c != 0 {
		return c
	}
	return strings.Compare(x, y)
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
