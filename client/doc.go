// Package client is an MCP (Model Context Protocol) client: it connects to one
// server over any [Transport], speaks every published protocol version, and
// returns typed results and errors.
//
// # Starting
//
// [Connect] starts era-neutrally by default: it sends server/discover at
// 2026-07-28 and, when the server does not answer it as a modern server
// would, falls back to the initialize handshake at 2025-11-25 (the server may
// negotiate an older version). [Options].ProtocolVersion pins a version
// instead. After Connect, [Client.ProtocolVersion], [Client.ServerInfo],
// [Client.ServerCapabilities] and [Client.Instructions] describe the server.
//
// # Calling
//
// Every method takes a context and may be called from many goroutines at
// once. Lists come a page at a time ([Client.ListTools]) or as iterators
// that follow the cursors ([Client.Tools]); as the protocol says, only a page
// without nextCursor ends a list, and an empty cursor is followed like any
// other ([ListToolsResult.HasNextPage]). [Client.CallTool] takes the
// arguments as any value that encodes as a JSON object, and per-call options:
// [WithProgress], [WithMeta], [WithTimeout].
//
// On 2026-07-28 connections every request carries the protocol metadata in
// _meta, and a server that needs input (elicitation, sampling, roots) answers
// input_required: the client runs the callbacks in [Options] and retries,
// echoing the server's requestState, up to Options.MaxInputRounds. On legacy
// connections the same callbacks answer the server's own requests. A callback
// that is not set means the capability is not declared.
//
// # Tasks
//
// A server may run a tools/call as a task and answer with a handle the
// client polls (protocol version 2025-11-25, and the 2026-07-28 extension
// [ExtensionTasks]; the API is the same in both eras). [WithTask] makes
// [Client.CallTool] run the call as a task and wait for its end, returning
// what the call would have returned; [WithTaskUpdates] follows the task's
// states on the way. [Client.CallToolAsTask] returns the task instead, for
// [Client.WaitTask], [Client.GetTask], [Client.CancelTask] and, at
// 2025-11-25, [Client.TaskResult], [Client.ListTasks] and [Client.Tasks].
// A wait polls as the server suggests, wakes on status notifications
// ([Options].OnTaskStatus sees them too), answers the task's input requests
// through the callbacks, and is bounded by ctx and the call's timeout.
// [Client.SupportsTasks] and [Tool.TaskSupport] say what the server offers.
//
//	res, err := c.CallTool(ctx, "process_batch", args, client.WithTask(time.Minute))
//
// # Errors
//
// Three outcomes are kept apart:
//
//   - a tool that failed is a [*CallToolResult] with IsError set, and no Go
//     error: the model is meant to read it;
//   - a JSON-RPC error from the server is an [*Error] (use errors.As), with
//     the code, message and data exactly as sent; [IsResourceNotFound]
//     recognises both forms of "resource not found";
//   - a connection that ended is an error that errors.Is(err, [ErrClosed]).
//
// A task keeps the contract: its result is the tool's (isError for a
// failed tool), a failure of the request is an [*Error], and a cancelled
// task is an error that errors.Is(err, [ErrTaskCancelled]).
//
// Every error names the request it comes from, and for a tool, prompt or
// resource, which one (`tools/call "add": ...`). A call whose context ends,
// or whose timeout ([Options].Timeout, [WithTimeout]) runs out, sends
// notifications/cancelled and returns at once with an error wrapping the
// context's cause (context.DeadlineExceeded for a timeout).
//
// # Notifications
//
// Log messages, list changes and resource updates go to the handlers in
// [Options]; progress goes to the call that asked for it. Handlers run on
// the client's single reader goroutine, in order, so they must not block.
// [Client.Listen] subscribes to change notifications in both eras.
package client
