package cassette

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"testing"

	"github.com/mcptestkit/mcptestkit/client"
	cf "github.com/mcptestkit/mcptestkit/internal/cassette"
	"github.com/mcptestkit/mcptestkit/internal/textdiff"
	"github.com/mcptestkit/mcptestkit/mcptest"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

// Server returns a server that plays the server side of the cassette at
// path. Each request the client sends is answered with the response to the
// same request in the recording (same method and params, _meta left out,
// secrets redacted the same way; initialize, server/discover and ping by
// method alone), with the notifications that came before it, under the
// live request's id and progress token; a request the recorded server sent
// the client meanwhile (sampling, elicitation, roots) is sent too, and its
// response awaited. A request recorded several times
// gets its answers in recorded order, then the last one again ([Once]
// says otherwise). A request with no recording fails the test, naming the
// closest recorded request, and gets a JSON-RPC error that names it too. A
// cassette that holds several sessions (recorded from concurrent HTTP
// clients) plays one to each connection, in the order they connect. A
// cassette that cannot be read fails the test at once, naming the line.
func Server(t testing.TB, path string, opts ...Option) mcptest.Server {
	t.Helper()
	var o cf.PlayOptions
	for _, opt := range opts {
		if opt.apply != nil { // the zero Option changes nothing
			opt.apply(&o)
		}
	}
	p := load(t, path, o)
	if p == nil {
		return nil
	}
	return mcptest.ServerFunc(func(ctx context.Context, conn *memtransport.Conn) error {
		_ = p.Conn().Serve(func() ([]byte, error) { return conn.Receive(ctx) },
			func(msg []byte) error { return conn.Send(ctx, msg) },
			func(miss string) { t.Errorf("cassette %s: %s", path, miss) })
		return nil // the connection ended
	})
}

// Option changes how [Server] matches and answers requests. The zero Option
// changes nothing.
type Option struct {
	apply func(*cf.PlayOptions)
}

// Once plays each recorded answer once: a request sent more often than it
// was recorded fails the test, as one never recorded does. Without it the
// last recorded answer is given again, as a server that answers the same
// question the same way would.
func Once() Option { return Option{func(o *cf.PlayOptions) { o.Once = true }} }

// IgnoreParams leaves the members with these names out of a request's
// params, at any depth, when it is matched with the recorded ones: for
// arguments that change from run to run (a timestamp, a generated id).
func IgnoreParams(names ...string) Option {
	return Option{func(o *cf.PlayOptions) { o.Ignore = append(o.Ignore, names...) }}
}

func load(t testing.TB, path string, opts cf.PlayOptions) *cf.Player {
	t.Helper()
	c, err := cf.ReadFile(path)
	if err != nil {
		t.Fatalf("cassette: %v", err)
		return nil
	}
	p, err := cf.NewPlayer(c, opts)
	if err != nil {
		t.Fatalf("cassette %s: %v", path, err)
		return nil
	}
	return p
}

// Replay sends the client side of the cassette at path to the server c is
// connected to, request by request in recorded order (the handshake and the
// notifications aside: c made its own), and fails the test with a unified
// diff for each answer that differs from the recorded one. Both sides are
// normalised as golden files are (mcptest.Normalize), with opts:
// mcptest.IgnoreFields for what changes from run to run. Secrets were
// replaced by placeholders when recorded, and the server gets the
// placeholders; its answers are redacted as the recording was before they
// are compared, so that a diff shows no secret. The items of a list result (tools, resources, templates,
// prompts) compare in any order: the protocol gives it no meaning. A retry
// of a multi round-trip request is left out, as is a request answered with
// input_required: c runs those rounds itself.
//
// With MCPTEST_UPDATE=1 (as for golden files) the live answers are written
// into the cassette instead, redacted as when recorded, its requests and
// the rest kept as they were.
func Replay(t testing.TB, c *client.Client, path string, opts ...mcptest.Option) {
	t.Helper()
	p := load(t, path, cf.PlayOptions{})
	if p == nil {
		return
	}
	replayed, err := p.Replay(t.Context(), caller(c), func(v any) ([]byte, error) { return mcptest.Normalize(v, opts...) })
	if err != nil {
		t.Errorf("cassette %s: normalising the answers: %v", path, err)
		return
	}
	if os.Getenv("MCPTEST_UPDATE") == "1" {
		if err := cf.Rerecord(path, replayed); err != nil {
			t.Errorf("cassette %s: %v", path, err)
		}
		return
	}
	for _, r := range replayed {
		if r.Differs() {
			t.Errorf("cassette %s: the answer to %s differs from the recording:\n%s", path, r.Exchange.Shown,
				textdiff.Unified("recorded", "now", string(r.Want), string(r.Got)))
		}
	}
}

// caller sends a replayed request with c.
func caller(c *client.Client) cf.Caller {
	return func(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, json.RawMessage, error) {
		res, err := c.Call(ctx, method, params)
		var e *client.Error
		if errors.As(err, &e) {
			m := map[string]any{"code": e.Code, "message": e.Message}
			if len(e.Data) > 0 {
				m["data"] = e.Data
			}
			b, _ := json.Marshal(m)
			return nil, b, nil
		}
		return res, nil, err
	}
}
