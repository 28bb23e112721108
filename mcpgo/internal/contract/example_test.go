package contract_test

import (
	"context"
	"log/slog"
	"os"

	"github.com/mcptestkit/mcptestkit/guard"
	"github.com/mcptestkit/mcptestkit/mcpgo/internal/contract"
)

func ExampleReporter_Panic() {
	// Drop the time and cut the stack so the output is stable.
	l := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			switch a.Key {
			case slog.TimeKey:
				return slog.Attr{}
			case guard.StackKey:
				return slog.String(a.Key, "goroutine …")
			}
			return a
		},
	}))
	contract.New(l, nil).Panic(context.Background(), "tools/call", "explode", "kaboom")
	// Output:
	// level=ERROR msg="tool handler panicked" method=tools/call tool=explode panic=kaboom stack="goroutine …"
}
