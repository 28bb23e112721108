// Package sdk carries, from package mcptest to the checks of package
// servercheck, which SDK release serves the server under test, as the
// server's adapter names it ("go-sdk v1.4.0"), so that a check the release
// is known to fail says so and how to leave it out. The checks are also a
// library for programs, which name no release: this is not part of their
// Options.
package sdk

import (
	"context"
	"fmt"
	"strings"
)

type key struct{}

// With returns a context that carries release; "" leaves ctx as it is.
func With(ctx context.Context, release string) context.Context {
	if release == "" {
		return ctx
	}
	return context.WithValue(ctx, key{}, release)
}

// From returns the release ctx carries, or "".
func From(ctx context.Context) string {
	r, _ := ctx.Value(key{}).(string)
	return r
}

// Before reports whether release is the SDK named sdk ("go-sdk") at a known
// version older than version ("v1.7.0"). Pre-releases and pseudo-versions
// count as the release they lead to: where that is wrong, a hint is left out.
func Before(release, sdk, version string) bool {
	name, v, ok := strings.Cut(release, " ")
	if !ok || name != sdk {
		return false
	}
	a, okA := numbers(v)
	b, okB := numbers(version)
	if !okA || !okB {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

// numbers reads "vX.Y.Z" and whatever follows it.
func numbers(v string) ([3]int, bool) {
	var n [3]int
	_, err := fmt.Sscanf(v, "v%d.%d.%d", &n[0], &n[1], &n[2])
	return n, err == nil
}
