package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/internal/cassette"
	"github.com/mcptestkit/mcptestkit/internal/textdiff"
	"github.com/mcptestkit/mcptestkit/mcptest"
)

func serveCommand() *command {
	return &command{
		name:     "serve",
		noServer: true,
		args:     "[--listen ADDR] FILE.cassette",
		about: `Serve plays the server side of a recorded session (what "record -o FILE.cassette"
wrote), for testing a client in any language against it: over stdio by
default (launch "mcptestkit serve FILE.cassette" as the client's server), or
over streamable HTTP with --listen ADDR. Each request gets the recorded
answer to the same request (method and params, _meta left out, secrets
redacted as when recorded), with the notifications that came before it,
under the live id; a request recorded several times gets its answers in
recorded order, then the last again (--once: no more). A request with no
recording gets a JSON-RPC error naming the closest recorded request, which
is named on stderr too; the exit status is then 1. A cassette of several
sessions plays one to each client session (over HTTP, each initialize opens
one; without one, each connection is one).`,
		setup: func(fs *flag.FlagSet, _ *connFlags) func(context.Context, []string, *server, terminal) (int, error) {
			listen := fs.String("listen", "", "serve streamable HTTP on this `address` (127.0.0.1:PORT) instead of stdio")
			once := fs.Bool("once", false, "play each recorded answer once: a request sent more often than recorded is a miss (default: the last answer again)")
			var ignore stringList
			fs.Var(&ignore, "ignore-param", "leave members with this `name` out of requests' params, at any depth, when matching them (repeatable)")
			return func(ctx context.Context, args []string, _ *server, term terminal) (int, error) {
				if len(args) != 1 {
					return exitUsage, usagef(lookup("serve"), "give one cassette file")
				}
				c, err := cassette.ReadFile(args[0])
				if err != nil {
					return exitUsage, err
				}
				p, err := cassette.NewPlayer(c, cassette.PlayOptions{Once: *once, Ignore: ignore})
				if err != nil {
					return exitUsage, err
				}
				var misses atomic.Int64
				onMiss := func(miss string) {
					misses.Add(1)
					fprintf(term.stderr, "mcptestkit serve: %s\n", lines(miss))
				}
				if *listen != "" {
					answer := func(c *cassette.Conn, msg []byte) [][]byte {
						out, miss := c.Answer(msg)
						if miss != "" {
							onMiss(miss)
						}
						return out
					}
					err = serveHTTP(ctx, *listen, p, answer, func(u string) {
						fprintf(term.stderr, "mcptestkit serve: %s at %s; stop with Ctrl-C\n", args[0], u)
					})
				} else {
					err = serveStdio(os.Stdin, term.stdout, p, onMiss)
				}
				if err != nil {
					return exitUsage, err
				}
				if misses.Load() > 0 {
					return exitFail, nil
				}
				return exitOK, nil
			}
		},
	}
}

// serveStdio plays p to the client on r and w (a message a line) until r
// ends.
func serveStdio(r io.Reader, w io.Writer, p *cassette.Player, miss func(string)) error {
	br := bufio.NewReaderSize(r, 64<<10)
	recv := func() ([]byte, error) {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			return line, nil // a last line without its newline: the error comes next time
		}
		return nil, err
	}
	send := func(msg []byte) error {
		_, err := w.Write(append(msg, '\n'))
		return err
	}
	if err := p.Conn().Serve(recv, send, miss); !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

// serveHTTP answers POSTs on listen until ctx ends: a request with JSON, or
// with an SSE stream when notifications or server requests come before the
// response (after a server request, the stream waits for the client to
// POST its response); a notification or a response with 202. Each session
// plays one of p's recorded sessions: the one an initialize opens (its
// Mcp-Session-Id names it), or without one (2026-07-28) each connection.
func serveHTTP(ctx context.Context, listen string, p *cassette.Player, answer func(*cassette.Conn, []byte) [][]byte, ready func(string)) error {
	var mu sync.Mutex
	waiting := map[string]chan struct{}{} // by server request id: its response came
	sessions := map[string]*cassette.Conn{}
	type connKey struct{}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", "POST")
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		body, err := io.ReadAll(r.Body) // no limit, as a cassette's lines have none
		if err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.Unmarshal(body, &m)
		sid := r.Header.Get("Mcp-Session-Id")
		if m.Method == "initialize" {
			sid = rand.Text()
			w.Header().Set("Mcp-Session-Id", sid)
		} else if sid == "" {
			sid = r.Context().Value(connKey{}).(string)
		}
		mu.Lock()
		c := sessions[sid]
		if c == nil {
			c = p.Conn()
			sessions[sid] = c
		}
		mu.Unlock()
		if m.Method == "" && len(m.ID) > 0 {
			mu.Lock()
			if ch, ok := waiting[string(m.ID)]; ok {
				delete(waiting, string(m.ID))
				close(ch)
			}
			mu.Unlock()
			w.WriteHeader(http.StatusAccepted)
			return
		}
		out := answer(c, body)
		switch len(out) {
		case 0:
			w.WriteHeader(http.StatusAccepted)
		case 1:
			w.Header().Set("Content-Type", "application/json")
			w.Write(out[0])
		default:
			w.Header().Set("Content-Type", "text/event-stream")
			for _, o := range out {
				id, isRequest := cassette.ServerRequest(o)
				var responded chan struct{}
				if isRequest {
					responded = make(chan struct{})
					mu.Lock()
					waiting[string(id)] = responded
					mu.Unlock()
				}
				fmt.Fprintf(w, "data: %s\n\n", o)
				w.(http.Flusher).Flush()
				if isRequest {
					select {
					case <-responded:
					case <-r.Context().Done():
						return
					}
				}
			}
		}
	})
	l, err := net.Listen("tcp", listen)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second,
		ConnContext: func(ctx context.Context, _ net.Conn) context.Context {
			return context.WithValue(ctx, connKey{}, rand.Text())
		}}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l) }()
	ready("http://" + l.Addr().String() + "/")
	select {
	case <-ctx.Done():
	case err = <-done:
	}
	shut, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = srv.Shutdown(shut)
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// replayCassette sends the recorded requests of the cassette at file to
// srv, at the recorded protocol version unless --version says otherwise,
// and prints a diff for each answer that differs: exit status 1 then. With
// update, it writes the live answers into the cassette instead.
func replayCassette(ctx context.Context, file string, srv *server, norm []mcptest.Option, update bool, redact []string, term terminal) (int, error) {
	c, err := cassette.ReadFile(file)
	if err != nil {
		return exitUsage, err
	}
	if h := c.Header.Redact; h != nil && h.Withheld > len(redact) {
		fprintf(term.stderr, "mcptestkit replay: %s was recorded with %d --redact pattern(s) it does not keep; give them again with --redact, or what they matched may show in a diff\n", file, h.Withheld)
	}
	p, err := cassette.NewPlayer(c, cassette.PlayOptions{Redact: redact})
	if err != nil {
		return exitUsage, err
	}
	if srv.version == "" {
		srv.version = c.Header.ProtocolVersion
	}
	cl, err := srv.connect(ctx)
	if err != nil {
		return exitUsage, err
	}
	defer cl.Close()
	call := func(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, json.RawMessage, error) {
		res, err := cl.Call(ctx, method, params)
		var e *client.Error
		if errors.As(err, &e) {
			b, _ := json.Marshal(errorObject{e.Code, e.Message, e.Data})
			return nil, b, nil
		}
		return res, nil, err
	}
	replayed, err := p.Replay(ctx, call, func(v any) ([]byte, error) { return mcptest.Normalize(v, norm...) })
	if err != nil {
		return exitUsage, err
	}
	if update {
		if err := cassette.Rerecord(file, replayed); err != nil {
			return exitFail, err
		}
		fprintf(term.stdout, "%s: re-recorded %d answer(s) from %s\n", file, len(replayed), srv)
		return exitOK, nil
	}
	differ := 0
	for _, r := range replayed {
		if r.Differs() {
			differ++
			fprintf(term.stdout, "%s: the answer to %s differs from the recording:\n%s", file, r.Exchange.Shown,
				lines(textdiff.Unified("recorded", srv.String()+" (now)", string(r.Want), string(r.Got))))
		}
	}
	if differ > 0 {
		fprintf(term.stdout, "%s: %d of %d answer(s) differ\n", file, differ, len(replayed))
		return exitFail, nil
	}
	fprintf(term.stdout, "%s: the server answers as recorded (%d request(s))\n", file, len(replayed))
	return exitOK, nil
}

// errorObject is a JSON-RPC error object.
type errorObject struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}
