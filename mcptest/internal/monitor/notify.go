package monitor

import (
	"fmt"
	"strconv"

	"github.com/mcptestkit/mcptestkit/internal/jsonrpc"
	"github.com/mcptestkit/mcptestkit/internal/jsonscan"
)

// serverRequest judges a JSON-RPC request the server sent.
func (m *Monitor) serverRequest(msg *jsonrpc.Message, frame []byte) {
	if m.initSent {
		m.serverRequestID(msg, frame)
	}
	if m.modern || m.initSent {
		m.judged[ruleServerRequestEra]++
	}
	if m.modern && !m.initSent {
		m.add(ruleServerRequestEra, Must, fmt.Sprintf("the server sent a %s request on a 2026-07-28 connection, where servers send no JSON-RPC "+
			"requests (ask for input with an input_required result instead)", msg.Method), frame, m.seq, nil)
		return
	}
	if !m.initSent {
		return
	}
	switch msg.Method {
	case "elicitation/create", "sampling/createMessage", "roots/list":
	default:
		return
	}
	m.judged[ruleInputCapability]++
	if problem := inputProblem(msg.Method, msg.Params, m.clientCaps); problem != "" {
		sev := Must
		if m.version != "" && m.version < "2025-06-18" {
			sev = Should // "Respect negotiated capabilities" became a MUST in 2025-06-18
		}
		m.add(ruleInputCapability, sev, problem, frame, m.seq, nil)
	}
}

// inputRequests judges the inputRequests of a 2026-07-28 input_required
// result against the capabilities r declared.
func (m *Monitor) inputRequests(r *request, reqs, frame []byte) {
	jsonscan.Object(reqs, func(key []byte, _ bool, v []byte) bool {
		m.judged[ruleInputCapability]++
		method := str(member(v, "method"))
		if problem := inputProblem(method, member(v, "params"), r.caps); problem != "" {
			m.add(ruleInputCapability, Must, fmt.Sprintf("inputRequests[%q]: %s", key, problem), frame, m.seq, r)
		}
		return true
	})
}

// inputProblem says how a request for input breaks the client's declared
// capabilities caps, or "".
func inputProblem(method string, params, caps []byte) string {
	var elicitation, sampling, roots []byte
	jsonscan.Object(caps, func(k []byte, _ bool, v []byte) bool {
		if jsonscan.IsNull(v) {
			return true
		}
		switch string(k) {
		case "elicitation":
			elicitation = v
		case "sampling":
			sampling = v
		case "roots":
			roots = v
		}
		return true
	})
	switch method {
	case "elicitation/create":
		if elicitation == nil {
			return "an elicitation/create request, but the client declared no elicitation capability"
		}
		form, url := member(elicitation, "form") != nil, member(elicitation, "url") != nil
		if mode := str(member(params, "mode")); mode == "url" {
			if !url {
				return "a URL mode elicitation/create request, but the client declared elicitation without url"
			}
		} else if url && !form {
			return "a form mode elicitation/create request, but the client declared elicitation with url only"
		}
	case "sampling/createMessage":
		if sampling == nil {
			return "a sampling/createMessage request, but the client declared no sampling capability"
		}
		if t := member(params, "tools"); t != nil && !jsonscan.IsNull(t) && member(sampling, "tools") == nil {
			return "a sampling/createMessage request with tools, but the client declared sampling without tools"
		}
	case "roots/list":
		if roots == nil {
			return "a roots/list request, but the client declared no roots capability"
		}
	}
	return ""
}

// notification judges a notification the server sent.
func (m *Monitor) notification(msg *jsonrpc.Message, frame []byte) {
	if msg.Method == "notifications/tasks/status" || msg.Method == "notifications/tasks" {
		m.taskStatus(msg.Params)
	}
	m.serverNotification(msg, frame)
	switch msg.Method {
	case "notifications/progress":
		m.progress(msg.Params, frame)
	case "notifications/message":
		m.logMessage(msg.Params, frame)
	case "notifications/tools/list_changed":
		m.listChanged(kindTools, msg.Method, frame)
	case "notifications/prompts/list_changed":
		m.listChanged(kindPrompts, msg.Method, frame)
	case "notifications/resources/list_changed":
		m.listChanged(kindResources, msg.Method, frame)
	}
}

func (m *Monitor) progress(params, frame []byte) {
	var tok, value []byte
	jsonscan.Object(params, func(k []byte, _ bool, v []byte) bool {
		switch string(k) {
		case "progressToken":
			tok = v
		case "progress":
			value = v
		}
		return true
	})
	m.judged[ruleProgressToken]++
	t := m.tokens[string(tok)]
	if t == nil {
		if !m.forgot {
			m.add(ruleProgressToken, Must, fmt.Sprintf("progress for the token %s, which no request of the client gave", tok), frame, m.seq, nil)
		}
		return
	}
	m.judged[ruleProgressAfterResponse]++
	switch {
	case t.answered && !t.task:
		m.add(ruleProgressAfterResponse, Must, fmt.Sprintf("progress for the token %s after the response to its request", tok), frame, m.seq, t.req)
	case t.ended != "":
		m.add(ruleProgressAfterResponse, Must, fmt.Sprintf("progress for the token %s after the server gave its task the terminal status %s", tok, t.ended), frame, m.seq, t.req)
	}
	p, err := strconv.ParseFloat(string(value), 64)
	if err != nil {
		return // the schema's business
	}
	m.judged[ruleProgressIncreasing]++
	if t.any && p <= t.last {
		m.add(ruleProgressIncreasing, Must, fmt.Sprintf("progress %s for the token %s after progress %s: it must increase with each notification",
			value, tok, strconv.FormatFloat(t.last, 'g', -1, 64)), frame, m.seq, t.req)
	}
	t.last, t.any = p, true
}

func (m *Monitor) logMessage(params, frame []byte) {
	level := levelIndex(member(params, "level"))
	if m.server.known {
		m.judged[ruleLogLevel]++
		if !m.server.logging {
			m.add(ruleLogLevel, Must, "a log notification, but the server did not declare the logging capability", frame, m.seq, nil)
			return
		}
	}
	if level < 0 {
		return // the schema's business
	}
	if m.modern && !m.initSent {
		// 2026-07-28: only for a request in flight that set a level, at or
		// above it.
		m.judged[ruleLogLevel]++
		lowest := -1
		for _, r := range m.pending {
			if r.logLevel >= 0 && (lowest < 0 || r.logLevel < lowest) {
				lowest = r.logLevel
			}
		}
		switch {
		case lowest < 0:
			m.add(ruleLogLevel, Must, fmt.Sprintf("a %s log notification, but no request in flight set _meta %q: the server must not log for a request that did not ask",
				logLevels[level], metaLogLevel), frame, m.seq, nil)
		case level < lowest:
			m.add(ruleLogLevel, Should, fmt.Sprintf("a %s log notification, below the lowest level a request in flight asked for (%s)",
				logLevels[level], logLevels[lowest]), frame, m.seq, nil)
		}
		return
	}
	if m.level < 0 {
		return // no level set: the server chooses
	}
	m.judged[ruleLogLevel]++
	threshold := m.level
	for _, r := range m.setLevels { // a change in flight may apply already
		if r.level >= 0 && r.level < threshold {
			threshold = r.level
		}
	}
	if level < threshold {
		m.add(ruleLogLevel, Should, fmt.Sprintf("a %s log notification after logging/setLevel set %s: the server should send only logs at that level and above",
			logLevels[level], logLevels[threshold]), frame, m.seq, nil)
	}
}

func (m *Monitor) listChanged(kind int, method string, frame []byte) {
	m.notified[kind]++
	name := kindNames[kind]
	if m.server.known {
		m.judged[ruleListChanged]++
		if !m.server.listChanged[kind] {
			m.add(ruleListChanged, Must, fmt.Sprintf("%s, but the server did not declare %s.listChanged", method, name), frame, m.seq, nil)
			return
		}
	}
	if m.modern && !m.initSent {
		m.judged[ruleListChanged]++
		for _, r := range m.listens {
			if r.listen[kind] {
				return
			}
		}
		m.add(ruleListChanged, Must, fmt.Sprintf("%s, but no subscriptions/listen in flight asked for %sListChanged", method, name), frame, m.seq, nil)
	}
}
