package client_test

import (
	"context"
	"encoding/json"
	"testing"

	. "github.com/mcptestkit/mcptestkit/client"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptestkit/mcptestkit/gosdk/gosdktest"
	"github.com/mcptestkit/mcptestkit/internal/jsonrpc"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

// The benchmarks put this client (over memtransport, through the gosdk
// adapter) side by side with go-sdk's own client (over
// mcp.NewInMemoryTransports), against the same go-sdk server.

func benchServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	type in struct {
		Text string `json:"text"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, a in) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Text}}}, nil, nil
	})
	return s
}

var benchEras = []struct{ name, version string }{{"modern", ""}, {"legacy", Version20251125}}

// ours connects this client to srv and returns it and the cleanup.
func ours(b *testing.B, a *gosdktest.Adapter, version string) (*Client, func()) {
	ce, se := memtransport.Pair()
	done := make(chan error, 1)
	go func() { done <- a.Serve(context.Background(), se) }()
	c, err := Connect(context.Background(), ce, &Options{ProtocolVersion: version})
	if err != nil {
		b.Fatal(err)
	}
	return c, func() {
		if err := c.Close(); err != nil {
			b.Fatal(err)
		}
		if err := <-done; err != nil {
			b.Fatal(err)
		}
	}
}

// theirs connects go-sdk's client to srv over its in-memory transports.
func theirs(b *testing.B, srv *mcp.Server, version string) (*mcp.ClientSession, func()) {
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st, nil)
	if err != nil {
		b.Fatal(err)
	}
	cl := mcp.NewClient(&mcp.Implementation{Name: "bench-client", Version: "1"}, nil)
	var opts *mcp.ClientSessionOptions
	if version != "" {
		opts = &mcp.ClientSessionOptions{ProtocolVersion: version}
	}
	cs, err := cl.Connect(context.Background(), ct, opts)
	if err != nil {
		b.Fatal(err)
	}
	return cs, func() {
		cs.Close()
		ss.Wait()
	}
}

func BenchmarkCallTool(b *testing.B) {
	args := map[string]any{"text": "hello"}
	for _, era := range benchEras {
		b.Run(era.name+"/mcptestkit", func(b *testing.B) {
			c, done := ours(b, gosdktest.Server(benchServer()), era.version)
			defer done()
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				res, err := c.CallTool(ctx, "echo", args)
				if err != nil || res.Text() != "hello" {
					b.Fatal(res, err)
				}
			}
		})
		b.Run(era.name+"/gosdk-client", func(b *testing.B) {
			cs, done := theirs(b, benchServer(), era.version)
			defer done()
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: args})
				if err != nil || res.Content[0].(*mcp.TextContent).Text != "hello" {
					b.Fatal(res, err)
				}
			}
		})
	}
}

func BenchmarkConnectClose(b *testing.B) {
	for _, era := range benchEras {
		b.Run(era.name+"/mcptestkit", func(b *testing.B) {
			a := gosdktest.Server(benchServer())
			b.ReportAllocs()
			for b.Loop() {
				_, done := ours(b, a, era.version)
				done()
			}
		})
		b.Run(era.name+"/gosdk-client", func(b *testing.B) {
			srv := benchServer()
			b.ReportAllocs()
			for b.Loop() {
				_, done := theirs(b, srv, era.version)
				done()
			}
		})
	}
}

// BenchmarkCallToolParallel measures many goroutines sharing one connection.
func BenchmarkCallToolParallel(b *testing.B) {
	b.Run("mcptestkit", func(b *testing.B) {
		c, done := ours(b, gosdktest.Server(benchServer()), "")
		defer done()
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			args := map[string]any{"text": "hello"}
			for pb.Next() {
				if _, err := c.CallTool(context.Background(), "echo", args); err != nil {
					b.Fatal(err)
				}
			}
		})
	})
	b.Run("gosdk-client", func(b *testing.B) {
		cs, done := theirs(b, benchServer(), "")
		defer done()
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			args := map[string]any{"text": "hello"}
			for pb.Next() {
				if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: args}); err != nil {
					b.Fatal(err)
				}
			}
		})
	})
}

// BenchmarkClientOverhead measures the client alone: the server is a loop
// that answers every request with a canned result, so what remains is the
// client's encoding, correlation and decoding (and memtransport).
func BenchmarkClientOverhead(b *testing.B) {
	for _, era := range benchEras {
		b.Run(era.name, func(b *testing.B) {
			ce, se := memtransport.Pair()
			result := json.RawMessage(`{"content":[{"type":"text","text":"hello"}],"resultType":"complete"}`)
			served := make(chan struct{})
			go func() {
				defer close(served)
				ctx := context.Background()
				for {
					data, err := se.Receive(ctx)
					if err != nil {
						return
					}
					m, err := jsonrpc.Decode(data)
					if err != nil || !m.IsRequest() {
						continue
					}
					var res json.RawMessage
					switch m.Method {
					case "server/discover":
						res = json.RawMessage(`{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}}}`)
					case "initialize":
						res = json.RawMessage(`{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"x","version":"1"}}`)
					default:
						res = result
					}
					if se.Send(ctx, jsonrpc.AppendResult(nil, m.ID, res)) != nil {
						return
					}
				}
			}()
			c, err := Connect(context.Background(), ce, &Options{ProtocolVersion: era.version})
			if err != nil {
				b.Fatal(err)
			}
			defer func() {
				c.Close()
				<-served
			}()
			args := map[string]any{"text": "hello"}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				res, err := c.CallTool(ctx, "echo", args)
				if err != nil || res.Text() != "hello" {
					b.Fatal(res, err)
				}
			}
		})
	}
}
