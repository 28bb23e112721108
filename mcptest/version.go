package mcptest

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/mcptestkit/mcptestkit/client"
)

// EachVersion runs fn once per protocol version the client supports, newest
// first, each as a subtest named after the version. Every connection made in
// the subtest (or in a subtest of it) speaks the subtest's version, unless
// [WithProtocolVersion] pins another, and a server that answers it with
// another version fails the subtest, saying which versions to leave out:
//
//	mcptest.EachVersion(t, func(t *testing.T, version string) {
//		c := mcptest.Connect(t, srv) // speaks version
//		// ...
//	})
//
// Not every feature exists at every version. Elicitation came in 2025-06-18:
// at 2024-11-05 and 2025-03-26 the client cannot declare it, even with an
// Elicit callback ([WithClient]), so a server cannot ask for it (go-sdk's tools then fail
// with "client does not support elicitation"). Sampling and roots exist at
// every version. Options choose the versions a test runs at: [Since] for a
// feature that came later, [Before] for what a version replaced:
//
//	mcptest.EachVersion(t, func(t *testing.T, version string) {
//		c := mcptest.Connect(t, srv, mcptest.WithClient(client.Options{Elicit: answer}))
//		// ...
//	}, mcptest.Since(client.Version20250618))
//
// A server that speaks only the legacy versions (every TypeScript-SDK
// server in 2026) fails the 2026-07-28 subtest, saying so; declare the
// versions it speaks once, with Before(client.Version20260728).
//
// The subtests run one after another; call t.Parallel in fn to run them in
// parallel. A bad option fails the test before any subtest runs.
func EachVersion(t *testing.T, fn func(t *testing.T, version string), opts ...Option) {
	t.Helper()
	versions, err := selectVersions(opts)
	if err != nil {
		t.Fatalf("mcptest.EachVersion: %v", err)
		return
	}
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			// Connect finds the version by the subtest's name, which
			// EachVersion made: a test's own subtest named like a version
			// pins nothing.
			name := t.Name()
			eachVersionTests.Store(name, v)
			t.Cleanup(func() { eachVersionTests.Delete(name) })
			fn(t, v)
		})
	}
}

// eachVersionTests maps the name of every running [EachVersion] subtest to
// its version. Names are unique in a test binary, so parallel tests share
// it safely; each entry lives as long as its subtest.
var eachVersionTests sync.Map

type versionRange struct {
	since, before string
	errs          []string
}

// Since makes [EachVersion] run only at version and the versions after it:
// for a feature that came in version, such as elicitation
// (Since(client.Version20250618)). version must be one the client supports
// ([client.SupportedVersions]). It applies to EachVersion.
func Since(version string) Option {
	return option("Since", eachCall, func(c *config) {
		r := &c.versions
		r.check("Since", version)
		r.since = max(r.since, version)
	})
}

// Before makes [EachVersion] run only at the versions older than version:
// for behaviour that version removed or replaced, such as server-to-client
// requests, which 2026-07-28 replaced (Before(client.Version20260728) runs
// the legacy versions). version must be one the client supports. It
// applies to EachVersion.
func Before(version string) Option {
	return option("Before", eachCall, func(c *config) {
		r := &c.versions
		r.check("Before", version)
		if r.before == "" || version < r.before {
			r.before = version
		}
	})
}

func (r *versionRange) check(option, version string) {
	for _, v := range client.SupportedVersions() {
		if v == version {
			return
		}
	}
	r.errs = append(r.errs, fmt.Sprintf("%s(%q): not a protocol version the client supports (%s)", option, version, strings.Join(client.SupportedVersions(), ", ")))
}

// selectVersions returns the supported versions the options keep, newest
// first. Keeping none is an error: the test would silently test nothing.
func selectVersions(opts []Option) ([]string, error) {
	cfg := newConfig(opts)
	if msg := cfg.misused(eachCall); msg != "" {
		return nil, errors.New(msg)
	}
	r := cfg.versions
	if len(r.errs) > 0 {
		return nil, fmt.Errorf("%s", strings.Join(r.errs, "; "))
	}
	var out []string
	for _, v := range client.SupportedVersions() {
		if v >= r.since && (r.before == "" || v < r.before) {
			out = append(out, v)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no protocol version is both Since(%q) and Before(%q)", r.since, r.before)
	}
	return out, nil
}

// callbackFeature is a client feature that a callback option provides and
// that the client declares as a capability, where the version has it.
type callbackFeature struct {
	field      string // the client.Options field it sets
	capability string
	since      string // the first version that has it
	set        func(*client.Options) bool
	declared   func(client.Capabilities) bool
}

var callbackFeatures = []callbackFeature{
	{"CreateMessage", "sampling", client.Version20241105,
		func(o *client.Options) bool { return o.CreateMessage != nil },
		func(c client.Capabilities) bool { return c.Sampling != nil }},
	{"Elicit", "elicitation", client.Version20250618,
		func(o *client.Options) bool { return o.Elicit != nil },
		func(c client.Capabilities) bool { return c.Elicitation != nil }},
	{"ListRoots", "roots", client.Version20241105,
		func(o *client.Options) bool { return o.ListRoots != nil },
		func(c client.Capabilities) bool { return c.Roots != nil }},
}

// capabilityNotes explains each callback in opts that the client could not
// declare at the version the connection speaks, in one line each: the test
// set it, so it expects the server to be able to use it, and at this
// version the server cannot.
func capabilityNotes(opts *client.Options, version string, declared client.Capabilities) []string {
	var notes []string
	for _, f := range callbackFeatures {
		if !f.set(opts) || f.declared(declared) {
			continue
		}
		notes = append(notes, fmt.Sprintf(
			"mcptest: client.Options.%s is set, but protocol version %s has no %s (it came in %s): "+
				"the client does not declare it and the server cannot ask for it. "+
				"To run a test only where it exists: mcptest.EachVersion(t, fn, mcptest.Since(%q))",
			f.field, version, f.capability, f.since, f.since))
	}
	return notes
}

// eachVersionOf returns the version of the [EachVersion] subtest t runs in,
// itself or an ancestor, or "".
func eachVersionOf(t testing.TB) string {
	// Every Connect asks: it must cost next to nothing.
	name := t.Name()
	for {
		if v, ok := eachVersionTests.Load(name); ok {
			return v.(string)
		}
		i := strings.LastIndexByte(name, '/')
		if i < 0 {
			return ""
		}
		name = name[:i]
	}
}

// versionMismatch explains a connection in an [EachVersion] subtest that
// asked for want and got another version: the server does not speak want.
func versionMismatch(want, got string) string {
	// The server's answer is the newest version it speaks (older than
	// want), or the oldest (newer than want).
	fix := fmt.Sprintf("mcptest.Since(%q)", got)
	if got < want {
		next := want
		for _, v := range client.SupportedVersions() {
			if v > got && v < next {
				next = v
			}
		}
		fix = fmt.Sprintf("mcptest.Before(%q)", next)
	}
	return fmt.Sprintf("this subtest of mcptest.EachVersion runs at protocol version %s, but the server answered with %s: it does not speak %s.\n"+
		"Run the test only at the versions the server speaks: mcptest.EachVersion(t, fn, %s)", want, got, want, fix)
}

// versionHint explains a handshake at version that failed with err because
// the server does not speak that version: a legacy-only server (every
// TypeScript-SDK server in 2026) asked for 2026-07-28 answers
// server/discover with method-not-found. inEach says whether an
// [EachVersion] subtest chose the version.
func versionHint(version string, inEach bool, err error) string {
	var e *client.Error
	if version != client.Version20260728 || !errors.As(err, &e) || e.Method != "server/discover" {
		return ""
	}
	if e.Code != client.CodeMethodNotFound && e.Code != client.CodeUnsupportedProtocolVersion {
		return ""
	}
	fix := "pin a legacy version with mcptest.WithProtocolVersion(client.LatestLegacyVersion), or leave the version unpinned"
	if inEach {
		fix = "run the test only at the legacy versions: mcptest.EachVersion(t, fn, mcptest.Before(client.Version20260728))"
	}
	return fmt.Sprintf("\nThe server does not speak protocol version %s (it has no server/discover, or refused the version): "+
		"it speaks only the legacy versions, which start with initialize.\nTo test it, %s.", client.Version20260728, fix)
}
