package monitor

import (
	"fmt"
	"strings"

	"github.com/mcptestkit/mcptestkit/internal/jsonrpc"
	"github.com/mcptestkit/mcptestkit/internal/jsonscan"
)

// The rules of this file read what every message carries (its _meta keys,
// its error code) and what 2026-07-28 adds to the session (subscriptions,
// serverInfo, cacheScope).

// more is the session state of the rules of this file.
type more struct {
	serverIDs map[string]bool   // the ids of the server's own requests (legacy)
	acked     map[*request]bool // subscriptions/listen acknowledged
	order     map[string]string // by method, the last complete listing in the order given
	taskTok   map[string]*token // by task id, the progress token of the call that created it
}

const (
	metaServerInfo     = "io.modelcontextprotocol/serverInfo"
	metaSubscriptionID = "io.modelcontextprotocol/subscriptionId"
)

// metaKeys judges the keys of every _meta object in a message the server
// sent, and the extension identifiers a capabilities object declares. It
// skips the members whose values are the server's or a tool's own data
// (schemas, structured content, arguments, log and error data), where a
// member named _meta is not MCP's.
func (m *Monitor) metaKeys(v, frame []byte, depth int, inCaps bool) {
	if depth > 32 || len(v) == 0 || v[0] != '{' && v[0] != '[' {
		return
	}
	if v[0] == '[' {
		jsonscan.Array(v, func(e []byte) bool { m.metaKeys(e, frame, depth+1, false); return true })
		return
	}
	jsonscan.Object(v, func(k []byte, _ bool, val []byte) bool {
		switch string(k) {
		case "_meta":
			m.judgeKeys(val, frame, "_meta key", false)
		case "inputSchema", "outputSchema", "requestedSchema", "structuredContent", "arguments", "data", "experimental", "requestState":
		case "extensions":
			if inCaps {
				m.judgeKeys(val, frame, "extension identifier", true)
			} else {
				m.metaKeys(val, frame, depth+1, false)
			}
		default:
			m.metaKeys(val, frame, depth+1, string(k) == "capabilities")
		}
		return true
	})
}

func (m *Monitor) judgeKeys(obj, frame []byte, what string, needPrefix bool) {
	jsonscan.Object(obj, func(k []byte, escaped bool, _ []byte) bool {
		m.judged[ruleMetaKey]++
		key := string(k)
		if escaped {
			key, _ = jsonscan.String([]byte(`"` + key + `"`))
		}
		if p := metaKeyProblem(key, needPrefix); p != "" {
			m.add(ruleMetaKey, Must, fmt.Sprintf("the %s %q: %s", what, key, p), frame, m.seq, nil)
		}
		return true
	})
}

// metaKeyProblem says how key breaks the _meta key naming rules, or "": an
// optional prefix of dot-separated labels (each a letter first, a letter or
// digit last, letters, digits and hyphens between) ending in a slash, then a
// name that, unless empty, begins and ends with a letter or digit.
func metaKeyProblem(key string, needPrefix bool) string {
	prefix, name, slash := strings.Cut(key, "/")
	if !slash {
		prefix, name = "", key
		if needPrefix {
			return "no prefix (an extension identifier's prefix, labels separated by dots and a slash, is mandatory)"
		}
	}
	if slash {
		for _, l := range strings.Split(prefix, ".") {
			switch {
			case l == "":
				return "its prefix has an empty label (labels are separated by single dots, and the prefix ends in a slash)"
			case !isLetter(l[0]):
				return fmt.Sprintf("the prefix label %q does not start with a letter", l)
			case !isLetter(l[len(l)-1]) && !isDigit(l[len(l)-1]):
				return fmt.Sprintf("the prefix label %q does not end with a letter or digit", l)
			}
			for i := 1; i < len(l)-1; i++ {
				if c := l[i]; !isLetter(c) && !isDigit(c) && c != '-' {
					return fmt.Sprintf("the prefix label %q holds %q (only letters, digits and hyphens)", l, c)
				}
			}
		}
	}
	if name != "" && (!isAlnum(name[0]) || !isAlnum(name[len(name)-1])) {
		return fmt.Sprintf("the name %q does not begin and end with a letter or digit", name)
	}
	return ""
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool  { return '0' <= c && c <= '9' }
func isAlnum(c byte) bool  { return isLetter(c) || isDigit(c) }

// serverRequestID judges the id of a request the server sent: never one
// it used before in the session.
func (m *Monitor) serverRequestID(msg *jsonrpc.Message, frame []byte) {
	if m.more.serverIDs == nil || len(m.more.serverIDs) >= maxTracked {
		if m.more.serverIDs != nil {
			return // forgotten: a reuse could not be told
		}
		m.more.serverIDs = map[string]bool{}
	}
	key := idKey(msg.ID)
	m.judged[ruleServerRequestID]++
	if m.more.serverIDs[key] {
		m.add(ruleServerRequestID, Must, fmt.Sprintf("a %s request with the id %s, which an earlier request of the server in this session carried", msg.Method, key), frame, m.seq, nil)
	}
	m.more.serverIDs[key] = true
}

// judgeAnswer judges what every response to r carries: its error code, and
// at 2026-07-28 its serverInfo and a listing's cacheScope; and the
// extension identifiers of the capabilities it declares.
func (m *Monitor) judgeAnswer(r *request, msg *jsonrpc.Message, frame []byte) {
	if e := msg.Error; e != nil && r.modern {
		m.judged[ruleErrorCode]++
		switch c := e.Code; {
		case c == -32042:
			m.add(ruleErrorCode, Must, fmt.Sprintf("error -32042 (URL elicitation required, 2025-11-25 only) to %s, a 2026-07-28 request, where the code is retired", r.method), frame, m.seq, r)
		case c <= -32020 && c >= -32099 && c != -32020 && c != -32021 && c != -32022:
			m.add(ruleErrorCode, Must, fmt.Sprintf("error %d to %s: a code of the range -32020..-32099 the specification reserves and does not define "+
				"(it defines -32020, -32021 and -32022)", c, r.method), frame, m.seq, r)
		}
	}
	res := msg.Result
	if res == nil {
		return
	}
	if r.modern && r.method != "subscriptions/listen" {
		m.judged[ruleServerInfo]++
		if member(member(res, "_meta"), metaServerInfo) == nil {
			m.add(ruleServerInfo, Should, fmt.Sprintf("the result to %s has no _meta %q: a 2026-07-28 server should identify itself in every result", r.method, metaServerInfo), frame, m.seq, r)
		}
	}
	if c := r.chain; c != nil && r.modern {
		scope, ok := jsonscan.String(member(res, "cacheScope"))
		if ok {
			m.judged[ruleCacheScope]++
			if c.scope != "" && c.scope != scope {
				m.add(ruleCacheScope, Must, fmt.Sprintf("a page of %s with cacheScope %q after an earlier page of the same listing had %q", r.method, scope, c.scope), frame, m.seq, r)
			}
			if c.scope == "" {
				c.scope = scope
			}
		}
	}
	if r.method == "tools/call" {
		m.toolResult(r, res, frame)
	}
	if task := member(res, "task"); r.token != nil && task != nil {
		if id, ok := jsonscan.String(member(task, "taskId")); ok {
			if m.more.taskTok == nil || len(m.more.taskTok) >= maxTracked {
				m.more.taskTok = map[string]*token{}
			}
			m.more.taskTok[id] = r.token
		}
	}
	if r.method == "tasks/get" || r.method == "tasks/cancel" {
		m.taskStatus(res)
	}
}

// toolResult judges a tools/call result's content: embedded resources
// from a server that declared resources, and (before 2026-07-28, where it
// is a SHOULD) a text block beside structuredContent.
func (m *Monitor) toolResult(r *request, res, frame []byte) {
	content := member(res, "content")
	text, embedded := false, false
	jsonscan.Array(content, func(v []byte) bool {
		switch str(member(v, "type")) {
		case "text":
			text = true
		case "resource":
			embedded = true
		}
		return true
	})
	if embedded && m.server.known {
		m.judged[ruleEmbeddedResource]++
		if !m.server.resources {
			m.add(ruleEmbeddedResource, Should, "a tool result embeds a resource, but the server did not declare the resources capability", frame, m.seq, r)
		}
	}
	if sc := member(res, "structuredContent"); sc != nil && !jsonscan.IsNull(sc) && !r.modern {
		if b, _ := jsonscan.Bool(member(res, "isError")); b {
			return
		}
		m.judged[ruleStructuredText]++
		if !text {
			m.add(ruleStructuredText, Should, "a tool result with structuredContent and no text block: it should also carry the serialized JSON as text, for clients that read only content", frame, m.seq, r)
		}
	}
}

// serverNotification judges the 2026-07-28 subscription rules and the
// server's own notifications/cancelled.
func (m *Monitor) serverNotification(msg *jsonrpc.Message, frame []byte) {
	if !m.modern || m.initSent {
		return
	}
	sub := member(member(msg.Params, "_meta"), metaSubscriptionID)
	var listen *request
	if sub != nil {
		var id jsonrpc.ID
		if id.UnmarshalJSON(sub) == nil {
			for _, r := range m.listens {
				if r.id == idKey(id) {
					listen = r
				}
			}
		}
	}
	switch msg.Method {
	case "notifications/cancelled":
		m.judged[ruleServerCancelled]++
		var id jsonrpc.ID
		if id.UnmarshalJSON(member(msg.Params, "requestId")) == nil {
			for _, r := range m.listens {
				if r.id == idKey(id) {
					return
				}
			}
			if r := m.pending[idKey(id)]; r != nil {
				m.add(ruleServerCancelled, Must, fmt.Sprintf("the server sent notifications/cancelled for the client's %s request: a 2026-07-28 server cancels only a subscriptions/listen, to end it", r.method), frame, m.seq, r)
				return
			}
		}
		m.add(ruleServerCancelled, Must, "the server sent notifications/cancelled that names no subscriptions/listen in flight: a 2026-07-28 server sends it only to end one", frame, m.seq, nil)
		return
	case "notifications/subscriptions/acknowledged":
		if listen != nil {
			m.judged[ruleSubscription]++
			if m.more.acked == nil {
				m.more.acked = map[*request]bool{}
			}
			m.more.acked[listen] = true
		}
		return
	case "notifications/message", "notifications/progress":
		m.judged[ruleSubscription]++
		if sub != nil {
			m.add(ruleSubscription, Must, fmt.Sprintf("%s carries _meta %q: it is request-scoped and never goes on a subscriptions/listen stream", msg.Method, metaSubscriptionID), frame, m.seq, nil)
		}
		return
	}
	if listen != nil && !m.more.acked[listen] {
		m.judged[ruleSubscription]++
		m.add(ruleSubscription, Must, fmt.Sprintf("%s on subscription %s before notifications/subscriptions/acknowledged: the acknowledgement is the first message of a subscription", msg.Method, sub), frame, m.seq, listen)
		return
	}
	kind := -1
	switch msg.Method {
	case "notifications/tools/list_changed":
		kind = kindTools
	case "notifications/prompts/list_changed":
		kind = kindPrompts
	case "notifications/resources/list_changed":
		kind = kindResources
	case "notifications/resources/updated":
	default:
		return
	}
	m.judged[ruleSubscription]++
	switch {
	case sub == nil:
		m.add(ruleSubscription, Must, fmt.Sprintf("%s without _meta %q: at 2026-07-28 it comes only on a subscriptions/listen stream, and every notification there names its subscription",
			msg.Method, metaSubscriptionID), frame, m.seq, nil)
	case listen == nil:
		// A subscription that ended may cross its last notification.
	case kind >= 0 && !listen.listen[kind]:
		m.add(ruleSubscription, Must, fmt.Sprintf("%s on subscription %s, which did not ask for %sListChanged", msg.Method, sub, kindNames[kind]), frame, m.seq, listen)
	case kind < 0 && !hasItems(member(member(jsonrpcParams(listen.frame), "notifications"), "resourceSubscriptions")):
		m.add(ruleSubscription, Must, fmt.Sprintf("%s on subscription %s, which subscribed to no resource", msg.Method, sub), frame, m.seq, listen)
	}
}

func jsonrpcParams(frame []byte) []byte { return member(frame, "params") }

func hasItems(arr []byte) bool {
	n := 0
	jsonscan.Array(arr, func([]byte) bool { n++; return false })
	return n > 0
}

// taskStatus notes a task the server said has reached a terminal status:
// progress for it must stop.
func (m *Monitor) taskStatus(task []byte) {
	id, _ := jsonscan.String(member(task, "taskId"))
	t := m.more.taskTok[id]
	if t == nil {
		return
	}
	switch str(member(task, "status")) {
	case "completed", "failed", "cancelled":
		t.ended = str(member(task, "status"))
	}
}
