package mcptest

import (
	"time"

	"github.com/mcptestkit/mcptestkit/internal/toolschema"
	"testing"

	"github.com/mcptestkit/mcptestkit/mcptest/servercheck"
)

// Fuzz fuzzes srv's tools for go test -fuzz: the fuzzer's bytes become
// tool arguments that conform to each tool's input schema, arguments that
// nearly conform (one property left out, of the wrong type, undeclared, or
// made of the input's bytes), and raw JSON-RPC requests. Each input must
// keep the invariants of [CheckServer]'s tool checks: an answer in time,
// the connection intact, no crash, no crash text reaching the client,
// structured output valid against the output schema. A failing input is
// minimised and saved under testdata/fuzz, as go test does.
//
//	func FuzzServer(f *testing.F) {
//		mcptest.Fuzz(f, gosdktest.Server(myserver.New(slog.New(slog.DiscardHandler))))
//	}
//
// Run it with go test -fuzz=FuzzServer; without -fuzz it runs the seed
// inputs (one per tool and phase) like any test. See
// [servercheck.Fuzzer] for how an input's bytes are read. srv is any
// [Server], reached as [CheckServer] reaches it; each fuzzing process
// keeps one connection, opening another only when one broke.
func Fuzz(f *testing.F, srv Server, opts ...Option) {
	f.Helper()
	h, dial, o := checkHarness(f, fuzzCall, srv, opts)
	if h == nil {
		return
	}
	// Cleanups run last first: the fuzzer's connection closes, then the
	// leak check looks for what it left, then regexp2's timing goroutine, if
	// a lookahead pattern started it, is waited for (see runChecks).
	f.Cleanup(func() { toolschema.AwaitClock(2 * time.Second) })
	f.Cleanup(h.endChecks)
	fz, err := servercheck.NewFuzzer(f.Context(), dial, o)
	if err != nil {
		f.Fatalf("mcptest.Fuzz: %v", err)
		return
	}
	f.Cleanup(fz.Close)
	for _, seed := range fz.Seeds() {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := fz.Input(data); err != nil {
			t.Fatal(err)
		}
	})
}
