package servercheck

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcptestkit/mcptestkit/client"
)

// rawPrefix marks the ids of requests a check sends itself, below the
// client: their responses go to the check, not to the client.
const rawPrefix = "mcptestkit-check-"

// keepFrames bounds the frames a connection keeps for transcript excerpts.
const keepFrames = 4000

// frame is one message on a connection.
type frame struct {
	out  bool // client to server
	data []byte
}

// tap sits between the client and the transport: it records every message,
// watches the handshake's order and progress tokens, and routes the
// responses to requests a check sent raw (malformed frames) to the check.
type tap struct {
	inner client.Transport

	mu       sync.Mutex
	frames   []frame
	dropped  int // frames dropped from the front
	waiters  map[string]chan []byte
	nullID   chan []byte // error responses with id null (parse errors)
	initSent bool        // an initialize request went out
	ready    bool        // notifications/initialized went out
	early    []string    // server messages before notifications/initialized
	tokens   map[string]bool
	progress []progressNote
	// Cancellation: the token and tool of each request sent, and for each
	// cancelled one how many progress notifications came after the server
	// had surely read the cancellation (it answered a later request).
	requests  map[string]sentRequest
	cancelled []*cancelNote
	tasks     taskTraffic // task creations and status notifications, kept apart from frames
	// The schema check of what the server sends: each request's method and
	// version by id, the legacy version initialize agreed on, the version
	// of the last request sent.
	wire       *wireLog
	sent       map[string]sentMethod
	negotiated string
	lastSent   string
	// The server's requests for input (sampling, elicitation, roots) by id,
	// and those the client refused for want of a callback: a call that
	// fails after one failed for the client's lack, not the server's fault.
	// The tools seen answering input_required (2026-07-28), by name.
	inputRequired map[string]asked
	asks          map[string]string
	refused       int
	lastRefused   string
	mismatches    []idMismatch // responses whose id had a request's value as another type
	closed        chan struct{}
	once          sync.Once
}

type sentMethod struct{ method, version string }

type sentRequest struct {
	token, tool string
}

type cancelNote struct {
	id, tool, token string
	acked           bool // a response to a later request has come
	after           int  // progress notifications for token since acked
	answered        bool // its response came, after acked
}

type progressNote struct {
	token string
	known bool      // the token was one a request of ours carried
	at    time.Time // when it came
}

func newTap(inner client.Transport, wire *wireLog) *tap {
	return &tap{inner: inner, wire: wire, sent: map[string]sentMethod{}, waiters: map[string]chan []byte{}, nullID: make(chan []byte, 8),
		tokens: map[string]bool{}, requests: map[string]sentRequest{}, asks: map[string]string{}, inputRequired: map[string]asked{}, closed: make(chan struct{})}
}

// envelope is what the tap reads of a message.
type envelope struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Meta struct {
			ProgressToken  json.RawMessage `json:"progressToken"`
			Version        string          `json:"io.modelcontextprotocol/protocolVersion"`
			SubscriptionID json.RawMessage `json:"io.modelcontextprotocol/subscriptionId"`
		} `json:"_meta"`
		ProgressToken   json.RawMessage `json:"progressToken"`
		ProtocolVersion string          `json:"protocolVersion"`
		RequestID       json.RawMessage `json:"requestId"`
		Name            string          `json:"name"`
	} `json:"params"`
	Error  json.RawMessage `json:"error"`
	Result json.RawMessage `json:"result"`
}

func (t *tap) record(out bool, msg []byte) {
	t.frames = append(t.frames, frame{out: out, data: msg})
	if len(t.frames) > keepFrames {
		n := len(t.frames) - keepFrames
		t.frames = append(t.frames[:0:0], t.frames[n:]...)
		t.dropped += n
	}
}

func (t *tap) Send(ctx context.Context, msg []byte) error {
	var env envelope
	_ = json.Unmarshal(msg, &env)
	t.mu.Lock()
	t.record(true, bytes.Clone(msg))
	switch env.Method {
	case "initialize":
		t.initSent = true
	case "notifications/initialized":
		t.ready = true
	}
	if tok := env.Params.Meta.ProgressToken; len(tok) > 0 {
		t.tokens[string(tok)] = true
	}
	if len(env.ID) > 0 && env.Method != "" {
		t.requests[string(env.ID)] = sentRequest{token: string(env.Params.Meta.ProgressToken), tool: env.Params.Name}
		version := env.Params.Meta.Version
		if version == "" {
			version = t.negotiated
		}
		if len(t.sent) < 100000 {
			t.sent[string(env.ID)] = sentMethod{env.Method, version}
		}
		t.lastSent = version
	}
	if env.Method == "" && len(env.ID) > 0 {
		if m, ok := t.asks[string(env.ID)]; ok {
			delete(t.asks, string(env.ID))
			var e struct {
				Code int64 `json:"code"`
			}
			if json.Unmarshal(env.Error, &e) == nil && e.Code == client.CodeMethodNotFound {
				t.refused++
				t.lastRefused = m
			}
		}
	}
	if env.Method == "notifications/cancelled" {
		if r, ok := t.requests[string(env.Params.RequestID)]; ok && r.token != "" {
			t.cancelled = append(t.cancelled, &cancelNote{id: string(env.Params.RequestID), tool: r.tool, token: r.token})
		}
	}
	t.mu.Unlock()
	return t.inner.Send(ctx, msg)
}

func (t *tap) Receive(ctx context.Context) ([]byte, error) {
	for {
		msg, err := t.inner.Receive(ctx)
		if err != nil {
			if ctx.Err() == nil {
				t.once.Do(func() { close(t.closed) })
			}
			return nil, err
		}
		var env envelope
		_ = json.Unmarshal(msg, &env)
		t.mu.Lock()
		t.seeIDMismatch(env) // before record: its position is the frame's
		t.record(false, msg)
		t.seeInputRequired(env) // before checkWire, which forgets the request
		t.checkWire(env, msg)
		if env.Method != "" && t.initSent && !t.ready && env.Method != "ping" && env.Method != "notifications/message" {
			t.early = append(t.early, env.Method)
		}
		t.tasks.see(env.Method, msg)
		switch env.Method {
		case "sampling/createMessage", "elicitation/create", "roots/list":
			if len(env.ID) > 0 && len(t.asks) < 1000 {
				t.asks[string(env.ID)] = env.Method
			}
		}
		if env.Method == "notifications/progress" {
			tok := string(env.Params.ProgressToken)
			t.progress = append(t.progress, progressNote{token: tok, known: t.tokens[tok], at: time.Now()})
			for _, c := range t.cancelled {
				if c.acked && c.token == tok {
					c.after++
				}
			}
		}
		if env.Method == "" && len(env.ID) > 0 {
			for _, c := range t.cancelled {
				switch {
				case !c.acked && c.id != string(env.ID):
					c.acked = true
				case c.acked && c.id == string(env.ID):
					c.answered = true
				}
			}
		}
		var divert chan []byte
		var id string
		switch {
		case env.Method == "" && json.Unmarshal(env.ID, &id) == nil && strings.HasPrefix(id, rawPrefix):
			divert = t.waiters[id]
			delete(t.waiters, id)
		case env.Method == "" && (string(env.ID) == "null" || (len(env.ID) == 0 && len(env.Error) > 0)):
			divert = t.nullID
		case env.Method == "notifications/subscriptions/acknowledged" &&
			json.Unmarshal(env.Params.Meta.SubscriptionID, &id) == nil && strings.HasPrefix(id, rawPrefix):
			divert = t.waiters[id] // a subscriptions/listen sent raw: acknowledged, not answered
			delete(t.waiters, id)
		}
		t.mu.Unlock()
		if divert != nil {
			select {
			case divert <- msg:
			default:
			}
			continue
		}
		return msg, nil
	}
}

func (t *tap) Close() error { return t.inner.Close() }

// refusals returns how many of the server's requests for input the client
// has refused for want of a callback, and the method of the last.
func (t *tap) refusals() (int, string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.refused, t.lastRefused
}

// Unwrap gives the client the transport itself, so that what the client
// hands a transport (the x-mcp-header annotations tools/list carries, which
// become Mcp-Param-* headers) reaches it through the tap.
func (t *tap) Unwrap() client.Transport { return t.inner }

// checkWire checks a message from the server against the schema of its
// version; t.mu is held.
func (t *tap) checkWire(env envelope, msg []byte) {
	if t.wire == nil {
		return
	}
	req := sentMethod{version: t.lastSent}
	if env.Method == "" && len(env.ID) > 0 {
		if r, ok := t.sent[string(env.ID)]; ok {
			req = r
			delete(t.sent, string(env.ID))
		}
	}
	version := req.version
	if req.method == "initialize" {
		var res struct {
			Result struct {
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"result"`
		}
		if json.Unmarshal(msg, &res) == nil && res.Result.ProtocolVersion != "" {
			t.negotiated = res.Result.ProtocolVersion
		}
		version = ""
	}
	what, problems := validateWire(version, req.method, msg)
	for _, p := range problems {
		t.wire.add(wireViolation{version: version, what: what, path: p.path, reason: p.reason, msg: cut(unstamped(msg), 300)})
	}
}

// raw sends msg as it is and returns the response with the given id (a
// string starting with rawPrefix), or with id null when id is "".
func (t *tap) raw(ctx context.Context, msg []byte, id string) ([]byte, error) {
	ch := t.nullID
	if id != "" {
		ch = make(chan []byte, 1)
		t.mu.Lock()
		t.waiters[id] = ch
		t.mu.Unlock()
		defer func() {
			t.mu.Lock()
			delete(t.waiters, id)
			t.mu.Unlock()
		}()
	}
	t.mu.Lock()
	t.record(true, bytes.Clone(msg))
	t.mu.Unlock()
	if err := t.inner.Send(ctx, msg); err != nil {
		return nil, &sendError{err}
	}
	select {
	case m := <-ch:
		return m, nil
	case <-t.closed:
		return nil, errors.New("the connection ended")
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// mark is a position in the transcript.
func (t *tap) mark() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.dropped + len(t.frames)
}

// excerpt returns the frames from mark to end (end < 0: to now), at most
// limit of them (the last), one line each, cut to lineMax bytes.
func (t *tap) excerpt(mark, end, limit, lineMax int) []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	from := mark - t.dropped
	if from < 0 {
		from = 0
	}
	to := len(t.frames)
	if end >= 0 {
		to = min(max(end-t.dropped, 0), to)
	}
	fs := t.frames[min(from, to):to]
	var out []string
	if len(fs) > limit {
		out = append(out, fmt.Sprintf("(%d earlier message(s) left out)", len(fs)-limit))
		fs = fs[len(fs)-limit:]
	}
	for _, f := range fs {
		arrow := "← "
		if f.out {
			arrow = "→ "
		}
		line := unstamped(f.data)
		if len(line) > lineMax {
			line = line[:lineMax] + fmt.Sprintf("... (%d bytes)", len(f.data))
		}
		out = append(out, arrow+line)
	}
	return out
}

func (t *tap) earlyMessages() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.early...)
}

func (t *tap) cancellations() []cancelNote {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]cancelNote, len(t.cancelled))
	for i, c := range t.cancelled {
		out[i] = *c
	}
	return out
}

// progressTools returns the tools whose calls got progress notifications,
// in the order of their first.
func (t *tap) progressTools() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	byToken := map[string]string{}
	for _, r := range t.requests {
		if r.token != "" {
			byToken[r.token] = r.tool
		}
	}
	var out []string
	for _, p := range t.progress {
		if tool := byToken[p.token]; tool != "" && !slices.Contains(out, tool) {
			out = append(out, tool)
		}
	}
	return out
}

// progressGap returns the longest wait between two progress notifications
// of one call of tool, 0 if none had two.
func (t *tap) progressGap(tool string) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	mine := map[string]bool{}
	for _, r := range t.requests {
		if r.tool == tool && r.token != "" {
			mine[r.token] = true
		}
	}
	last := map[string]time.Time{}
	var gap time.Duration
	for _, p := range t.progress {
		if !mine[p.token] {
			continue
		}
		if prev, ok := last[p.token]; ok {
			gap = max(gap, p.at.Sub(prev))
		}
		last[p.token] = p.at
	}
	return gap
}

func (t *tap) progressNotes() []progressNote {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]progressNote(nil), t.progress...)
}

// record counts a closed connection whose process ended as ended says
// ("" cleanly).
func (s *shutdowns) record(ended string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed++
	if ended != "" {
		s.dirty++
		if s.first == "" {
			s.first = ended
		}
	}
}

func (e *sendError) Unwrap() error { return e.err }
