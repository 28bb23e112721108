package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/internal/cassette"
	"github.com/mcptestkit/mcptestkit/internal/textdiff"
	"github.com/mcptestkit/mcptestkit/mcptest"
)

func listCommand() *command {
	return &command{
		name: "list",
		args: "[SERVER]",
		about: `List prints what SERVER offers: its tools, resources, resource templates and
prompts, every page of each list its capabilities declare.`,
		setup: func(fs *flag.FlagSet, _ *connFlags) func(context.Context, []string, *server, terminal) (int, error) {
			format := fs.String("format", "text", "text, or json (the lists as the server sent them)")
			return func(ctx context.Context, args []string, srv *server, term terminal) (int, error) {
				if len(args) > 0 {
					return exitUsage, usagef(lookup("list"), "unexpected argument %q: a server URL starts with http:// or https://, a server command goes after --", args[0])
				}
				if *format != "text" && *format != "json" {
					return exitUsage, usagef(lookup("list"), "--format %q: use text or json", *format)
				}
				c, err := srv.connect(ctx)
				if err != nil {
					return exitUsage, err
				}
				defer c.Close()
				s, err := capture(ctx, c)
				if err != nil {
					return exitFail, err
				}
				if *format == "json" {
					return exitOK, writeIndented(term.stdout, s)
				}
				printList(term.stdout, c, s)
				return exitOK, nil
			}
		},
	}
}

// printList prints each list the server's capabilities declare, and says
// which it does not offer.
func printList(w io.Writer, c *client.Client, s *session) {
	info := c.ServerInfo()
	caps := c.ServerCapabilities()
	fprintf(w, "%s %s, protocol %s\n", info.Name, info.Version, s.ProtocolVersion)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	var absent []string
	section := func(title string, declared bool, n int) bool {
		if !declared {
			absent = append(absent, strings.ToLower(title))
			return false
		}
		fprintf(tw, "\n%s (%d):\n", title, n)
		return true
	}
	if section("Tools", caps.Tools != nil, len(s.Tools)) {
		for _, t := range s.Tools {
			fprintf(tw, "  %s\t%s\n", t.Name, firstLine(t.Description))
		}
	}
	if section("Resources", caps.Resources != nil, len(s.Resources)) {
		for _, r := range s.Resources {
			fprintf(tw, "  %s\t%s\t%s\n", r.URI, r.Name, r.MIMEType)
		}
		fprintf(tw, "\nResource templates (%d):\n", len(s.ResourceTemplates))
		for _, r := range s.ResourceTemplates {
			fprintf(tw, "  %s\t%s\t%s\n", r.URITemplate, r.Name, r.MIMEType)
		}
	}
	if section("Prompts", caps.Prompts != nil, len(s.Prompts)) {
		for _, p := range s.Prompts {
			var args []string
			for _, a := range p.Arguments {
				name := string(sprintf("%s", a.Name))
				if a.Required {
					name += "*"
				}
				args = append(args, name)
			}
			fprintf(tw, "  %s(%s)\t%s\n", p.Name, styled(strings.Join(args, ", ")), firstLine(p.Description))
		}
	}
	tw.Flush()
	if len(absent) > 0 {
		fprintf(w, "\nNot offered (not in the server's capabilities): %s\n", strings.Join(absent, ", "))
	}
}

func callCommand() *command {
	return &command{
		name: "call",
		args: "TOOL [key=value | key:=JSON ...] [SERVER]",
		about: `Call calls one tool and prints its result as JSON. key=value sets an argument,
a string unless the tool's input schema gives the property another type
(then value is read as JSON: n=3, ok=true); key:=JSON sets it to any JSON
value; --json gives all the arguments as one object instead. The exit status
is 1 when the tool fails (isError) or the server answers with a JSON-RPC
error, which is printed on stderr.

A tool whose execution.taskSupport is "required" runs as a task, and --task
runs any tool as one: call waits for the task to end (within --timeout),
printing each status it goes through on stderr, and prints what the call
returned. Where the server has tasks only at 2025-11-25 (no tasks extension
at 2026-07-28) and no --version is given, call speaks 2025-11-25.`,
		setup: func(fs *flag.FlagSet, _ *connFlags) func(context.Context, []string, *server, terminal) (int, error) {
			raw := fs.String("json", "", "the arguments as one JSON `object`")
			asTask := fs.Bool("task", false, "run the call as a task and wait for it to end")
			return func(ctx context.Context, args []string, srv *server, term terminal) (int, error) {
				cmd := lookup("call")
				if len(args) == 0 {
					return exitUsage, usagef(cmd, "name the tool to call (mcptestkit list shows them)")
				}
				tool, pairs := args[0], args[1:]
				if *raw != "" && len(pairs) > 0 {
					return exitUsage, usagef(cmd, "give the arguments either as key=value or with --json, not both")
				}
				var obj map[string]any
				if *raw != "" {
					if err := json.Unmarshal([]byte(*raw), &obj); err != nil || obj == nil {
						return exitUsage, usagef(cmd, "--json %s: not a JSON object", *raw)
					}
				}
				for _, p := range pairs {
					if !strings.Contains(p, "=") {
						return exitUsage, usagef(cmd, "argument %q: write it as key=value or key:=JSON", p)
					}
				}
				c, err := srv.connect(ctx)
				if err != nil {
					return exitUsage, err
				}
				defer func() { c.Close() }()
				task := *asTask || requiresTask(ctx, c, tool)
				if task && !c.SupportsTasks() && c.IsModern() && srv.version == "" && slices.Contains(c.ServerVersions(), client.Version20251125) {
					// A server of the 2025-11-25 tasks only (mcp-go v1.2.1).
					if legacy, err := srv.at(client.Version20251125).connect(ctx); err == nil && legacy.SupportsTasks() {
						fprintf(term.stderr, "the server has no tasks at %s (it does not declare the %s extension): calling at %s, where it has\n", c.ProtocolVersion(), client.ExtensionTasks, legacy.ProtocolVersion())
						c.Close()
						c = legacy
					} else if err == nil {
						legacy.Close()
					}
				}
				if len(pairs) > 0 {
					types, err := propertyTypes(ctx, c, tool)
					if err != nil { // the server's fault, not the usage's
						return exitFail, fmt.Errorf("reading tools/list to type the arguments: %w", err)
					}
					if obj, err = toolArguments(types, pairs); err != nil {
						return exitUsage, usagef(cmd, "%v", err)
					}
				}
				if obj == nil {
					obj = map[string]any{}
				}
				var opts []client.CallOption
				if task {
					opts = append(opts, client.WithTask(0), client.WithTaskUpdates(func(t *client.Task) {
						msg := styled("")
						if t.StatusMessage != "" {
							msg = sprintf(": %s", t.StatusMessage)
						}
						fprintf(term.stderr, "task %s %s%s\n", t.ID, t.Status, msg)
					}))
				}
				res, err := c.CallTool(ctx, tool, obj, opts...)
				if err != nil {
					return exitFail, err
				}
				if err := writeIndented(term.stdout, res); err != nil {
					return exitUsage, err
				}
				if res.IsError {
					return exitFail, nil
				}
				return exitOK, nil
			}
		},
	}
}

// requiresTask reports whether the server lists the tool with
// execution.taskSupport "required" (a failed listing says no: the call
// then says what is wrong).
func requiresTask(ctx context.Context, c *client.Client, name string) bool {
	for t, err := range c.Tools(ctx) {
		if err != nil {
			return false
		}
		if t.Name == name {
			return t.TaskSupport() == client.TaskSupportRequired
		}
	}
	return false
}

// propertyTypes returns the "type" of each property of the tool's input
// schema, as the server lists it.
func propertyTypes(ctx context.Context, c *client.Client, name string) (map[string]any, error) {
	props := map[string]any{}
	for t, err := range c.Tools(ctx) {
		if err != nil {
			return nil, err
		}
		if t.Name == name {
			var schema struct {
				Properties map[string]json.RawMessage `json:"properties"`
			}
			_ = json.Unmarshal(t.InputSchema, &schema)
			for k, v := range schema.Properties {
				var p struct {
					Type any `json:"type"`
				}
				_ = json.Unmarshal(v, &p)
				props[k] = p.Type
			}
			break
		}
	}
	return props, nil
}

// toolArguments builds a call's arguments from key=value and key:=JSON
// pairs, typing each value by props (propertyTypes).
func toolArguments(props map[string]any, pairs []string) (map[string]any, error) {
	out := map[string]any{}
	for _, p := range pairs {
		if k, v, ok := strings.Cut(p, ":="); ok && !strings.Contains(k, "=") {
			var val any
			if err := json.Unmarshal([]byte(v), &val); err != nil {
				return nil, fmt.Errorf("argument %q: %s is not JSON: %v", p, v, err)
			}
			out[k] = val
			continue
		}
		k, v, _ := strings.Cut(p, "=")
		if k == "" {
			return nil, fmt.Errorf("argument %q has no key", p)
		}
		if isStringType(props[k]) {
			out[k] = v
			continue
		}
		var val any
		if err := json.Unmarshal([]byte(v), &val); err != nil {
			if props[k] != nil {
				return nil, fmt.Errorf("argument %q: the schema says %v, and %s is not JSON: %v", p, props[k], v, err)
			}
			val = v // no type known: a string
		}
		out[k] = val
	}
	return out, nil
}

// isStringType reports whether a schema's "type" is string or allows only
// string and null; an absent type is not.
func isStringType(t any) bool {
	switch t := t.(type) {
	case string:
		return t == "string"
	case []any:
		str := false
		for _, e := range t {
			switch e {
			case "string":
				str = true
			case "null":
			default:
				return false
			}
		}
		return str
	}
	return false
}

func recordCommand() *command {
	return &command{
		name: "record",
		args: "[-o FILE] [--script FILE] [SERVER]",
		about: `Record writes a session with SERVER as a golden file: the protocol version,
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
		setup: func(fs *flag.FlagSet, _ *connFlags) func(context.Context, []string, *server, terminal) (int, error) {
			out := fs.String("o", "", "write the session to `file` (default: stdout)")
			script := fs.String("script", "", "run the steps of this JSON `file` and record their outcomes")
			listen := fs.String("listen", "", "with -o FILE.cassette and a URL: serve the recording proxy on this `address` (127.0.0.1:PORT)")
			var names, patterns stringList
			fs.Var(&names, "redact-name", "with -o FILE.cassette: also redact the string values of members with this `name` (any case; repeatable)")
			fs.Var(&patterns, "redact", "with -o FILE.cassette: also redact what matches this `regexp` in any string (repeatable)")
			redact := func() *cassette.Redaction {
				if len(names) == 0 && len(patterns) == 0 {
					return nil
				}
				return &cassette.Redaction{Names: names, Patterns: patterns}
			}
			return func(ctx context.Context, args []string, srv *server, term terminal) (int, error) {
				cmd := lookup("record")
				if len(args) > 0 {
					return exitUsage, usagef(cmd, "unexpected argument %q: a server URL starts with http:// or https://, a server command goes after --", args[0])
				}
				if strings.HasSuffix(*out, ".cassette") && srv.url != "" {
					if *listen == "" {
						return exitUsage, usagef(cmd, "-o %s with a URL: give --listen 127.0.0.1:PORT, where the client is to connect", *out)
					}
					summary, err := proxyHTTP(ctx, *out, redact(), *listen, srv.url, func(u string) {
						fprintf(term.stderr, "mcptestkit record: recording %s at %s; stop with Ctrl-C\n", srv.url, u)
					})
					if err != nil {
						return exitUsage, err
					}
					if summary != "" {
						fprintf(term.stderr, "mcptestkit record: %s\n", summary)
					}
					fprintf(term.stderr, "mcptestkit record: %s: %s\n", *out, cassette.Protection)
					return exitOK, nil
				}
				if strings.HasSuffix(*out, ".cassette") {
					if srv.command == nil {
						return exitUsage, usagef(cmd, "-o %s: a cassette is recorded through a proxy: give the server's command line after --, or its URL and --listen", *out)
					}
					if *script != "" {
						return exitUsage, usagef(cmd, "--script: a cassette records what a real client does, not a script")
					}
					summary, status, err := proxyStdio(ctx, *out, redact(), srv.command, os.Stdin, term.stdout, term.stderr)
					if err != nil {
						return exitUsage, err
					}
					if summary != "" {
						fprintf(term.stderr, "mcptestkit record: %s\n", summary)
					}
					fprintf(term.stderr, "mcptestkit record: %s: %s\n", *out, cassette.Protection)
					return status, nil // the server's: the client sees it as the server's end
				}
				var steps []*step
				if *script != "" {
					data, err := os.ReadFile(*script)
					if err != nil {
						return exitUsage, usagef(cmd, "--script: %v", err)
					}
					if steps, err = readScript(data); err != nil {
						return exitUsage, usagef(cmd, "--script %s: %v", *script, err)
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
				if *out == "" {
					_, err = term.stdout.Write(jsonSafe(data))
					return exitOK, err
				}
				if err := os.WriteFile(*out, data, 0o644); err != nil {
					return exitUsage, err
				}
				fprintf(term.stderr, "recorded %s: %d tool(s), %d resource(s), %d template(s), %d prompt(s), %d step(s)\n",
					*out, len(s.Tools), len(s.Resources), len(s.ResourceTemplates), len(s.Prompts), len(s.Steps))
				return exitOK, nil
			}
		},
	}
}

// errSession is a session that could not be completed.
var errSession = errors.New("the session broke off")

// runSession connects, captures the lists and plays the steps.
func runSession(ctx context.Context, srv *server, steps []*step) (*session, error) {
	c, err := srv.connect(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	s, err := capture(ctx, c)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errSession, err)
	}
	for _, st := range steps {
		if err := play(ctx, c, st); err != nil {
			return nil, fmt.Errorf("%w: %v", errSession, err)
		}
	}
	s.Steps = steps
	return s, nil
}

func replayCommand() *command {
	return &command{
		name: "replay",
		args: "FILE [SERVER]",
		about: `Replay runs the session recorded in FILE (by mcptestkit record) against
SERVER again (for FILE.cassette, the requests the recorded client sent), at
the recorded protocol version unless --version says otherwise, and compares
the two after normalising both. The lists (tools, resources, resource
templates, prompts) are compared in any order, as the protocol gives their
order no meaning; --ignore leaves out fields that change from run to run (a
timestamp in _meta). It prints the differences (-recorded +now) and exits
with 1 when there are any; 0 when the server still answers as recorded.
Re-record to accept a change (for a cassette, --update writes the server's
answers into it, redacted as when recorded).`,
		setup: func(fs *flag.FlagSet, _ *connFlags) func(context.Context, []string, *server, terminal) (int, error) {
			var ignore []string
			fs.Func("ignore", "leave out every member with this `name`, at any depth (repeat it, or give a comma-separated list)", func(v string) error {
				for _, name := range strings.Split(v, ",") {
					if name = strings.TrimSpace(name); name != "" {
						ignore = append(ignore, name)
					}
				}
				return nil
			})
			update := fs.Bool("update", false, "with FILE.cassette: write the server's answers into the cassette (redacted as when recorded) instead of comparing")
			var redact stringList
			fs.Var(&redact, "redact", "with FILE.cassette: the `regexp` of a --redact the recording used (the cassette does not keep them: one may be the secret); repeatable")
			return func(ctx context.Context, args []string, srv *server, term terminal) (int, error) {
				var norm []mcptest.Option
				if len(ignore) > 0 {
					norm = append(norm, mcptest.IgnoreFields(ignore...))
				}
				cmd := lookup("replay")
				if len(args) != 1 {
					return exitUsage, usagef(cmd, "give the recorded session's file (and the server), got %d argument(s)", len(args))
				}
				file := args[0]
				if strings.HasSuffix(file, ".cassette") {
					return replayCassette(ctx, file, srv, norm, *update, redact, term)
				}
				norm = append(norm, mcptest.Transform(cassette.SortLists)) // a session's lists are at its top
				data, err := os.ReadFile(file)
				if err != nil {
					return exitUsage, usagef(cmd, "%v", err)
				}
				var rec struct {
					ProtocolVersion string            `json:"protocolVersion"`
					Steps           []json.RawMessage `json:"steps"` // each decoded on its own, to name a bad one
				}
				if err := json.Unmarshal(data, &rec); err != nil || rec.ProtocolVersion == "" {
					return exitUsage, usagef(cmd, "%s is not a session recorded by mcptestkit record (%v)", file, err)
				}
				steps, err := decodeSteps(rec.Steps, false)
				if err != nil {
					return exitUsage, usagef(cmd, "%s: %v", file, err)
				}
				want, err := mcptest.Normalize(json.RawMessage(data), norm...)
				if err != nil {
					return exitUsage, usagef(cmd, "%s: %v", file, err)
				}
				if srv.version == "" {
					srv.version = rec.ProtocolVersion
				}
				s, err := runSession(ctx, srv, steps)
				if errors.Is(err, errSession) {
					return exitFail, err // the server broke: a regression
				}
				if err != nil {
					return exitUsage, err
				}
				got, err := mcptest.Normalize(s, norm...)
				if err != nil {
					return exitUsage, err
				}
				if bytes.Equal(want, got) {
					fprintf(term.stdout, "%s: the server answers as recorded (%d step(s))\n", file, len(steps))
					return exitOK, nil
				}
				fprintf(term.stdout, "%s: the server's answers differ from the recording:\n%s", file,
					lines(textdiff.Unified(file+" (recorded)", srv.String()+" (now)", string(want), string(got))))
				return exitFail, nil
			}
		},
	}
}

// writeIndented writes v as indented JSON, made safe for a terminal.
func writeIndented(w io.Writer, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(jsonSafe(b.Bytes()))
	return err
}

// at returns the server to be spoken to at version.
func (s *server) at(version string) *server {
	c := *s
	c.version = version
	return &c
}
