package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"strings"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/internal/cassette"
	"github.com/mcptestkit/mcptestkit/internal/textdiff"
	"github.com/mcptestkit/mcptestkit/mcptest"
)

var cmdReplay = &command{
	usageLine: "replay [flags] FILE [SERVER]",
	short:     "run a recorded session again and diff it",
	reach:     oneServer,
	long: `Replay runs the session recorded in FILE (by mcptestkit record) against
SERVER again (for FILE.cassette, the requests the recorded client sent), at
the recorded protocol version unless --version says otherwise, and compares
the two after normalising both. The lists (tools, resources, resource
templates, prompts) are compared in any order, as the protocol gives their
order no meaning; --ignore leaves out fields that change from run to run (a
timestamp in _meta). It prints the differences (-recorded +now) and exits
with 1 when there are any; 0 when the server still answers as recorded.
Re-record to accept a change (for a cassette, --update writes the server's
answers into it, redacted as when recorded).`,
	flags: func() invocation { return new(replayFlags) },
}

// replayFlags are replay's flags, new for each run.
type replayFlags struct {
	ignore []string
	update bool
	redact stringList
}

func (f *replayFlags) register(fs *flag.FlagSet, _ *connFlags) {
	fs.Func("ignore", "leave out every member with this `name`, at any depth (repeat it, or give a comma-separated list)", func(v string) error {
		for _, name := range strings.Split(v, ",") {
			if name = strings.TrimSpace(name); name != "" {
				f.ignore = append(f.ignore, name)
			}
		}
		return nil
	})
	fs.BoolVar(&f.update, "update", false, "with FILE.cassette: write the server's answers into the cassette (redacted as when recorded) instead of comparing")
	fs.Var(&f.redact, "redact", "with FILE.cassette: the `regexp` of a --redact the recording used (the cassette does not keep them: one may be the secret); repeatable")
}

func (f *replayFlags) run(ctx context.Context, cmd *command, args []string, srv *server, term terminal) (int, error) {
	var norm []mcptest.Option
	if len(f.ignore) > 0 {
		norm = append(norm, mcptest.IgnoreFields(f.ignore...))
	}
	if len(args) != 1 {
		return exitUsage, usagef(cmd, "give the recorded session's file (and the server), got %d argument(s)", len(args))
	}
	file := args[0]
	if strings.HasSuffix(file, ".cassette") {
		return replayCassette(ctx, file, srv, norm, f.update, f.redact, term)
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

// replayCassette sends the recorded requests of the cassette at file to
// srv, at the recorded protocol version unless --version says otherwise,
// and prints a diff for each answer that differs: exit status 1 then. With
// update, it writes the live answers into the cassette instead.
func replayCassette(ctx context.Context, file string, srv *server, norm []mcptest.Option, update bool, redact []string, term terminal) (int, error) {
	c, err := cassette.ReadFile(file)
	if err != nil {
		return exitUsage, err
	}
	if h := c.Header.Redact; h != nil && h.Withheld > len(redact) {
		fprintf(term.stderr, "mcptestkit replay: %s was recorded with %d --redact pattern(s) it does not keep; give them again with --redact, or what they matched may show in a diff\n", file, h.Withheld)
	}
	p, err := cassette.NewPlayer(c, cassette.PlayOptions{Redact: redact})
	if err != nil {
		return exitUsage, err
	}
	if srv.version == "" {
		srv.version = c.Header.ProtocolVersion
	}
	cl, err := srv.connect(ctx)
	if err != nil {
		return exitUsage, err
	}
	defer cl.Close()
	call := func(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, json.RawMessage, error) {
		res, err := cl.Call(ctx, method, params)
		var e *client.Error
		if errors.As(err, &e) {
			b, _ := json.Marshal(errorObject{e.Code, e.Message, e.Data})
			return nil, b, nil
		}
		return res, nil, err
	}
	replayed, err := p.Replay(ctx, call, func(v any) ([]byte, error) { return mcptest.Normalize(v, norm...) })
	if err != nil {
		return exitUsage, err
	}
	if update {
		if err := cassette.Rerecord(file, replayed); err != nil {
			return exitFail, err
		}
		fprintf(term.stdout, "%s: re-recorded %d answer(s) from %s\n", file, len(replayed), srv)
		return exitOK, nil
	}
	differ := 0
	for _, r := range replayed {
		if r.Differs() {
			differ++
			fprintf(term.stdout, "%s: the answer to %s differs from the recording:\n%s", file, r.Exchange.Shown,
				lines(textdiff.Unified("recorded", srv.String()+" (now)", string(r.Want), string(r.Got))))
		}
	}
	if differ > 0 {
		fprintf(term.stdout, "%s: %d of %d answer(s) differ\n", file, differ, len(replayed))
		return exitFail, nil
	}
	fprintf(term.stdout, "%s: the server answers as recorded (%d request(s))\n", file, len(replayed))
	return exitOK, nil
}

// errorObject is a JSON-RPC error object.
type errorObject struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}
