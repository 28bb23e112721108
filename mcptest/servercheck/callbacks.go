package servercheck

import (
	"context"
	"net/url"
	"os"
	"path/filepath"

	"github.com/mcptestkit/mcptestkit/client"
)

// The check client answers the server's requests for input, as a user's
// client would, so that a tool that asks (elicitation, sampling, roots)
// gets its answer and its path is checked rather than skipped: a form
// elicitation is accepted with content generated from its schema (a URL
// one is declined: nobody can visit the page), a sampling request gets a
// canned text, roots/list one empty directory the suite makes and removes.
// What Options.Client sets is kept.

// sampledText is what the check client's sampling answers.
const sampledText = "mcptestkit: a sampled answer"

// answerInput fills in the callbacks Options.Client leaves unset.
func (s *suite) answerInput() error {
	o := &s.opts.Client
	if o.Elicit == nil {
		o.Elicit = s.elicit
	}
	if o.CreateMessage == nil {
		o.CreateMessage = func(context.Context, *client.CreateMessageRequest) (*client.CreateMessageResult, error) {
			return &client.CreateMessageResult{Role: "assistant", Model: "mcptestkit", StopReason: "endTurn",
				Content: []client.Content{&client.TextContent{Text: sampledText}}}, nil
		}
	}
	if o.ListRoots == nil {
		dir, err := os.MkdirTemp("", "mcptestkit-check-root-")
		if err != nil {
			return err
		}
		s.rootDir = dir
		u := (&url.URL{Scheme: "file", Path: filepath.ToSlash(dir)}).String()
		o.ListRoots = func(context.Context) ([]*client.Root, error) {
			return []*client.Root{{URI: u, Name: "mcptestkit check root (empty)"}}, nil
		}
	}
	return nil
}

// elicit accepts a form elicitation with content generated from its
// requested schema, and declines what it cannot fill in.
func (s *suite) elicit(_ context.Context, r *client.ElicitRequest) (*client.ElicitResult, error) {
	if r.Mode != "url" && len(r.RequestedSchema) > 0 {
		if sc, err := s.compile(r.RequestedSchema, "elicitation/requestedSchema"); err == nil {
			if content, why := sc.conforming(newSeeded(s.opts.Seed, "elicitation/"+r.Message)); why == "" {
				return &client.ElicitResult{Action: client.ElicitAccept, Content: content}, nil
			}
		}
	}
	return &client.ElicitResult{Action: client.ElicitDecline}, nil
}
