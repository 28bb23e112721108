package servercheck

import (
	"fmt"
	"strings"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/mcptest/internal/monitor"
)

// monitorRow is the table's row of the protocol monitor: one check per
// rule, judged on every message of every connection the checks made
// before it (see [monitor.Rules]).
func monitorRow() family {
	var ids []string
	for _, r := range monitor.Rules() {
		ids = append(ids, r.ID)
	}
	return family{name: "monitor/<rule>", level: Fail, spec: "the section each rule cites",
		doc: `the protocol monitor's rules, judged on every message of every connection the checks made before them: ` +
			strings.Join(ids, ", ") + `. A rule that saw nothing it judges is skipped`,
		warns: "a SHOULD rule (" + strings.Join(shouldRules(), ", ") + ") or the SHOULD part of a MUST rule (a log below the level set, an unannounced list change)",
		items: func(s *suite) []item {
			var out []item
			for _, r := range monitor.Rules() {
				out = append(out, item{strings.TrimPrefix(r.ID, "monitor/"), func(c *state) { c.monitorRule(r) }})
			}
			return out
		}}
}

func shouldRules() []string {
	var out []string
	for _, r := range monitor.Rules() {
		if r.Severity == monitor.Should {
			out = append(out, r.ID)
		}
	}
	return out
}

// watch returns tr with a monitor of its own, kept for the monitor's
// checks.
func (s *suite) watch(tr client.Transport) (client.Transport, *monitor.Monitor) {
	m := monitor.New()
	s.mu.Lock()
	s.monitors = append(s.monitors, m)
	s.mu.Unlock()
	return monitor.Wrap(tr, m), m
}

// monitorRule reports what the monitors of the checks' connections found
// of rule r: FAIL for a broken MUST, WARN for a broken SHOULD, SKIP when
// no connection carried anything the rule judges.
func (c *state) monitorRule(r monitor.Rule) {
	c.s.mu.Lock()
	ms := append([]*monitor.Monitor(nil), c.s.monitors...)
	c.s.mu.Unlock()
	total, judged, shown := 0, 0, 0
	for _, m := range ms {
		n, j := m.Count(r.ID)
		total, judged = total+n, judged+j
		for _, f := range m.Findings() {
			if f.Rule.ID != r.ID {
				continue
			}
			if ofRawProbe(f) {
				total--
				continue
			}
			if shown >= maxMonitorFindings {
				continue
			}
			shown++
			text := strings.TrimPrefix(f.String(), r.ID+" ")
			if f.Severity == monitor.Must {
				c.failf("%s", text)
			} else {
				c.warnf("%s", text)
			}
		}
	}
	switch {
	case total > shown:
		c.notef("%d more finding(s) of %s not shown", total-shown, r.ID)
	case judged == 0:
		c.skipf("not judged: none of the %d connection(s) of the checks carried a message this rule judges", len(ms))
	case total == 0:
		c.notef("%d message(s) judged on %d connection(s)", judged, len(ms))
	}
}

// maxMonitorFindings bounds the findings one monitor check lists.
const maxMonitorFindings = 5

// monitorFailures returns, for the fuzzer, the MUST findings of m after
// the first from.
func monitorFailures(m *monitor.Monitor, from int) (all []monitor.Finding, news []string) {
	all = m.Findings()
	for i, f := range all {
		if i >= from && f.Severity == monitor.Must && !ofRawProbe(f) {
			news = append(news, fmt.Sprintf("protocol monitor: %s", f))
		}
	}
	return all, news
}

// monitorInput returns the MUST rules of the protocol monitor that
// messages on c broke since the last call, as the fuzzer's error, or nil.
func (c *conn) monitorInput() error {
	if c == nil || c.mon == nil {
		return nil
	}
	all, news := monitorFailures(c.mon, c.monSeen)
	c.monSeen = len(all)
	if len(news) == 0 {
		return nil
	}
	return fmt.Errorf("%s", strings.Join(news, "\n\n"))
}

// ofRawProbe reports whether f is about a request a check sent below the
// client (its id or token has rawPrefix): the monitor, above the tap, saw
// what the server sent for it (progress on a shared stream) but not the
// request.
func ofRawProbe(f monitor.Finding) bool { return strings.Contains(f.Message, `"`+rawPrefix) }
