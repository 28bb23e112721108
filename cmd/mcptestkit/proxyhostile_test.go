package main

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/client/transport"
	"github.com/mcptestkit/mcptestkit/internal/cassette"
	"github.com/mcptestkit/mcptestkit/mcptest"
	cassetteserver "github.com/mcptestkit/mcptestkit/mcptest/cassette"
)

// compress encodes b as a server would for Content-Encoding encoding.
func compress(t testing.TB, encoding string, b []byte) []byte {
	var out bytes.Buffer
	var w io.WriteCloser
	switch encoding {
	case "":
		return b
	case "gzip":
		w = gzip.NewWriter(&out)
	case "deflate":
		w = zlib.NewWriter(&out)
	case "br":
		w = brotli.NewWriter(&out)
	case "zstd":
		zw, err := zstd.NewWriter(&out)
		require.NoError(t, err)
		w = zw
	}
	_, err := w.Write(b)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	return out.Bytes()
}

// encodingServer answers initialize and tools/call with JSON or an SSE
// stream, compressed with encoding and labelled contentType.
func encodingServer(t testing.TB, encoding, contentType string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.Unmarshal(body, &m)
		if len(m.ID) == 0 {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		result := `{"content":[{"type":"text","text":"hello"}]}`
		if m.Method == "initialize" {
			result = `{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"encoded","version":"v1"}}`
		}
		payload := []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, result))
		if strings.Contains(strings.ToLower(contentType), "event-stream") {
			payload = []byte("event: message\ndata: " + string(payload) + "\n\n")
		}
		w.Header().Set("Content-Type", contentType)
		if encoding != "" {
			w.Header().Set("Content-Encoding", encoding)
		}
		w.Write(compress(t, encoding, payload))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// What a client that asks for compression (Node's fetch: gzip, deflate,
// br, zstd) gets from the proxy is the server's bytes, whatever the
// encoding and however the Content-Type is written; the cassette holds the
// messages they encode.
func TestHTTPProxyRecordsEncodedBodies(t *testing.T) {
	for _, tc := range []struct{ encoding, contentType string }{
		{"gzip", "application/json"},
		{"", "Application/JSON; charset=utf-8"},
		{"br", "APPLICATION/JSON"},
		{"deflate", "text/event-stream; charset=utf-8"},
		{"zstd", "Text/Event-Stream"},
		{"gzip", "text/event-stream"},
	} {
		t.Run(tc.encoding+" "+tc.contentType, func(t *testing.T) {
			target := encodingServer(t, tc.encoding, tc.contentType)
			path := filepath.Join(t.TempDir(), "encoded.cassette")
			cmd, proxyURL := startHTTPProxy(t, path, target.URL)
			hc := &http.Client{Transport: &http.Transport{DisableCompression: true}}
			t.Cleanup(hc.CloseIdleConnections)
			post := func(u, body string) (string, string) {
				req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, u, strings.NewReader(body))
				require.NoError(t, err)
				req.Header.Set("Accept-Encoding", "gzip, deflate, br, zstd")
				req.Header.Set("Accept", "application/json, text/event-stream")
				req.Header.Set("Content-Type", "application/json")
				resp, err := hc.Do(req)
				require.NoError(t, err)
				defer resp.Body.Close()
				raw, err := io.ReadAll(resp.Body)
				require.NoError(t, err)
				return resp.Header.Get("Content-Encoding"), string(raw)
			}
			for _, body := range []string{
				`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"node","version":"1"}}}`,
				`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"greet","arguments":{}}}`,
			} {
				directEnc, direct := post(target.URL, body)
				proxiedEnc, proxied := post(proxyURL, body)
				assert.Equal(t, directEnc, proxiedEnc)
				assert.Equal(t, direct, proxied, "the client gets the server's bytes")
			}
			require.NoError(t, cmd.Process.Signal(os.Interrupt))
			require.NoError(t, cmd.Wait())
			c, err := cassette.ReadFile(path)
			require.NoError(t, err)
			require.Len(t, c.Frames, 4, "two requests and two answers")
			assert.Equal(t, "encoded", c.Header.Server.Name)
			assert.JSONEq(t, `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"hello"}]}}`, string(c.Frames[3].Msg))
		})
	}
}

// Two clients recording through one HTTP proxy at once, their tools/call
// requests open together under the same id: each answer is recorded with
// its own session, and played back each connection gets its own session's
// answers, in go test and from serve --listen.
func TestHTTPProxyConcurrentSessions(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "who", Version: "v1"}, nil)
	var mu sync.Mutex
	arrived, both := 0, make(chan struct{})
	mcp.AddTool(s, &mcp.Tool{Name: "whoami"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		mu.Lock()
		if arrived++; arrived == 2 {
			close(both) // both requests are open: answer them
		}
		mu.Unlock()
		select {
		case <-both:
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
		name := req.Session.InitializeParams().ClientInfo.Name
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name}}}, nil, nil
	})
	target := serveSDK(t, s, nil)
	path := filepath.Join(t.TempDir(), "two.cassette")
	cmd, proxyURL := startHTTPProxy(t, path, target.URL)

	connect := func(name string) *client.Client {
		c, err := client.Connect(t.Context(), transport.HTTP(proxyURL),
			&client.Options{ProtocolVersion: client.Version20251125, ClientInfo: client.Implementation{Name: name, Version: "1"}})
		require.NoError(t, err)
		return c
	}
	alice := connect("alice")
	bob := connect("bob")
	got := map[string]string{}
	var wg sync.WaitGroup
	for name, c := range map[string]*client.Client{"alice": alice, "bob": bob} {
		wg.Go(func() {
			res, err := c.CallTool(t.Context(), "whoami", nil)
			mu.Lock()
			defer mu.Unlock()
			if assert.NoError(t, err) {
				got[name] = res.Text()
			}
		})
	}
	wg.Wait()
	require.Equal(t, map[string]string{"alice": "alice", "bob": "bob"}, got)
	require.NoError(t, alice.Close())
	require.NoError(t, bob.Close())
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	require.NoError(t, cmd.Wait())

	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(data), `{"cassette":2,`), "%.200s", data)
	whoami := func(c *client.Client) string {
		res, err := c.CallTool(t.Context(), "whoami", nil)
		require.NoError(t, err)
		return res.Text()
	}
	t.Run("go test", func(t *testing.T) {
		played := cassetteserver.Server(t, path)
		first := mcptest.Connect(t, played, mcptest.WithProtocolVersion(client.Version20251125))
		second := mcptest.Connect(t, played, mcptest.WithProtocolVersion(client.Version20251125))
		assert.Equal(t, "alice", whoami(first), "the first connection plays the first session")
		assert.Equal(t, "bob", whoami(second))
	})
	t.Run("serve http", func(t *testing.T) {
		bin, err := binary()
		require.NoError(t, err)
		cmd := exec.Command(bin, "serve", "--listen", "127.0.0.1:0", path)
		stderr, err := cmd.StderrPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		u := announcedURL(t, stderr)
		first, err := client.Connect(t.Context(), transport.HTTP(u), &client.Options{ProtocolVersion: client.Version20251125})
		require.NoError(t, err)
		defer first.Close()
		second, err := client.Connect(t.Context(), transport.HTTP(u), &client.Options{ProtocolVersion: client.Version20251125})
		require.NoError(t, err)
		defer second.Close()
		assert.Equal(t, "bob", whoami(second), "the second session's, asked first")
		assert.Equal(t, "alice", whoami(first))
	})
}

// A stdio client that goes away (closes its end of the proxy's stdout)
// while the server answers: the proxy does not die of SIGPIPE; it writes
// the cassette and exits as the server did.
func TestStdioProxyClientGone(t *testing.T) {
	bin, err := binary()
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "gone.cassette")
	cmd := exec.Command(bin, "record", "-o", path, "--", serverBinary(t))
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	r, w, err := os.Pipe()
	require.NoError(t, err)
	cmd.Stdout = w
	require.NoError(t, cmd.Start())
	require.NoError(t, w.Close())
	require.NoError(t, r.Close()) // the client stops reading before any answer
	_, err = io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`+"\n")
	require.NoError(t, err)
	require.NoError(t, stdin.Close())
	err = cmd.Wait()
	require.NoError(t, err, "the proxy exits cleanly (%v)", cmd.ProcessState)
	c, err := cassette.ReadFile(path)
	require.NoError(t, err, "the cassette is written")
	require.NotEmpty(t, c.Frames)
	assert.Contains(t, string(c.Frames[0].Msg), `"method":"initialize"`)
}

// record -o into a directory that does not exist fails at once, naming it,
// before any session: over stdio (the client's input still open) and HTTP.
func TestRecordMissingDirectory(t *testing.T) {
	bin, err := binary()
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "no", "such", "s.cassette")
	for _, args := range [][]string{
		{"record", "-o", path, "--", serverBinary(t)},
		{"record", "-o", path, "--listen", "127.0.0.1:0", "http://127.0.0.1:1/mcp"},
	} {
		ctx, cancel := context.WithTimeout(t.Context(), runTimeout) // a hang guard, not a timing
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, args...)
		stdin, err := cmd.StdinPipe() // held open: a session could go on
		require.NoError(t, err)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		require.NoError(t, cmd.Start())
		err = cmd.Wait()
		stdin.Close()
		require.NoError(t, ctx.Err(), "record %q did not stop at once", args)
		require.Error(t, err)
		assert.Equal(t, exitUsage, cmd.ProcessState.ExitCode())
		assert.Contains(t, stderr.String(), filepath.Dir(path)+" does not exist")
		assert.NotContains(t, stderr.String(), "recording", "no proxy started")
	}
}

// A cassette that is empty or blank is refused by replay and serve, naming
// the file: never "answers as recorded".
func TestBlankCassetteRefused(t *testing.T) {
	for _, text := range []string{"", " \n\n\t \n"} {
		path := filepath.Join(t.TempDir(), "blank.cassette")
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
		r := mcptestkit(t, nil, "replay", path, "--", serverBinary(t))
		assert.Equal(t, exitUsage, r.code, r)
		assert.Contains(t, r.stderr, path)
		assert.Contains(t, r.stderr, "no cassette header")
		assert.NotContains(t, r.stdout, "as recorded")
		r = mcptestkit(t, nil, "serve", path)
		assert.Equal(t, exitUsage, r.code, r)
		assert.Contains(t, r.stderr, path)
	}
}

// An HTTP proxy whose target is its own address refuses at once, saying so.
func TestHTTPProxyRefusesItself(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close()) // free for the proxy to take
	_, port, _ := net.SplitHostPort(addr)
	for _, target := range []string{"http://" + addr + "/mcp", "http://localhost:" + port + "/mcp"} {
		path := filepath.Join(t.TempDir(), "self.cassette")
		r := mcptestkit(t, nil, "record", "-o", path, "--listen", addr, target)
		assert.Equal(t, exitUsage, r.code, r)
		assert.Contains(t, r.stderr, "is this proxy's own address", r)
		assert.NoFileExists(t, path)
	}
}

// The proxy knows a request that comes from its own connections to the
// target, whatever name led there: the loop that a name the start cannot
// resolve would make is refused at its first request.
func TestOwnDials(t *testing.T) {
	d := &ownDials{addrs: map[string]bool{}}
	from := make(chan bool, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { from <- d.from(r.RemoteAddr) }))
	defer srv.Close()
	tr := &http.Transport{DialContext: d.dial}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Get(srv.URL)
	require.NoError(t, err)
	resp.Body.Close()
	assert.True(t, <-from, "a request over the proxy's own dial")
	resp, err = http.Get(srv.URL)
	require.NoError(t, err)
	resp.Body.Close()
	assert.False(t, <-from, "another client's")
	tr.CloseIdleConnections()
	d.mu.Lock()
	assert.Empty(t, d.addrs, "closed connections are forgotten")
	d.mu.Unlock()
}

// How the recorder tells sessions apart: an initialize's key and the
// session id its answer brought are one session; a server that keeps no
// sessions makes the connection the session (2026-07-28, or a stateless
// server); a recording of one session numbers none.
func TestRecorderSessions(t *testing.T) {
	req := func(id int) []byte { return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, id)) }
	res := func(id int) []byte { return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{}}`, id)) }
	sessions := func(rec *recorder) []int {
		var out []int
		for _, f := range rec.finish().Frames {
			out = append(out, f.Session)
		}
		return out
	}

	rec, err := newRecorder("http", nil)
	require.NoError(t, err)
	rec.add("init:1", cassette.ClientToServer, req(1))
	rec.add("init:2", cassette.ClientToServer, req(1))
	rec.alias("sid:B", "init:2")
	rec.alias("sid:A", "init:1")
	rec.add("init:2", cassette.ServerToClient, res(1))
	rec.add("init:1", cassette.ServerToClient, res(1))
	rec.add("sid:A", cassette.ClientToServer, req(2))
	rec.add("sid:B", cassette.ClientToServer, req(2))
	rec.add("conn:7", cassette.ClientToServer, req(1)) // a third client, with no session
	assert.Equal(t, []int{1, 2, 2, 1, 1, 2, 3}, sessions(rec))

	rec, err = newRecorder("http", nil)
	require.NoError(t, err)
	rec.add("init:1", cassette.ClientToServer, req(1))
	rec.alias("init:1", "conn:3") // the answer brought no session id
	rec.add("conn:3", cassette.ClientToServer, req(2))
	assert.Equal(t, []int{0, 0}, sessions(rec), "one session: not numbered (a version 1 cassette)")
}
