package monitor

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/mcptestkit/mcptestkit/internal/jsonrpc"
	"github.com/mcptestkit/mcptestkit/internal/jsonscan"
)

// request is what the monitor keeps of a request of the client in flight.
type request struct {
	seq    int
	method string
	id     string // idKey
	frame  []byte // as sent (the client does not touch it after Send)
	modern bool   // its _meta names a version from 2026-07-28 on
	caps   []byte // its _meta clientCapabilities (2026-07-28)
	// logLevel is the level its _meta asked for (2026-07-28), -1 none.
	logLevel int
	level    int    // logging/setLevel's level
	uri      string // resources/read's
	token    *token
	chain    *chain  // a listing's
	listen   [3]bool // subscriptions/listen: the list kinds asked for
	cancel   int     // the seq of its notifications/cancelled, 0 none
	acked    bool    // a later request was answered after the cancellation
	answered bool
}

// token is a progress token a request gave.
type token struct {
	req      *request
	last     float64
	any      bool   // a progress value came
	answered bool   // its request has its response
	task     bool   // the response created a task: the token lives on
	ended    string // the terminal status the server gave the task, "" none yet
}

// chain is one listing: its pages, followed by the cursors the server gave.
type chain struct {
	method   string
	ids      []string
	given    map[string]bool
	notified int    // list_changed notifications of its kind when it began
	scope    string // the cacheScope of its first page (2026-07-28)
}

// changeCandidate is a listing that differs from the one before it; a
// finding unless a list_changed notification came after the earlier one
// began.
type changeCandidate struct {
	kind     int
	notified int
	detail   string
	msg      []byte
	seq      int
	req      *request
}

type serverCaps struct {
	known       bool
	listChanged [3]bool
	logging     bool
	resources   bool
}

// The list kinds, as their capabilities and notifications name them.
const (
	kindTools = iota
	kindPrompts
	kindResources
)

var kindNames = [3]string{"tools", "prompts", "resources"}

type listMethod struct {
	kind        int
	items, name string
}

var listMethods = map[string]listMethod{
	"tools/list":               {kindTools, "tools", "name"},
	"prompts/list":             {kindPrompts, "prompts", "name"},
	"resources/list":           {kindResources, "resources", "uri"},
	"resources/templates/list": {kindResources, "resourceTemplates", "uriTemplate"},
}

var logLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

func levelIndex(v []byte) int {
	s, _ := jsonscan.String(v)
	for i, l := range logLevels {
		if l == s {
			return i
		}
	}
	return -1
}

const (
	metaVersion  = "io.modelcontextprotocol/protocolVersion"
	metaLogLevel = "io.modelcontextprotocol/logLevel"
	metaCaps     = "io.modelcontextprotocol/clientCapabilities"
	extTasks     = "io.modelcontextprotocol/tasks"
	modernFrom   = "2026-07-28"
)

// member returns the value of obj's member key, or nil.
func member(obj []byte, key string) []byte {
	var out []byte
	jsonscan.Object(obj, func(k []byte, _ bool, v []byte) bool {
		if string(k) == key {
			out = v
			return false
		}
		return true
	})
	return out
}

func str(v []byte) string { s, _ := jsonscan.String(v); return s }

func (m *Monitor) fromClient(data []byte) {
	msg, err := jsonrpc.Decode(data)
	if err != nil {
		m.unreadable++
		return
	}
	switch {
	case msg.IsRequest():
		m.clientRequest(msg, data)
	case msg.Method == "notifications/cancelled":
		var id jsonrpc.ID
		if id.UnmarshalJSON(member(msg.Params, "requestId")) != nil {
			return
		}
		if r := m.pending[idKey(id)]; r != nil && r.cancel == 0 {
			r.cancel = m.seq
			m.cancelled = append(m.cancelled, r)
		}
	}
}

func (m *Monitor) clientRequest(msg *jsonrpc.Message, data []byte) {
	r := &request{seq: m.seq, method: msg.Method, id: idKey(msg.ID), frame: data, logLevel: -1}
	var meta, cursor []byte
	hasCursor := false
	jsonscan.Object(msg.Params, func(k []byte, _ bool, v []byte) bool {
		switch string(k) {
		case "_meta":
			meta = v
		case "cursor":
			cursor, hasCursor = v, !jsonscan.IsNull(v)
		case "uri":
			r.uri = str(v)
		case "level":
			r.level = levelIndex(v)
		case "capabilities":
			if msg.Method == "initialize" {
				m.clientCaps = append([]byte(nil), v...)
			}
		case "notifications":
			if msg.Method == "subscriptions/listen" {
				for i, f := range [3]string{"toolsListChanged", "promptsListChanged", "resourcesListChanged"} {
					b, _ := jsonscan.Bool(member(v, f))
					r.listen[i] = b
				}
			}
		}
		return true
	})
	var tok []byte
	jsonscan.Object(meta, func(k []byte, _ bool, v []byte) bool {
		switch string(k) {
		case "progressToken":
			tok = v
		case metaVersion:
			r.modern = str(v) >= modernFrom
		case metaLogLevel:
			r.logLevel = levelIndex(v)
		case metaCaps:
			r.caps = append([]byte(nil), v...)
		}
		return true
	})
	switch {
	case msg.Method == "initialize":
		m.initSent, m.modern = true, false
	case r.modern && !m.initSent:
		m.modern = true
	}
	if len(tok) > 0 && !jsonscan.IsNull(tok) {
		if m.tokens == nil || len(m.tokens) >= maxTracked {
			m.forgot = m.forgot || m.tokens != nil
			m.tokens = map[string]*token{}
		}
		r.token = &token{req: r}
		m.tokens[string(tok)] = r.token
	}
	if lm, ok := listMethods[msg.Method]; ok {
		if !hasCursor {
			r.chain = &chain{method: msg.Method, given: map[string]bool{}, notified: m.notified[lm.kind]}
		} else if s, ok := jsonscan.String(cursor); ok {
			r.chain = m.chains[msg.Method+"\x00"+s] // nil: a cursor the server never gave
		}
	}
	switch msg.Method {
	case "logging/setLevel":
		m.setLevels = append(m.setLevels, r)
	case "subscriptions/listen":
		m.listens = append(m.listens, r)
	}
	if len(m.pending) >= maxTracked {
		m.pending, m.forgot = map[string]*request{}, true
	}
	m.pending[r.id] = r
}

func (m *Monitor) fromServer(data []byte) {
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '[' && m.version == "2025-03-26" {
		// The one version with batches: each element is a message.
		if jsonscan.Array(t, func(v []byte) bool { m.serverMessage(v, data); return true }) {
			return
		}
	}
	m.serverMessage(data, data)
}

func (m *Monitor) serverMessage(data, frame []byte) {
	m.judged[ruleJSONRPC]++
	msg, err := jsonrpc.Decode(data)
	if err != nil {
		m.add(ruleJSONRPC, Must, "not a JSON-RPC 2.0 message: "+strings.TrimPrefix(err.Error(), "jsonrpc: "), frame, m.seq, nil)
		return
	}
	if msg.IsResponse() && msg.Result != nil && msg.Error != nil {
		m.add(ruleJSONRPC, Must, `a response with both "result" and "error"`, frame, m.seq, nil)
		return
	}
	m.metaKeys(data, frame, 0, false)
	switch {
	case msg.IsResponse():
		m.response(msg, frame)
	case msg.IsRequest():
		m.serverRequest(msg, frame)
	default:
		m.notification(msg, frame)
	}
}

func (m *Monitor) response(msg *jsonrpc.Message, frame []byte) {
	key := idKey(msg.ID)
	m.judged[ruleIDEcho]++
	if key == "null" {
		if msg.Error == nil {
			m.add(ruleIDEcho, Must, "a success response with id null", frame, m.seq, nil)
		} else if m.unreadable == 0 {
			m.add(ruleIDEcho, Must, "an error response with id null, but every message the client sent had a readable id "+
				"(null is only for a request whose id could not be read)", frame, m.seq, nil)
		}
		return
	}
	m.judged[ruleOneResponse]++
	r := m.pending[key]
	if r == nil {
		if alt := otherType(key); alt != "" {
			if r = m.pending[alt]; r != nil {
				m.add(ruleIDEcho, Must, fmt.Sprintf("the response to %s (id %s, a %s) carries the id %s, a %s: the same id, of another JSON type",
					r.method, alt, idType(alt), key, idType(key)), frame, m.seq, r)
			} else if m.answered[alt] {
				m.add(ruleIDEcho, Must, fmt.Sprintf("a response with id %s (a %s), which no request carries; a request had the id %s (a %s), answered already",
					key, idType(key), alt, idType(alt)), frame, m.seq, nil)
				return
			}
		}
	}
	if r == nil {
		switch {
		case m.answered[key]:
			m.add(ruleOneResponse, Must, fmt.Sprintf("a second response to the request with id %s, answered already", key), frame, m.seq, m.recentRequest(key))
		case !m.forgot:
			m.add(ruleOneResponse, Must, fmt.Sprintf("a response with id %s, which no request of the client carries", key), frame, m.seq, nil)
		}
		return
	}
	delete(m.pending, r.id)
	if m.answered == nil || len(m.answered) >= maxTracked {
		m.forgot = m.forgot || m.answered != nil
		m.answered = map[string]bool{}
	}
	m.answered[r.id] = true
	r.answered = true
	m.recent[m.next%len(m.recent)] = r
	m.next++
	m.answer(r, msg, frame)
}

func idType(key string) string {
	if strings.HasPrefix(key, `"`) {
		return "string"
	}
	return "number"
}

// answer updates the session with the response to r and judges it.
func (m *Monitor) answer(r *request, msg *jsonrpc.Message, frame []byte) {
	// Cancellation: a response to a request sent after a cancellation shows
	// the server has read past it.
	if len(m.cancelled) > 0 {
		if r.cancel > 0 {
			m.judged[ruleCancelled]++
			if r.acked {
				m.add(ruleCancelled, Should, fmt.Sprintf("a response to %s after its notifications/cancelled (message #%d), though the server had "+
					"answered a request sent after the cancellation: it had read it", r.method, r.cancel), frame, m.seq, r)
			}
		}
		kept := m.cancelled[:0]
		for _, c := range m.cancelled {
			if c == r {
				continue
			}
			if r.seq > c.cancel {
				c.acked = true
			}
			kept = append(kept, c)
		}
		m.cancelled = kept
	}
	if r.method == "logging/setLevel" || r.method == "subscriptions/listen" {
		m.setLevels = remove(m.setLevels, r)
		m.listens = remove(m.listens, r)
	}
	m.judgeAnswer(r, msg, frame)
	res := msg.Result
	if r.token != nil {
		r.token.answered = true
		r.token.task = res != nil && member(res, "task") != nil
	}
	lm, isList := listMethods[r.method]
	if res == nil || !r.modern && !isList && r.method != "initialize" && r.method != "server/discover" &&
		r.method != "logging/setLevel" && r.method != "resources/read" {
		return // nothing in the result that a rule reads
	}
	var resultType, caps, items, next, contents []byte
	hasNext := false
	jsonscan.Object(res, func(k []byte, _ bool, v []byte) bool {
		switch string(k) {
		case "resultType":
			resultType = v
		case "capabilities":
			caps = v
		case "protocolVersion":
			if r.method == "initialize" {
				m.version = str(v)
			}
		case "nextCursor":
			next, hasNext = v, !jsonscan.IsNull(v)
		case "contents":
			contents = v
		default:
			if isList && string(k) == lm.items {
				items = v
			}
		}
		return true
	})
	if r.modern {
		m.judged[ruleResultType]++
		if resultType == nil {
			m.add(ruleResultType, Must, fmt.Sprintf("the result to %s, a 2026-07-28 request, has no resultType", r.method), frame, m.seq, r)
		} else if str(resultType) == "input_required" {
			m.inputRequests(r, member(res, "inputRequests"), frame)
		}
		if r.method == "tools/call" {
			m.judged[ruleTaskExtension]++
			if str(resultType) == "task" && member(member(r.caps, "extensions"), extTasks) == nil {
				m.add(ruleTaskExtension, Must, fmt.Sprintf("a CreateTaskResult (task %s) to %s, whose request did not declare the %s extension",
					member(res, "taskId"), r.method, extTasks), frame, m.seq, r)
			}
		}
	}
	switch r.method {
	case "initialize", "server/discover":
		if caps != nil {
			m.server = parseServerCaps(caps)
		}
	case "logging/setLevel":
		if r.level >= 0 {
			m.level = r.level
		}
	case "resources/read":
		m.readURI(r, contents, frame)
	case "resources/list":
		m.resourceURIs(r, res, frame)
	case "tools/list":
		m.headerAnnotations(r, res, frame)
	}
	if isList && r.chain != nil {
		m.listing(r, lm, items, next, hasNext, frame)
	}
}

func remove(rs []*request, r *request) []*request {
	for i, x := range rs {
		if x == r {
			return append(rs[:i], rs[i+1:]...)
		}
	}
	return rs
}

func parseServerCaps(caps []byte) serverCaps {
	s := serverCaps{known: true}
	jsonscan.Object(caps, func(k []byte, _ bool, v []byte) bool {
		switch string(k) {
		case "logging":
			s.logging = !jsonscan.IsNull(v)
		case "tools", "prompts", "resources":
			s.resources = s.resources || string(k) == "resources" && !jsonscan.IsNull(v)
			b, _ := jsonscan.Bool(member(v, "listChanged"))
			for i, n := range kindNames {
				if n == string(k) {
					s.listChanged[i] = b
				}
			}
		}
		return true
	})
	return s
}

// listing judges one page of a listing: its cursor, and once the listing
// is complete, whether it changed unannounced since the last one.
func (m *Monitor) listing(r *request, lm listMethod, items, next []byte, hasNext bool, frame []byte) {
	c := r.chain
	jsonscan.Array(items, func(v []byte) bool {
		c.ids = append(c.ids, str(member(v, lm.name)))
		return true
	})
	if hasNext {
		m.judged[ruleCursor]++
		s, _ := jsonscan.String(next)
		if c.given[s] {
			m.add(ruleCursor, Should, fmt.Sprintf("%s gave the nextCursor %s a second time in one listing: following the cursors never ends", r.method, next), frame, m.seq, r)
			return
		}
		c.given[s] = true
		if m.chains == nil || len(m.chains) >= maxTracked {
			m.chains = map[string]*chain{}
		}
		m.chains[r.method+"\x00"+s] = c
		return
	}
	m.listOrder(r, c.ids, frame)
	got := sortedJoin(c.ids)
	if m.listed == nil {
		m.listed, m.listAt = map[string]string{}, map[string]int{}
	}
	prev, ok := m.listed[r.method]
	// At 2026-07-28 a change is announced only on a subscriptions/listen
	// stream that asked for it: judged when one and the same such stream was
	// open at both listings, so none of the change can have fallen outside it.
	cover := m.listenFor(lm.kind)
	if ok && m.server.listChanged[lm.kind] && (!m.modern || cover != nil && cover == m.listCover[r.method]) {
		m.judged[ruleListChanged]++
		if prev != got {
			where := ""
			if m.modern {
				where = fmt.Sprintf(" on the subscriptions/listen stream that asked for %sListChanged", kindNames[lm.kind])
			}
			m.unnotified = append(m.unnotified, changeCandidate{kind: lm.kind, notified: m.listAt[r.method],
				detail: fmt.Sprintf("%s changed since the last listing (%s), and the server, which declared %s.listChanged, sent no notifications/%s/list_changed%s",
					r.method, describeChange(prev, got), kindNames[lm.kind], kindNames[lm.kind], where),
				msg: append([]byte(nil), frame...), seq: m.seq, req: r})
		}
	}
	if m.listCover == nil {
		m.listCover = map[string]*request{}
	}
	m.listed[r.method], m.listAt[r.method], m.listCover[r.method] = got, c.notified, cover
}

// listenFor returns the oldest 2026-07-28 subscriptions/listen in flight
// that asked for list changes of kind, or nil.
func (m *Monitor) listenFor(kind int) *request {
	for _, r := range m.listens {
		if r.listen[kind] {
			return r
		}
	}
	return nil
}

func describeChange(prev, got string) string {
	was, is := map[string]bool{}, map[string]bool{}
	for _, s := range strings.Split(prev, "\x00") {
		was[s] = true
	}
	var added, gone []string
	for _, s := range strings.Split(got, "\x00") {
		is[s] = true
		if !was[s] {
			added = append(added, strconv.Quote(s))
		}
	}
	for s := range was {
		if !is[s] {
			gone = append(gone, strconv.Quote(s))
		}
	}
	var parts []string
	if len(added) > 0 {
		parts = append(parts, "new: "+strings.Join(added, ", "))
	}
	if len(gone) > 0 {
		parts = append(parts, "gone: "+strings.Join(gone, ", "))
	}
	if parts == nil {
		return "the same names, listed differently"
	}
	return strings.Join(parts, "; ")
}

// readURI judges the contents of a resources/read result against the URI
// asked for.
func (m *Monitor) readURI(r *request, contents, frame []byte) {
	if r.uri == "" {
		return
	}
	var uris []string
	jsonscan.Array(contents, func(v []byte) bool {
		uris = append(uris, str(member(v, "uri")))
		return true
	})
	if len(uris) == 0 {
		return
	}
	m.judged[ruleResourceURI]++
	for _, u := range uris {
		if u == r.uri || strings.HasPrefix(u, strings.TrimSuffix(r.uri, "/")+"/") || strings.HasPrefix(u, r.uri+"#") {
			return
		}
	}
	m.add(ruleResourceURI, Should, fmt.Sprintf("resources/read of %q answered contents of %s: neither that resource nor a sub-resource of it",
		r.uri, quoteAll(uris)), frame, m.seq, r)
}

func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, ", ")
}

// recentRequest returns the request with idKey key among those answered
// last, or nil.
func (m *Monitor) recentRequest(key string) *request {
	for _, r := range m.recent {
		if r != nil && r.id == key {
			return r
		}
	}
	return nil
}
