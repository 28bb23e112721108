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

	"github.com/mcptestkit/mcptestkit/internal/cassette"
)

var cmdServe = &command{
	usageLine: "serve [flags] FILE.cassette",
	short:     "play a recorded session's server side",
	reach:     noServer,
	long: `Serve plays the server side of a recorded session (what "record -o FILE.cassette"
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
	flags: func() invocation { return new(serveFlags) },
}

// serveFlags are serve's flags, new for each run.
type serveFlags struct {
	listen string
	once   bool
	ignore stringList // --ignore-param
}

func (f *serveFlags) register(fs *flag.FlagSet, _ *connFlags) {
	fs.StringVar(&f.listen, "listen", "", "serve streamable HTTP on this `address` (127.0.0.1:PORT) instead of stdio")
	fs.BoolVar(&f.once, "once", false, "play each recorded answer once: a request sent more often than recorded is a miss (default: the last answer again)")
	fs.Var(&f.ignore, "ignore-param", "leave members with this `name` out of requests' params, at any depth, when matching them (repeatable)")
}

func (f *serveFlags) run(ctx context.Context, cmd *command, args []string, _ *server, term terminal) (int, error) {
	if len(args) != 1 {
		return exitUsage, usagef(cmd, "give one cassette file")
	}
	c, err := cassette.ReadFile(args[0])
	if err != nil {
		return exitUsage, err
	}
	p, err := cassette.NewPlayer(c, cassette.PlayOptions{Once: f.once, Ignore: f.ignore})
	if err != nil {
		return exitUsage, err
	}
	var misses atomic.Int64
	onMiss := func(miss string) {
		misses.Add(1)
		fprintf(term.stderr, "mcptestkit serve: %s\n", lines(miss))
	}
	if f.listen != "" {
		answer := func(c *cassette.Conn, msg []byte) [][]byte {
			out, miss := c.Answer(msg)
			if miss != "" {
				onMiss(miss)
			}
			return out
		}
		err = serveHTTP(ctx, f.listen, p, answer, func(u string) {
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
