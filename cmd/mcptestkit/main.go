package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"
)

// Exit statuses, the contract with CI.
const (
	exitOK    = 0 // every check passed, the call succeeded, the session matched
	exitFail  = 1 // a check failed, the tool failed, the session differs
	exitUsage = 2 // bad usage, or the server could not be reached
	// An interrupted command exits with 128 plus the signal's number:
	// interrupted.exitCode.
)

func main() {
	ctx, stop := interruptible()
	code := run(ctx, os.Args[1:], newTerminal(os.Stdout, os.Stderr))
	stop()
	os.Exit(code)
}

// interrupted is the cause of the context of a run a signal ended.
type interrupted struct{ sig os.Signal }

func (i *interrupted) Error() string { return i.sig.String() + " signal received" }

// exitCode is the shell's for a program a signal ended: 128 plus the
// signal's number (130 for SIGINT, 143 for SIGTERM).
func (i *interrupted) exitCode() int {
	if s, ok := i.sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 128 + int(syscall.SIGINT)
}

// interruptible returns a context that SIGINT or SIGTERM cancels with an
// *interrupted cause (signal.NotifyContext does not say which signal). A
// second signal ends the program the default way.
func interruptible() (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-sigs:
			signal.Stop(sigs)
			cancel(&interrupted{sig})
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel(nil)
	}
}

// terminal is where a command writes: its output, its diagnostics, and
// whether each is a terminal (colour on stdout, a progress line on stderr).
type terminal struct {
	stdout, stderr io.Writer
	color          bool // stdout is a terminal that takes colour
	progress       bool // stderr is a terminal: show a progress line
}

func newTerminal(stdout, stderr *os.File) terminal {
	noColor := os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb"
	return terminal{
		stdout:   stdout,
		stderr:   stderr,
		color:    isTerminal(stdout) && !noColor,
		progress: isTerminal(stderr) && os.Getenv("TERM") != "dumb",
	}
}

// isTerminal reports whether f is a character device, which is how a
// terminal looks without a terminal library (a pipe or a file is not one).
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// usageError is bad usage: the message names what was wrong; the command's
// usage follows it.
type usageError struct {
	cmd *command
	msg string
}

func (e *usageError) Error() string { return e.msg }

func usagef(cmd *command, format string, args ...any) error {
	return &usageError{cmd: cmd, msg: fmt.Sprintf(format, args...)}
}

// run is the program: args without the program name; it returns the exit
// status.
func run(ctx context.Context, args []string, term terminal) int {
	if len(args) == 0 {
		io.WriteString(term.stderr, mainUsage())
		return exitUsage
	}
	name, rest := args[0], args[1:]
	switch name {
	case "help", "-h", "-help", "--help":
		if len(rest) > 0 {
			if cmd := lookup(rest[0]); cmd != nil {
				io.WriteString(term.stdout, cmd.usage())
				return exitOK
			}
			fprintf(term.stderr, "mcptestkit help: unknown command %q\n\n%s", rest[0], styled(mainUsage()))
			return exitUsage
		}
		io.WriteString(term.stdout, mainUsage())
		return exitOK
	case "-version", "--version":
		name = "version"
	}
	cmd := lookup(name)
	if cmd == nil {
		fprintf(term.stderr, "mcptestkit: unknown command %q\n\n%s", name, styled(mainUsage()))
		return exitUsage
	}
	code, err := cmd.run(ctx, rest, term)
	var ue *usageError
	if intr, ok := context.Cause(ctx).(*interrupted); ok && err != nil && !errors.As(err, &ue) {
		// What failed after the signal failed because of it.
		if !errors.Is(err, intr) {
			err = fmt.Errorf("interrupted (%v)", err)
		}
		code = intr.exitCode()
	}
	switch {
	case errors.Is(err, flag.ErrHelp):
		io.WriteString(term.stdout, cmd.usage())
		return exitOK
	case errors.As(err, &ue):
		fprintf(term.stderr, "mcptestkit %s: %s\n\n%s", cmd.name(), lines(ue.msg), styled(cmd.usage()))
		return exitUsage
	case err != nil:
		fprintf(term.stderr, "mcptestkit %s: %s\n", cmd.name(), lines(err.Error()))
		if code == exitOK {
			code = exitUsage
		}
	}
	return code
}

// mainUsage is "mcptestkit help": a line for each command, its usage line
// and its short help, then what a SERVER is.
func mainUsage() string {
	var b strings.Builder
	b.WriteString("mcptestkit checks, calls and records MCP servers.\n\nUsage:\n")
	// The names take six columns: a longer one (surface) only pushes its
	// own arguments; the short help lines up.
	tw := tabwriter.NewWriter(&b, 0, 0, 3, ' ', 0)
	for _, c := range commands {
		name, args, _ := strings.Cut(c.usageLine, " ")
		fmt.Fprintf(tw, "  mcptestkit %-6s %s\t%s\n", name, args, c.short)
	}
	tw.Flush()
	b.WriteString(serversAndExits)
	return b.String()
}

const serversAndExits = `
SERVER is one of:
  (nothing)          the bundled Bookshop example (examples/bookshop), served in process
  URL                a streamable HTTP endpoint, http://... or https://...
  -- CMD [ARGS...]   a program speaking MCP on stdin/stdout; everything after -- is its command line

Exit status: 0 all passed; 1 a check failed, the tool failed or the session differs;
2 bad usage or the server could not be reached; 130 interrupted (143 for SIGTERM).

Run 'mcptestkit help COMMAND' for a command's flags.
`
