package bookshop_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/examples/bookshop"
	"github.com/mcptestkit/mcptestkit/gosdk/gosdktest"
	"github.com/mcptestkit/mcptestkit/logcapture"
	"github.com/mcptestkit/mcptestkit/mcptest"
	"github.com/mcptestkit/mcptestkit/mcptest/cassette"
)

// testdata/session.cassette is a client's session with the Bookshop served
// over stdio (cmd/mcptestkit/testdata/stdioserver), recorded through the
// proxy: the client launched
//
//	mcptestkit record -o testdata/session.cassette -- stdioserver
//
// in place of the server, and listed the tools, called them, read a
// resource and got a prompt. The api_key it sent is a placeholder in the
// file.
//
// testdata/inspector-stdio.cassette and inspector-http.cassette are the MCP
// Inspector's command line (npx @modelcontextprotocol/inspector --cli)
// calling get_author, recorded through the stdio proxy (the Inspector's
// config launches `mcptestkit record -o ... -- stdioserver`) and through the
// HTTP proxy (`mcptestkit record -o ... --listen 127.0.0.1:0 URL`, the
// Inspector pointed at it with a bearer token the file does not hold).
// cmd/mcptestkit's TestInspectorRecordsThroughTheProxies records them again
// and fails if they differ from these.

// Replayed against the server, in process: every answer is still the one
// recorded. A change in the server's answers fails here, with a diff.
func TestSessionReplaysAgainstTheServer(t *testing.T) {
	t.Parallel()
	c := mcptest.Connect(t, gosdktest.Server(bookshop.New(logcapture.New(t).Logger())),
		mcptest.WithProtocolVersion(client.Version20251125))
	cassette.Replay(t, c, "testdata/session.cassette")
}

// Played as the server, for a client's or an agent's test: the recorded
// Bookshop answers what the recorded client asked.
func TestSessionPlaysTheServer(t *testing.T) {
	t.Parallel()
	c := mcptest.Connect(t, cassette.Server(t, "testdata/session.cassette"))
	res, err := c.CallTool(t.Context(), "get_author", map[string]any{"title": "Dune"})
	require.NoError(t, err)
	mcptest.Assert(t).Text(res, "Frank Herbert")
	res, err = c.CallTool(t.Context(), "get_author", map[string]any{"title": "Nothing"})
	require.NoError(t, err)
	mcptest.Assert(t).ToolError(res, "No book titled")
	p, err := c.GetPrompt(t.Context(), "recommend", map[string]string{"title": "Dune"})
	require.NoError(t, err)
	require.NotEmpty(t, p.Messages)
}

// The Inspector's sessions, replayed both ways.
func TestInspectorSessions(t *testing.T) {
	t.Parallel()
	for _, path := range []string{"testdata/inspector-stdio.cassette", "testdata/inspector-http.cassette"} {
		t.Run(path, func(t *testing.T) {
			t.Parallel()
			c := mcptest.Connect(t, gosdktest.Server(bookshop.New(logcapture.New(t).Logger())),
				mcptest.WithProtocolVersion(client.Version20251125))
			cassette.Replay(t, c, path)

			played := mcptest.Connect(t, cassette.Server(t, path, cassette.Once()))
			res, err := played.CallTool(t.Context(), "get_author", map[string]any{"title": "Dune"})
			require.NoError(t, err)
			mcptest.Assert(t).Text(res, "Frank Herbert")
		})
	}
}
