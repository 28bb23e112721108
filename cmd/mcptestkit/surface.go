package main

import (
	"context"
	"flag"

	"github.com/mcptestkit/mcptestkit/mcptest/surface"
)

func surfaceCommand() *command {
	return &command{
		name:     "surface",
		noServer: true,
		args:     "FILE...",
		about: `Surface merges surface reports (what test binaries run with MCPTEST_SURFACE
wrote, one per package, and what "mcptestkit check" wrote with it set) and
prints, per server, what the tests exercised of what the server declares:
tools, arguments, enum values, resources, templates and prompts, and the
outcomes seen; then each declared item they never exercised and each
argument they never gave, left out or sent every value of.

--source picks whose calls count: tests (the default: mcptest.Connect's),
check (CheckServer's and "mcptestkit check"'s) or fuzz. With --require the
exit status is 1 when a declared tool, resource, template or prompt was never
exercised (--exempt NAME leaves one out), or when a kind of item the server
offers was never listed (which it declares is then unknown), so CI can
ratchet on it. A report with a null entry or a negative count is refused.`,
		setup: func(fs *flag.FlagSet, conn *connFlags) func(context.Context, []string, *server, terminal) (int, error) {
			source := fs.String("source", surface.Tests, "whose calls count: tests, check or fuzz")
			out := fs.String("o", "", "also write the merged report, as JSON, to this `file`")
			require := fs.Bool("require", false, "exit 1 when something declared was never exercised")
			var exempt stringList
			fs.Var(&exempt, "exempt", "with --require, leave out this `name` (a tool's, prompt's or resource's; repeatable)")
			return func(ctx context.Context, args []string, srv *server, term terminal) (int, error) {
				if len(args) == 0 {
					return exitUsage, usagef(lookup("surface"), "give at least one report file")
				}
				switch *source {
				case surface.Tests, surface.Check, surface.Fuzz:
				default:
					return exitUsage, usagef(lookup("surface"), "--source %q: want tests, check or fuzz", *source)
				}
				r, err := surface.Load(args...)
				if err != nil {
					return exitUsage, err
				}
				if *out != "" {
					if err := r.WriteFile(*out); err != nil {
						return exitUsage, err
					}
				}
				// Escaped but for the layout: the names are the server's.
				fprintf(term.stdout, "%s", lines(r.Listing(*source)))
				if *require {
					if missing := r.Missing(*source, exempt...); len(missing) > 0 {
						fprintf(term.stderr, "mcptestkit surface: %d declared item(s) never exercised\n", len(missing))
						return exitFail, nil
					}
				}
				return exitOK, nil
			}
		},
	}
}
