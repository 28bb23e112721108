// Package tasks is a server whose tools run as tasks (MCP 2025-11-25),
// written with mark3labs/mcp-go v1.2.1, and its tests show how to test a
// task tool with mcptest: start the call as a task, wait for it, assert on
// its result and on the statuses it went through.
//
//	task := mcptest.Require(t).Task(c, "render_report", map[string]any{"title": "Q3"})
//	res, err := task.Wait(t.Context())
//	require.NoError(t, err)
//	mcptest.Assert(t).Text(res, `Report "Q3": 3 sections.`)
//	mcptest.Assert(t).TaskStatuses(task, client.TaskWorking, client.TaskCompleted)
//
// Its tools:
//
//	tool            taskSupport   what it does
//	render_report   required      renders a report, a section every 100 ms; a plain call is
//	                              refused (-32601); an empty title is an isError result
//	word_count      optional      counts words, as a plain call or as a task
//
// What the tests pin about mcp-go v1.2.1:
//
//   - Tasks exist at 2025-11-25 only. At 2026-07-28 mcp-go does not serve the
//     io.modelcontextprotocol/tasks extension (it declares the 2025-11-25
//     tasks capability there, and makes a task only of a request with the
//     2025-11-25 "task" param), so a 2026-07-28 client gets no task:
//     word_count runs at once and render_report is refused. The tests
//     connect with mcptest.WithProtocolVersion("2025-11-25"), and
//     mcptest.CheckServer runs its tasks checks there by itself.
//   - A task runs under the context of the tools/call that created it,
//     which ends as soon as the call is answered: a task handler that stops
//     on ctx.Done() is cancelled at once. So render_report does not watch
//     its context, and tasks/cancel, which mcp-go marks at once, lets the
//     current report finish in the background, its result discarded.
//   - Input validation (server.WithInputSchemaValidation) covers plain calls
//     only: a task handler validates its arguments itself, and reports a bad
//     one as an isError result, as a tool should.
//   - A task whose tool failed (isError) ends "completed", with the isError
//     result from tasks/result; a Go error from a task handler fails it,
//     and tasks/result answers -32603.
//   - Status notifications (notifications/tasks/status) go to every client
//     of the server, not only to the task's.
//
// # Running the tests
//
//	go test ./examples/tasks/
package tasks
