package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/mcptestkit/mcptestkit/internal/drift"
)

var cmdDiff = &command{
	usageLine: "diff [flags] OLD NEW",
	short:     "classify the changes between two surfaces",
	reach:     urlOperands,
	long: `Diff compares two versions of what a server offers (its tools, resources,
resource templates, prompts and capabilities) and prints each change, breaking
ones first, with its JSON path and why it breaks clients or does not: a
removed or renamed tool, a new required argument, a narrowed type or enum, a
lowered maximum, closed additionalProperties, a removed output field or
capability break clients; a new tool or optional argument, a widened type,
descriptions and annotations do not. The exit status is 1 when a change
breaks clients and 0 when every change is compatible, so CI can gate on it.

OLD and NEW are each a file (what "mcptestkit list --format json" prints, or
a golden file of the lists written by mcptest's Golden), an http:// or
https:// URL, or, for NEW only, -- followed by a server's command line.`,
	flags: func() invocation { return new(diffFlags) },
}

// diffFlags are diff's flags, new for each run: only the connection flags,
// for the operands that are URLs.
type diffFlags struct {
	conn *connFlags
}

func (f *diffFlags) register(_ *flag.FlagSet, conn *connFlags) { f.conn = conn }

func (f *diffFlags) run(ctx context.Context, cmd *command, args []string, srv *server, term terminal) (int, error) {
	operands := len(args)
	if srv.command != nil {
		operands++
	}
	if operands != 2 {
		return exitUsage, usagef(cmd, "give OLD and NEW (got %d): two files or URLs, or one and -- a server's command line", operands)
	}
	var sides [2]*drift.Surface
	for i := range sides {
		var err error
		if i < len(args) {
			sides[i], err = surfaceOf(ctx, args[i], f.conn)
		} else {
			sides[i], err = surfaceFrom(ctx, srv)
		}
		if err != nil {
			return exitUsage, err
		}
	}
	changes := drift.Compare(sides[0], sides[1])
	if len(changes) == 0 {
		fprintf(term.stdout, "no change\n")
		return exitOK, nil
	}
	// Escaped, a line at a time: the paths and reasons carry the server's names.
	summary, _, _ := strings.Cut(drift.Report(changes), "\n")
	fprintf(term.stdout, "%s\n", summary)
	for _, c := range changes {
		fprintf(term.stdout, "  %s\n", c.String())
	}
	if drift.Breaking(changes) {
		return exitFail, nil
	}
	return exitOK, nil
}

// surfaceOf reads one operand of diff: a URL is a server to list, anything
// else a file.
func surfaceOf(ctx context.Context, operand string, conn *connFlags) (*drift.Surface, error) {
	if strings.HasPrefix(operand, "http://") || strings.HasPrefix(operand, "https://") {
		srv, _, err := conn.server([]string{operand}, nil)
		if err != nil {
			return nil, err
		}
		return surfaceFrom(ctx, srv)
	}
	data, err := os.ReadFile(operand)
	if err != nil {
		return nil, err
	}
	s, err := drift.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w (give what mcptestkit list --format json prints, or a golden file of the lists)", operand, err)
	}
	return s, nil
}

// surfaceFrom lists what a server offers, as list --format json does.
func surfaceFrom(ctx context.Context, srv *server) (*drift.Surface, error) {
	s, err := runSession(ctx, srv, nil)
	if err != nil {
		return nil, fmt.Errorf("listing what %s offers: %w", srv, err)
	}
	data, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	return drift.Parse(data)
}
