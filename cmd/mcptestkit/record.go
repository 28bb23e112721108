package main

import (
	"context"
	"flag"
	"os"
	"strings"

	"github.com/mcptestkit/mcptestkit/internal/cassette"
	"github.com/mcptestkit/mcptestkit/mcptest"
)

var cmdRecord = &command{
	usageLine: "record [flags] [-o FILE] [SERVER]",
	short:     "record a session as a golden file",
	reach:     oneServer,
	long: `Record writes a session with SERVER as a golden file: the protocol version,
the server's name, capabilities and instructions, every page of its lists
(tools, resources, resource templates, prompts), and the outcome of each step
of --script. The file is normalised as mcptest's golden files are (request ids,
the protocol's stamps and cache hints removed, numbers by value), so that
'mcptestkit replay FILE SERVER' can compare a later run with it.

A script is a JSON array of steps, each a tool call, a resource read or a
prompt:
  [{"tool": "get_author", "arguments": {"title": "Dune"}},
   {"resource": "book://Dune"},
   {"prompt": "recommend", "arguments": {"title": "Dune"}}]
Steps run in order on one connection. Record only steps that are safe to
repeat: replay calls them again.

With -o FILE.cassette, record is instead a proxy for a real client (an IDE
agent, the Inspector, an LLM host): configure the client to launch
"mcptestkit record -o FILE.cassette -- SERVER COMMAND" in place of the
server; for a streamable HTTP server, give its URL and --listen ADDRESS, point
the client at the address, and stop the recording with Ctrl-C. Every message
passes through unchanged, at once, both ways (SSE streams flushed as they
come); each message is written to the cassette with its direction and time,
secrets (members named like token, password, secret, api_key, authorization;
bearer tokens, gitleaks' formats; --redact-name and --redact add more)
replaced by [redacted], the same for every secret and derived from none;
headers are not recorded; what was redacted, and what protects the file, go
to stderr. Compressed HTTP bodies reach the client as the server sent them and
are recorded decoded; concurrent HTTP sessions are recorded apart (each
message with its session) and play back apart. The stdio proxy ends when
the server does, with its exit status, or when the client goes away.
Package mcptest/cassette plays a cassette back in go test: Server answers as
the recorded server did, Replay sends the recorded calls to a live server
and diffs the answers.`,
	flags: func() invocation { return new(recordFlags) },
}

// recordFlags are record's flags, new for each run.
type recordFlags struct {
	out, script, listen string
	names, patterns     stringList // --redact-name, --redact
}

func (f *recordFlags) register(fs *flag.FlagSet, _ *connFlags) {
	fs.StringVar(&f.out, "o", "", "write the session to `file` (default: stdout)")
	fs.StringVar(&f.script, "script", "", "run the steps of this JSON `file` and record their outcomes")
	fs.StringVar(&f.listen, "listen", "", "with -o FILE.cassette and a URL: serve the recording proxy on this `address` (127.0.0.1:PORT)")
	fs.Var(&f.names, "redact-name", "with -o FILE.cassette: also redact the string values of members with this `name` (any case; repeatable)")
	fs.Var(&f.patterns, "redact", "with -o FILE.cassette: also redact what matches this `regexp` in any string (repeatable)")
}

// redact is the redaction the flags add to the defaults, nil if none.
func (f *recordFlags) redact() *cassette.Redaction {
	if len(f.names) == 0 && len(f.patterns) == 0 {
		return nil
	}
	return &cassette.Redaction{Names: f.names, Patterns: f.patterns}
}

func (f *recordFlags) run(ctx context.Context, cmd *command, args []string, srv *server, term terminal) (int, error) {
	if len(args) > 0 {
		return exitUsage, usagef(cmd, "unexpected argument %q: a server URL starts with http:// or https://, a server command goes after --", args[0])
	}
	if strings.HasSuffix(f.out, ".cassette") && srv.url != "" {
		if f.listen == "" {
			return exitUsage, usagef(cmd, "-o %s with a URL: give --listen 127.0.0.1:PORT, where the client is to connect", f.out)
		}
		summary, err := proxyHTTP(ctx, f.out, f.redact(), f.listen, srv.url, func(u string) {
			fprintf(term.stderr, "mcptestkit record: recording %s at %s; stop with Ctrl-C\n", srv.url, u)
		})
		if err != nil {
			return exitUsage, err
		}
		if summary != "" {
			fprintf(term.stderr, "mcptestkit record: %s\n", summary)
		}
		fprintf(term.stderr, "mcptestkit record: %s: %s\n", f.out, cassette.Protection)
		return exitOK, nil
	}
	if strings.HasSuffix(f.out, ".cassette") {
		if srv.command == nil {
			return exitUsage, usagef(cmd, "-o %s: a cassette is recorded through a proxy: give the server's command line after --, or its URL and --listen", f.out)
		}
		if f.script != "" {
			return exitUsage, usagef(cmd, "--script: a cassette records what a real client does, not a script")
		}
		summary, status, err := proxyStdio(ctx, f.out, f.redact(), srv.command, os.Stdin, term.stdout, term.stderr)
		if err != nil {
			return exitUsage, err
		}
		if summary != "" {
			fprintf(term.stderr, "mcptestkit record: %s\n", summary)
		}
		fprintf(term.stderr, "mcptestkit record: %s: %s\n", f.out, cassette.Protection)
		return status, nil // the server's: the client sees it as the server's end
	}
	var steps []*step
	if f.script != "" {
		data, err := os.ReadFile(f.script)
		if err != nil {
			return exitUsage, usagef(cmd, "--script: %v", err)
		}
		if steps, err = readScript(data); err != nil {
			return exitUsage, usagef(cmd, "--script %s: %v", f.script, err)
		}
	}
	s, err := runSession(ctx, srv, steps)
	if err != nil {
		return exitUsage, err
	}
	data, err := mcptest.Normalize(s)
	if err != nil {
		return exitUsage, err
	}
	if f.out == "" {
		_, err = term.stdout.Write(jsonSafe(data))
		return exitOK, err
	}
	if err := os.WriteFile(f.out, data, 0o644); err != nil {
		return exitUsage, err
	}
	fprintf(term.stderr, "recorded %s: %d tool(s), %d resource(s), %d template(s), %d prompt(s), %d step(s)\n",
		f.out, len(s.Tools), len(s.Resources), len(s.ResourceTemplates), len(s.Prompts), len(s.Steps))
	return exitOK, nil
}
