package mcptest_test

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/gosdk/gosdktest"
	"github.com/mcptestkit/mcptestkit/mcptest"
)

// The protocol monitor, on by default in every Connect, finds nothing in
// what correct SDK servers send: go-sdk's logs at the level asked for, its
// progress, resource reads and listings, at every version; mcp-go's calls
// and listings.
func TestMonitorPassesRealSDKServers(t *testing.T) {
	t.Parallel()
	for _, version := range []string{client.LatestVersion, client.LatestLegacyVersion, "2025-06-18", "2025-03-26", "2024-11-05"} {
		f := runFake(t, func(tb testing.TB) {
			c := mcptest.Connect(tb, gosdktest.Server(chattyServer()), mcptest.WithProtocolVersion(version),
				mcptest.WithClient(client.Options{LogLevel: client.LevelInfo}))
			if _, err := c.CallTool(tb.Context(), "import", nil, client.WithProgress(func(client.Progress) {})); err != nil {
				tb.Errorf("import: %v", err)
			}
			if _, err := c.ReadResource(tb.Context(), "books://dune"); err != nil {
				tb.Errorf("read: %v", err)
			}
			for _, err := range c.Tools(tb.Context()) {
				if err != nil {
					tb.Errorf("tools: %v", err)
				}
			}
		})
		if f.Failed() || strings.Contains(f.Text(), "protocol monitor") {
			t.Errorf("go-sdk at %s:\n%s", version, f.Text())
		}
	}
	f := runFake(t, func(tb testing.TB) {
		c := mcptest.Connect(tb, mcpgoServer())
		if _, err := c.CallTool(tb.Context(), "echo", map[string]any{"text": "x"}, client.WithProgress(func(client.Progress) {})); err != nil {
			tb.Errorf("echo: %v", err)
		}
		for _, err := range c.Tools(tb.Context()) {
			if err != nil {
				tb.Errorf("tools: %v", err)
			}
		}
	})
	if f.Failed() || strings.Contains(f.Text(), "protocol monitor") {
		t.Errorf("mcp-go:\n%s", f.Text())
	}
}

// BenchmarkSuiteMonitor measures what the protocol monitor costs a package
// of tests: BenchmarkSuite's "mcptest" suite (n parallel tests, each a
// Connect and three calls to go-sdk's echo server) in a child process, with
// the monitor on (the default) and off, in turn (the first kind first in
// one iteration and last in the next). It reports each kind's wall time and
// the CPU time its process used (user and system, which other processes'
// load on the machine does not inflate), and "cpu-ratio", on over off.
//
//	go test -run '^$' -bench BenchmarkSuiteMonitor -benchtime 8x -count 6 ./integration/mcptest
func BenchmarkSuiteMonitor(b *testing.B) {
	kinds := []string{"mcptest", "mcptest-no-monitor"}
	for _, n := range []int{100, 1000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			wall := make([]time.Duration, len(kinds))
			cpu := make([]time.Duration, len(kinds))
			iter := 0
			for b.Loop() {
				for j := range kinds {
					k := j
					if iter%2 == 1 {
						k = len(kinds) - 1 - j
					}
					cmd := exec.Command(os.Args[0], "-test.run=^TestBenchSuiteChild$", "-test.count=1")
					cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s:%d", suiteEnv, kinds[k], n))
					start := time.Now()
					if out, err := cmd.CombinedOutput(); err != nil {
						b.Fatalf("the %s suite failed: %v\n%s", kinds[k], err, tail(out, 4000))
					}
					wall[k] += time.Since(start)
					cpu[k] += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
				}
				iter++
			}
			for k, kind := range kinds {
				b.ReportMetric(wall[k].Seconds()/float64(iter), "s-"+kind)
				b.ReportMetric(cpu[k].Seconds()/float64(iter), "cpu-s-"+kind)
			}
			b.ReportMetric(float64(cpu[0])/float64(cpu[1]), "cpu-ratio")
		})
	}
}
