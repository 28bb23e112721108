package main

import (
	"context"
	"flag"

	"github.com/mcptestkit/mcptestkit/mcptest/surface"
)

var cmdSurface = &command{
	usageLine: "surface [flags] FILE...",
	short:     "merge surface reports: what the tests exercised",
	reach:     noServer,
	long: `Surface merges surface reports (what test binaries run with MCPTEST_SURFACE
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
	flags: func() invocation { return new(surfaceFlags) },
}

// surfaceFlags are surface's flags, new for each run.
type surfaceFlags struct {
	source, out string
	require     bool
	exempt      stringList
}

func (f *surfaceFlags) register(fs *flag.FlagSet, _ *connFlags) {
	fs.StringVar(&f.source, "source", surface.Tests, "whose calls count: tests, check or fuzz")
	fs.StringVar(&f.out, "o", "", "also write the merged report, as JSON, to this `file`")
	fs.BoolVar(&f.require, "require", false, "exit 1 when something declared was never exercised")
	fs.Var(&f.exempt, "exempt", "with --require, leave out this `name` (a tool's, prompt's or resource's; repeatable)")
}

func (f *surfaceFlags) run(ctx context.Context, cmd *command, args []string, _ *server, term terminal) (int, error) {
	if len(args) == 0 {
		return exitUsage, usagef(cmd, "give at least one report file")
	}
	switch f.source {
	case surface.Tests, surface.Check, surface.Fuzz:
	default:
		return exitUsage, usagef(cmd, "--source %q: want tests, check or fuzz", f.source)
	}
	r, err := surface.Load(args...)
	if err != nil {
		return exitUsage, err
	}
	if f.out != "" {
		if err := r.WriteFile(f.out); err != nil {
			return exitUsage, err
		}
	}
	// Escaped but for the layout: the names are the server's.
	fprintf(term.stdout, "%s", lines(r.Listing(f.source)))
	if f.require {
		if missing := r.Missing(f.source, f.exempt...); len(missing) > 0 {
			fprintf(term.stderr, "mcptestkit surface: %d declared item(s) never exercised\n", len(missing))
			return exitFail, nil
		}
	}
	return exitOK, nil
}
