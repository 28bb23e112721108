package mcptest

import (
	"testing"
	"time"

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
// BenchmarkConnect's work with the monitor on (the default) and off, in
// turn within each iteration (batches of 20, the first kind first in one
// iteration and last in the next), so that a machine whose load changes
// charges both alike. It reports each kind's time per test and "ratio", on
// over off.
func BenchmarkConnectMonitor(b *testing.B) {
	for _, version := range []string{client.LatestLegacyVersion, client.LatestVersion} {
		b.Run("version="+version, func(b *testing.B) {
			srv := probeServer()
			modes := []MonitorMode{MonitorFail, MonitorOff}
			spent := make([]time.Duration, len(modes))
			const batch = 20
			iter := 0
			b.ReportAllocs()
			for b.Loop() {
				for j := range modes {
					k := j
					if iter%2 == 1 {
						k = len(modes) - 1 - j
					}
					start := time.Now()
					for range batch {
						f := runFake(b, func(tb testing.TB) {
							c := Connect(tb, srv, WithProtocolVersion(version), Monitor(modes[k]))
							if _, err := c.CallTool(tb.Context(), "echo", map[string]any{"text": "x"}); err != nil {
								tb.Errorf("%v", err)
							}
						})
						if f.Failed() {
							b.Fatal(f.output())
						}
					}
					spent[k] += time.Since(start)
				}
				iter++
			}
			per := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(iter*batch) }
			b.ReportMetric(per(spent[0]), "ns/test-on")
			b.ReportMetric(per(spent[1]), "ns/test-off")
			b.ReportMetric(float64(spent[0])/float64(spent[1]), "ratio")
		})
	}
}
