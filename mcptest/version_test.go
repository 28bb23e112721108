package mcptest

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

func TestSelectVersions(t *testing.T) {
	t.Parallel()
	all := client.SupportedVersions()
	for _, tc := range []struct {
		name string
		opts []Option
		want []string
	}{
		{"none", nil, all},
		{"since", []Option{Since(client.Version20250618)}, []string{client.Version20260728, client.Version20251125, client.Version20250618}},
		{"before", []Option{Before(client.Version20260728)}, []string{client.Version20251125, client.Version20250618, client.Version20250326, client.Version20241105}},
		{"both", []Option{Since(client.Version20250326), Before(client.Version20251125)}, []string{client.Version20250618, client.Version20250326}},
		{"the narrowest wins", []Option{Since(client.Version20250326), Since(client.Version20250618), Before(client.Version20260728), Before(client.Version20251125)}, []string{client.Version20250618}},
	} {
		got, err := selectVersions(tc.opts)
		require.NoError(t, err, tc.name)
		assert.Equal(t, tc.want, got, tc.name)
	}

	_, err := selectVersions([]Option{Since("2025-06-31")})
	assert.ErrorContains(t, err, `Since("2025-06-31"): not a protocol version the client supports (2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05)`)
	_, err = selectVersions([]Option{Before("latest")})
	assert.ErrorContains(t, err, `Before("latest")`)
	_, err = selectVersions([]Option{Since(client.Version20251125), Before(client.Version20250618)})
	assert.ErrorContains(t, err, `no protocol version is both Since("2025-11-25") and Before("2025-06-18")`)
}

// versionsServer is a server that speaks only the given versions.
func versionsServer(versions ...string) *fakeServer {
	return &fakeServer{name: "old", versions: versions}
}

// elicitServer has a tool that asks the user for a name the 2026-07-28 way
// (an input request), which the fake turns into elicitation/create for a
// legacy client.
func elicitServer() *fakeServer {
	return probeServer(newTool("greet", func(_ context.Context, c *fakeCall) (*fakeResult, error) {
		var answer struct{ Content struct{ Name string } }
		if c.answers["name"] == nil || json.Unmarshal(c.answers["name"], &answer) != nil {
			return &fakeResult{ask: map[string]fakeAsk{"name": {Method: "elicitation/create", Params: map[string]any{
				"message":         "Your name?",
				"requestedSchema": map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}},
			}}}}, nil
		}
		return fakeText("hello " + answer.Content.Name), nil
	}))
}

func answerAda(context.Context, *client.ElicitRequest) (*client.ElicitResult, error) {
	return &client.ElicitResult{Action: client.ElicitAccept, Content: map[string]any{"name": "Ada"}}, nil
}

// EachVersion with Since runs exactly the versions that have the feature,
// and elicitation works at every one of them, in both eras.
func TestEachVersionSinceElicitation(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var ran []string
	EachVersion(t, func(t *testing.T, version string) {
		t.Parallel()
		mu.Lock()
		ran = append(ran, version)
		mu.Unlock()
		c := Connect(t, elicitServer(), WithProtocolVersion(version), WithClient(client.Options{Elicit: answerAda}))
		res, err := c.CallTool(t.Context(), "greet", nil)
		require.NoError(t, err)
		Assert(t).Text(res, "hello Ada")
	}, Since(client.Version20250618))
	t.Cleanup(func() {
		assert.ElementsMatch(t, []string{client.Version20260728, client.Version20251125, client.Version20250618}, ran)
	})
}

// A callback the pinned version cannot declare gets a one-line note in the
// test log (not a failure: the test may be about exactly that).
func TestConnectNotesACallbackTheVersionCannotDeclare(t *testing.T) {
	t.Parallel()
	for _, version := range []string{client.Version20241105, client.Version20250326} {
		f := runFake(t, func(tb testing.TB) {
			Connect(tb, elicitServer(), WithProtocolVersion(version), WithClient(client.Options{Elicit: answerAda}))
		})
		f.expectPass(t)
		want := `mcptest: client.Options.Elicit is set, but protocol version ` + version + ` has no elicitation (it came in 2025-06-18): the client does not declare it and the server cannot ask for it. To run a test only where it exists: mcptest.EachVersion(t, fn, mcptest.Since("2025-06-18"))`
		assert.Equal(t, want, f.output())
	}

	// The negotiated version counts, not only a pinned one: a client that
	// asks for 2025-06-18 and is answered with 2025-03-26 cannot declare it
	// either. And callbacks the version has give no note.
	for _, version := range []string{client.Version20250618, client.Version20260728} {
		f := runFake(t, func(tb testing.TB) {
			Connect(tb, elicitServer(), WithProtocolVersion(version), WithClient(client.Options{
				Elicit: answerAda,
				CreateMessage: func(context.Context, *client.CreateMessageRequest) (*client.CreateMessageResult, error) {
					return nil, nil
				},
				ListRoots: func(context.Context) ([]*client.Root, error) { return nil, nil },
			}))
		})
		f.expectPass(t)
		assert.Empty(t, f.output(), version)
	}
	f := runFake(t, func(tb testing.TB) {
		Connect(tb, versionsServer(client.Version20250326), WithProtocolVersion(client.Version20250618), WithClient(client.Options{Elicit: answerAda}))
	})
	f.expectPass(t)
	assert.True(t, strings.HasPrefix(f.output(), "mcptest: client.Options.Elicit is set, but protocol version 2025-03-26 has no elicitation"), f.output())
}

// Issue 13.2: a body that forgets to pin the version still runs at every
// version: each connection made in an EachVersion subtest, or in a subtest
// of it, speaks the subtest's version.
func TestEachVersionPinsConnectionsToItsVersion(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	got := map[string]string{}
	EachVersion(t, func(t *testing.T, version string) {
		t.Parallel()
		c := Connect(t, probeServer())
		t.Run("nested", func(t *testing.T) {
			assert.Equal(t, version, Connect(t, probeServer()).ProtocolVersion())
		})
		mu.Lock()
		defer mu.Unlock()
		got[version] = c.ProtocolVersion()
	})
	t.Cleanup(func() {
		for _, v := range client.SupportedVersions() {
			assert.Equal(t, v, got[v])
		}
	})
}

// A server that answers with another version than the subtest's fails the
// subtest, saying which versions to run; so does a legacy-only server asked
// for 2026-07-28 (issue 15.4), which answers server/discover with
// method-not-found.
func TestEachVersionServerWithoutTheVersion(t *testing.T) {
	t.Parallel()
	outputs := map[string]string{}
	var mu sync.Mutex
	EachVersion(t, func(t *testing.T, version string) {
		f := runFake(t, func(tb testing.TB) {
			Connect(tb, versionsServer(client.Version20250326, client.Version20241105))
		})
		// The old idiom, pinning the subtest's version by hand, is checked too.
		f2 := runFake(t, func(tb testing.TB) {
			Connect(tb, versionsServer(client.Version20250326, client.Version20241105), WithProtocolVersion(version))
		})
		assert.Equal(t, f.Failed(), f2.Failed(), version)
		mu.Lock()
		defer mu.Unlock()
		outputs[version] = f.output()
		if version <= client.Version20250326 {
			f.expectPass(t)
			return
		}
		f.expectFailure(t)
	})
	assert.Contains(t, outputs[client.Version20251125], `mcptest.EachVersion(t, fn, mcptest.Before("2025-06-18"))`, "the first version it lacks")
	assert.True(t, strings.HasPrefix(outputs[client.Version20250618], `mcptest.Connect: this subtest of mcptest.EachVersion runs at protocol version 2025-06-18, but the server answered with 2025-03-26: it does not speak 2025-06-18.
Run the test only at the versions the server speaks: mcptest.EachVersion(t, fn, mcptest.Before("2025-06-18"))
`), outputs[client.Version20250618])
	assert.Contains(t, outputs[client.Version20260728], `server/discover: error -32022`)
	assert.Contains(t, outputs[client.Version20260728], `
The server does not speak protocol version 2026-07-28`)

	// A TypeScript-SDK server (every one in 2026) has no server/discover.
	var f *fakeTB
	EachVersion(t, func(t *testing.T, _ string) {
		f = runFake(t, func(tb testing.TB) { Connect(tb, tsLegacyServer()) })
	}, Since(client.Version20260728))
	f.expectFailure(t, `server/discover: error -32601: Method not found`, `
The server does not speak protocol version 2026-07-28 (it has no server/discover, or refused the version): it speaks only the legacy versions, which start with initialize.
To test it, run the test only at the legacy versions: mcptest.EachVersion(t, fn, mcptest.Before(client.Version20260728)).`)

	// Outside EachVersion, an explicit pin gets the other advice.
	f = runFake(t, func(tb testing.TB) {
		Connect(tb, versionsServer(client.Version20250326), WithProtocolVersion(client.Version20260728))
	})
	f.expectFailure(t, "To test it, pin a legacy version with mcptest.WithProtocolVersion(client.LatestLegacyVersion), or leave the version unpinned.")
}

// An explicit WithProtocolVersion in an EachVersion subtest wins: the test
// said otherwise.
func TestEachVersionExplicitPinWins(t *testing.T) {
	t.Parallel()
	EachVersion(t, func(t *testing.T, version string) {
		c := Connect(t, probeServer(), WithProtocolVersion(client.Version20241105))
		assert.Equal(t, client.Version20241105, c.ProtocolVersion())
	}, Since(client.Version20251125))
}

// tsLegacyServer answers like a TypeScript-SDK server does to a method it
// does not know, server/discover included: -32601 "Method not found".
func tsLegacyServer() Server {
	return ServerFunc(func(ctx context.Context, conn *memtransport.Conn) error {
		for {
			data, err := conn.Receive(ctx)
			if err != nil {
				return nil
			}
			var req struct {
				ID json.RawMessage `json:"id"`
			}
			if json.Unmarshal(data, &req) != nil || req.ID == nil {
				continue
			}
			answer := `{"jsonrpc":"2.0","id":` + string(req.ID) + `,"error":{"code":-32601,"message":"Method not found"}}`
			if err := conn.Send(ctx, []byte(answer)); err != nil {
				return nil
			}
		}
	})
}

// Only the subtests EachVersion runs pin a version: a test's own subtest
// whose name looks like a version (a table case "2025-06-18") pins nothing.
func TestSubtestNamedLikeAVersionPinsNothing(t *testing.T) {
	t.Parallel()
	for _, name := range []string{client.Version20250618, "case/" + client.Version20241105} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := Connect(t, &fakeServer{})
			assert.Equal(t, client.LatestVersion, c.ProtocolVersion(), "the era-neutral start, not the name")
		})
	}
}
