package mcptest

import (
	"testing"

	"github.com/mcptestkit/mcptestkit/client"
)

// BenchmarkConnect measures one whole test's worth of harness work: connect
// (handshake included), one tool call, and the cleanup (close, wait for
// Serve, leak check), with the fake server (the SDK adapters' are in the
// integration module).
func BenchmarkConnect(b *testing.B) {
	cases := []struct {
		name string
		srv  Server
		opts []Option
	}{
		{"fake", probeServer(), nil},
		{"fake/legacy", probeServer(), []Option{WithProtocolVersion(client.LatestLegacyVersion)}},
		{"fake/no-leak-check", probeServer(), []Option{WithoutLeakCheck()}},
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

// BenchmarkConnectMonitor measures what the protocol monitor costs a test:
// BenchmarkConnect's work with the monitor on (the default) and off, side
// by side (benchstat -col /monitor compares them).
func BenchmarkConnectMonitor(b *testing.B) {
	for _, v := range []string{"legacy", "modern"} {
		version := client.LatestLegacyVersion
		if v == "modern" {
			version = client.LatestVersion
		}
		for _, mode := range []struct {
			name string
			mode MonitorMode
		}{{"on", MonitorFail}, {"off", MonitorOff}} {
			b.Run("version="+v+"/monitor="+mode.name, func(b *testing.B) {
				b.ReportAllocs()
				srv := probeServer()
				for b.Loop() {
					f := runFake(b, func(tb testing.TB) {
						c := Connect(tb, srv, WithProtocolVersion(version), Monitor(mode.mode))
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
}
