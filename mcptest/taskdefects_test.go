package mcptest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/mcptest/servercheck"
)

// Each task check of the requirement table's rows passes the scripted task
// server (TestTaskChecks) and catches that server with one defect planted.
func TestTaskChecksFindPlantedDefects(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		defect, version, check string
		run                    string // the checks run: check when empty
		noTasks                bool
		want                   servercheck.Status
		detail                 string
	}{
		{defect: "created-completed", version: client.Version20251125, check: "tasks/created", want: servercheck.Fail,
			detail: `the CreateTaskResult gives task task-1 the status "completed"`},
		{defect: "same-ids", version: client.Version20251125, check: "tasks/created", want: servercheck.Fail,
			detail: `some share an id: "task-1" (2 tasks)`},
		{defect: "same-ids", version: client.Version20260728, check: "tasks/created", want: servercheck.Fail,
			detail: `some share an id: "task-1" (2 tasks)`},
		{defect: "result-early", version: client.Version20251125, check: "tasks/result-blocks", want: servercheck.Fail,
			detail: `and tasks/get then reports the task "working"`},
		{defect: "related-task-wins", version: client.Version20251125, check: "tasks/related-task", want: servercheck.Fail,
			detail: `receivers MUST ignore related-task metadata`},
		{defect: "related-task-wins", version: client.Version20260728, check: "tasks/related-task", want: servercheck.Fail,
			detail: `the server answered with another task, "task-1"`},
		{defect: "list-first-page", version: client.Version20251125, check: "tasks/list", want: servercheck.Fail,
			detail: `a task retrievable via tasks/get MUST be retrievable via tasks/list`},
		{defect: "forbidden-runs", version: client.Version20251125, check: "tasks/forbidden", want: servercheck.Warn,
			detail: `the server ran it as a plain call`},
		{defect: "no-status-message", version: client.Version20251125, check: "tasks/failed-result", want: servercheck.Warn,
			detail: `tasks/get reports the task failed, with no statusMessage`},
		{defect: "task-without-extension", version: client.Version20260728, check: "tasks/no-extension", want: servercheck.Fail,
			detail: `a server MUST NOT return CreateTaskResult to a client that did not include the extension capability`},
		{defect: "task-without-extension", version: client.Version20260728, check: "monitor/task-extension", run: "tasks|monitor/no-extension|task-extension",
			want: servercheck.Fail, detail: `whose request did not declare the io.modelcontextprotocol/tasks extension`},
		{defect: "methods-without-extension", version: client.Version20260728, check: "tasks/no-extension", want: servercheck.Fail,
			detail: `servers MUST return it for non-declaring clients issuing tasks/get`},
		{defect: "unknown-acknowledged", version: client.Version20260728, check: "tasks/unknown-task", want: servercheck.Warn,
			detail: `sent tasks/update for task "mcptestkit-no-such-task"`},
		{defect: "unknown-acknowledged", version: client.Version20251125, check: "tasks/unknown-task", want: servercheck.Fail,
			detail: `sent tasks/cancel for task "mcptestkit-no-such-task", which the server never gave out; got`},
		{defect: "task-param-honoured", version: client.Version20251125, noTasks: true, check: "tasks/param-ignored", want: servercheck.Fail,
			detail: `it made a task of it`},
		{defect: "log-on-listen", version: client.Version20260728, check: "tasks/listen", want: servercheck.Fail,
			detail: `the listen stream carried 1 progress or log notification(s)`},
		{defect: "listen-without-extension", version: client.Version20260728, check: "tasks/listen", want: servercheck.Fail,
			detail: `without declaring the tasks extension; the server acknowledged it`},
		{version: client.Version20251125, noTasks: true, check: "tasks/param-ignored", want: servercheck.Pass},
		{version: "", noTasks: true, check: "tasks/param-ignored", want: servercheck.Pass,
			detail: "checked at 2025-11-25, which the server offers"},
	} {
		t.Run(tc.defect+"/"+tc.check+"/"+tc.version, func(t *testing.T) {
			t.Parallel()
			srv := newTaskServer(5)
			srv.defect, srv.noTasks = tc.defect, tc.noTasks
			var got *servercheck.Result
			run := tc.run
			if run == "" {
				run = tc.check
			}
			_ = servercheck.Run(t.Context(), memDialer(srv), &servercheck.Options{
				Version: tc.version, Run: run,
				OnResult: func(r servercheck.Result) {
					if r.Name == tc.check {
						got = &r
					}
				},
			})
			require.NotNil(t, got, "check %s did not run", tc.check)
			assert.Equal(t, tc.want, got.Status, got.Detail)
			assert.Contains(t, got.Detail, tc.detail)
		})
	}
}
