package contract_test

import (
	"context"
	"log/slog"
	"os"

	"github.com/mcptestkit/mcptestkit/guard/internal/contract"
)

func ExampleLogPanic() {
	// Drop the time so the output is stable.
	l := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		},
	}))
	contract.LogPanic(context.Background(), l, "tools/call", "explode", "kaboom", []byte("goroutine 1"))
	// Output:
	// level=ERROR msg="tool handler panicked" method=tools/call tool=explode panic=kaboom stack="goroutine 1"
}
