package main

import (
	"context"
	"flag"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

var cmdVersion = &command{
	usageLine: "version",
	short:     "print the version of the build (also -version)",
	reach:     noServer,
	rawArgs:   true, // "version -h" is an argument too: version takes none
	long: `Prints the version of this build: the module version go install resolved
(or "(devel)" for a build from a work tree), the kit's module version when it
differs, the VCS revision and time when the build recorded them, and the Go
toolchain and platform. -version and --version do the same.`,
	flags: func() invocation { return versionFlags{} },
}

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

// versionFlags are version's: none, and no argument.
type versionFlags struct{}

func (versionFlags) register(*flag.FlagSet, *connFlags) {}

func (versionFlags) run(_ context.Context, _ *command, args []string, _ *server, term terminal) (int, error) {
	if len(args) > 0 {
		return exitUsage, fmt.Errorf("takes no arguments, got %q", args)
	}
	fmt.Fprint(term.stdout, versionText(debug.ReadBuildInfo()))
	return exitOK, nil
}
