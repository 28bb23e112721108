package gosdktest_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type echoIn struct {
	Text string `json:"text"`
}

type echoOut struct {
	Echo string `json:"echo"`
}

// newServer builds a go-sdk server with the tools the tests use.
func newServer(logger *slog.Logger) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "probe", Version: "v0"}, &mcp.ServerOptions{Logger: logger})
	mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(ctx context.Context, req *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, echoOut, error) {
		return nil, echoOut{Echo: in.Text}, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "progress"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, echoOut, error) {
		if tok := req.Params.GetProgressToken(); tok != nil {
			if err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: 1, Total: 1, Message: "done"}); err != nil {
				return nil, echoOut{}, err
			}
		}
		return nil, echoOut{Echo: "finished"}, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "boom"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, echoOut, error) {
		panic("kaboom")
	})
	mcp.AddTool(s, &mcp.Tool{Name: "whoami"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, echoOut, error) {
		extra := req.GetExtra()
		if extra == nil || extra.TokenInfo == nil {
			return nil, echoOut{Echo: "anonymous"}, nil
		}
		return nil, echoOut{Echo: fmt.Sprintf("%s via %s", extra.TokenInfo.UserID, extra.Header.Get("X-Test"))}, nil
	})
	s.AddResource(&mcp.Resource{URI: "file:///crash", Name: "crash"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		panic(errors.New("resource kaboom"))
	})
	return s
}
