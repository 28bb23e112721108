package gosdk_test

import (
	"context"
	"fmt"
	"log/slog"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptestkit/mcptestkit/gosdk"
	"github.com/mcptestkit/mcptestkit/guard"
)

// crashCounter is an slog.Handler that counts the guard's tool crash
// records by tool: what a production server might export as a metric.
type crashCounter struct {
	mu     sync.Mutex
	counts map[string]int
}

func (c *crashCounter) Enabled(context.Context, slog.Level) bool { return true }
func (c *crashCounter) WithAttrs([]slog.Attr) slog.Handler       { return c }
func (c *crashCounter) WithGroup(string) slog.Handler            { return c }

func (c *crashCounter) Handle(_ context.Context, r slog.Record) error {
	if r.Message != guard.MsgToolPanic {
		return nil
	}
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == guard.ToolKey {
			c.mu.Lock()
			c.counts[a.Value.String()]++
			c.mu.Unlock()
		}
		return true
	})
	return nil
}

// The guard in a go-sdk server, and its records read by name.
func Example_records() {
	counter := &crashCounter{counts: map[string]int{}}
	srv := mcp.NewServer(&mcp.Implementation{Name: "shop", Version: "v1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "checkout"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		panic("nil cart")
	})
	srv.AddReceivingMiddleware(gosdk.Guard(slog.New(counter)))

	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, _ := srv.Connect(ctx, st, nil)
	cs, _ := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "v1"}, nil).Connect(ctx, ct, nil)
	for range 2 {
		res, _ := cs.CallTool(ctx, &mcp.CallToolParams{Name: "checkout", Arguments: map[string]any{}})
		fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	}
	cs.Close()
	ss.Wait()

	counter.mu.Lock()
	defer counter.mu.Unlock()
	fmt.Println("crashes:", counter.counts)
	// Output:
	// Error executing tool checkout
	// Error executing tool checkout
	// crashes: map[checkout:2]
}
