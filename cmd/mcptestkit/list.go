package main

import (
	"context"
	"flag"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/mcptestkit/mcptestkit/client"
)

var cmdList = &command{
	usageLine: "list [flags] [SERVER]",
	short:     "list tools, resources, templates and prompts",
	reach:     oneServer,
	long: `List prints what SERVER offers: its tools, resources, resource templates and
prompts, every page of each list its capabilities declare.`,
	flags: func() invocation { return new(listFlags) },
}

// listFlags are list's flags, new for each run.
type listFlags struct {
	format string
}

func (f *listFlags) register(fs *flag.FlagSet, _ *connFlags) {
	fs.StringVar(&f.format, "format", "text", "text, or json (the lists as the server sent them)")
}

func (f *listFlags) run(ctx context.Context, cmd *command, args []string, srv *server, term terminal) (int, error) {
	if len(args) > 0 {
		return exitUsage, usagef(cmd, "unexpected argument %q: a server URL starts with http:// or https://, a server command goes after --", args[0])
	}
	if f.format != "text" && f.format != "json" {
		return exitUsage, usagef(cmd, "--format %q: use text or json", f.format)
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
	if f.format == "json" {
		return exitOK, writeIndented(term.stdout, s)
	}
	printList(term.stdout, c, s)
	return exitOK, nil
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
