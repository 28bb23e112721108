package main

//lint:file-ignore SA1019 sampling, roots and logging are deprecated as of 2026-07-28 (SEP-2577) but still served, and the kit tests them at every version

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/client/transport"
	"github.com/mcptestkit/mcptestkit/internal/cassette"
	"github.com/mcptestkit/mcptestkit/mcptest"
	cassetteserver "github.com/mcptestkit/mcptestkit/mcptest/cassette"
)

// Secrets the HTTP session carries, one in each place: the client's
// Authorization header, a tool's argument, and the tool's result.
const (
	headerSecret = "hdr-secret-0123456789abcdef"
	argSecret    = "arg-secret-0123456789abcdef"
	resultSecret = "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB" // a GitHub token's form: redacted by pattern
)

// echoServer is a go-sdk server whose echo tool answers with its text
// argument, whose key tool answers with resultSecret, and whose big tool
// answers with 10 MB of text.
func echoServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "echo", Version: "v1"}, nil)
	type echoIn struct {
		Text   string `json:"text"`
		APIKey string `json:"api_key,omitempty"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "key"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "your key: " + resultSecret}}}, nil, nil
	})
	big := strings.Repeat("0123456789abcdef", 10<<20/16)
	mcp.AddTool(s, &mcp.Tool{Name: "big"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: big}}}, nil, nil
	})
	return s
}

// The HTTP proxy in both eras (a stateful session at 2025-11-25, SSE
// replies and a session id; stateless at 2026-07-28): the client sees the
// same messages through it as without it, a 10 MB result among them; the
// secrets in the header, the argument and the result never reach the file;
// and the cassette plays the session back.
func TestHTTPProxyTransparency(t *testing.T) {
	for _, tc := range []struct {
		name, version string
		opts          *mcp.StreamableHTTPOptions
	}{
		{"stateful-2025-11-25", client.Version20251125, nil},
		{"stateless-2026-07-28", client.Version20260728, &mcp.StreamableHTTPOptions{Stateless: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			target := serveSDK(t, echoServer(), tc.opts)
			path := filepath.Join(t.TempDir(), "http.cassette")
			cmd, proxyURL := startHTTPProxy(t, path, target.URL)

			session := func(u string) *rawTap {
				tr := &rawTap{Transport: transport.HTTP(u, transport.WithHeader("Authorization", "Bearer "+headerSecret))}
				c, err := client.Connect(t.Context(), tr, &client.Options{ProtocolVersion: tc.version})
				require.NoError(t, err)
				defer c.Close()
				_, err = c.ListTools(t.Context(), "")
				require.NoError(t, err)
				res, err := c.CallTool(t.Context(), "echo", map[string]any{"text": "hello", "api_key": argSecret})
				require.NoError(t, err)
				assert.Equal(t, "hello", res.Text())
				res, err = c.CallTool(t.Context(), "key", nil)
				require.NoError(t, err)
				assert.Contains(t, res.Text(), resultSecret)
				res, err = c.CallTool(t.Context(), "big", nil)
				require.NoError(t, err)
				assert.Len(t, res.Text(), 10<<20)
				return tr
			}
			direct := session(target.URL)
			proxied := session(proxyURL)
			require.Equal(t, len(direct.got), len(proxied.got))
			for i := range direct.got {
				// No assert.Equal: its diff of two 10 MB strings would drown the test.
				if direct.got[i] != proxied.got[i] {
					t.Errorf("message %d differs through the proxy:\ndirect:  %.300s\nproxied: %.300s", i, direct.got[i], proxied.got[i])
				}
			}

			require.NoError(t, cmd.Process.Signal(os.Interrupt))
			require.NoError(t, cmd.Wait())
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			for _, secret := range []string{headerSecret, argSecret, resultSecret} {
				assert.NotContains(t, string(data), secret)
			}
			c, err := cassette.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, len(proxied.got), fromServer(c), "every message the server sent is recorded")
			assert.Equal(t, tc.version, c.Header.ProtocolVersion)

			played := mcptest.Connect(t, cassetteserver.Server(t, path), mcptest.WithProtocolVersion(tc.version))
			res, err := played.CallTool(t.Context(), "echo", map[string]any{"text": "hello", "api_key": argSecret})
			require.NoError(t, err, "the argument's secret is redacted as recorded, and matches")
			assert.Equal(t, "hello", res.Text())
			res, err = played.CallTool(t.Context(), "big", nil)
			require.NoError(t, err)
			assert.Len(t, res.Text(), 10<<20, "the cassette holds the 10 MB result whole")
		})
	}
}

// serveSDK serves s over streamable HTTP on 127.0.0.1 until the test ends.
func serveSDK(t testing.TB, s *mcp.Server, opts *mcp.StreamableHTTPOptions) *httptest.Server {
	target := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, opts))
	t.Cleanup(func() {
		target.Close()
		for ss := range s.Sessions() {
			ss.Close()
		}
	})
	return target
}

// startHTTPProxy starts `mcptestkit record -o path --listen 127.0.0.1:0
// target` and returns it (killed when the test ends, unless stopped
// before) and the URL it listens at.
func startHTTPProxy(t testing.TB, path, target string) (*exec.Cmd, string) {
	bin, err := binary()
	require.NoError(t, err)
	cmd := exec.Command(bin, "record", "-o", path, "--listen", "127.0.0.1:0", target)
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd, announcedURL(t, stderr)
}

// A session in which the server asks the client to sample (a request of
// the server's, answered by the client, before the tool's result):
// recorded through the HTTP proxy from a go-sdk server, then played to a
// client in go test, over stdio and over HTTP. Each time the client is
// asked, answers, and then gets the recorded result.
func TestServerRequestsRecordedAndPlayed(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "sampler", Version: "v1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "summarize"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		res, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 20,
			Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "summarize Dune"}}}})
		if err != nil {
			return nil, nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "summary: " + res.Content.(*mcp.TextContent).Text}}}, nil, nil
	})
	target := serveSDK(t, s, nil)
	path := filepath.Join(t.TempDir(), "sampling.cassette")
	cmd, proxyURL := startHTTPProxy(t, path, target.URL)

	// session calls summarize with a client whose sampling answers reply,
	// and returns the result and what the client was asked.
	session := func(t *testing.T, tr client.Transport, reply string) (string, []string) {
		var asked []string
		c, err := client.Connect(t.Context(), tr, &client.Options{ProtocolVersion: client.Version20251125,
			CreateMessage: func(_ context.Context, req *client.CreateMessageRequest) (*client.CreateMessageResult, error) {
				asked = append(asked, req.Messages[0].Content[0].(*client.TextContent).Text)
				return &client.CreateMessageResult{Role: "assistant", Model: "m", Content: []client.Content{&client.TextContent{Text: reply}}}, nil
			}})
		require.NoError(t, err)
		defer c.Close()
		res, err := c.CallTool(t.Context(), "summarize", nil)
		require.NoError(t, err)
		return res.Text(), asked
	}
	text, asked := session(t, transport.HTTP(proxyURL), "a desert planet")
	assert.Equal(t, "summary: a desert planet", text)
	assert.Equal(t, []string{"summarize Dune"}, asked)
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	require.NoError(t, cmd.Wait())
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Contains(t, string(data), `"method":"sampling/createMessage"`)

	t.Run("go test", func(t *testing.T) {
		var asked []string
		c := mcptest.Connect(t, cassetteserver.Server(t, path), mcptest.WithProtocolVersion(client.Version20251125),
			mcptest.WithClient(client.Options{CreateMessage: func(_ context.Context, req *client.CreateMessageRequest) (*client.CreateMessageResult, error) {
				asked = append(asked, req.Messages[0].Content[0].(*client.TextContent).Text)
				return &client.CreateMessageResult{Role: "assistant", Model: "m", Content: []client.Content{&client.TextContent{Text: "anything"}}}, nil
			}}))
		res, err := c.CallTool(t.Context(), "summarize", nil)
		require.NoError(t, err)
		assert.Equal(t, "summary: a desert planet", res.Text(), "the recorded result")
		assert.Equal(t, []string{"summarize Dune"}, asked, "the recorded server's question, asked again")
	})
	bin, err := binary()
	require.NoError(t, err)
	t.Run("serve stdio", func(t *testing.T) {
		tr, err := transport.Command(exec.Command(bin, "serve", path))
		require.NoError(t, err)
		text, asked := session(t, tr, "anything")
		assert.Equal(t, "summary: a desert planet", text)
		assert.Equal(t, []string{"summarize Dune"}, asked)
	})
	t.Run("serve http", func(t *testing.T) {
		cmd := exec.Command(bin, "serve", "--listen", "127.0.0.1:0", path)
		stderr, err := cmd.StderrPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		text, asked := session(t, transport.HTTP(announcedURL(t, stderr)), "anything")
		assert.Equal(t, "summary: a desert planet", text)
		assert.Equal(t, []string{"summarize Dune"}, asked)
	})
}

// The proxies' throughput: a 10 MB tools/call result, directly and through
// each proxy, side by side (MB/s is the result's size over the round trip).
func BenchmarkProxyThroughput(b *testing.B) {
	bin, err := binary()
	require.NoError(b, err)
	self := hostileServer(b)
	target := serveSDK(b, echoServer(), nil)
	_, proxyURL := startHTTPProxy(b, filepath.Join(b.TempDir(), "bench-http.cassette"), target.URL)
	stdio := func(argv ...string) func() client.Transport {
		return func() client.Transport {
			cmd := exec.Command(argv[0], argv[1:]...)
			cmd.Env = append(os.Environ(), hostileEnv+"=big")
			tr, err := transport.Command(cmd)
			require.NoError(b, err)
			return tr
		}
	}
	for _, bc := range []struct {
		name string
		dial func() client.Transport
		tool string
	}{
		{"stdio/direct", stdio(self), "t1"},
		{"stdio/proxied", stdio(bin, "record", "-o", filepath.Join(b.TempDir(), "bench-stdio.cassette"), "--", self), "t1"},
		{"http/direct", func() client.Transport { return transport.HTTP(target.URL) }, "big"},
		{"http/proxied", func() client.Transport { return transport.HTTP(proxyURL) }, "big"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			c, err := client.Connect(context.Background(), bc.dial(), &client.Options{ProtocolVersion: client.Version20251125})
			require.NoError(b, err)
			defer c.Close()
			b.SetBytes(10 << 20)
			for b.Loop() {
				if _, err := c.CallTool(context.Background(), bc.tool, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
