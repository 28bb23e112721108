package gosdktest_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptestkit/mcptestkit/gosdk/gosdktest"
	"github.com/mcptestkit/mcptestkit/gosdk/internal/adaptertest"
	"github.com/mcptestkit/mcptestkit/gosdk/internal/release"
	"github.com/mcptestkit/mcptestkit/gosdk/internal/sdktest"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

// BenchmarkCallTool measures one tools/call round trip through the adapter
// and the SDK, from raw frames on the client end (the same frames as
// mcpgo/mcpgotest's benchmark, so the two compare).
func BenchmarkCallTool(b *testing.B) {
	adaptertest.BenchCallTool(b, gosdktest.Server(newServer(nil)))
}

// Frames of a whole connection as mcptest's client sends them, in each era.
var (
	floorModern = [][]byte{
		[]byte(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"mcptestkit","version":"v0"}}}}`),
		[]byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"mcptestkit","version":"v0"}}}}`),
		[]byte(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"mcptestkit","version":"v0"}}}}`),
		[]byte(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"mcptestkit","version":"v0"}}}}`),
	}
	floorLegacy = [][]byte{
		[]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"mcptestkit","version":"v0"}}}`),
		[]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`),
		[]byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}`),
		[]byte(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}`),
		[]byte(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}`),
	}
)

// echoServer is the server of mcptest's suite benchmark: one echo tool.
func echoServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "probe", Version: "v0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo the text."},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
		})
	return s
}

// BenchmarkServeFloor is the least a harness can cost with a go-sdk server:
// one connection's whole life (start, three echo tools/call or none, close,
// the session's end) driven through the adapter with pre-encoded frames over
// a memtransport pair without a transcript (no client, no harness, no leak
// check), side by side with go-sdk's own client over
// mcp.NewInMemoryTransports doing the same (connect, CallTool, close,
// ServerSession.Wait), in each era.
func BenchmarkServeFloor(b *testing.B) {
	for _, era := range []struct {
		name    string
		frames  [][]byte // the start's frames, then one per call
		version string
		calls   int
	}{
		{"modern/calls=3", floorModern, "2026-07-28", 3},
		{"legacy/calls=3", floorLegacy, "2025-11-25", 3},
		{"modern/calls=0", floorModern[:1], "2026-07-28", 0},
		{"legacy/calls=0", floorLegacy[:2], "2025-11-25", 0},
	} {
		b.Run(era.name+"/adapter", func(b *testing.B) {
			sdktest.SkipUnlessSpeaks(b, era.version)
			srv := gosdktest.Server(echoServer())
			ctx := b.Context()
			b.ReportAllocs()
			for b.Loop() {
				c, end := memtransport.Pair(memtransport.WithTranscriptLimit(0))
				done := make(chan error, 1)
				go func() { done <- srv.Serve(ctx, end) }()
				for _, frame := range era.frames {
					if err := c.Send(ctx, frame); err != nil {
						b.Fatal(err)
					}
					if bytes.Contains(frame, []byte(`"notifications/`)) {
						continue
					}
					answer, err := c.Receive(ctx)
					if err != nil {
						b.Fatal(err)
					}
					if bytes.Contains(frame, []byte(`"tools/call"`)) && !bytes.Contains(answer, []byte(`"text":"hello"`)) {
						b.Fatalf("tools/call answered %s", answer)
					}
				}
				c.Close()
				if err := <-done; err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(era.name+"/gosdk-client", func(b *testing.B) {
			sdktest.SkipUnlessSpeaks(b, era.version)
			srv := echoServer()
			cl := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
			opts := &mcp.ClientSessionOptions{}
			if !sdktest.SetField(opts, "ProtocolVersion", era.version) {
				b.Skipf("go-sdk %s: its client cannot be asked for a version (ClientSessionOptions.ProtocolVersion is first in go-sdk v1.8.0-pre.1)", release.Linked())
			}
			ctx := b.Context()
			b.ReportAllocs()
			for b.Loop() {
				st, ct := mcp.NewInMemoryTransports()
				ss, err := srv.Connect(ctx, st, nil)
				if err != nil {
					b.Fatal(err)
				}
				cs, err := cl.Connect(ctx, ct, opts)
				if err != nil {
					b.Fatal(err)
				}
				for range era.calls {
					res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hello"}})
					if err != nil || res.Content[0].(*mcp.TextContent).Text != "hello" {
						b.Fatal(res, err)
					}
				}
				cs.Close()
				ss.Wait()
			}
		})
	}
}
