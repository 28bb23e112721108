package mcptest

import (
	"github.com/mcptestkit/mcptestkit/mcptest/internal/monitor"
)

// MonitorMode says what the protocol monitor of a [Connect] connection does
// with a rule the server breaks.
type MonitorMode uint8

const (
	// MonitorFail, the default, fails the test for a broken MUST and logs a
	// broken SHOULD.
	MonitorFail MonitorMode = iota
	// MonitorLog logs whatever it finds and fails nothing.
	MonitorLog
	// MonitorOff turns the monitor off.
	MonitorOff
)

// Monitor sets what the protocol monitor does. The monitor reads every
// message of the connection (it sends nothing) and knows the session: ids
// and their types echoed exactly, one response per request, progress only
// for a token given, increasing and never after the response, log messages
// only as the session's log level allows, no request for input the client
// did not declare, no JSON-RPC request from a 2026-07-28 server, list
// changes announced, cursors that do not loop. When the test ends, each
// rule broken is reported with its ID (monitor/id-echo), the specification's
// section and the messages. [CheckServer] reports the same rules as checks
// named by their IDs (SkipChecks("monitor") leaves them out). With
// [WithTransportOptions], whose fault hooks may change what the server
// sent, it only logs.
//
// It applies to Connect.
func Monitor(mode MonitorMode) Option {
	return option("Monitor", connectCall, func(c *config) { c.monitor = mode })
}

// reportMonitor reports what the connection's monitor found, once the
// connection has closed and every message is in.
func (h *harness) reportMonitor() {
	h.t.Helper()
	if h.monitor == nil {
		return
	}
	fs := h.monitor.Findings()
	// A fault hook may drop, duplicate or corrupt what the server sent:
	// what the client saw is then not the server's alone to answer for.
	faults := len(h.cfg.pairOptions) > 0
	failed := false
	for _, f := range fs {
		fail := f.Severity == monitor.Must && h.cfg.monitor == MonitorFail && !faults
		failed = failed || fail
		h.logf(fail, "mcptest: protocol monitor: %s", f)
	}
	if faults && len(fs) > 0 {
		h.logf(false, "mcptest: the protocol monitor's findings are logged, not failed: WithTransportOptions may change what the server sent")
	}
	if failed {
		h.logf(false, "mcptest: a protocol monitor finding is a rule of the specification the server broke; "+
			"mcptest.Monitor(mcptest.MonitorLog) logs them instead, mcptest.Monitor(mcptest.MonitorOff) turns the monitor off")
	}
}
