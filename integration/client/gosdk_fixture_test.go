package client_test

//lint:file-ignore SA1019 sampling, roots and logging are deprecated as of 2026-07-28 (SEP-2577) but still served, and the kit tests them at every version

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptestkit/mcptestkit/gosdk/gosdktest"
)

// controls lets a test act on a fixture server while a client is connected:
// observe the slow tool, change the lists, update a resource.
type controls struct {
	// slowStarted receives once per call of the "slow" tool when it starts;
	// slowDone receives the handler's ctx error when it gives up.
	slowStarted chan struct{}
	slowDone    chan error
	addTool     func(name string)
	addPrompt   func(name string)
	addResource func(uri string)
	updated     func(uri string)
}

func newControls() *controls {
	return &controls{slowStarted: make(chan struct{}, 16), slowDone: make(chan error, 16)}
}

// fixture builds one SDK's server with the same tools, resources and prompts
// as every other fixture, so that one test runs against each.
type fixture struct {
	name string
	// newServer returns a fresh server; pageSize > 0 asks for pagination.
	newServer func(t testing.TB, pageSize int) (server, *controls)
	// protoErr is the JSON-RPC error the "protoerr" tool produces.
	protoErr func(modern bool) (code int64, message, data string)
}

const fixtureInstructions = "Use the tools wisely."

var goSDKFixture = fixture{name: "gosdk", newServer: newGoSDKServer,
	protoErr: func(bool) (int64, string, string) { return -32001, "custom", `{"k":1}` }}

func newGoSDKServer(t testing.TB, pageSize int) (server, *controls) {
	ctl := newControls()
	s := mcp.NewServer(&mcp.Implementation{Name: "fixture-gosdk", Version: "1.2.3", Title: "Fixture"}, &mcp.ServerOptions{
		Instructions: fixtureInstructions,
		PageSize:     pageSize,
		CompletionHandler: func(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{
				Values: completions(req.Params.Argument.Value), Total: 2, HasMore: true,
			}}, nil
		},
		SubscribeHandler:   func(context.Context, *mcp.SubscribeRequest) error { return nil },
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
	})

	type echoIn struct {
		Text string `json:"text"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echoes text."}, func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo: " + in.Text}}}, nil, nil
	})
	type addIn struct {
		A int `json:"a"`
		B int `json:"b"`
	}
	type addOut struct {
		Sum int `json:"sum"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "add", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, Title: "Adder"}}, func(_ context.Context, _ *mcp.CallToolRequest, in addIn) (*mcp.CallToolResult, addOut, error) {
		return nil, addOut{Sum: in.A + in.B}, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "fail"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return nil, nil, errors.New("boom")
	})
	mcp.AddTool(s, &mcp.Tool{Name: "protoerr"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return nil, nil, &jsonrpc.Error{Code: -32001, Message: "custom", Data: json.RawMessage(`{"k":1}`)}
	})
	s.AddTool(&mcp.Tool{Name: "rawerr", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New("raw boom")
	})
	s.AddTool(&mcp.Tool{Name: "content", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.TextContent{Text: "text"},
			&mcp.ImageContent{Data: []byte("png!"), MIMEType: "image/png"},
			&mcp.AudioContent{Data: []byte("wav!"), MIMEType: "audio/wav"},
			&mcp.ResourceLink{URI: "file:///hello.txt", Name: "hello"},
			&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///e.txt", MIMEType: "text/plain", Text: "embedded"}},
		}}, nil
	})
	s.AddTool(&mcp.Tool{Name: "progress", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		tok := req.Params.GetProgressToken()
		for i := 1; i <= 3; i++ {
			if tok != nil {
				if err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i), Total: 3, Message: fmt.Sprintf("step %d", i)}); err != nil {
					return nil, err
				}
			}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
	})
	s.AddTool(&mcp.Tool{Name: "log", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		_ = req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "debug", Logger: "fixture", Data: "debug line"})
		_ = req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "warning", Logger: "fixture", Data: map[string]any{"msg": "careful"}})
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "logged"}}}, nil
	})
	s.AddTool(&mcp.Tool{Name: "slow", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ctl.slowStarted <- struct{}{}
		<-ctx.Done()
		ctl.slowDone <- ctx.Err()
		return nil, ctx.Err()
	})
	// pingback pings the client (legacy sessions only).
	s.AddTool(&mcp.Tool{Name: "pingback", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if err := req.Session.Ping(ctx, nil); err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "pong"}}}, nil
	})
	// ask needs input from the client: the kinds listed in its "want"
	// argument, through input requests (the SDK turns them into real
	// server-to-client requests on legacy connections).
	s.AddTool(&mcp.Tool{Name: "ask", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in struct {
			Want []string `json:"want"`
		}
		_ = json.Unmarshal(req.Params.Arguments, &in)
		if req.Params.InputResponses == nil {
			irs := mcp.InputRequestMap{}
			for _, w := range in.Want {
				switch w {
				case "elicit":
					irs["name"] = &mcp.ElicitParams{Message: "Your name?", RequestedSchema: map[string]any{
						"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}},
					}}
				case "sample":
					irs["llm"] = &mcp.CreateMessageParams{MaxTokens: 50, Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "Capital of France?"}}}}
				case "roots":
					irs["roots"] = &mcp.ListRootsParams{}
				}
			}
			return &mcp.CallToolResult{InputRequests: irs, RequestState: "state-1"}, nil
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: describeGoSDKResponses(req.Params.InputResponses, req.Params.RequestState)}}}, nil
	})

	s.AddResource(&mcp.Resource{URI: "file:///hello.txt", Name: "hello", MIMEType: "text/plain"}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: "Hello, world"}}}, nil
	})
	s.AddResource(&mcp.Resource{URI: "file:///blob.bin", Name: "blob", MIMEType: "application/octet-stream"}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "application/octet-stream", Blob: []byte{0, 1, 2, 255}}}}, nil
	})
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "file:///items/{id}", Name: "item"}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		id := strings.TrimPrefix(req.Params.URI, "file:///items/")
		if id == "missing" {
			return nil, mcp.ResourceNotFoundError(req.Params.URI)
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "item " + id}}}, nil
	})
	s.AddPrompt(&mcp.Prompt{Name: "greet", Description: "Greets someone.", Arguments: []*mcp.PromptArgument{{Name: "name", Required: true}}}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Description: "A greeting", Messages: []*mcp.PromptMessage{
			{Role: "user", Content: &mcp.TextContent{Text: "Hello, " + req.Params.Arguments["name"] + "!"}},
		}}, nil
	})

	ctl.addTool = func(name string) {
		s.AddTool(&mcp.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	}
	ctl.addPrompt = func(name string) {
		s.AddPrompt(&mcp.Prompt{Name: name}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{}, nil
		})
	}
	ctl.addResource = func(uri string) {
		s.AddResource(&mcp.Resource{URI: uri, Name: uri}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{}, nil
		})
	}
	ctl.updated = func(uri string) {
		if err := s.ResourceUpdated(context.Background(), &mcp.ResourceUpdatedNotificationParams{URI: uri}); err != nil {
			t.Errorf("ResourceUpdated: %v", err)
		}
	}
	return goSDK(s), ctl
}

// completions is what both fixtures complete a value with.
func completions(prefix string) []string { return []string{prefix + "1", prefix + "2"} }

func describeGoSDKResponses(rs mcp.InputResponseMap, state string) string {
	var parts []string
	if r, ok := rs["name"].(*mcp.ElicitResult); ok {
		parts = append(parts, fmt.Sprintf("elicit=%s:%v", r.Action, r.Content["name"]))
	}
	switch r := rs["llm"].(type) {
	case *mcp.CreateMessageResult:
		if tc, ok := r.Content.(*mcp.TextContent); ok {
			parts = append(parts, "sample="+tc.Text+"/"+r.Model)
		}
	case *mcp.CreateMessageWithToolsResult:
		for _, c := range r.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				parts = append(parts, "sample="+tc.Text+"/"+r.Model)
			}
		}
	}
	if r, ok := rs["roots"].(*mcp.ListRootsResult); ok {
		var uris []string
		for _, root := range r.Roots {
			uris = append(uris, root.URI)
		}
		parts = append(parts, "roots="+strings.Join(uris, ","))
	}
	parts = append(parts, "state="+state)
	return strings.Join(parts, " ")
}

func goSDK(s *mcp.Server, opts ...gosdktest.Option) server { return gosdktest.Server(s, opts...) }
