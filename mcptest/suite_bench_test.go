package mcptest

import (
	"context"
	"fmt"
	"github.com/mcptestkit/mcptestkit/internal/faketb"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpgotest "github.com/mark3labs/mcp-go/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptestkit/mcptestkit/client"
)

// suiteEnv names the suite a child process of BenchmarkSuite runs:
// "<kind>:<n>".
const suiteEnv = "MCPTEST_BENCH_SUITE"

// BenchmarkSuite measures what a user feels: the wall time of go test on a
// suite of n parallel tests, each connecting to the same go-sdk echo server
// with defaults and making three tools/call calls. Every iteration runs the
// suite in a fresh child process of this test binary (TestBenchSuiteChild),
// so the tests really are parallel subtests with t.Parallel, paused and
// resumed by the testing package, as in a user's suite. The peers run side
// by side: go-sdk's own client over mcp.NewInMemoryTransports, and mcp-go's
// mcptest package (with mcp-go's own server, as its users would).
//
//	go test -run '^$' -bench BenchmarkSuite -benchtime 1x -count 3 ./mcptest
func BenchmarkSuite(b *testing.B) {
	for _, n := range []int{500, 2000, 5000} {
		for _, kind := range []string{"mcptest", "mcptest-no-leak-check", "gosdk-client", "mcpgo-mcptest"} {
			b.Run(fmt.Sprintf("n=%d/%s", n, kind), func(b *testing.B) {
				for b.Loop() {
					cmd := exec.Command(os.Args[0], "-test.run=^TestBenchSuiteChild$", "-test.count=1")
					cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s:%d", suiteEnv, kind, n))
					if out, err := cmd.CombinedOutput(); err != nil {
						b.Fatalf("the suite failed: %v\n%s", err, tail(out, 4000))
					}
				}
			})
		}
	}
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// TestBenchSuiteChild is the suite BenchmarkSuite runs in a child process;
// on its own it does nothing.
func TestBenchSuiteChild(t *testing.T) {
	spec := os.Getenv(suiteEnv)
	if spec == "" {
		t.Skip("run by BenchmarkSuite in a child process")
	}
	kind, count, _ := strings.Cut(spec, ":")
	n, err := strconv.Atoi(count)
	if err != nil {
		t.Fatalf("bad %s=%q", suiteEnv, spec)
	}
	var body func(t *testing.T)
	switch kind {
	case "mcptest":
		body = func(t *testing.T) { suiteMCPTest(t) }
	case "mcptest-no-leak-check":
		body = func(t *testing.T) { suiteMCPTest(t, WithoutLeakCheck()) }
	case "gosdk-client":
		body = suiteGoSDKClient
	case "mcpgo-mcptest":
		body = suiteMCPGoTest
	default:
		t.Fatalf("unknown suite %q", kind)
	}
	for i := range n {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			t.Parallel()
			body(t)
		})
	}
}

func suiteMCPTest(t *testing.T, opts ...Option) {
	c := Connect(t, goSDKEcho(), opts...)
	for range 3 {
		res, err := c.CallTool(t.Context(), "echo", map[string]any{"text": "hello"})
		if err != nil || res.Text() != "hello" {
			t.Fatal(res, err)
		}
	}
}

func suiteGoSDKClient(t *testing.T) {
	ctx := t.Context()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := probeServer(nil).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "suite", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	for range 3 {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hello"}})
		if err != nil || res.Content[0].(*mcp.TextContent).Text != "hello" {
			t.Fatal(res, err)
		}
	}
}

func suiteMCPGoTest(t *testing.T) {
	ts, err := mcpgotest.NewServer(t, *mcpgoServer().GetTool("echo"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ts.Close)
	for range 3 {
		var req mcpgo.CallToolRequest
		req.Params.Name = "echo"
		req.Params.Arguments = map[string]any{"text": "hello"}
		res, err := ts.Client().CallTool(t.Context(), req)
		if err != nil || res.Content[0].(mcpgo.TextContent).Text != "hello" {
			t.Fatal(res, err)
		}
	}
}

// BenchmarkConnectClose is one connection's whole life with nothing in it:
// mcptest.Connect with defaults and its cleanup (close, Serve's return, leak
// check), side by side with a fresh connection of go-sdk's own client over
// mcp.NewInMemoryTransports to the same server, closed and waited for.
func BenchmarkConnectClose(b *testing.B) {
	for _, era := range []struct {
		name string
		opts []Option
		sdk  *mcp.ClientSessionOptions
	}{
		{"modern", nil, nil},
		{"legacy", []Option{WithProtocolVersion(client.LatestLegacyVersion)}, &mcp.ClientSessionOptions{ProtocolVersion: client.LatestLegacyVersion}},
	} {
		b.Run(era.name+"/mcptest", func(b *testing.B) {
			srv := goSDKEcho()
			b.ReportAllocs()
			for b.Loop() {
				f := runFake(b, func(tb testing.TB) { Connect(tb, srv, era.opts...) })
				if f.Failed() {
					b.Fatal(f.output())
				}
			}
		})
		b.Run(era.name+"/gosdk-client", func(b *testing.B) {
			srv := probeServer(nil)
			cl := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				st, ct := mcp.NewInMemoryTransports()
				ss, err := srv.Connect(ctx, st, nil)
				if err != nil {
					b.Fatal(err)
				}
				cs, err := cl.Connect(ctx, ct, era.sdk)
				if err != nil {
					b.Fatal(err)
				}
				cs.Close()
				ss.Wait()
			}
		})
	}
}

// BenchmarkIdleConnections holds 10,000 connections open at once and
// reports what each costs in memory (heap in use and goroutine stacks, after
// a GC, divided by the number of connections), the go-sdk server session
// included: mcptest.Connect with defaults, side by side with go-sdk's client
// over mcp.NewInMemoryTransports to the same server.
func BenchmarkIdleConnections(b *testing.B) {
	const n = 10000
	measure := func(b *testing.B, open func() (closeAll func())) {
		for b.Loop() {
			before := inUse()
			closeAll := open()
			b.ReportMetric(float64(inUse()-before)/n, "B/conn")
			b.StopTimer()
			closeAll()
			b.StartTimer()
		}
	}
	b.Run("mcptest", func(b *testing.B) {
		srv := goSDKEcho()
		measure(b, func() func() {
			fakes := make([]*faketb.TB, n)
			for i := range fakes {
				fakes[i] = faketb.New(b, "idle")
				Connect(fakes[i], srv)
			}
			return func() {
				for _, f := range fakes {
					f.Finish()
					if f.Failed() {
						b.Fatal(f.Text())
					}
				}
			}
		})
	})
	b.Run("gosdk-client", func(b *testing.B) {
		srv := probeServer(nil)
		cl := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
		ctx := context.Background()
		measure(b, func() func() {
			sessions := make([]*mcp.ClientSession, n)
			servers := make([]*mcp.ServerSession, n)
			for i := range sessions {
				st, ct := mcp.NewInMemoryTransports()
				ss, err := srv.Connect(ctx, st, nil)
				if err != nil {
					b.Fatal(err)
				}
				cs, err := cl.Connect(ctx, ct, nil)
				if err != nil {
					b.Fatal(err)
				}
				sessions[i], servers[i] = cs, ss
			}
			return func() {
				for i, cs := range sessions {
					cs.Close()
					servers[i].Wait()
				}
			}
		})
	})
}

// inUse is the memory live objects and goroutine stacks take, after a GC.
func inUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse + m.StackInuse
}
