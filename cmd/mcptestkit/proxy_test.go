package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/client/transport"
	"github.com/mcptestkit/mcptestkit/examples/bookshop"
	"github.com/mcptestkit/mcptestkit/gosdk/gosdktest"
	"github.com/mcptestkit/mcptestkit/internal/cassette"
	"github.com/mcptestkit/mcptestkit/internal/faketb"
	"github.com/mcptestkit/mcptestkit/mcptest"
	cassetteserver "github.com/mcptestkit/mcptestkit/mcptest/cassette"
)

// rawTap keeps every message a client receives, as it came.
type rawTap struct {
	client.Transport
	mu  sync.Mutex
	got []string
}

func (t *rawTap) Receive(ctx context.Context) ([]byte, error) {
	msg, err := t.Transport.Receive(ctx)
	if err == nil {
		t.mu.Lock()
		t.got = append(t.got, string(msg))
		t.mu.Unlock()
	}
	return msg, err
}

func (t *rawTap) Unwrap() client.Transport { return t.Transport }

// clientSession is what this repository's client does as the "real client": list
// the tools, call one with a secret in an argument, read a resource.
func clientSession(t *testing.T, version string, command ...string) (*rawTap, string) {
	t.Helper()
	inner, err := transport.Command(exec.Command(command[0], command[1:]...))
	require.NoError(t, err)
	tr := &rawTap{Transport: inner}
	c, err := client.Connect(t.Context(), tr, &client.Options{ProtocolVersion: version})
	require.NoError(t, err)
	defer c.Close()
	_, err = c.ListTools(t.Context(), "")
	require.NoError(t, err)
	res, err := c.CallTool(t.Context(), "get_author", map[string]any{"title": "Bearer abcdefghijklmnopqrstuvwxyz"})
	require.NoError(t, err)
	_, err = c.ReadResource(t.Context(), "books://Dune")
	require.NoError(t, err)
	return tr, res.Text()
}

// A client that launches `mcptestkit record -o X.cassette -- SERVER` instead
// of the server sees the same bytes as one that launches the server; the
// cassette holds the session without the secret, and plays the server's
// side back to the same calls.
func TestRecordCassetteThroughStdioProxy(t *testing.T) {
	bin, err := binary()
	require.NoError(t, err)
	srv, err := stdioServer()
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "bookshop.cassette")

	direct, directText := clientSession(t, client.Version20251125, srv)
	proxied, proxiedText := clientSession(t, client.Version20251125, bin, "record", "-o", path, "--", srv)
	assert.Equal(t, direct.got, proxied.got, "the proxy changed what the client received")
	assert.Equal(t, directText, proxiedText)
	assert.Contains(t, proxiedText, "abcdefghijklmnopqrstuvwxyz", "the client itself sees the secret")

	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.NotContains(t, string(data), "abcdefghijklmnopqrstuvwxyz", "the secret reached the file")
	c, err := cassette.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "Bookshop", c.Header.Server.Name)
	assert.Equal(t, "2025-11-25", c.Header.ProtocolVersion)
	assert.Equal(t, len(proxied.got), fromServer(c), "every message the server sent is recorded")

	// Played back: the same calls get the recorded answers, the secret's
	// placeholder where the secret was.
	cl := mcptest.Connect(t, cassetteserver.Server(t, path), mcptest.WithProtocolVersion(client.Version20251125))
	res, err := cl.CallTool(t.Context(), "get_author", map[string]any{"title": "Bearer abcdefghijklmnopqrstuvwxyz"})
	require.NoError(t, err)
	assert.Equal(t, strings.ReplaceAll(directText, "abcdefghijklmnopqrstuvwxyz", cassette.Placeholder), res.Text())
	r, err := cl.ReadResource(t.Context(), "books://Dune")
	require.NoError(t, err)
	assert.NotEmpty(t, r.Contents)

	// Replayed against the server: the same answers.
	cassetteserver.Replay(t, mcptest.Connect(t, mcptest.Command(exec.Command(srv)), mcptest.WithProtocolVersion(client.Version20251125)), path)
	// Against a changed one (an unknown title is a JSON-RPC error there,
	// not an isError result): the diff.
	tb := faketb.Run(t, func(tb testing.TB) {
		changed := bookshop.NewStrict(slog.New(slog.DiscardHandler))
		cassetteserver.Replay(tb, mcptest.Connect(tb, gosdktest.Server(changed), mcptest.WithProtocolVersion(client.Version20251125)), path)
	})
	assert.Contains(t, tb.Text(), "the answer to tools/call")
	assert.Contains(t, tb.Text(), "--- recorded")
}

// The HTTP proxy: a client pointed at it sees what it sees pointed at the
// server, and the cassette has the session without the secret.
func TestRecordCassetteThroughHTTPProxy(t *testing.T) {
	target := serveSDK(t, bookshop.New(slog.New(slog.DiscardHandler)), nil)
	path := filepath.Join(t.TempDir(), "http.cassette")
	cmd, proxyURL := startHTTPProxy(t, path, target.URL)

	httpSession := func(u string) (*rawTap, string) {
		tr := &rawTap{Transport: transport.HTTP(u)}
		c, err := client.Connect(t.Context(), tr, &client.Options{ProtocolVersion: client.Version20251125})
		require.NoError(t, err)
		defer c.Close()
		_, err = c.ListTools(t.Context(), "")
		require.NoError(t, err)
		res, err := c.CallTool(t.Context(), "get_author", map[string]any{"title": "Bearer abcdefghijklmnopqrstuvwxyz"})
		require.NoError(t, err)
		return tr, res.Text()
	}
	direct, directText := httpSession(target.URL)
	proxied, proxiedText := httpSession(proxyURL)
	assert.Equal(t, direct.got, proxied.got, "the proxy changed what the client received")
	assert.Equal(t, directText, proxiedText)

	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	require.NoError(t, cmd.Wait())
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.NotContains(t, string(data), "abcdefghijklmnopqrstuvwxyz")
	c, err := cassette.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "http", c.Header.Transport)
	assert.Equal(t, "Bookshop", c.Header.Server.Name)
	assert.Equal(t, len(proxied.got), fromServer(c), "every message the server sent is recorded")
	// And it plays back.
	cl := mcptest.Connect(t, cassetteserver.Server(t, path), mcptest.WithProtocolVersion(client.Version20251125))
	_, err = cl.CallTool(t.Context(), "get_author", map[string]any{"title": "Bearer abcdefghijklmnopqrstuvwxyz"})
	require.NoError(t, err)
}

// The stdio proxy's cost: a tools/call round trip to the Bookshop's stdio
// server, directly and through `mcptestkit record -o X.cassette --`, side
// by side.
func BenchmarkStdioProxy(b *testing.B) {
	bin, err := binary()
	require.NoError(b, err)
	srv, err := stdioServer()
	require.NoError(b, err)
	for _, bc := range []struct {
		name string
		argv []string
	}{
		{"direct", []string{srv}},
		{"proxied", []string{bin, "record", "-o", filepath.Join(b.TempDir(), "bench.cassette"), "--", srv}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			tr, err := transport.Command(exec.Command(bc.argv[0], bc.argv[1:]...))
			require.NoError(b, err)
			c, err := client.Connect(context.Background(), tr, &client.Options{ProtocolVersion: client.Version20251125})
			require.NoError(b, err)
			defer c.Close()
			args := map[string]any{"title": "Dune"}
			b.ResetTimer()
			for b.Loop() {
				if _, err := c.CallTool(context.Background(), "get_author", args); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// serve plays a cassette to a client over stdio and over HTTP; a request
// with no recording is an error for the client that names the closest
// recorded request, as cassette.Server does (the client's log may be all a
// person sees), and exit status 1.
func TestServeCassette(t *testing.T) {
	bin, err := binary()
	require.NoError(t, err)
	path, err := filepath.Abs("../../examples/bookshop/testdata/session.cassette")
	require.NoError(t, err)
	call := func(tr client.Transport) (string, error) {
		c, err := client.Connect(t.Context(), tr, &client.Options{ProtocolVersion: client.Version20251125})
		require.NoError(t, err)
		defer c.Close()
		res, err := c.CallTool(t.Context(), "get_author", map[string]any{"title": "Dune"})
		require.NoError(t, err)
		_, err = c.CallTool(t.Context(), "get_author", map[string]any{"title": "Emma"})
		return res.Text(), err
	}

	var stderr strings.Builder
	cmd := exec.Command(bin, "serve", path)
	cmd.Stderr = &stderr
	tr, err := transport.Command(cmd)
	require.NoError(t, err)
	text, err := call(tr)
	assert.Equal(t, "Frank Herbert", text)
	assert.ErrorContains(t, err, "no recorded answer for tools/call")
	closest := `the closest recorded request: tools/call {"arguments":{"title":"Dune"},"name":"get_author"}`
	assert.ErrorContains(t, err, closest)
	require.NotNil(t, cmd.ProcessState, "the transport waits for the process when the client closes")
	assert.Equal(t, exitFail, cmd.ProcessState.ExitCode())
	assert.Contains(t, stderr.String(), `the closest recorded request: tools/call {"arguments":{"title":"Dune"},"name":"get_author"}`)

	hcmd := exec.Command(bin, "serve", "--listen", "127.0.0.1:0", path)
	out, err := hcmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, hcmd.Start())
	t.Cleanup(func() { _ = hcmd.Process.Kill(); _ = hcmd.Wait() })
	u := announcedURL(t, out)
	text, err = call(transport.HTTP(u))
	assert.Equal(t, "Frank Herbert", text)
	assert.ErrorContains(t, err, "no recorded answer for tools/call")
	assert.ErrorContains(t, err, closest)
}

// fromServer counts the cassette's messages from the server.
func fromServer(c *cassette.Cassette) int {
	n := 0
	for _, f := range c.Frames {
		if f.Dir == cassette.ServerToClient {
			n++
		}
	}
	return n
}

// announcedURL reads the URL a listening record or serve names on its
// first line of stderr ("... at URL; stop with Ctrl-C").
func announcedURL(t testing.TB, stderr io.Reader) string {
	t.Helper()
	line, err := bufio.NewReader(stderr).ReadString('\n')
	require.NoError(t, err)
	_, after, ok := strings.Cut(line, " at ")
	require.True(t, ok, "%q", line)
	u, _, _ := strings.Cut(after, ";")
	return u
}

// A 10 MB result passes the stdio proxy whole and lands in the cassette.
func TestStdioProxyBigResult(t *testing.T) {
	bin, err := binary()
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "big.cassette")
	cmd := exec.Command(bin, "record", "-o", path, "--", hostileServer(t))
	cmd.Env = append(os.Environ(), hostileEnv+"=big")
	// The proxy redacts and writes 10 MB after the client closes: on a
	// busy machine that outlasts Close's default grace, which would kill
	// it. Here the grace is a hang guard, not a timing.
	tr, err := transport.Command(cmd, transport.WithGracePeriod(runTimeout))
	require.NoError(t, err)
	c, err := client.Connect(t.Context(), tr, &client.Options{ProtocolVersion: client.Version20251125})
	require.NoError(t, err)
	res, err := c.CallTool(t.Context(), "t1", nil)
	require.NoError(t, err)
	require.NoError(t, c.Close())
	require.Equal(t, 0, cmd.ProcessState.ExitCode(), "the proxy ended on its own: %v", cmd.ProcessState)
	assert.GreaterOrEqual(t, len(res.Text()), 10<<20)
	cas, err := cassette.ReadFile(path)
	require.NoError(t, err)
	var got string
	for _, f := range cas.Frames {
		if f.Dir == cassette.ServerToClient && strings.Contains(string(f.Msg[:min(len(f.Msg), 200)]), `"content"`) {
			var m struct {
				Result struct {
					Content []struct {
						Text string `json:"text"`
					} `json:"content"`
				} `json:"result"`
			}
			require.NoError(t, json.Unmarshal(f.Msg, &m))
			got = m.Result.Content[0].Text
		}
	}
	assert.Equal(t, res.Text(), got, "the cassette holds the 10 MB result whole")
}

// At 2026-07-28 (the client pins no version; the server speaks it) the
// proxy is as transparent.
func TestStdioProxyModernEra(t *testing.T) {
	bin, err := binary()
	require.NoError(t, err)
	srv, err := stdioServer()
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "modern.cassette")
	direct, _ := clientSession(t, "", srv)
	proxied, _ := clientSession(t, "", bin, "record", "-o", path, "--", srv)
	assert.Equal(t, direct.got, proxied.got)
	c, err := cassette.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, len(proxied.got), fromServer(c))
	assert.Contains(t, string(c.Frames[0].Msg), `"method":"server/discover"`)
	assert.Equal(t, "2026-07-28", c.Header.ProtocolVersion)
	assert.Equal(t, "Bookshop", c.Header.Server.Name)
	// Played back to a 2026-07-28 client, and replayed against the server.
	played := mcptest.Connect(t, cassetteserver.Server(t, path))
	require.True(t, played.IsModern())
	res, err := played.CallTool(t.Context(), "get_author", map[string]any{"title": "Bearer abcdefghijklmnopqrstuvwxyz"})
	require.NoError(t, err)
	assert.Contains(t, res.Text(), "No book titled")
	cassetteserver.Replay(t, mcptest.Connect(t, mcptest.Command(exec.Command(srv))), path)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.NotContains(t, string(data), "abcdefghijklmnopqrstuvwxyz")
}

// The HTTP proxy's cost: a tools/call round trip to the Bookshop over
// streamable HTTP, directly and through `mcptestkit record --listen`, side
// by side.
func BenchmarkHTTPProxy(b *testing.B) {
	target := serveSDK(b, bookshop.New(slog.New(slog.DiscardHandler)), nil)
	_, proxyURL := startHTTPProxy(b, filepath.Join(b.TempDir(), "bench.cassette"), target.URL)
	for _, bc := range []struct{ name, url string }{{"direct", target.URL}, {"proxied", proxyURL}} {
		b.Run(bc.name, func(b *testing.B) {
			c, err := client.Connect(context.Background(), transport.HTTP(bc.url), &client.Options{ProtocolVersion: client.Version20251125})
			require.NoError(b, err)
			defer c.Close()
			args := map[string]any{"title": "Dune"}
			b.ResetTimer()
			for b.Loop() {
				if _, err := c.CallTool(context.Background(), "get_author", args); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// --redact-name and --redact add to what is redacted; the cassette's
// header keeps them, so that playing it back redacts live requests the same
// way and they match. The summary line says what was redacted.
func TestRecordRedactionFlags(t *testing.T) {
	bin, err := binary()
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "redacted.cassette")
	var stderr strings.Builder
	cmd := exec.Command(bin, "record", "-o", path, "--redact-name", "TITLE", "--redact", `Frank\s+Herbert`, "--", serverBinary(t))
	cmd.Stderr = &stderr
	tr, err := transport.Command(cmd)
	require.NoError(t, err)
	c, err := client.Connect(t.Context(), tr, &client.Options{ProtocolVersion: client.Version20251125})
	require.NoError(t, err)
	res, err := c.CallTool(t.Context(), "get_author", map[string]any{"title": "Dune"})
	require.NoError(t, err)
	require.NoError(t, c.Close())
	assert.Equal(t, "Frank Herbert", res.Text(), "the client sees what the server sent")

	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.NotContains(t, string(data), `"Dune"`)
	assert.NotContains(t, string(data), "Frank Herbert")
	assert.Contains(t, string(data), `"redact":{"names":["TITLE"],"withheld":1}`, "the names kept, the pattern (it may be the secret) not")
	assert.NotContains(t, string(data), `Frank\\s+Herbert`)
	assert.Contains(t, stderr.String(), "by member name")
	assert.Contains(t, stderr.String(), `by --redact pattern #1`)
	assert.NotContains(t, stderr.String(), "Frank")
	played := mcptest.Connect(t, cassetteserver.Server(t, path), mcptest.WithProtocolVersion(client.Version20251125))
	res, err = played.CallTool(t.Context(), "get_author", map[string]any{"title": "Dune"})
	require.NoError(t, err, "the live title is redacted as the recorded one was, and matches")
	assert.Equal(t, cassette.Placeholder, res.Text())

	r := mcptestkit(t, nil, "record", "-o", path, "--redact", "a*", "--", serverBinary(t))
	assert.Equal(t, exitUsage, r.code, r)
	assert.Contains(t, r.stderr, `redaction pattern #1 matches the empty string`)
}

// serve --once plays each answer once; --ignore-param matches requests
// without the named member.
func TestServeCassetteOptions(t *testing.T) {
	bin, err := binary()
	require.NoError(t, err)
	path, err := filepath.Abs("../../examples/bookshop/testdata/session.cassette")
	require.NoError(t, err)
	serve := func(args ...string) (*client.Client, *exec.Cmd, *strings.Builder) {
		var stderr strings.Builder
		cmd := exec.Command(bin, append(append([]string{"serve"}, args...), path)...)
		cmd.Stderr = &stderr
		tr, err := transport.Command(cmd)
		require.NoError(t, err)
		c, err := client.Connect(t.Context(), tr, &client.Options{ProtocolVersion: client.Version20251125})
		require.NoError(t, err)
		return c, cmd, &stderr
	}
	c, cmd, stderr := serve("--once")
	res, err := c.CallTool(t.Context(), "get_author", map[string]any{"title": "Dune"})
	require.NoError(t, err)
	assert.Equal(t, "Frank Herbert", res.Text())
	_, err = c.CallTool(t.Context(), "get_author", map[string]any{"title": "Dune"})
	assert.ErrorContains(t, err, "no recorded answer")
	require.NoError(t, c.Close())
	assert.Equal(t, exitFail, cmd.ProcessState.ExitCode())
	assert.Contains(t, stderr.String(), "recorded 1 time(s), and each answer is played once")

	c, _, _ = serve("--ignore-param", "title")
	res, err = c.CallTool(t.Context(), "get_author", map[string]any{"title": "Emma"})
	require.NoError(t, err)
	assert.Equal(t, "Frank Herbert", res.Text(), "the first recorded get_author's answer")
	require.NoError(t, c.Close())
}

// replay FILE.cassette sends a cassette's recorded requests to a server:
// exit 0 when every answer is the recorded one; a diff and exit 1 when one
// differs.
func TestReplayCassetteCommand(t *testing.T) {
	path := "../../examples/bookshop/testdata/session.cassette"
	r := mcptestkit(t, nil, "replay", path, "--", serverBinary(t))
	assert.Equal(t, exitOK, r.code, r)
	assert.Contains(t, r.stdout, "the server answers as recorded (6 request(s))")

	data, err := os.ReadFile(path)
	require.NoError(t, err)
	edited := filepath.Join(t.TempDir(), "edited.cassette")
	require.NoError(t, os.WriteFile(edited, []byte(strings.Replace(string(data), `"text":"Frank Herbert"`, `"text":"F. Herbert"`, 1)), 0o644))
	r = mcptestkit(t, nil, "replay", edited, "--", serverBinary(t))
	assert.Equal(t, exitFail, r.code, r)
	assert.Contains(t, r.stdout, `the answer to tools/call {"arguments":{"title":"Dune"},"name":"get_author"} differs from the recording:`)
	assert.Contains(t, r.stdout, `-        "text": "F. Herbert",`)
	assert.Contains(t, r.stdout, `+        "text": "Frank Herbert",`)
	assert.Contains(t, r.stdout, "1 of 6 answer(s) differ")
}

// When the server dies, the stdio proxy ends as it would: the client sees
// the process exit with the server's status, and the cassette holds the
// session up to the crash.
func TestStdioProxyServerDies(t *testing.T) {
	bin, err := binary()
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "crash.cassette")
	cmd := exec.Command(bin, "record", "-o", path, "--", serverBinary(t))
	cmd.Env = append(os.Environ(), "STDIOSERVER_BROKEN=1")
	tr, err := transport.Command(cmd)
	require.NoError(t, err)
	c, err := client.Connect(t.Context(), tr, &client.Options{ProtocolVersion: client.Version20251125})
	require.NoError(t, err)
	_, err = c.CallTool(t.Context(), "explode", map[string]any{"fuse": "short"})
	require.ErrorIs(t, err, transport.ErrProcessExited)
	c.Close()
	require.NotNil(t, cmd.ProcessState)
	assert.Equal(t, 2, cmd.ProcessState.ExitCode(), "the server's exit status (a Go panic's), passed on")
	cas, err := cassette.ReadFile(path)
	require.NoError(t, err)
	last := cas.Frames[len(cas.Frames)-1]
	assert.Equal(t, cassette.ClientToServer, last.Dir)
	assert.Contains(t, string(last.Msg), `"name":"explode"`, "the call that crashed it is the last message")
}

// replay --update writes the server's answers into the cassette; it then
// replays clean.
func TestReplayCassetteUpdate(t *testing.T) {
	data, err := os.ReadFile("../../examples/bookshop/testdata/session.cassette")
	require.NoError(t, err)
	edited := filepath.Join(t.TempDir(), "edited.cassette")
	require.NoError(t, os.WriteFile(edited, []byte(strings.Replace(string(data), `"text":"Frank Herbert"`, `"text":"F. Herbert"`, 1)), 0o644))
	r := mcptestkit(t, nil, "replay", "--update", edited, "--", serverBinary(t))
	assert.Equal(t, exitOK, r.code, r)
	assert.Contains(t, r.stdout, "re-recorded 6 answer(s)")
	r = mcptestkit(t, nil, "replay", edited, "--", serverBinary(t))
	assert.Equal(t, exitOK, r.code, r)
	updated, err := os.ReadFile(edited)
	require.NoError(t, err)
	assert.Contains(t, string(updated), `"text":"Frank Herbert"`)
	assert.Contains(t, string(updated), `"api_key":"[redacted]"`, "the requests, placeholders and all, stay")
}
