package monitor

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/mcptestkit/mcptestkit/internal/jsonrpc"
)

// Finding is a rule a server broke, with the messages that show it.
type Finding struct {
	Rule     Rule
	Severity Severity // the rule's, or weaker (Should for a SHOULD part of a MUST rule)
	// Detail says what the server did, in a sentence.
	Detail string
	// Message is the offending message, as received ("" when the finding
	// is about something that never came); Request the request it relates
	// to, as sent ("" when none). Both are cut to a readable length.
	Message, Request string
	// Seq and RequestSeq number them among the connection's messages
	// (from 1, both directions, in the order the monitor saw them).
	Seq, RequestSeq int
}

// String renders f as a test failure prints it: rule, severity, citation,
// what happened and the messages.
func (f Finding) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s, %s): %s", f.Rule.ID, f.Severity, f.Rule.Citation, f.Detail)
	if f.Request != "" {
		fmt.Fprintf(&b, "\n\t→ #%d %s", f.RequestSeq, f.Request)
	}
	if f.Message != "" {
		fmt.Fprintf(&b, "\n\t← #%d %s", f.Seq, f.Message)
	}
	return b.String()
}

// maxFindings bounds the findings kept per rule: a server that breaks a
// rule on every message says so in the first few.
const maxFindings = 5

// maxTracked bounds the answered ids, tokens and listings a long session
// (a fuzzer's) keeps; once it forgets, the rules that would need what it
// forgot stop judging rather than guess.
const maxTracked = 1 << 16

// Monitor is the rule engine of one connection: it is fed every message in
// both directions, in order, and keeps what it knows of the session. It
// sends nothing. Its methods are safe for concurrent use.
type Monitor struct {
	mu  sync.Mutex
	seq int

	// The session.
	initSent   bool   // an initialize request went out: a legacy session
	modern     bool   // a 2026-07-28 request went out before any initialize
	version    string // the version initialize agreed on
	clientCaps []byte // initialize's capabilities (legacy)
	server     serverCaps
	level      int // the legacy log level set (-1: none)
	setLevels  []*request

	pending    map[string]*request // by idKey, the client's requests in flight
	answered   map[string]bool     // idKeys answered
	recent     [64]*request        // the requests answered last, to show a second response's
	next       int
	forgot     bool                // answered was reset: an unknown id is not judged
	unreadable int                 // client messages whose id could not be read
	tokens     map[string]*token   // by the token's JSON
	cancelled  []*request          // cancelled and not yet answered
	listens    []*request          // 2026-07-28 subscriptions/listen in flight
	chains     map[string]*chain   // by method and cursor given
	listed     map[string]string   // by method, the identities of the last complete listing
	listAt     map[string]int      // by method, the notification count when it was asked for
	listCover  map[string]*request // by method, the listen stream for its kind open when it was asked for (2026-07-28)
	notified   [3]int              // list_changed notifications by kind
	unnotified []changeCandidate
	more       more

	findings []Finding
	count    [numRules]int // findings by rule, kept or not
	judged   [numRules]int // events each rule judged
}

// New returns a Monitor for a new connection.
func New() *Monitor {
	return &Monitor{level: -1, pending: map[string]*request{}}
}

// Findings returns what the monitor found so far, in the order found, at
// most a few per rule.
func (m *Monitor) Findings() []Finding {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.settle()
	return append([]Finding(nil), m.findings...)
}

// Count returns how many findings rule id had (kept or not) and how many
// events it judged: a rule that judged nothing saw no evidence either way.
func (m *Monitor) Count(id string) (findings, judged int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.settle()
	for i, r := range rules {
		if r.ID == id {
			return m.count[i], m.judged[i]
		}
	}
	return 0, 0
}

// settle turns the list changes no notification has announced since into
// findings: judged once the evidence is all in, so the order in which a
// notification and a listing cross on the wire does not matter.
func (m *Monitor) settle() {
	for _, c := range m.unnotified {
		if m.notified[c.kind] == c.notified {
			m.add(ruleListChanged, Should, c.detail, c.msg, c.seq, c.req)
		}
	}
	m.unnotified = nil
}

// Observe feeds the monitor one message: fromServer says its direction.
// data is read, not kept.
func (m *Monitor) Observe(fromServer bool, data []byte) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.seq++
	if fromServer {
		m.fromServer(data)
	} else {
		m.fromClient(data)
	}
}

func (m *Monitor) add(rule int, sev Severity, detail string, msg []byte, seq int, req *request) {
	m.count[rule]++
	if m.count[rule] > maxFindings {
		return
	}
	f := Finding{Rule: rules[rule], Severity: sev, Detail: detail, Seq: seq}
	if msg != nil {
		f.Message = clip(msg)
	}
	if req != nil {
		f.Request, f.RequestSeq = clip(req.frame), req.seq
	}
	m.findings = append(m.findings, f)
}

// clip returns data as text, cut to a readable length.
func clip(data []byte) string {
	const max = 600
	if len(data) <= max {
		return string(data)
	}
	return string(data[:max*3/4]) + fmt.Sprintf(" …(%d bytes cut)… ", len(data)-max) + string(data[len(data)-max/4:])
}

// idKey is the key of an id among the requests: its JSON type and value,
// so a string "1" and a number 1 differ.
func idKey(id jsonrpc.ID) string { return id.String() }

// otherType returns the key of the same id in the other JSON type ("5"
// for 5, 5 for "5"), or "".
func otherType(key string) string {
	if strings.HasPrefix(key, `"`) {
		s := strings.Trim(key, `"`)
		if s != "" && strings.Trim(s, "-0123456789") == "" {
			return s
		}
		return ""
	}
	return `"` + key + `"`
}

// sortedJoin joins the identities of a listing in order.
func sortedJoin(ids []string) string {
	sort.Strings(ids)
	return strings.Join(ids, "\x00")
}
