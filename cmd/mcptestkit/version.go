package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// kitModule is the module whose packages hold the checks, the client and the
// harness: the command's behaviour is mostly its version's.
const kitModule = "github.com/mcptestkit/mcptestkit"

// versionText describes the build as `mcptestkit version` prints it: the
// command's module version (what go install resolved, or "(devel)" for a
// build from a work tree), the kit's module version when it differs, the
// revision and commit time the go command stamped (a build inside a git
// checkout), and the Go toolchain and platform. ok is false when the binary
// carries no build information at all.
func versionText(info *debug.BuildInfo, ok bool) string {
	if !ok || info == nil {
		return fmt.Sprintf("mcptestkit (unknown version: no build information) %s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	}
	version := info.Main.Version
	if version == "" {
		version = "(devel)"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "mcptestkit %s", version)
	for _, dep := range info.Deps {
		if dep.Path != kitModule {
			continue
		}
		v := dep.Version
		if dep.Replace != nil {
			v = dep.Replace.Path
			if dep.Replace.Version != "" {
				v += "@" + dep.Replace.Version
			}
		}
		if v != version {
			fmt.Fprintf(&b, " (%s %s)", kitModule, v)
		}
	}
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	if rev := settings["vcs.revision"]; rev != "" {
		fmt.Fprintf(&b, ", revision %s", rev)
		if t := settings["vcs.time"]; t != "" {
			fmt.Fprintf(&b, " of %s", t)
		}
		if settings["vcs.modified"] == "true" {
			b.WriteString(" with local changes")
		}
	}
	goVersion := info.GoVersion
	if goVersion == "" {
		goVersion = runtime.Version()
	}
	fmt.Fprintf(&b, ", built with %s %s/%s\n", goVersion, runtime.GOOS, runtime.GOARCH)
	return b.String()
}

// printVersion is `mcptestkit version` (also -version, --version).
func printVersion(term terminal) int {
	fmt.Fprint(term.stdout, versionText(debug.ReadBuildInfo()))
	return exitOK
}

const versionUsage = `Usage: mcptestkit version

Prints the version of this build: the module version go install resolved
(or "(devel)" for a build from a work tree), the kit's module version when it
differs, the VCS revision and time when the build recorded them, and the Go
toolchain and platform. -version and --version do the same.
`
