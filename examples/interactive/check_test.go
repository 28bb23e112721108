package interactive_test

import (
	"context"
	"testing"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/examples/interactive"
	"github.com/mcptestkit/mcptestkit/gosdk/gosdktest"
	"github.com/mcptestkit/mcptestkit/logcapture"
	"github.com/mcptestkit/mcptestkit/mcptest"
)

// CheckServer calls every tool with generated arguments; the callbacks let
// deploy and release_notes get past asking the user and the model, so their
// successful results (and deploy's structured output) are checked too.
func TestCheckServer(t *testing.T) {
	logs := logcapture.New(t)
	mcptest.CheckServer(t, gosdktest.Server(interactive.New(logs.Logger())),
		mcptest.CheckLogs(logs),
		mcptest.WithClient(client.Options{
			Elicit: func(context.Context, *client.ElicitRequest) (*client.ElicitResult, error) {
				return &client.ElicitResult{Action: client.ElicitAccept, Content: map[string]any{"confirm": true}}, nil
			},
			CreateMessage: func(context.Context, *client.CreateMessageRequest) (*client.CreateMessageResult, error) {
				return &client.CreateMessageResult{Role: "assistant", Model: "test-model",
					Content: []client.Content{&client.TextContent{Text: "Release notes."}}}, nil
			},
		}),
		// go-sdk v1.8.0 ends the session on a frame it cannot decode (its
		// stdio transport does the same) instead of answering -32700.
		mcptest.SkipChecks("malformed-frame"))
}
