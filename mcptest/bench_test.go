package mcptest

import (
	"github.com/mcptestkit/mcptestkit/client"
	"testing"

	"github.com/mcptestkit/mcptestkit/mcpgo/mcpgotest"
)

// BenchmarkConnect measures one whole test's worth of harness work: connect
// (handshake included), one tool call, and the cleanup (close, wait for
// Serve, leak check).
func BenchmarkConnect(b *testing.B) {
	cases := []struct {
		name string
		srv  Server
		opts []Option
	}{
		{"gosdk", goSDKEcho(), nil},
		{"gosdk/legacy", goSDKEcho(), []Option{WithProtocolVersion(client.LatestLegacyVersion)}},
		{"gosdk/no-leak-check", goSDKEcho(), []Option{WithoutLeakCheck()}},
		{"mcpgo", mcpgotest.Server(mcpgoServer()), nil},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				f := runFake(b, func(tb testing.TB) {
					c := Connect(tb, tc.srv, tc.opts...)
					if _, err := c.CallTool(tb.Context(), "echo", map[string]any{"text": "x"}); err != nil {
						tb.Errorf("%v", err)
					}
				})
				if f.Failed() {
					b.Fatal(f.output())
				}
			}
		})
	}
}
