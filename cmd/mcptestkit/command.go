package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/client/transport"
	"github.com/mcptestkit/mcptestkit/examples/bookshop"
	"github.com/mcptestkit/mcptestkit/gosdk/gosdktest"
	"github.com/mcptestkit/mcptestkit/mcptest/servercheck"
)

// A command is one subcommand, as cmd/go's base.Command is one of the go
// command's: its usage line, its help, which server it reaches, and its
// flags with what it does with them. Each command is one value in a file of
// its own (check.go, list.go, ...); commands lists them, and every help text
// is made from them.
//
// Unlike the go command, which binds a command's flags to package variables
// once per process, a command makes new values of its flags for each run
// (invocation), so that the runs of one process (the tests') share nothing.
type command struct {
	// usageLine is what follows "mcptestkit" in the command's usage: its
	// name, then its flags and arguments.
	usageLine string
	short     string // the command's line in "mcptestkit help"
	long      string // what "mcptestkit help NAME" says under the usage line
	reach     reach
	// rawArgs: the command gets its arguments as they are, with no flag
	// parsed and no server taken out (version).
	rawArgs bool
	// flags returns new values of the command's flags, which run the
	// command once they are parsed.
	flags func() invocation
}

// An invocation is one run of a command: the values of its flags, which
// register binds to a flag set, and run, which does the command with them.
type invocation interface {
	// register defines the command's own flags on fs; conn holds the
	// connection flags, which the command does not define itself but may
	// read (diff reaches a server for each URL operand).
	register(fs *flag.FlagSet, conn *connFlags)
	// run gets the positional arguments (the server's URL taken out) and
	// the server, nil when the command reaches none.
	run(ctx context.Context, cmd *command, args []string, srv *server, term terminal) (int, error)
}

// reach is which server a command's arguments name.
type reach int

const (
	// oneServer: a URL among the arguments, a command line after "--", or
	// neither for the bundled Bookshop.
	oneServer reach = iota
	// urlOperands: the command takes more than one server (diff): URLs
	// stay among its positional arguments, and the server it gets is only
	// the command line after "--", if any.
	urlOperands
	// noServer: the command reaches no server (surface, serve, version), so
	// it has no SERVER argument and no connection flags.
	noServer
)

// commands are mcptestkit's commands, in the order "mcptestkit help" lists
// them.
var commands = []*command{cmdCheck, cmdList, cmdCall, cmdRecord, cmdReplay, cmdDiff, cmdSurface, cmdServe, cmdVersion}

func lookup(name string) *command {
	for _, c := range commands {
		if c.name() == name {
			return c
		}
	}
	return nil
}

// name is the first word of the usage line.
func (c *command) name() string {
	name, _, _ := strings.Cut(c.usageLine, " ")
	return name
}

// args is what the usage line says of the positional arguments.
func (c *command) args() string {
	_, args, _ := strings.Cut(c.usageLine, " ")
	return strings.TrimPrefix(args, "[flags] ")
}

// newFlags returns a new flag set with every flag of the command
// registered, and the run they are bound to.
func (c *command) newFlags() (*flag.FlagSet, *connFlags, invocation) {
	fs := flag.NewFlagSet("mcptestkit "+c.name(), flag.ContinueOnError)
	fs.SetOutput(io.Discard) // run prints the error and the usage itself
	fs.Usage = func() {}
	conn := &connFlags{}
	inv := c.flags()
	inv.register(fs, conn)
	if c.reach != noServer {
		conn.register(fs)
	}
	return fs, conn, inv
}

// usage is "mcptestkit help NAME".
func (c *command) usage() string {
	fs, _, _ := c.newFlags()
	var b bytes.Buffer
	fmt.Fprintf(&b, "Usage: mcptestkit %s\n\n%s\n", c.usageLine, c.long)
	if c.reach != noServer {
		b.WriteString(serverHelp)
	}
	if hasFlags(fs) {
		b.WriteString("\nFlags:\n")
		fs.SetOutput(&b)
		fs.PrintDefaults()
	}
	return b.String()
}

func hasFlags(fs *flag.FlagSet) bool {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n > 0
}

const serverHelp = `
SERVER is nothing (the bundled Bookshop example, served in process), an
http:// or https:// URL (streamable HTTP), or -- followed by the command line
of a program that speaks MCP on stdin/stdout (everything after -- belongs to it).
`

func (c *command) run(ctx context.Context, args []string, term terminal) (int, error) {
	fs, conn, inv := c.newFlags()
	if c.rawArgs {
		return inv.run(ctx, c, args, nil, term)
	}
	pos, cmdline, err := parseArgs(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK, err
	}
	if err != nil {
		return exitUsage, usagef(c, "%v", err)
	}
	// An empty argument is a mistake, most often a shell variable that is
	// not set ("mcptestkit check $URL"): never read it as "no server".
	if slices.Contains(pos, "") {
		return exitUsage, usagef(c, "an empty argument (is a shell variable unset?); the arguments are %s", c.args())
	}
	var srv *server
	switch c.reach {
	case noServer:
		if cmdline != nil {
			return exitUsage, usagef(c, "this command reaches no server: nothing goes after \"--\"")
		}
		return inv.run(ctx, c, pos, nil, term)
	case urlOperands:
		srv = &server{command: cmdline}
		if cmdline != nil {
			srv, _, err = conn.server(nil, cmdline)
		}
	default:
		srv, pos, err = conn.server(pos, cmdline)
	}
	if err != nil {
		return exitUsage, usagef(c, "%v", err)
	}
	return inv.run(ctx, c, pos, srv, term)
}

// parseArgs parses flags wherever they are among the arguments before "--"
// (the flag package stops at the first positional argument; here
// "mcptestkit call get_author title=Dune --version 2025-11-25" works), and
// returns the positional arguments and the command line after "--".
func parseArgs(fs *flag.FlagSet, args []string) (pos, cmdline []string, err error) {
	if i := slices.Index(args, "--"); i >= 0 {
		args, cmdline = args[:i], args[i+1:]
		if len(cmdline) == 0 {
			return nil, nil, errors.New(`no server command after "--"`)
		}
	}
	for {
		if err := fs.Parse(args); err != nil {
			return nil, nil, err
		}
		if fs.NArg() == 0 {
			return pos, cmdline, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// connFlags are the flags every command has: how to reach the server.
type connFlags struct {
	headers stringList
	version string
	timeout time.Duration
}

func (f *connFlags) register(fs *flag.FlagSet) {
	fs.Var(&f.headers, "header", "send this `header` with every request to a URL, written \"Name: value\" (repeatable)")
	fs.StringVar(&f.version, "version", "", "the protocol `version` to speak (default: 2026-07-28 if the server speaks it, else the newest it does);\none of "+strings.Join(client.SupportedVersions(), ", "))
	fs.DurationVar(&f.timeout, "timeout", servercheck.DefaultTimeout, "how long to wait for each answer of the server")
}

// server takes the server out of the arguments: a URL among the positional
// arguments, the command line after "--", or neither for the Bookshop. It
// returns the remaining positional arguments.
func (f *connFlags) server(pos, cmdline []string) (*server, []string, error) {
	if f.version != "" && !slices.Contains(client.SupportedVersions(), f.version) {
		return nil, nil, fmt.Errorf("--version %q is not a protocol version mcptestkit speaks; use one of %s", f.version, strings.Join(client.SupportedVersions(), ", "))
	}
	if f.timeout <= 0 {
		return nil, nil, fmt.Errorf("--timeout %v: give a positive duration, such as 30s", f.timeout)
	}
	s := &server{command: cmdline, headers: http.Header{}}
	var rest []string
	for _, a := range pos {
		if !strings.HasPrefix(a, "http://") && !strings.HasPrefix(a, "https://") {
			rest = append(rest, a)
			continue
		}
		if s.url != "" {
			return nil, nil, fmt.Errorf("two server URLs, %s and %s: give one", s.url, a)
		}
		s.url = a
	}
	if s.url != "" && s.command != nil {
		return nil, nil, fmt.Errorf("both a URL (%s) and a command after \"--\" (%s): give one server", s.url, strings.Join(s.command, " "))
	}
	for _, h := range f.headers {
		name, value, ok := strings.Cut(h, ":")
		name = strings.TrimSpace(name)
		if !ok || name == "" || strings.ContainsAny(name, " \t") {
			return nil, nil, fmt.Errorf("--header %q: write it as \"Name: value\"", h)
		}
		s.headers.Add(name, strings.TrimSpace(value))
	}
	if len(s.headers) > 0 && s.url == "" {
		return nil, nil, errors.New("--header applies to a server URL; this server is not reached over HTTP")
	}
	s.version, s.timeout = f.version, f.timeout
	return s, rest, nil
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ", ") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

// server is the server a command talks to, and how.
type server struct {
	url     string
	command []string
	headers http.Header
	version string
	timeout time.Duration
}

// bundled reports whether the server is the Bookshop in process.
func (s *server) bundled() bool { return s.url == "" && s.command == nil }

// String names the server in reports.
func (s *server) String() string {
	switch {
	case s.url != "":
		return s.url
	case s.command != nil:
		return shellQuote(s.command)
	}
	return "the bundled Bookshop example (examples/bookshop, in process)"
}

// dialer opens connections to the server. The Bookshop logs to logs.
func (s *server) dialer(logs *logRecorder) servercheck.Dialer {
	switch {
	case s.url != "":
		return func(context.Context) (client.Transport, error) {
			return transport.HTTP(s.url, transport.WithHeaders(s.headers)), nil
		}
	case s.command != nil:
		return servercheck.Command(exec.Command(s.command[0], s.command[1:]...))
	}
	var h slog.Handler = slog.DiscardHandler
	if logs != nil {
		h = logs
	}
	return servercheck.InProcess(gosdktest.Server(bookshop.New(slog.New(h))))
}

// connect opens one client connection, for the one-shot commands.
func (s *server) connect(ctx context.Context) (*client.Client, error) {
	tr, err := s.dialer(nil)(ctx)
	if err != nil {
		return nil, s.connectError(err)
	}
	c, err := client.Connect(ctx, tr, &client.Options{
		ClientInfo:      client.Implementation{Name: "mcptestkit"},
		ProtocolVersion: s.version,
		Timeout:         s.timeout,
	})
	if err != nil {
		return nil, s.connectError(err)
	}
	return c, nil
}

// connectError is what a command says when the server could not be
// reached, with the exit status 2.
func (s *server) connectError(err error) error {
	var pe *exec.Error
	if errors.As(err, &pe) {
		return fmt.Errorf("could not start %s: %v", s, err)
	}
	return fmt.Errorf("could not connect to %s: %v", s, err)
}

// shellQuote writes a command line the way a shell would read it back.
func shellQuote(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if a != "" && !strings.ContainsAny(a, " \t\n\"'\\$`|&;<>()*?[]{}!#~") {
			out[i] = a
			continue
		}
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}
