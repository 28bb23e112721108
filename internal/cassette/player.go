package cassette

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Exchange is one recorded request and what the server sent for it: the
// notifications and the server's own requests (sampling, elicitation,
// roots) while it was open, then the response.
type Exchange struct {
	Method string
	Params json.RawMessage // _meta left out
	Shown  string          // the request as a person reads it
	Notes  []json.RawMessage
	Answer json.RawMessage // the response; nil if none was recorded
	Retry  bool            // a multi round-trip retry (inputResponses, requestState)

	key     string          // what a live request is matched by
	token   json.RawMessage // the request's progressToken
	session int             // the recorded session's number (0: the only one)
}

// Player answers live requests from a cassette, as the recorded server did.
type Player struct {
	red       *Redactor
	exchanges []*Exchange
	opts      PlayOptions
	ignore    map[string]bool

	mu      sync.Mutex
	used    map[usedKey]int // answers given
	claimed map[int]bool    // recorded sessions a live connection plays
}

// usedKey counts the answers given to a request, within the recorded
// session a live connection plays.
type usedKey struct {
	session int
	key     string
}

// PlayOptions say how a Player matches and answers.
type PlayOptions struct {
	// Once answers each recorded request as often as it was recorded, not
	// more: a further one is a miss. Otherwise the last answer is repeated.
	Once bool
	// Ignore names members left out of the params, at any depth, when a
	// request is matched.
	Ignore []string
	// Redact are patterns the recording was redacted with that its header
	// does not keep (--redact): given again, live messages are redacted as
	// the recorded ones were.
	Redact []string
}

// NewPlayer returns a Player of c. It redacts live requests the way the
// recording was (c's header says how), so that they match.
func NewPlayer(c *Cassette, opts PlayOptions) (*Player, error) {
	extra := &Redaction{Patterns: opts.Redact}
	if h := c.Header.Redact; h != nil {
		extra.Names = h.Names
		extra.Patterns = append(slices.Clone(h.Patterns), opts.Redact...)
	}
	red, err := NewRedactor(extra)
	if err != nil {
		return nil, fmt.Errorf("the cassette's header: %v", err)
	}
	p := &Player{red: red, used: map[usedKey]int{}, claimed: map[int]bool{}, opts: opts, ignore: map[string]bool{}}
	for _, n := range opts.Ignore {
		p.ignore[n] = true
	}
	type sessionID struct {
		session int
		id      string
	}
	open := map[sessionID]*Exchange{} // requests not yet answered
	last := map[int]*Exchange{}       // by session: the latest request
	for _, f := range c.Frames {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		_ = json.Unmarshal(f.Msg, &m)
		switch {
		case f.Dir == ClientToServer && m.Method != "" && len(m.ID) > 0:
			x := &Exchange{Method: m.Method, Params: withoutMeta(m.Params), Shown: shown(m.Method, m.Params),
				Retry: bytes.Contains(m.Params, []byte(`"inputResponses"`)) || bytes.Contains(m.Params, []byte(`"requestState"`)),
				key:   p.key(m.Method, red.Message(m.Params)), token: progressToken(m.Params), session: f.Session}
			open[sessionID{f.Session, string(m.ID)}] = x
			p.exchanges = append(p.exchanges, x)
			last[f.Session] = x
		case f.Dir == ServerToClient && m.Method == "" && len(m.ID) > 0:
			k := sessionID{f.Session, string(m.ID)}
			if x := open[k]; x != nil {
				x.Answer = f.Msg
				delete(open, k)
			}
		case f.Dir == ServerToClient && m.Method != "" && last[f.Session] != nil && last[f.Session].Answer == nil:
			last[f.Session].Notes = append(last[f.Session].Notes, f.Msg)
		}
	}
	return p, nil
}

// Exchanges returns the recorded requests, in order.
func (p *Player) Exchanges() []*Exchange { return p.exchanges }

// Conn is one live connection (or session) a [Player] answers. Where the
// cassette holds several recorded sessions, a Conn plays one of them: the
// first its first request matches that no other Conn plays yet (once all
// are taken, the first that matches); a request that session never made is
// answered from the others. So concurrent recorded sessions play back
// apart, each with its own answers.
type Conn struct {
	p       *Player
	session int
	bound   bool
}

// Conn returns a new live connection of p's.
func (p *Player) Conn() *Conn { return &Conn{p: p} }

// Answer returns the messages to send for the client's message msg: the
// recorded notifications, server requests (see [ServerRequest]) and
// response of the same request (same method and params, _meta left out;
// initialize, server/discover and ping by method alone), under the live id
// and progress token; in recorded order, then the last again. Nothing for a
// notification or a response. A request with no recording gets a JSON-RPC
// error, and miss (which the error's message holds too) says which
// recorded request is closest, for the caller to report.
func (c *Conn) Answer(msg []byte) (out [][]byte, miss string) {
	p := c.p
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if json.Unmarshal(msg, &m) != nil || m.Method == "" || len(m.ID) == 0 {
		return nil, ""
	}
	if m.Method == "server/discover" && !p.recorded("server/discover") {
		// A client that probes for 2026-07-28 first, on a session recorded
		// in the legacy era: what a legacy server answers.
		return [][]byte{errorResponse(m.ID, -32601, "Method not found")}, ""
	}
	params := m.Params
	if p.red != nil {
		params = p.red.Message(params)
	}
	x, miss := c.match(m.Method, params)
	if x == nil || x.Answer == nil {
		text := "no recorded answer for " + shown(m.Method, params)
		// The client's log is often all a person sees (serve behind an
		// IDE, or a test in another language): the error says what the
		// miss does, the closest recorded request too.
		if _, hint, ok := strings.Cut(miss, "\n"); ok {
			text += "; " + hint
		} else if miss != "" {
			text = miss
		}
		return [][]byte{errorResponse(m.ID, -32603, text)}, miss
	}
	live := progressToken(m.Params)
	for _, n := range x.Notes {
		if len(live) == 0 && len(x.token) > 0 && isProgressFor(n, x.token) {
			continue // the live request asked for no progress
		}
		out = append(out, withToken(n, x.token, live))
	}
	return append(out, withID(x.Answer, m.ID)), ""
}

func (p *Player) recorded(method string) bool {
	for _, x := range p.exchanges {
		if x.Method == method {
			return true
		}
	}
	return false
}

func (c *Conn) match(method string, params json.RawMessage) (*Exchange, string) {
	p := c.p
	k := p.key(method, params)
	p.mu.Lock()
	defer p.mu.Unlock()
	var all []*Exchange
	for _, x := range p.exchanges {
		if x.key == k {
			all = append(all, x)
		}
	}
	if len(all) == 0 {
		return nil, fmt.Sprintf("no recorded answer for the request %s\n%s", shown(method, params), p.closest(method, k))
	}
	if !c.bound {
		c.session, c.bound = all[0].session, true
		for _, x := range all {
			if !p.claimed[x.session] {
				c.session = x.session
				break
			}
		}
		p.claimed[c.session] = true
	}
	session, same := c.session, sessionOnly(all, c.session)
	if len(same) == 0 { // a request this session never made: another's answers
		session, same = all[0].session, sessionOnly(all, all[0].session)
	}
	u := usedKey{session, k}
	switch n := p.used[u]; {
	case p.opts.Once && n >= len(same):
		return nil, fmt.Sprintf("no recorded answer left for the request %s: it was recorded %d time(s), and each answer is played once", shown(method, params), len(same))
	default:
		p.used[u]++
		return same[min(n, len(same)-1)], ""
	}
}

// sessionOnly returns the exchanges of xs in session.
func sessionOnly(xs []*Exchange, session int) []*Exchange {
	var out []*Exchange
	for _, x := range xs {
		if x.session == session {
			out = append(out, x)
		}
	}
	return out
}

// closest names the recorded request most like k: of the same method, the
// one sharing the longest prefix with it.
func (p *Player) closest(method, k string) string {
	var best *Exchange
	bestLen := -1
	for _, x := range p.exchanges {
		if x.Method != method {
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
			if !seen[x.Method] {
				seen[x.Method] = true
				methods = append(methods, x.Method)
			}
		}
		return fmt.Sprintf("the cassette has no %s request at all; it has: %s", method, strings.Join(methods, ", "))
	}
	return "the closest recorded request: " + best.Shown
}

// key is what a request is matched by: its method and its params, without
// _meta and the ignored members.
func (p *Player) key(method string, params json.RawMessage) string {
	switch method {
	case "initialize", "server/discover", "ping":
		return method
	}
	var v any
	if json.Unmarshal(params, &v) == nil {
		if m, ok := v.(map[string]any); ok {
			delete(m, "_meta") // at the top only: _meta is the protocol's there
		}
		v = dropMembers(v, p.ignore)
		params, _ = json.Marshal(v) // map keys sorted: the same params, the same key
	}
	return method + " " + string(params)
}

// dropMembers removes the members named in drop from v, at any depth.
func dropMembers(v any, drop map[string]bool) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if drop[k] {
				delete(v, k)
				continue
			}
			v[k] = dropMembers(e, drop)
		}
	case []any:
		for i, e := range v {
			v[i] = dropMembers(e, drop)
		}
	}
	return v
}

// shown is a request as a person reads it: its method and params, without
// _meta, cut short.
func shown(method string, params json.RawMessage) string {
	k := (&Player{}).key(method, params)
	if len(k) > 300 {
		k = k[:300] + "..."
	}
	return k
}

func errorResponse(id json.RawMessage, code int, message string) []byte {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": message}})
	return b
}

// withID returns the response msg with its id set to id.
func withID(msg, id json.RawMessage) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(msg, &m) != nil {
		return msg
	}
	m["id"] = id
	return marshal(m, msg)
}

func marshal(v any, fallback []byte) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return fallback
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
	return marshal(m, params)
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

// Serve answers what recv returns with send, as [Conn.Answer] does, until
// recv or send fails, and returns that error; miss is told of each request
// with no recording. After a server request it waits for the client's
// response: what the client sends meanwhile is answered after it.
func (c *Conn) Serve(recv func() ([]byte, error), send func([]byte) error, miss func(string)) error {
	var backlog [][]byte
	for {
		var msg []byte
		if len(backlog) > 0 {
			msg, backlog = backlog[0], backlog[1:]
		} else {
			var err error
			if msg, err = recv(); err != nil {
				return err
			}
		}
		out, m := c.Answer(msg)
		if m != "" {
			miss(m)
		}
		for _, o := range out {
			if err := send(o); err != nil {
				return err
			}
			id, ok := ServerRequest(o)
			for ok {
				r, err := recv()
				if err != nil {
					return err
				}
				if responseTo(r, id) {
					break
				}
				backlog = append(backlog, r)
			}
		}
	}
}

// ServerRequest reports whether msg, one of the messages Answer returns, is
// a request of the server's (sampling, elicitation, roots): who sends it
// waits for the client's response to id before sending what follows.
func ServerRequest(msg []byte) (id json.RawMessage, ok bool) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(msg, &m) != nil || m.Method == "" || len(m.ID) == 0 {
		return nil, false
	}
	return m.ID, true
}

// responseTo reports whether msg is a response (a result or an error) to
// the request with id.
func responseTo(msg []byte, id json.RawMessage) bool {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	return json.Unmarshal(msg, &m) == nil && m.Method == "" && bytes.Equal(bytes.TrimSpace(m.ID), bytes.TrimSpace(id))
}

// isProgressFor reports whether n is a progress notification for token.
func isProgressFor(n, token json.RawMessage) bool {
	var m struct {
		Method string `json:"method"`
		Params struct {
			ProgressToken json.RawMessage `json:"progressToken"`
		} `json:"params"`
	}
	return json.Unmarshal(n, &m) == nil && m.Method == "notifications/progress" && bytes.Equal(m.Params.ProgressToken, token)
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
	if b, _ := json.Marshal(params["progressToken"]); !bytes.Equal(b, recorded) {
		return n
	}
	params["progressToken"] = live
	return marshal(m, n)
}
