package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"slices"
	"strings"

	"github.com/mcptestkit/mcptestkit/client"
)

var cmdCall = &command{
	usageLine: "call [flags] TOOL [key=value...] [SERVER]",
	short:     "call one tool",
	reach:     oneServer,
	long: `Call calls one tool and prints its result as JSON. key=value sets an argument,
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
	flags: func() invocation { return new(callFlags) },
}

// callFlags are call's flags, new for each run.
type callFlags struct {
	raw  string // --json: the arguments as one object
	task bool
}

func (f *callFlags) register(fs *flag.FlagSet, _ *connFlags) {
	fs.StringVar(&f.raw, "json", "", "the arguments as one JSON `object`")
	fs.BoolVar(&f.task, "task", false, "run the call as a task and wait for it to end")
}

func (f *callFlags) run(ctx context.Context, cmd *command, args []string, srv *server, term terminal) (int, error) {
	if len(args) == 0 {
		return exitUsage, usagef(cmd, "name the tool to call (mcptestkit list shows them)")
	}
	tool, pairs := args[0], args[1:]
	if f.raw != "" && len(pairs) > 0 {
		return exitUsage, usagef(cmd, "give the arguments either as key=value or with --json, not both")
	}
	var obj map[string]any
	if f.raw != "" {
		if err := json.Unmarshal([]byte(f.raw), &obj); err != nil || obj == nil {
			return exitUsage, usagef(cmd, "--json %s: not a JSON object", f.raw)
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
	task := f.task || requiresTask(ctx, c, tool)
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

// at returns the server to be spoken to at version.
func (s *server) at(version string) *server {
	c := *s
	c.version = version
	return &c
}
