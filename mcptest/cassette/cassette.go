// Package cassette plays recorded MCP sessions back, for the tests of a
// client or an agent: [Server] is an mcptest.Server that answers as the
// recorded server did. A cassette is recorded by `mcptestkit record -o
// FILE.cassette -- SERVER...`, a proxy that a real client (an IDE agent, the
// Inspector) launches instead of the server; its secrets are replaced by
// placeholders before anything is written.
//
//	c := mcptest.Connect(t, cassette.Server(t, "testdata/notes.cassette"))
//	res, err := c.CallTool(t.Context(), "add_note", map[string]any{"text": "buy milk"})
package cassette

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/mcptestkit/mcptestkit/client"
	cf "github.com/mcptestkit/mcptestkit/internal/cassette"
	"github.com/mcptestkit/mcptestkit/internal/textdiff"
	"github.com/mcptestkit/mcptestkit/mcptest"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

// exchange is one recorded request and what the server sent for it: the
// notifications before its response, then the response.
type exchange struct {
	method string
	key    string // the request as matched: method and params, _meta left out
	shown  string // the request as a person reads it
	notes  []json.RawMessage
	answer json.RawMessage // the response, its id to be rewritten
	token  json.RawMessage // the request's progressToken, rewritten in its notifications
	params json.RawMessage // the request's params, _meta left out (for Replay)
	retry  bool            // a multi round-trip retry (inputResponses, requestState)
}

// Server returns a server that plays the server side of the cassette at
// path. Each request the client sends is answered with the response to the
// same request in the recording (same method and params, _meta left out,
// secrets redacted the same way; initialize, server/discover and ping by
// method alone), with the notifications that came before it, under the
// live request's id. A request recorded several times gets its answers in
// recorded order, then the last one again. A request with no recording
// fails the test, naming the closest recorded request, and gets a JSON-RPC
// error. A cassette that cannot be read fails the test at once.
func Server(t testing.TB, path string) mcptest.Server {
	t.Helper()
	c, err := cf.ReadFile(path)
	if err != nil {
		t.Fatalf("cassette: %v", err)
		return nil
	}
	red, err := cf.NewRedactor(nil)
	if err != nil {
		t.Fatalf("cassette: %v", err)
		return nil
	}
	p := &player{t: t, path: path, red: red, used: map[string]int{}}
	p.load(c)
	return mcptest.ServerFunc(p.serve)
}

type player struct {
	t    testing.TB
	path string
	red  *cf.Redactor

	exchanges []*exchange
	mu        sync.Mutex
	used      map[string]int // by key: how many answers were given
}

func (p *player) load(c *cf.Cassette) {
	open := map[string]*exchange{} // by request id
	var last *exchange
	for _, f := range c.Frames {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		_ = json.Unmarshal(f.Msg, &m)
		switch {
		case f.Dir == cf.ClientToServer && m.Method != "" && len(m.ID) > 0:
			x := &exchange{method: m.Method, key: key(m.Method, m.Params), shown: shown(m.Method, m.Params), token: progressToken(m.Params),
				params: withoutMeta(m.Params), retry: bytes.Contains(m.Params, []byte(`"inputResponses"`)) || bytes.Contains(m.Params, []byte(`"requestState"`))}
			open[string(m.ID)] = x
			p.exchanges = append(p.exchanges, x)
			last = x
		case f.Dir == cf.ServerToClient && m.Method == "" && len(m.ID) > 0:
			if x := open[string(m.ID)]; x != nil {
				x.answer = f.Msg
				delete(open, string(m.ID))
			}
		case f.Dir == cf.ServerToClient && m.Method != "" && len(m.ID) == 0 && last != nil && last.answer == nil:
			last.notes = append(last.notes, f.Msg) // a notification while a request was open
		}
	}
}

// key is what a request is matched by.
func key(method string, params json.RawMessage) string {
	switch method {
	case "initialize", "server/discover", "ping":
		return method
	}
	var v any
	if json.Unmarshal(params, &v) == nil {
		if m, ok := v.(map[string]any); ok {
			delete(m, "_meta")
		}
		params, _ = json.Marshal(v) // map keys sorted: the same params, the same key
	}
	return method + " " + string(params)
}

func shown(method string, params json.RawMessage) string {
	k := key(method, params)
	if len(k) > 300 {
		k = k[:300] + "..."
	}
	return k
}

func (p *player) serve(ctx context.Context, conn *memtransport.Conn) error {
	for {
		msg, err := conn.Receive(ctx)
		if err != nil {
			return nil
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(msg, &m) != nil || m.Method == "" || len(m.ID) == 0 {
			continue // a notification, or the client's answer: nothing to play
		}
		var out [][]byte
		if m.Method == "server/discover" && !p.recorded("server/discover") {
			// A client that probes for 2026-07-28 first, on a session
			// recorded in the legacy era: what a legacy server answers.
			e, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32601, "message": "Method not found"}})
			if conn.Send(ctx, e) != nil {
				return nil
			}
			continue
		}
		x := p.match(m.Method, p.red.Message(m.Params))
		if x == nil || x.answer == nil {
			e, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{
				"code": -32603, "message": "cassette " + p.path + ": no recorded answer for " + shown(m.Method, m.Params)}})
			out = append(out, e)
		} else {
			live := progressToken(m.Params)
			for _, n := range x.notes {
				out = append(out, withToken(n, x.token, live))
			}
			out = append(out, withID(x.answer, m.ID))
		}
		for _, o := range out {
			if err := conn.Send(ctx, o); err != nil {
				return nil
			}
		}
	}
}

// match finds the recorded exchange for a request, or fails the test
// naming the closest one.
func (p *player) match(method string, params json.RawMessage) *exchange {
	k := key(method, params)
	p.mu.Lock()
	defer p.mu.Unlock()
	var same []*exchange
	for _, x := range p.exchanges {
		if x.key == k {
			same = append(same, x)
		}
	}
	if len(same) > 0 {
		i := min(p.used[k], len(same)-1)
		p.used[k]++
		return same[i]
	}
	p.t.Errorf("cassette %s: no recorded answer for the request %s\n%s", p.path, shown(method, params), p.closest(method, k))
	return nil
}

// closest names the recorded request most like k: of the same method, the
// one sharing the longest prefix with it.
func (p *player) closest(method, k string) string {
	var best *exchange
	bestLen := -1
	for _, x := range p.exchanges {
		if x.method != method {
			continue
		}
		n := 0
		for n < len(x.key) && n < len(k) && x.key[n] == k[n] {
			n++
		}
		if n > bestLen {
			best, bestLen = x, n
		}
	}
	if best == nil {
		var methods []string
		seen := map[string]bool{}
		for _, x := range p.exchanges {
			if !seen[x.method] {
				seen[x.method] = true
				methods = append(methods, x.method)
			}
		}
		return fmt.Sprintf("the cassette has no %s request at all; it has: %s", method, strings.Join(methods, ", "))
	}
	return "the closest recorded request: " + best.shown
}

// withID returns the response msg with its id set to id.
func withID(msg, id json.RawMessage) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(msg, &m) != nil {
		return msg
	}
	m["id"] = id
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(m) != nil {
		return msg
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// withoutMeta returns params without its _meta member.
func withoutMeta(params json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(params, &m) != nil {
		return params
	}
	delete(m, "_meta")
	out, err := json.Marshal(m)
	if err != nil {
		return params
	}
	return out
}

// recorded reports whether the cassette has a request of method.
func (p *player) recorded(method string) bool {
	for _, x := range p.exchanges {
		if x.method == method {
			return true
		}
	}
	return false
}

// progressToken returns params._meta.progressToken, or nil.
func progressToken(params json.RawMessage) json.RawMessage {
	var m struct {
		Meta struct {
			ProgressToken json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
	}
	_ = json.Unmarshal(params, &m)
	return m.Meta.ProgressToken
}

// withToken returns the notification n with the recorded progress token
// replaced by the live request's.
func withToken(n, recorded, live json.RawMessage) []byte {
	if len(recorded) == 0 || len(live) == 0 || !bytes.Contains(n, []byte(`"progressToken"`)) {
		return n
	}
	var m map[string]any
	if json.Unmarshal(n, &m) != nil {
		return n
	}
	params, ok := m["params"].(map[string]any)
	if !ok {
		return n
	}
	var tok any
	if json.Unmarshal(recorded, &tok) != nil {
		return n
	}
	if b, _ := json.Marshal(params["progressToken"]); !bytes.Equal(b, recorded) {
		return n
	}
	params["progressToken"] = live
	out, err := json.Marshal(m)
	if err != nil {
		return n
	}
	return out
}

// Replay sends the client side of the cassette at path to the server c is
// connected to, request by request in recorded order (the handshake and the
// notifications aside: c made its own), and fails the test with a unified
// diff for each answer that differs from the recorded one. Both sides are
// normalised as golden files are (mcptest.Normalize), with opts:
// mcptest.IgnoreFields for what changes from run to run. Secrets were
// replaced by placeholders when recorded, and the server gets the
// placeholders. A retry of a multi round-trip request is left out, as is a
// request answered with input_required: c runs those rounds itself.
func Replay(t testing.TB, c *client.Client, path string, opts ...mcptest.Option) {
	t.Helper()
	cas, err := cf.ReadFile(path)
	if err != nil {
		t.Fatalf("cassette: %v", err)
		return
	}
	p := &player{t: t, path: path}
	p.load(cas)
	for _, x := range p.exchanges {
		switch x.method {
		case "initialize", "server/discover":
			continue
		}
		if x.answer == nil || x.retry || isInputRequired(x.answer) {
			continue
		}
		live, err := c.Call(t.Context(), x.method, x.params)
		want, got := recordedAnswer(x.answer), liveAnswer(live, err)
		wantN, err1 := mcptest.Normalize(want, opts...)
		gotN, err2 := mcptest.Normalize(got, opts...)
		if err1 != nil || err2 != nil {
			t.Errorf("cassette %s: %s: normalising the answers: %v", path, x.shown, errors.Join(err1, err2))
			continue
		}
		if !bytes.Equal(wantN, gotN) {
			t.Errorf("cassette %s: the answer to %s differs from the recording:\n%s", path, x.shown,
				textdiff.Unified("recorded", "now", string(wantN), string(gotN)))
		}
	}
}

// recordedAnswer is a recorded response as Replay compares it: its result,
// or its error.
func recordedAnswer(msg json.RawMessage) any {
	var m struct {
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	_ = json.Unmarshal(msg, &m)
	if len(m.Error) > 0 {
		return map[string]json.RawMessage{"error": m.Error}
	}
	return map[string]json.RawMessage{"result": m.Result}
}

func liveAnswer(result json.RawMessage, err error) any {
	var e *client.Error
	switch {
	case err == nil:
		return map[string]json.RawMessage{"result": result}
	case errors.As(err, &e):
		b, _ := json.Marshal(map[string]any{"code": e.Code, "message": e.Message, "data": e.Data})
		if len(e.Data) == 0 {
			b, _ = json.Marshal(map[string]any{"code": e.Code, "message": e.Message})
		}
		return map[string]json.RawMessage{"error": b}
	}
	b, _ := json.Marshal(map[string]string{"error": err.Error()})
	return map[string]json.RawMessage{"failed": b}
}

func isInputRequired(msg json.RawMessage) bool {
	var m struct {
		Result struct {
			ResultType string `json:"resultType"`
		} `json:"result"`
	}
	return json.Unmarshal(msg, &m) == nil && m.Result.ResultType == "input_required"
}
