package servercheck_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/mcptestkit/mcptestkit/client/transport"
	"github.com/mcptestkit/mcptestkit/internal/npx"
	"github.com/mcptestkit/mcptestkit/mcptest/servercheck"
)

// runNPM runs the checks over stdio against an npm server started with npx
// and returns the names of the checks that failed and of those that warned. It is skipped where npx
// is not on PATH or the npm registry is out of reach, unless MCPTEST_NPM=1
// (see internal/npx).
func runNPM(t *testing.T, pkg string) (failed, warned []string) {
	npx := npx.Path(t, pkg)
	// The first run may download the package.
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	err := servercheck.Run(ctx, servercheck.Command(exec.Command(npx, "-y", pkg), transport.WithGracePeriod(2*time.Second)), &servercheck.Options{
		OnResult: func(r servercheck.Result) {
			switch {
			case r.Name == "tools/calls/simulate-research-query" && r.Status == servercheck.Fail &&
				strings.Contains(r.Detail, "no answer within"):
				// The everything server's research tool answers within the
				// timeout when the machine is idle; under load (-race on two
				// busy cores) it does not. Which it was is not the check's
				// finding about the server, so it is left out, not passed.
				t.Logf("left out, the machine was too slow: %s", r)
				return
			case strings.HasPrefix(r.Name, "lint/"):
				// The lint's findings are the lint tests' (cmd/mcptestkit).
			case r.Status == servercheck.Fail:
				failed = append(failed, r.Name)
			case r.Status == servercheck.Warn:
				warned = append(warned, r.Name)
			}
			t.Logf("%s", r)
		},
	})
	assert.NotErrorIs(t, err, servercheck.ErrConnect)
	slices.Sort(failed)
	slices.Sort(warned)
	return failed, warned
}

// What the checks find in the reference server: one MUST of the
// specification broken, and these SHOULDs, each the server's, as the logged
// detail shows.
func TestServerEverything(t *testing.T) {
	failed, warned := runNPM(t, "@modelcontextprotocol/server-everything@2026.8.31")
	// A plain call of its task tool (execution.taskSupport "required") is
	// answered with an isError result whose text reads "MCP error -32601:
	// ... requires task augmentation", where 2025-11-25 requires the
	// JSON-RPC error -32601 itself.
	// And tasks/get with related-task metadata naming another task is never
	// answered (the same tasks/get without it is at once), where receivers
	// MUST ignore that metadata in favour of the taskId param.
	assert.Equal(t, []string{"tasks/related-task", "tasks/required/simulate-research-query"}, failed)
	want := []string{
		// steps has no maximum; with 2^53 steps the tool runs past the
		// timeout (a warning naming the value, not a hang)...
		"tools/calls/trigger-long-running-operation",
		// ...and keeps sending progress after the client cancelled it.
		// (It exits when its stdin closes, once it has nothing to finish:
		// the connection left at work on 2^53 steps is left out of the
		// shutdown check.)
		"tools/cancellation",
		// A template expansion it has no resource for is -32603 "Unknown
		// resource", not resource-not-found.
		"resources/templates/read/Dynamic_Text_Resource",
		"resources/templates/read/Dynamic_Blob_Resource",
		// A bad argument value is -32603, not -32602. (Its unknown-resource
		// answer, -32602 without data.uri, is noted, not failed.)
		"prompts/get/resource-prompt",
		// logging/setLevel with a level that does not exist is -32603 (the
		// schema library's message), not -32602 (Invalid params).
		"invalid-log-level",
		// A tool without taskSupport called as a task is -32602 ("Invalid
		// task creation result"), where the server SHOULD answer -32601.
		"tasks/forbidden",
		// Once a client declares roots, sampling and elicitation (the checks'
		// client does), it no longer exits when its stdin closes: by hand,
		// initialize with those capabilities, close stdin, and the process
		// is still running a minute later (with none, it exits at once).
		"shutdown",
	}
	slices.Sort(want)
	assert.Equal(t, want, warned)
}

func TestServerMemory(t *testing.T) {
	// The tools write the knowledge graph to this file.
	t.Setenv("MEMORY_FILE_PATH", filepath.Join(t.TempDir(), "memory.jsonl"))
	failed, warned := runNPM(t, "@modelcontextprotocol/server-memory@2026.8.31")
	// One MUST broken, the TypeScript SDK's: a tools/call with params.task
	// to a server that declares no tasks is refused (-32603 "Server does not
	// support task creation (required for tools/call)"), where 2025-11-25
	// says a receiver that does not declare tasks for a request type MUST
	// process it normally, ignoring the task metadata. Nothing warns: its
	// -32602 without data.uri for an unknown resource is resource not found
	// (the message names the URI), which the check notes.
	assert.Equal(t, []string{"tasks/param-ignored"}, failed)
	assert.Empty(t, warned)
}
