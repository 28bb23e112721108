package tasks_test

import (
	"testing"

	"github.com/mcptestkit/mcptestkit/examples/tasks"
	"github.com/mcptestkit/mcptestkit/logcapture"
	"github.com/mcptestkit/mcptestkit/mcpgo/mcpgotest"
	"github.com/mcptestkit/mcptestkit/mcptest"
)

// CheckServer checks the task tools too. mcp-go v1.2.1 has tasks at
// 2025-11-25 only: the checks speak 2026-07-28 to it, and run the tasks
// checks on a 2025-11-25 connection, saying so; the generated calls of
// render_report are skipped at 2026-07-28, where it cannot be called.
func TestCheckServer(t *testing.T) {
	logs := logcapture.New(t)
	mcptest.CheckServer(t, mcpgotest.Server(tasks.New(logs.Logger())), mcptest.CheckLogs(logs))
}
