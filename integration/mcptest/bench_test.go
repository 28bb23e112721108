package mcptest_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpgomcptest "github.com/mark3labs/mcp-go/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/gosdk/gosdktest"
	"github.com/mcptestkit/mcptestkit/internal/faketb"
	"github.com/mcptestkit/mcptestkit/mcptest"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

// The benchmarks of mcptest with real SDK servers, and against the SDKs'
// own clients (mcptest's own benchmarks, with its fake server, are in the
// root module).

// goSDKEcho is the go-sdk echo server behind its adapter.
func goSDKEcho() mcptest.Server { return gosdktest.Server(probeServer(nil)) }

// BenchmarkConnectSDKs measures one whole test's worth of harness work with
// each SDK's adapter: connect (handshake included), one tool call, and the
// cleanup (close, wait for Serve, leak check).
func BenchmarkConnectSDKs(b *testing.B) {
	cases := []struct {
		name string
		srv  mcptest.Server
		opts []mcptest.Option
	}{
		{"gosdk", goSDKEcho(), nil},
		{"gosdk/legacy", goSDKEcho(), []mcptest.Option{mcptest.WithProtocolVersion(client.LatestLegacyVersion)}},
		{"gosdk/no-leak-check", goSDKEcho(), []mcptest.Option{mcptest.WithoutLeakCheck()}},
		{"mcpgo", mcpgoServer(), nil},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				f := runFake(b, func(tb testing.TB) {
					c := mcptest.Connect(tb, tc.srv, tc.opts...)
					if _, err := c.CallTool(tb.Context(), "echo", map[string]any{"text": "x"}); err != nil {
						tb.Errorf("%v", err)
					}
				})
				if f.Failed() {
					b.Fatal(f.Text())
				}
			}
		})
	}
}

// BenchmarkConnectExternalSDKs is BenchmarkConnect's external counterpart:
// the go-sdk stdio server and both SDKs' HTTP handlers.
func BenchmarkConnectExternalSDKs(b *testing.B) {
	cmdServer(b, "") // build the server program outside the timed loop
	stateless := gosdkStateless(probeServer(nil))
	hs := httptest.NewServer(stateless)
	b.Cleanup(hs.Close)
	cases := []struct {
		name    string
		connect func(tb testing.TB) *client.Client
	}{
		{"command/gosdk", func(tb testing.TB) *client.Client { return mcptest.Connect(tb, mcptest.Command(cmdServer(tb, ""))) }},
		{"http/gosdk-stateless", func(tb testing.TB) *client.Client { return mcptest.Connect(tb, mcptest.Handler(stateless)) }},
		{"http/gosdk-stateful-legacy", func(tb testing.TB) *client.Client {
			return mcptest.Connect(tb, mcptest.Handler(gosdkHTTP(probeServer(nil))), mcptest.WithProtocolVersion(client.LatestLegacyVersion))
		}},
		{"http/mcpgo", func(tb testing.TB) *client.Client { return mcptest.Connect(tb, mcptest.Handler(mcpgoHTTP())) }},
		{"url/gosdk-stateless", func(tb testing.TB) *client.Client { return mcptest.Connect(tb, mcptest.URL(hs.URL)) }},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				f := runFake(b, func(tb testing.TB) {
					c := tc.connect(tb)
					if _, err := c.CallTool(tb.Context(), "echo", map[string]any{"text": "x"}); err != nil {
						tb.Errorf("%v", err)
					}
				})
				if f.Failed() {
					b.Fatal(f.Text())
				}
			}
		})
	}
}

// suiteEnv names the suite a child process of BenchmarkSuite runs:
// "<kind>:<n>".
const suiteEnv = "MCPTEST_BENCH_SUITE"

// BenchmarkSuite measures what a user feels: the wall time of go test on a
// suite of n parallel tests, each connecting to the same go-sdk echo server
// with defaults and making three tools/call calls. Every suite runs in a
// fresh child process of this test binary (TestBenchSuiteChild), so the
// tests really are parallel subtests with t.Parallel, paused and resumed by
// the testing package, as in a user's suite. The peers run side by side in
// the same iteration, in an order that turns each iteration, so that noise
// on a shared machine hits them all: go-sdk's own client over
// mcp.NewInMemoryTransports, and mcp-go's mcptest package (with mcp-go's own
// server, as its users would). Each kind's seconds per suite are reported as
// s-<kind>, and ratio is mcptest's time over go-sdk's client's (the goal is
// at most 0.5). The server-floor kind is the same server's own work with no
// client at all (pre-encoded frames through the adapter, see serveFrames):
// floor-ratio, its time over go-sdk's client's, is the least ratio any
// harness could reach with this server. n=1 is a package with one test:
// the test binary's fixed costs (start, exit, TestMain's goleak check).
//
//	go test -run '^$' -bench 'BenchmarkSuite/n=2000' -benchtime 1x -count 3 ./integration/mcptest
func BenchmarkSuite(b *testing.B) {
	kinds := []string{"mcptest", "gosdk-client", "mcptest-no-leak-check", "mcpgo-mcptest", "server-floor"}
	for _, n := range []int{1, 100, 500, 2000, 5000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			runSideBySide(b, kinds, 1, func(kind string) {
				cmd := exec.Command(os.Args[0], "-test.run=^TestBenchSuiteChild$", "-test.count=1")
				cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s:%d", suiteEnv, kind, n))
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("the %s suite failed: %v\n%s", kind, err, tail(out, 4000))
				}
			}, time.Second, "s")
		})
	}
}

// runSideBySide runs each kind batch times in a row per iteration, the
// first kind first in one iteration and last in the next, and reports each
// kind's mean time per run in unit (d long) as "<unit>-<kind>", and the
// first kind's time over the second's as "ratio" (and a kind named
// server-floor's over the second's as "floor-ratio"). Batches keep most of
// the collections a kind's garbage causes in its own time: one run each in
// turn would charge either one for the other's.
func runSideBySide(b *testing.B, kinds []string, batch int, run func(kind string), d time.Duration, unit string) {
	spent := make([]time.Duration, len(kinds))
	iter := 0
	for b.Loop() {
		for j := range kinds {
			k := j
			if iter%2 == 1 {
				k = len(kinds) - 1 - j
			}
			start := time.Now()
			for range batch {
				run(kinds[k])
			}
			spent[k] += time.Since(start)
		}
		iter++
	}
	for k, kind := range kinds {
		b.ReportMetric(float64(spent[k])/float64(d)/float64(iter*batch), unit+"-"+kind)
	}
	b.ReportMetric(float64(spent[0])/float64(spent[1]), "ratio")
	if k := slices.Index(kinds, "server-floor"); k >= 0 {
		b.ReportMetric(float64(spent[k])/float64(spent[1]), "floor-ratio")
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
		body = func(t *testing.T) { suiteMCPTest(t, mcptest.WithoutLeakCheck()) }
	case "mcptest-no-monitor":
		body = func(t *testing.T) { suiteMCPTest(t, mcptest.Monitor(mcptest.MonitorOff)) }
	case "gosdk-client":
		body = suiteGoSDKClient
	case "mcpgo-mcptest":
		body = suiteMCPGoTest
	case "server-floor":
		frames := floorFrames(client.LatestVersion, 3)
		body = func(t *testing.T) { serveFrames(t, goSDKEcho(), frames) }
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

func suiteMCPTest(t *testing.T, opts ...mcptest.Option) {
	c := mcptest.Connect(t, goSDKEcho(), opts...)
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

// floorFrames are a whole connection's frames as mcptest's client sends
// them in an era (version is client.LatestVersion or
// client.LatestLegacyVersion): the start (server/discover, or initialize
// and notifications/initialized), then calls echo tools/call.
func floorFrames(version string, calls int) [][]byte {
	const info = `{"name":"mcptestkit","version":"v0"}`
	var frames [][]byte
	meta := ""
	if version >= client.Version20260728 {
		meta = `,"_meta":{"io.modelcontextprotocol/protocolVersion":"` + version + `","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":` + info + `}`
		frames = append(frames, []byte(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{`+meta[1:]+`}}`))
	} else {
		frames = append(frames,
			[]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+version+`","capabilities":{},"clientInfo":`+info+`}}`),
			[]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	}
	for id := 2; id < 2+calls; id++ {
		frames = append(frames, []byte(`{"jsonrpc":"2.0","id":`+strconv.Itoa(id)+`,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}`+meta+`}}`))
	}
	return frames
}

// serveFrames is the least any harness can cost: the server's own work for
// a connection, driven by pre-encoded frames through its adapter over a
// memtransport pair without a transcript (no client, no harness, no leak
// check), waiting for each request's answer and for Serve's return.
func serveFrames(tb testing.TB, srv mcptest.Server, frames [][]byte) {
	ctx := context.Background()
	c, end := memtransport.Pair(memtransport.WithTranscriptLimit(0))
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, end) }()
	defer func() {
		c.Close()
		if err := <-done; err != nil {
			tb.Error(err)
		}
	}()
	for _, frame := range frames {
		if err := c.Send(ctx, frame); err != nil {
			tb.Error(err)
			return
		}
		if bytes.Contains(frame, []byte(`"method":"notifications/`)) {
			continue
		}
		answer, err := c.Receive(ctx)
		if err != nil {
			tb.Error(err)
			return
		}
		if !bytes.Contains(answer, []byte(`"result"`)) {
			tb.Errorf("%s was answered %s", frame, answer)
			return
		}
	}
}

func suiteMCPGoTest(t *testing.T) {
	ts, err := mcpgomcptest.NewServer(t, *newMCPGoServer().GetTool("echo"))
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
// mcp.NewInMemoryTransports to the same server, closed and waited for. Per
// era, "side-by-side" makes 100 of each per iteration, in turn, and reports
// each one's time per connection (us-mcptest, us-gosdk-client) and ratio,
// mcptest's over go-sdk's (the goal is at most 0.5), with the same server's
// own work alone (us-server-floor, floor-ratio; see serveFrames);
// "mcptest", "gosdk-client" and "server-floor" measure each alone, with its
// allocations. Every connection runs on a fresh goroutine, as a test does.
//
//	go test -run '^$' -bench 'BenchmarkConnectClose/.*/side-by-side' -benchtime 30x -count 3 ./integration/mcptest
//	go test -run '^$' -bench BenchmarkConnectClose -benchtime 3000x -count 3 ./integration/mcptest
func BenchmarkConnectClose(b *testing.B) {
	for _, era := range []struct {
		name    string
		version string
		opts    []mcptest.Option
		sdk     *mcp.ClientSessionOptions
	}{
		{"modern", client.LatestVersion, nil, nil},
		{"legacy", client.LatestLegacyVersion, []mcptest.Option{mcptest.WithProtocolVersion(client.LatestLegacyVersion)}, &mcp.ClientSessionOptions{ProtocolVersion: client.LatestLegacyVersion}},
	} {
		ours := func(b *testing.B) func() {
			srv := goSDKEcho()
			return func() {
				f := runFake(b, func(tb testing.TB) { mcptest.Connect(tb, srv, era.opts...) })
				if f.Failed() {
					b.Fatal(f.Text())
				}
			}
		}
		theirs := func(b *testing.B) func() {
			srv := probeServer(nil)
			cl := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
			ctx := context.Background()
			return func() {
				onTestGoroutine(func() {
					st, ct := mcp.NewInMemoryTransports()
					ss, err := srv.Connect(ctx, st, nil)
					if err != nil {
						b.Error(err)
						return
					}
					cs, err := cl.Connect(ctx, ct, era.sdk)
					if err != nil {
						b.Error(err)
						return
					}
					cs.Close()
					ss.Wait()
				})
			}
		}
		floor := func(b *testing.B) func() {
			srv := goSDKEcho()
			frames := floorFrames(era.version, 0)
			return func() { onTestGoroutine(func() { serveFrames(b, srv, frames) }) }
		}
		b.Run(era.name+"/side-by-side", func(b *testing.B) {
			run := map[string]func(){"mcptest": ours(b), "gosdk-client": theirs(b), "server-floor": floor(b)}
			runSideBySide(b, []string{"mcptest", "gosdk-client", "server-floor"}, 100, func(kind string) { run[kind]() }, time.Microsecond, "us")
		})
		for _, side := range []struct {
			kind string
			make func(*testing.B) func()
		}{{"mcptest", ours}, {"gosdk-client", theirs}, {"server-floor", floor}} {
			b.Run(era.name+"/"+side.kind, func(b *testing.B) {
				run := side.make(b)
				b.ReportAllocs()
				for b.Loop() {
					run()
				}
			})
		}
	}
}

// onTestGoroutine runs fn on a goroutine of its own and waits for it, as
// the testing package runs a test (mcptest's side runs in a fake test,
// which does the same): a fresh goroutine grows its stack again, and every
// side must pay that alike.
func onTestGoroutine(fn func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	<-done
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
				mcptest.Connect(fakes[i], srv)
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
