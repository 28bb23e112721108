package client_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"
	"sync"
	"testing"

	. "github.com/mcptestkit/mcptestkit/client"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/mcptestkit/mcptestkit/mcpgo/mcpgotest"
)

var mcpGoFixture = fixture{name: "mcpgo", newServer: newMCPGoServer,
	protoErr: func(modern bool) (int64, string, string) {
		if modern {
			return CodeInternalError, "URL elicitation required: 1 elicitation(s) needed", ""
		}
		return CodeURLElicitationRequired, "URL elicitation required: 1 elicitation(s) needed",
			`{"elicitations":[{"mode":"url","message":"Sign in","url":"https://example.com/login","elicitationId":"e1"}]}`
	}}

// resourceSubs tracks which sessions want notifications/resources/updated
// for which URI, and under which listen id (nil for resources/subscribe):
// mcp-go leaves that bookkeeping to the server author.
type resourceSubs struct {
	mu   sync.Mutex
	subs map[string]map[mcpserver.ClientSession]any // uri -> session -> listen id
}

func (r *resourceSubs) set(uri string, session mcpserver.ClientSession, listenID any, on bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if on {
		if r.subs[uri] == nil {
			r.subs[uri] = map[mcpserver.ClientSession]any{}
		}
		r.subs[uri][session] = listenID
		return
	}
	delete(r.subs[uri], session)
}

func (r *resourceSubs) of(uri string) map[mcpserver.ClientSession]any {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[mcpserver.ClientSession]any{}
	for k, v := range r.subs[uri] {
		out[k] = v
	}
	return out
}

func session(ctx context.Context) mcpserver.ClientSession {
	return mcpserver.ClientSessionFromContext(ctx)
}

type mcpGoCompleter struct{}

func (mcpGoCompleter) CompletePromptArgument(_ context.Context, _ string, arg mcp.CompleteArgument, _ mcp.CompleteContext) (*mcp.Completion, error) {
	return &mcp.Completion{Values: completions(arg.Value), Total: 2, HasMore: true}, nil
}

func newMCPGoServer(t testing.TB, pageSize int) (server, *controls) {
	ctl := newControls()
	subs := &resourceSubs{subs: map[string]map[mcpserver.ClientSession]any{}}
	hooks := &mcpserver.Hooks{}
	hooks.AddAfterSubscribe(func(ctx context.Context, _ any, req *mcp.SubscribeRequest, _ *mcp.EmptyResult) {
		subs.set(req.Params.URI, session(ctx), nil, true)
	})
	hooks.AddAfterUnsubscribe(func(ctx context.Context, _ any, req *mcp.UnsubscribeRequest, _ *mcp.EmptyResult) {
		subs.set(req.Params.URI, session(ctx), nil, false)
	})
	hooks.AddBeforeSubscriptionsListen(func(ctx context.Context, id any, req *mcp.SubscriptionsListenRequest) {
		for _, uri := range req.Params.Notifications.ResourceSubscriptions {
			subs.set(uri, session(ctx), id, true)
		}
	})
	hooks.AddAfterSubscriptionsListen(func(ctx context.Context, _ any, req *mcp.SubscriptionsListenRequest, _ *mcp.SubscriptionsListenResult) {
		for _, uri := range req.Params.Notifications.ResourceSubscriptions {
			subs.set(uri, session(ctx), nil, false)
		}
	})
	opts := []mcpserver.ServerOption{
		mcpserver.WithInstructions(fixtureInstructions),
		mcpserver.WithTitle("Fixture"),
		mcpserver.WithToolCapabilities(true),
		mcpserver.WithResourceCapabilities(true, true),
		mcpserver.WithPromptCapabilities(true),
		mcpserver.WithLogging(),
		mcpserver.WithCompletions(),
		mcpserver.WithPromptCompletionProvider(mcpGoCompleter{}),
		mcpserver.WithInputSchemaValidation(),
		mcpserver.WithHooks(hooks),
	}
	if pageSize > 0 {
		opts = append(opts, mcpserver.WithPaginationLimit(pageSize))
	}
	s := mcpserver.NewMCPServer("fixture-mcpgo", "1.2.3", opts...)

	s.AddTool(mcp.NewTool("echo", mcp.WithDescription("Echoes text."), mcp.WithString("text")), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("echo: " + req.GetString("text", "")), nil
	})
	type addOut struct {
		Sum int `json:"sum"`
	}
	s.AddTool(mcp.NewTool("add", mcp.WithTitleAnnotation("Adder"), mcp.WithReadOnlyHintAnnotation(true),
		mcp.WithNumber("a", mcp.Required()), mcp.WithNumber("b", mcp.Required()), mcp.WithOutputSchema[addOut](),
	), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		out := addOut{Sum: int(req.GetFloat("a", 0) + req.GetFloat("b", 0))}
		return mcp.NewToolResultStructured(out, fmt.Sprintf(`{"sum":%d}`, out.Sum)), nil
	})
	s.AddTool(mcp.NewTool("fail"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultError("boom"), nil
	})
	// mcp-go's only way to a JSON-RPC error with data: URL elicitation
	// required, -32042 on legacy connections (-32603 without data on modern).
	s.AddTool(mcp.NewTool("protoerr"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, mcp.URLElicitationRequiredError{Elicitations: []mcp.ElicitationParams{{Mode: "url", Message: "Sign in", URL: "https://example.com/login", ElicitationID: "e1"}}}
	})
	s.AddTool(mcp.NewTool("content"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{
			mcp.NewTextContent("text"),
			mcp.NewImageContent(base64.StdEncoding.EncodeToString([]byte("png!")), "image/png"),
			mcp.NewAudioContent(base64.StdEncoding.EncodeToString([]byte("wav!")), "audio/wav"),
			mcp.NewResourceLink("file:///hello.txt", "hello", "", ""),
			mcp.NewEmbeddedResource(mcp.TextResourceContents{URI: "file:///e.txt", MIMEType: "text/plain", Text: "embedded"}),
		}}, nil
	})
	s.AddTool(mcp.NewTool("progress"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if req.Params.Meta != nil && req.Params.Meta.ProgressToken != nil {
			for i := 1; i <= 3; i++ {
				err := s.SendNotificationToClient(ctx, "notifications/progress", map[string]any{
					"progressToken": req.Params.Meta.ProgressToken, "progress": i, "total": 3, "message": fmt.Sprintf("step %d", i),
				})
				if err != nil {
					return nil, err
				}
			}
		}
		return mcp.NewToolResultText("done"), nil
	})
	s.AddTool(mcp.NewTool("log"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		_ = s.SendLogMessageToClient(ctx, mcp.NewLoggingMessageNotification(mcp.LoggingLevelDebug, "fixture", "debug line"))
		_ = s.SendLogMessageToClient(ctx, mcp.NewLoggingMessageNotification(mcp.LoggingLevelWarning, "fixture", map[string]any{"msg": "careful"}))
		return mcp.NewToolResultText("logged"), nil
	})
	s.AddTool(mcp.NewTool("slow"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ctl.slowStarted <- struct{}{}
		<-ctx.Done()
		ctl.slowDone <- ctx.Err()
		return nil, ctx.Err()
	})
	s.AddTool(mcp.NewTool("ask", mcp.WithArray("want", mcp.WithStringItems())), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if req.Params.InputResponses == nil {
			b := mcpserver.NewInputRequestBuilder("state-1")
			for _, w := range req.GetStringSlice("want", nil) {
				switch w {
				case "elicit":
					b.Elicit("name", mcp.ElicitationParams{Message: "Your name?", RequestedSchema: map[string]any{
						"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}},
					}})
				case "sample":
					b.Sample("llm", mcp.CreateMessageParams{MaxTokens: 50, Messages: []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.NewTextContent("Capital of France?")}}})
				case "roots":
					b.Roots("roots")
				}
			}
			return b.ToolResult(), nil
		}
		return mcp.NewToolResultText(describeMCPGoResponses(req.Params.InputResponses, req.Params.RequestState)), nil
	})

	s.AddResource(mcp.NewResource("file:///hello.txt", "hello", mcp.WithMIMEType("text/plain")), func(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, MIMEType: "text/plain", Text: "Hello, world"}}, nil
	})
	s.AddResource(mcp.NewResource("file:///blob.bin", "blob", mcp.WithMIMEType("application/octet-stream")), func(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		return []mcp.ResourceContents{mcp.BlobResourceContents{URI: req.Params.URI, MIMEType: "application/octet-stream", Blob: base64.StdEncoding.EncodeToString([]byte{0, 1, 2, 255})}}, nil
	})
	s.AddResourceTemplate(mcp.NewResourceTemplate("file:///items/{id}", "item"), func(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, Text: "item " + strings.TrimPrefix(req.Params.URI, "file:///items/")}}, nil
	})
	s.AddPrompt(mcp.NewPrompt("greet", mcp.WithPromptDescription("Greets someone."), mcp.WithArgument("name", mcp.RequiredArgument())), func(_ context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return mcp.NewGetPromptResult("A greeting", []mcp.PromptMessage{
			mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent("Hello, "+req.Params.Arguments["name"]+"!")),
		}), nil
	})

	ctl.addTool = func(name string) {
		s.AddTool(mcp.NewTool(name), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(""), nil
		})
	}
	ctl.addPrompt = func(name string) {
		s.AddPrompt(mcp.NewPrompt(name), func(context.Context, mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return mcp.NewGetPromptResult("", nil), nil
		})
	}
	ctl.addResource = func(uri string) {
		s.AddResource(mcp.NewResource(uri, uri), func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return nil, nil
		})
	}
	ctl.updated = func(uri string) {
		for sess, listenID := range subs.of(uri) {
			n := mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION, Notification: mcp.Notification{
				Method: "notifications/resources/updated",
				Params: mcp.NotificationParams{AdditionalFields: map[string]any{"uri": uri}},
			}}
			if listenID != nil {
				n.Params.Meta = map[string]any{"io.modelcontextprotocol/subscriptionId": listenID}
			}
			sess.NotificationChannel() <- n
		}
	}
	return mcpgotest.Server(s), ctl
}

func describeMCPGoResponses(rs mcp.InputResponses, state string) string {
	var parts []string
	if r := mcpserver.ElicitationResponse(rs, "name"); r != nil {
		var name any
		if m, ok := r.Content.(map[string]any); ok {
			name = m["name"]
		}
		parts = append(parts, fmt.Sprintf("elicit=%s:%v", r.Action, name))
	}
	if r := mcpserver.SamplingResponse(rs, "llm"); r != nil {
		var text string
		switch c := r.Content.(type) {
		case mcp.TextContent:
			text = c.Text
		case *mcp.TextContent:
			text = c.Text
		case map[string]any:
			text, _ = c["text"].(string)
		}
		parts = append(parts, "sample="+text+"/"+r.Model)
	}
	if r := mcpserver.RootsResponse(rs, "roots"); r != nil {
		var uris []string
		for _, root := range r.Roots {
			uris = append(uris, root.URI)
		}
		parts = append(parts, "roots="+strings.Join(uris, ","))
	}
	parts = append(parts, "state="+state)
	return strings.Join(parts, " ")
}
