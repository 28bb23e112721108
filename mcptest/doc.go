// Package mcptest is a test harness for MCP servers: connect a real client to
// your server (in memory, or over stdio or HTTP), call it, and assert on what
// a client sees, the way the MCP Python SDK's in-memory Client and pytest's
// caplog are used.
//
//	func TestGetAuthorUnknownTitle(t *testing.T) {
//		logs := logcapture.New(t)
//		c := mcptest.Connect(t, gosdktest.Server(bookshop.New(logs.Logger()))) // gosdk.Server adapts a go-sdk *mcp.Server
//
//		res, err := c.CallTool(t.Context(), "get_author", map[string]any{"title": "Nothing"})
//		require.NoError(t, err)                                // the request succeeded...
//		mcptest.Assert(t).ToolError(res, "No book titled")     // ...and the tool failed: the model reads this
//		logs.AssertNone(t, logcapture.AtLeast(slog.LevelWarn)) // an expected failure is not a warning
//	}
//
// The first test to add for a server is [CheckServer]: it runs the battery of
// package [servercheck] as subtests (handshakes, error codes, paging, tool
// schemas, generated calls, crashes, resources, prompts, cancellation),
// reading what the server declares, with no fixture. [Fuzz] drives the same
// invariants from go test -fuzz.
//
//	func TestCheckServer(t *testing.T) {
//		logs := logcapture.New(t)
//		mcptest.CheckServer(t, gosdktest.Server(bookshop.New(logs.Logger())), mcptest.CheckLogs(logs),
//			mcptest.SkipChecks("malformed-frame")) // go-sdk ends the session on unparsable JSON
//	}
//
// # Connecting
//
// [Connect], [CheckServer] and [Fuzz] take a [Server], whatever the server
// is:
//
//   - A Go server, served in memory: its SDK's adapter, not the SDK's
//     server: gosdktest.Server(srv) (package gosdk/gosdktest) for a go-sdk
//     *mcp.Server, mcpgotest.Server(srv) (package mcpgo/mcpgotest) for an
//     mcp-go *server.MCPServer; a [ServerFunc] serves anything else on a
//     [memtransport.Conn].
//   - [Command]: a server program, in any language, spoken to over stdio:
//     mcptest.Command(exec.Command("python", "server.py")). A failing test
//     prints the end of the server's stderr after the transcript
//     ([LogStderr] streams it instead), and the test fails unless the
//     process exits with status 0 once its stdin closes
//     ([WithoutExitCheck]).
//   - [Handler]: a streamable HTTP handler (go-sdk's
//     mcp.NewStreamableHTTPHandler, mcp-go's server.NewStreamableHTTPServer)
//     called in the test's process with no socket, exactly as a remote
//     client would. The leak check reaches the handler calls and what they
//     start.
//   - [URL]: a streamable HTTP endpoint: a server in another process, or an
//     httptest.Server.
//   - [Transport]: any [client.Transport], from a function that opens one.
//
// The constructors take their transport's options (package
// [github.com/mcptestkit/mcptestkit/client/transport]): a grace period,
// headers, an *http.Client. Connect returns a [client.Client] after the
// handshake and cleans up when the test ends, with the same timeouts,
// transcript and assertions for every kind. [WithProtocolVersion] pins the
// protocol version, and [EachVersion] runs a test at every version
// (narrowed with [Since] and [Before] for what not every version has).
// [WithClient] sets the client's options: its identity and capabilities,
// the callbacks that answer the server's requests for sampling,
// elicitation and roots, the log level it asks for, and the bound on every
// request.
//
// One [Option] type configures Connect, CheckServer, Fuzz, EachVersion and
// Golden; each option's documentation says which it applies to. An option
// given to a call it does not apply to ([SkipChecks] to Connect), or with a
// kind of server it cannot apply to ([WithTransportOptions] to a server not
// served in memory, [LogStderr] to one that is not a Command), fails the
// test, saying so, rather than being dropped. The connection options apply
// to CheckServer and Fuzz as they do to Connect: every connection of the
// checks gets the same client options, timeout and leak check.
//
// A server outside the process has its transcript recorded between the
// client and the transport. [WithTranscript] hands any connection's
// transcript to the test, so that a whole session can be compared with a
// golden file:
//
//	func TestSession(t *testing.T) {
//		var tr mcptest.Transcript
//		c := mcptest.Connect(t, mcptest.Command(exec.Command("./bookshop")), mcptest.WithTranscript(&tr))
//		// ... calls ...
//		mcptest.Assert(t).Golden("session", tr.Messages())
//	}
//
// The same server value serves every connection: a Command starts a
// process for each, so one value can go to EachVersion's subtests and to
// CheckServer alike.
//
// # What the harness checks for you
//
//   - A request that gets no answer fails after 10 seconds with an
//     error naming the method, instead of hanging the test binary. When the
//     test ends, each wait of the cleanup (for the client to close, for
//     Serve to return, for the connection's goroutines to end) is bounded by
//     the same timeout (client.Options.Timeout through [WithClient]), so a
//     handler that hangs costs its test about twice that, and the report
//     lists where it is stuck. A test still running a few seconds before go
//     test -timeout ends the binary has its connection closed, so that it
//     fails with its report instead of being killed without one.
//   - A handler panic that the server does not recover itself fails the test
//     with the panic value, the method, the tool name and the stack, and
//     tells you how to install the crash guard (gosdk, mcpgo).
//     The panic never kills the test binary. A panic in a goroutine the
//     handler started does, before the harness can print anything: only
//     that goroutine can recover it.
//   - Goroutines the connection started must be gone after it closes. The
//     check only counts this connection's goroutines (they carry a runtime
//     label), so it is right under t.Parallel; [IgnoreLeaks] and
//     [WithoutLeakCheck] relax it.
//   - The protocol monitor reads every message (it sends nothing) and fails
//     the test when the server breaks a MUST of the specification that the
//     session shows: a response whose id differs in value or JSON type from
//     its request's, a second response, progress for a token never given,
//     not increasing or after the response, log messages the session's
//     level does not allow, a request for input the client did not declare,
//     a JSON-RPC request from a 2026-07-28 server, and the rest of [Monitor]'s
//     list; each report names the rule (monitor/id-echo), its section of the
//     specification and the messages. A broken SHOULD is logged.
//     [Monitor] turns it down to a log or off.
//   - A server's request for input (sampling, elicitation, roots) that the
//     client refused for want of a callback is pointed out under the
//     transcript and in the assertions' messages, with the option that
//     answers it (a callback in [WithClient]).
//   - A failing test prints the transcript of the connection, every message
//     in both directions, with the middle of very long runs cut and the
//     protocol's repeated stamps left out; go test -v prints every message
//     as sent.
//
// # Fake time
//
// [Connect] (to a Server served in memory or a [Handler] server) and
// [CheckServer] (to a Server served in memory) work inside
// testing/synctest's synctest.Test, where the server, the client and the harness run on the
// bubble's fake clock: a tool that waits an hour answers at once, and the
// request timeout is fake time too (give such a call a longer one). In a
// bubble the harness sets no watchdog for go test -timeout, whose real
// deadline means nothing there. It checks each connection's leaks by itself
// at once, waiting on the fake clock, which moves only when every goroutine
// of the bubble is blocked: a leak fails the test with its stack (and
// synctest.Test then panics for the goroutine still blocked). CheckServer
// reports each check on t instead of as a subtest, since t.Run panics in a
// bubble. What the harness reports as a connection ends, or from one of its
// goroutines (a server's panic), names the test's line that called Connect
// (CheckServer), in a bubble as outside one; where go test cannot follow
// t.Helper (in a bubble, or from a goroutine) that is the line of the call
// itself, even inside a helper of the test's.
// A goroutine blocked on something outside the bubble (a mutex held
// elsewhere, I/O) stops the fake clock, and synctest.Test waits for it:
// bound such tests with go test -timeout.
//
// # The leak check
//
// The connection's goroutines carry a runtime/pprof label, inherited by
// every goroutine they start (SDK readers, handler goroutines, what a tool
// handler starts), so the check counts only this connection's goroutines and
// holds under t.Parallel. A leak found after its test ended (the check reads
// the goroutine profile in batches) fails the test whose cleanup found it,
// and the report names the test that leaked: run that test on its own to see
// it fail by itself. Goroutines an SDK keeps by design (mcp-go's task
// expiry) and idle pooled HTTP client connections are not leaks.
//
// Limits: a goroutine started from an unlabelled goroutine is not seen: one
// the test goroutine starts itself, a time.AfterFunc callback, or one started
// by code that replaces its goroutine's labels. Run goleak.VerifyTestMain in
// TestMain as well: it checks the whole binary once every test has finished.
//
// # Assertions
//
// One set of [Assertions], two ways, testify's rule: [Assert] reports a
// failure (expected, actual and a diff) and lets the test go on, [Require]
// stops it. Each method returns whether it passed, or the value it found
// (nil after a failure): [Assertions.ProtocolError] the error,
// [Assertions.Tool] the tool, [Assertions.Task] the task.
// [Assertions.ToolSuccess], [Assertions.ToolError], [Assertions.Text],
// [Assertions.Structured] and [Assertions.NoStructured] check tool results;
// [Assertions.ProtocolError] and [Assertions.ResourceNotFound] check JSON-RPC
// errors; [Assertions.ValidSchemas] and [Assertions.OutputSchema] check tools
// against JSON Schema.
//
//	mcptest.Require(t).ToolError(res, "No book titled")
//	mcptest.Assert(t).Text(res, "Hello, Ada")
//	e := mcptest.Require(t).ProtocolError(err, client.CodeInvalidParams)
//
// # Notifications
//
// [RecordNotifications] records what the server sends the client besides
// answers: log messages (which a server sends only at the level
// client.Options.LogLevel asks for), progress, list changes and resource updates.
// What a server sends while it serves a call is recorded by the time the
// call returns; [Notifications.Wait] waits for what it sends later, bounded
// like every request:
//
//	var n mcptest.Notifications
//	c := mcptest.Connect(t, srv, mcptest.WithClient(client.Options{LogLevel: client.LevelInfo}), mcptest.RecordNotifications(&n))
//	_, err := c.CallTool(t.Context(), "import", args)
//	require.NoError(t, err)
//	assert.Len(t, n.Logs(), 2)
//
// # Tasks
//
// A tool that runs as a task (2025-11-25 core tasks, the 2026-07-28 tasks
// extension): [Assertions.Task] starts the call as a task, [Task.Wait] waits
// for its end with the client's error contract (bounded like every request,
// on the fake clock in a synctest bubble), and [Assertions.TaskStatuses]
// checks the statuses the client saw it go through:
//
//	task := mcptest.Require(t).Task(c, "render_report", map[string]any{"month": "2026-11"})
//	res, err := task.Wait(t.Context())
//	require.NoError(t, err)
//	mcptest.Assert(t).TaskStatuses(task, client.TaskWorking, client.TaskCompleted)
//
// # Golden files
//
// [Assertions.Golden] compares a value, as normalised pretty JSON, with
// testdata/<name>.json. [Normalize] removes what changes between runs,
// protocol versions and SDK versions (serverInfo stamps, cache hints,
// request ids) and writes numbers by value (3.0 and 3 are one number, as in
// [Assertions.Structured]). Refresh the files with MCPTEST_UPDATE=1 go test ./... or
// with the -mcptest.update flag.
package mcptest
