package mcptest

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/mcptest/gosdk"
)

func TestSelectVersions(t *testing.T) {
	t.Parallel()
	all := client.SupportedVersions()
	for _, tc := range []struct {
		name string
		opts []VersionOption
		want []string
	}{
		{"none", nil, all},
		{"since", []VersionOption{Since(client.Version20250618)}, []string{client.Version20260728, client.Version20251125, client.Version20250618}},
		{"before", []VersionOption{Before(client.Version20260728)}, []string{client.Version20251125, client.Version20250618, client.Version20250326, client.Version20241105}},
		{"both", []VersionOption{Since(client.Version20250326), Before(client.Version20251125)}, []string{client.Version20250618, client.Version20250326}},
		{"the narrowest wins", []VersionOption{Since(client.Version20250326), Since(client.Version20250618), Before(client.Version20260728), Before(client.Version20251125)}, []string{client.Version20250618}},
	} {
		got, err := selectVersions(tc.opts)
		require.NoError(t, err, tc.name)
		assert.Equal(t, tc.want, got, tc.name)
	}

	_, err := selectVersions([]VersionOption{Since("2025-06-31")})
	assert.ErrorContains(t, err, `Since("2025-06-31"): not a protocol version the client supports (2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05)`)
	_, err = selectVersions([]VersionOption{Before("latest")})
	assert.ErrorContains(t, err, `Before("latest")`)
	_, err = selectVersions([]VersionOption{Since(client.Version20251125), Before(client.Version20250618)})
	assert.ErrorContains(t, err, `no protocol version is both Since("2025-11-25") and Before("2025-06-18")`)
}

// elicitServer has a tool that asks the user for a name the 2026-07-28 way
// (an input request), which go-sdk turns into elicitation/create for a
// legacy client, and that refuses to ask a client that cannot answer.
func elicitServer() *mcp.Server {
	return probeServer(func(s *mcp.Server) {
		mcp.AddTool(s, &mcp.Tool{Name: "greet"}, func(_ context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			answer, ok := req.Params.InputResponses["name"].(*mcp.ElicitResult)
			if !ok {
				return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"name": &mcp.ElicitParams{
					Message:         "Your name?",
					RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}},
				}}}, nil, nil
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hello " + answer.Content["name"].(string)}}}, nil, nil
		})
	})
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
		c := Connect(t, gosdk.Server(elicitServer()), WithProtocolVersion(version), WithElicitation(answerAda))
		res, err := c.CallTool(t.Context(), "greet", nil)
		require.NoError(t, err)
		AssertText(t, res, "hello Ada")
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
			Connect(tb, gosdk.Server(elicitServer()), WithProtocolVersion(version), WithElicitation(answerAda))
		})
		f.expectPass(t)
		want := `mcptest: WithElicitation (client.Options.Elicit) is set, but protocol version ` + version + ` has no elicitation (it came in 2025-06-18): the client does not declare it and the server cannot ask for it. To run a test only where it exists: mcptest.EachVersion(t, fn, mcptest.Since("2025-06-18"))`
		assert.Equal(t, want, f.output())
	}

	// The negotiated version counts, not only a pinned one: a client that
	// asks for 2025-06-18 and is answered with 2025-03-26 cannot declare it
	// either. And callbacks the version has give no note.
	for _, version := range []string{client.Version20250618, client.Version20260728} {
		f := runFake(t, func(tb testing.TB) {
			Connect(tb, gosdk.Server(elicitServer()), WithProtocolVersion(version), WithElicitation(answerAda),
				WithSampling(func(context.Context, *client.CreateMessageRequest) (*client.CreateMessageResult, error) {
					return nil, nil
				}),
				WithRoots())
		})
		f.expectPass(t)
		assert.Empty(t, f.output(), version)
	}
	f := runFake(t, func(tb testing.TB) {
		Connect(tb, gosdk.Server(elicitServer(), gosdk.WithProtocolVersions(client.Version20250326)), WithProtocolVersion(client.Version20250618), WithElicitation(answerAda))
	})
	f.expectPass(t)
	assert.True(t, strings.HasPrefix(f.output(), "mcptest: WithElicitation (client.Options.Elicit) is set, but protocol version 2025-03-26 has no elicitation"), f.output())
}
