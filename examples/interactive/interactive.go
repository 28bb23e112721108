package interactive

//lint:file-ignore SA1019 sampling, roots and logging are deprecated as of 2026-07-28 (SEP-2577) but still served, and the kit tests them at every version

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptestkit/mcptestkit/gosdk"
)

// The keys of the tools' input requests. The client answers each request
// under the key it was asked with, so a handler finds its answer by key.
const (
	// confirmKey is the key of deploy's elicitation.
	confirmKey = "confirm"
	// notesKey is the key of release_notes' sampling request.
	notesKey = "notes"
)

// MsgDeployed is the message of the INFO record deploy logs when, and only
// when, it deploys: the side effect a test can count.
const MsgDeployed = "deployed"

// DeployInput is the argument of deploy.
type DeployInput struct {
	// Service is what to deploy.
	Service string `json:"service" jsonschema:"the service to deploy"`
	// Environment is where to deploy it.
	Environment string `json:"environment" jsonschema:"where to deploy it, such as staging or production"`
}

// DeployOutput is the structured result of deploy.
type DeployOutput struct {
	// Deployed says whether the service was deployed.
	Deployed bool `json:"deployed" jsonschema:"whether the service was deployed"`
	// Answer is what the user answered: accept, decline or cancel.
	Answer string `json:"answer" jsonschema:"the user's answer to the confirmation: accept, decline or cancel"`
}

// confirmSchema is the form deploy shows the user: one required checkbox.
// Elicitation forms are flat objects of primitive fields.
var confirmSchema = json.RawMessage(`{
	"type": "object",
	"properties": {
		"confirm": {"type": "boolean", "title": "Deploy", "description": "Tick to deploy now."}
	},
	"required": ["confirm"]
}`)

// ReleaseNotesInput is the argument of release_notes.
type ReleaseNotesInput struct {
	// Service is the service the changes belong to.
	Service string `json:"service" jsonschema:"the service being released"`
	// Changes are the changes in the release, one line each.
	Changes []string `json:"changes" jsonschema:"the changes in the release, one line each"`
}

// MigrateInput is the argument of migrate.
type MigrateInput struct {
	// Tables are the tables to migrate, in order.
	Tables []string `json:"tables" jsonschema:"the tables to migrate, in order"`
}

// New returns the Release desk server, whose three tools talk back to the
// client during a call and work at every protocol version:
//
//   - deploy asks the user to confirm (elicitation) before it deploys;
//   - release_notes asks the client's model to write the notes (sampling);
//   - migrate reports progress, one notification per table.
//
// deploy and release_notes never call req.Session.Elicit or
// req.Session.CreateMessage: they return input requests, which a
// 2026-07-28 client answers by retrying the call, and which go-sdk turns
// into real elicitation/create and sampling/createMessage requests for
// older clients. Either way the handler runs again with the answers in
// req.Params.InputResponses.
func New(logger *slog.Logger) *mcp.Server {
	s := newServer(logger)
	mcp.AddTool(s, deployTool(), deploy(logger))
	return s
}

// NewLegacyOnly returns the Release desk with deploy written the old way:
// the handler sends the elicitation itself with req.Session.Elicit and
// waits for the answer. That works on connections up to 2025-11-25, and
// fails on 2026-07-28, where a server may not send requests of its own:
// the tool answers with a tool error that quotes go-sdk ("cannot be sent
// while serving a request on protocol version 2026-07-28: return an
// InputRequests map instead"). It is here to show the failure; New is the
// version to copy.
func NewLegacyOnly(logger *slog.Logger) *mcp.Server {
	s := newServer(logger)
	mcp.AddTool(s, deployTool(), func(ctx context.Context, req *mcp.CallToolRequest, in DeployInput) (*mcp.CallToolResult, DeployOutput, error) {
		answer, err := req.Session.Elicit(ctx, confirmation(in))
		if err != nil {
			//lint:ignore ST1005 a tool's error text is a sentence for the model, not for wrapping
			return nil, DeployOutput{}, fmt.Errorf("Cannot ask the user to confirm: %w", err)
		}
		return finishDeploy(ctx, logger, in, answer)
	})
	return s
}

// newServer builds what both variants share: the server with its logger
// and crash guard, release_notes and migrate.
func newServer(logger *slog.Logger) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "Release desk", Version: "v1.0.0"}, &mcp.ServerOptions{Logger: logger})
	s.AddReceivingMiddleware(gosdk.Guard(logger))
	mcp.AddTool(s, &mcp.Tool{
		Name:        "release_notes",
		Description: "Write release notes for a set of changes, with the help of the client's model.",
	}, releaseNotes)
	mcp.AddTool(s, &mcp.Tool{
		Name:        "migrate",
		Description: "Migrate database tables one by one, reporting progress after each.",
	}, migrate)
	return s
}

// deployTool describes deploy; a fresh value each time, because
// mcp.AddTool fills in the schemas it infers.
func deployTool() *mcp.Tool {
	return &mcp.Tool{
		Name:        "deploy",
		Description: "Deploy a service to an environment, once the user has confirmed.",
	}
}

// deploy is the era-neutral confirmation. The handler runs once per round:
// first with no answer, when it asks and does nothing else, then with the
// user's answer, when it acts. Nothing irreversible may happen before the
// answer is there, because the first run's work is thrown away.
func deploy(logger *slog.Logger) mcp.ToolHandlerFor[DeployInput, DeployOutput] {
	return func(ctx context.Context, req *mcp.CallToolRequest, in DeployInput) (*mcp.CallToolResult, DeployOutput, error) {
		answer, answered := req.Params.InputResponses[confirmKey].(*mcp.ElicitResult)
		if !answered {
			if !clientCapabilities(req).elicitation {
				// Asking anyway would fail the whole call (legacy) or leave
				// the client with a question it cannot answer (2026-07-28).
				// A tool error tells the model why nothing happened.
				//lint:ignore ST1005 a tool's error text is a sentence for the model, not for wrapping
				return nil, DeployOutput{}, fmt.Errorf("Cannot deploy %s to %s without the user's confirmation, and this client cannot ask the user (it does not support elicitation).", in.Service, in.Environment)
			}
			// Content and input requests are exclusive: this result
			// carries the question only. The retry brings the original
			// arguments back, so there is no state to keep between rounds
			// (RequestState is for state that is not in the arguments).
			return &mcp.CallToolResult{
				InputRequests: mcp.InputRequestMap{confirmKey: confirmation(in)},
			}, DeployOutput{}, nil
		}
		return finishDeploy(ctx, logger, in, answer)
	}
}

// confirmation is the question deploy asks.
func confirmation(in DeployInput) *mcp.ElicitParams {
	return &mcp.ElicitParams{
		Message:         fmt.Sprintf("Deploy %s to %s?", in.Service, in.Environment),
		RequestedSchema: confirmSchema,
	}
}

// finishDeploy acts on the user's answer.
func finishDeploy(ctx context.Context, logger *slog.Logger, in DeployInput, answer *mcp.ElicitResult) (*mcp.CallToolResult, DeployOutput, error) {
	out := DeployOutput{Answer: answer.Action}
	switch answer.Action {
	case "accept":
		// Check the form yourself: go-sdk validates a legacy answer
		// against the schema, but hands a 2026-07-28 inputResponse to the
		// handler as the client sent it.
		if confirmed, _ := answer.Content["confirm"].(bool); !confirmed {
			return text(fmt.Sprintf("Not deployed: the user did not tick the box to deploy %s to %s.", in.Service, in.Environment)), out, nil
		}
	case "decline":
		// Not a tool error: nothing failed, and the model should not retry.
		return text(fmt.Sprintf("Not deployed: the user declined to deploy %s to %s.", in.Service, in.Environment)), out, nil
	default: // "cancel": the user dismissed the question
		return text(fmt.Sprintf("Not deployed: the user dismissed the confirmation for %s.", in.Service)), out, nil
	}
	logger.InfoContext(ctx, MsgDeployed, "service", in.Service, "environment", in.Environment)
	out.Deployed = true
	return text(fmt.Sprintf("Deployed %s to %s.", in.Service, in.Environment)), out, nil
}

// releaseNotes asks the client's model for the notes, the same way deploy
// asks the user: an input request on the first run, the answer on the
// second.
func releaseNotes(ctx context.Context, req *mcp.CallToolRequest, in ReleaseNotesInput) (*mcp.CallToolResult, any, error) {
	if len(in.Changes) == 0 {
		//lint:ignore ST1005 a tool's error text is a sentence for the model, not for wrapping
		return nil, nil, errors.New("No changes given: list at least one change to write notes for.")
	}
	answer, answered := req.Params.InputResponses[notesKey]
	if !answered {
		if !clientCapabilities(req).sampling {
			//lint:ignore ST1005 a tool's error text is a sentence for the model, not for wrapping
			return nil, nil, errors.New("Cannot write release notes: this client does not offer its model to servers (it does not support sampling).")
		}
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{notesKey: &mcp.CreateMessageParams{
			SystemPrompt: "You write short, plain release notes for engineers.",
			Messages: []*mcp.SamplingMessage{{
				Role:    "user",
				Content: &mcp.TextContent{Text: fmt.Sprintf("Write release notes for %s from these changes:\n- %s", in.Service, strings.Join(in.Changes, "\n- "))},
			}},
			MaxTokens: 300,
		}}}, nil, nil
	}
	notes := sampledText(answer)
	if notes == "" {
		//lint:ignore ST1005 a tool's error text is a sentence for the model, not for wrapping
		return nil, nil, errors.New("Cannot write release notes: the client's model answered with no text.")
	}
	return text(fmt.Sprintf("Release notes for %s:\n%s", in.Service, notes)), nil, nil
}

// sampledText returns the text of a sampling answer. go-sdk v1.8.0 decodes
// every sampling answer, legacy or 2026-07-28, as a
// *CreateMessageWithToolsResult; *CreateMessageResult is the other type the
// InputResponse interface documents.
func sampledText(answer mcp.InputResponse) string {
	var blocks []mcp.Content
	switch a := answer.(type) {
	case *mcp.CreateMessageWithToolsResult:
		blocks = a.Content
	case *mcp.CreateMessageResult:
		blocks = []mcp.Content{a.Content}
	}
	var texts []string
	for _, b := range blocks {
		if t, ok := b.(*mcp.TextContent); ok {
			texts = append(texts, t.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// migrate reports progress after each table. Progress is a notification,
// which a server may send in every era; it needs no input request. The
// client asks for it by sending a progress token, and only then.
func migrate(ctx context.Context, req *mcp.CallToolRequest, in MigrateInput) (*mcp.CallToolResult, any, error) {
	if len(in.Tables) == 0 {
		//lint:ignore ST1005 a tool's error text is a sentence for the model, not for wrapping
		return nil, nil, errors.New("No tables given: list the tables to migrate.")
	}
	token := req.Params.GetProgressToken()
	for i, table := range in.Tables {
		if err := ctx.Err(); err != nil {
			return nil, nil, err // cancelled: stop between tables
		}
		// (A real migration of table happens here.)
		if token == nil {
			continue
		}
		err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
			ProgressToken: token,
			Progress:      float64(i + 1),
			Total:         float64(len(in.Tables)),
			Message:       "migrated " + table,
		})
		if err != nil {
			return nil, nil, fmt.Errorf("reporting progress: %w", err)
		}
	}
	return text(fmt.Sprintf("Migrated %d tables.", len(in.Tables))), nil, nil
}

// capabilities is what the client said it can answer.
type capabilities struct{ elicitation, sampling bool }

// clientCapabilities reads the client's capabilities in either era: go-sdk
// keeps them in InitializeParams, from the initialize request on legacy
// connections and from the request's _meta on 2026-07-28 ones.
func clientCapabilities(req *mcp.CallToolRequest) capabilities {
	p := req.Session.InitializeParams()
	if p == nil || p.Capabilities == nil {
		return capabilities{}
	}
	return capabilities{
		elicitation: p.Capabilities.Elicitation != nil,
		sampling:    p.Capabilities.Sampling != nil,
	}
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}
