package mcptest

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/mcptest/servercheck"
)

// plantedServer has a tool that crashes when its text contains "%" or its
// count is negative, behind the crash guard.
func plantedServer() *fakeServer {
	return &fakeServer{name: "planted", guard: true, logger: slog.New(slog.DiscardHandler), tools: []*fakeTool{{
		name: "format", description: "Format text count times.",
		input: `{"type":"object","properties":{"text":{"type":"string"},"count":{"type":"integer"}},"required":["text","count"],"additionalProperties":false}`,
		handle: func(_ context.Context, c *fakeCall) (*fakeResult, error) {
			if strings.Contains(c.str("text"), "%") || c.num("count") < 0 {
				panic("planted crash")
			}
			return fakeText(c.str("text")), nil
		},
	}}}
}

// FuzzPlantedCrash is the measurement of how fast go test -fuzz finds the
// planted crash:
//
//	MCPTEST_FUZZ_PLANTED=1 go test -run '^$' -fuzz FuzzPlantedCrash ./mcptest/
//
// It fails by design, so it runs only when asked.
func FuzzPlantedCrash(f *testing.F) {
	if os.Getenv("MCPTEST_FUZZ_PLANTED") == "" {
		f.Skip("set MCPTEST_FUZZ_PLANTED=1 to run; it finds the planted crash, so it fails")
	}
	Fuzz(f, plantedServer())
}

// Fuzz takes any Server: its seed inputs, which go test runs without
// -fuzz, reach the fake's echo tool over stdio and over HTTP, and keep every
// invariant there.
func FuzzCommandServer(f *testing.F) {
	Fuzz(f, Command(cmdServer(f, "probe")))
}

func FuzzHandlerServer(f *testing.F) {
	Fuzz(f, Handler(probeServer().handler()))
}

// The fuzzer's inputs reach the planted crash: random bytes, as go test
// -fuzz starts from, find it within a few hundred inputs, and the error
// says what was sent.
func TestFuzzerFindsPlantedCrash(t *testing.T) {
	t.Parallel()
	fz, err := servercheck.NewFuzzer(t.Context(), memDialer(plantedServer()), nil)
	require.NoError(t, err)
	defer fz.Close()
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 500 {
		data := make([]byte, 2+r.IntN(30))
		for j := range data {
			data[j] = byte(r.IntN(256))
		}
		if err := fz.Input(data); err != nil {
			require.Contains(t, err.Error(), `called tool "format" with arguments`)
			require.Contains(t, err.Error(), "the handler crashed (the crash guard caught it")
			t.Logf("found after %d input(s): %v", i+1, err)
			return
		}
	}
	t.Fatal("500 random inputs did not find the planted crash")
}

// A healthy server keeps every invariant on every seed and on random
// inputs.
func TestFuzzerHealthyServer(t *testing.T) {
	t.Parallel()
	fz, err := servercheck.NewFuzzer(t.Context(), memDialer(goodServer()), nil)
	require.NoError(t, err)
	defer fz.Close()
	r := rand.New(rand.NewPCG(3, 4))
	inputs := fz.Seeds()
	for range 300 {
		data := make([]byte, 2+r.IntN(40))
		for j := range data {
			data[j] = byte(r.IntN(256))
		}
		inputs = append(inputs, data)
	}
	for _, data := range inputs {
		require.NoError(t, fz.Input(data), "input %x", data)
	}
}

// endlessPaging makes srv's tools/list hand out a new nextCursor with every
// page, answering at once: only the client's bound on pages ends a lister.
func endlessPaging(srv *handServer) *handServer {
	list := srv.handlers["tools/list"]
	n := 0
	srv.handlers["tools/list"] = func(p json.RawMessage) (any, *rpcError) {
		r, _ := list(nil) // every page the same tools: the cursor only counts pages
		n++
		r.(map[string]any)["nextCursor"] = fmt.Sprint("page-", n)
		return r, nil
	}
	return srv
}

// The fuzzer lists the tools before the fuzz target starts; on a server
// whose paging never ends it stops at the client's bound and says why,
// instead of waiting until go test -timeout ends the binary. The deadline
// only turns a hang into a failure.
func TestFuzzerEndlessPaging(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	fz, err := servercheck.NewFuzzer(ctx, memDialer(endlessPaging(goodServer())), nil)
	if err == nil {
		fz.Close()
	}
	require.ErrorContains(t, err, "listing the tools: tools/list: more than 1000 pages, each with a new nextCursor")
}
