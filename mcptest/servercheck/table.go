package servercheck

import (
	"strconv"
	"strings"

	"github.com/mcptestkit/mcptestkit/client"
)

// The checks are one table, as testing/slogtest's cases are: a row names a
// check (or a family of checks, one per tool, resource, prompt or protocol
// version), says what it requires, at which level and by which rule, and
// runs it. Run runs the rows in order, and nothing else; the list in the
// package documentation is generated from them.
//
//go:generate env MCPTEST_UPDATE=1 go test -run TestCheckList .

// family is one row of the table.
type family struct {
	// name is the check's name; in a family of checks, its last element is
	// a placeholder ("<tool>") that each check replaces with its item.
	name string
	// level is what breaking the check's rule (breakf) makes the check: Fail
	// for a MUST, Warn for a SHOULD or a convention.
	level Status
	// spec is where the rule is written: a specification page as named on
	// modelcontextprotocol.io, "JSON-RPC 2.0", or "a convention".
	spec string
	// doc says what the check requires, for the package documentation.
	doc string
	// warns, for a Fail row, says what the check only warns about (warnf):
	// a SHOULD beside its MUST.
	warns string
	// needs is the capability ("tools", "resources", "prompts") the server
	// must declare for the check to run; undeclared, the check is skipped.
	needs string

	run   func(c *state)        // the check of a row without a placeholder
	items func(s *suite) []item // the checks of a family, in order
	then  func(s *suite)        // after the row's checks, whether any ran or not
}

// item is one check of a family: what replaces the placeholder, and the
// check.
type item struct {
	elem string
	run  func(c *state)
}

// checkTable returns the table, in the order the checks run. It is made
// afresh for each Run: the rows of the tasks checks share a connection.
func checkTable() []family {
	tk := &tasks{}
	return append([]family{
		{name: "handshake/<version>", level: Fail, spec: "basic/lifecycle",
			doc: `the handshake at every protocol version the client speaks; nothing but ping and log messages before
				notifications/initialized (MUST NOT). A version the server's server/discover answer does not offer, or
				2026-07-28 on a legacy-only server (one whose answer the client's fallback reads as legacy), is skipped,
				naming what it speaks`,
			items: func(s *suite) []item {
				var out []item
				for _, v := range s.opts.Versions {
					out = append(out, item{v, func(c *state) { c.handshake(v) }})
				}
				return out
			}},
		{name: "version-negotiation", level: Fail, spec: `basic/lifecycle, "Version Negotiation"`,
			doc: `on a new connection: initialize asking for a version that does not exist (` + unknownVersion + `) gets a
				version the server supports or an error, never that version; a server that answers 2026-07-28 requests
				(a result with resultType) answers server/discover (MUST implement it); asked even when server/discover lists
				no legacy version, since a dual-era server may list only its newest`,
			warns: `a legacy version offered instead of the one asked for that is not the latest the server agrees to (SHOULD)`,
			run:   (*state).versionNegotiation},
		{name: "capabilities", level: Fail, spec: "basic/lifecycle: capabilities",
			doc: `a declared capability's list answers, an undeclared one lists nothing; every method of a declared
				capability is implemented (not -32601): resources/templates/list, completion/complete, and at a legacy version
				resources/subscribe and unsubscribe (resources.subscribe) and logging/setLevel (logging)`,
			warns: "an undeclared one answers other than -32601 (JSON-RPC 2.0)",
			run:   (*state).capabilities},
		{name: "ping", level: Fail, spec: "basic/utilities/ping, MUST respond promptly",
			doc: `an empty result; at 2026-07-28, which has no ping, on a connection at the newest legacy version the server
				offers, or, when its server/discover lists none, at the newest the client speaks if the server answers
				initialize there (a dual-era server that lists only its newest era)`,
			run: (*state).ping},
		{name: "unknown-method", level: Fail, spec: "JSON-RPC 2.0",
			doc: "-32601 in a JSON-RPC response; an HTTP error instead is reported with its status and body",
			run: (*state).unknownMethod},
		{name: "invalid-params", level: Fail, spec: "JSON-RPC 2.0",
			doc: `tools/call and prompts/get without a name, resources/read without a uri (each of a declared capability):
				not a success; what the server lists (the first page of each list) is the same before and after`,
			warns: `a list that changed across refused requests (a convention); an error other than -32602 is noted`,
			run:   (*state).invalidParams},
		{name: "invalid-cursor", level: Warn, spec: `server/utilities/pagination, "Error Handling", SHOULD`,
			doc: `each declared list (tools, prompts, resources, resource templates) asked for a page with a cursor the server
				never gave out: -32602; a list that gives out no cursor at all may ignore it (noted)`,
			run: (*state).invalidCursor},
		{name: "malformed-frame", level: Fail, spec: "JSON-RPC 2.0",
			doc: `a frame that is not JSON gets -32700 with id null, and the connection keeps serving; skipped, before it
				starts anything, over stdio and HTTP, whose transports will not send such a frame`,
			run: (*state).malformedFrame},
		{name: "required-meta", level: Fail, spec: `basic at 2026-07-28, "_meta"`,
			doc: `at 2026-07-28, on a connection of its own: a request whose _meta names the protocol version but not
				io.modelcontextprotocol/clientCapabilities is rejected with -32602 (a list the server declares, or server/discover)`,
			run: (*state).requiredMeta},
		{name: "invalid-log-level", level: Warn, spec: `server/utilities/logging, "Error Handling", SHOULD`,
			doc: `from a server that declares logging, on a connection of its own: a log level that does not exist (logging/setLevel;
				at 2026-07-28 a request's _meta logLevel) gets -32602`,
			run: (*state).invalidLogLevel},
		{name: "invalid-cancellation", level: Warn, spec: `basic/utilities/cancellation, "Error Handling", SHOULD`,
			doc: `on a connection of its own: notifications/cancelled for a request id never sent, for a request answered already,
				and with a requestId that is no id are ignored: the next requests are answered as before`,
			run: (*state).invalidCancellations},

		{name: "http/sessions", level: Fail, spec: `basic/transports, "Session Management"`,
			doc: "over streamable HTTP, in a legacy session: a request with an Mcp-Session-Id the server never gave out is not served",
			warns: `an answer other than 404; a session id shorter than 16 characters, or one a second session also got
				(SHOULD be globally unique and cryptographically secure)`,
			run: (*state).httpSessions},
		{name: "http/no-session", level: Warn, spec: `basic/transports, "Session Management", SHOULD`,
			doc: `over streamable HTTP, in a legacy session: a request without the Mcp-Session-Id the server gave out, if refused,
				gets 400 (served: noted, the server does not require one)`,
			run: (*state).httpNoSession},
		{name: "http/protocol-version", level: Fail, spec: `basic/transports, "Protocol Version Header"`,
			doc: "from 2025-06-18, a request with an unsupported MCP-Protocol-Version is not served",
			warns: `an answer other than 400; a stateless server that speaks 2025-03-26 refusing a request without the header
				(SHOULD assume 2025-03-26)`,
			run: (*state).httpProtocolVersion},
		{name: "http/bad-input", level: Fail, spec: `basic/transports, "Sending Messages to the Server"`,
			doc: "over streamable HTTP, in either era: a POST whose body is not JSON gets an HTTP error status (4xx or 5xx)",
			run: (*state).httpBadInput},
		{name: "http/authorization", level: Fail, spec: "basic/authorization",
			doc: `over streamable HTTP, a server that answers a request without credentials with 401: a made-up bearer token
				gets 401 too; the 401's WWW-Authenticate names the Protected Resource Metadata (resource_metadata), or it is at
				the well-known URI (RFC 9728), and it names at least one authorization server. A server that serves the
				request is skipped. No authorization server is needed`,
			warns: "offline_access in the challenge's scope or in scopes_supported (SHOULD NOT)",
			run:   (*state).httpAuthorization},
		{name: "http/notifications", level: Fail, spec: `basic/transports, "Sending Messages to the Server"`,
			doc: "a POSTed notification gets 202 Accepted with no body",
			run: (*state).httpNotifications},
		{name: "http/origin", level: Fail, spec: `basic/transports, "Security Warning"`,
			doc: "a server on localhost refuses a request with a foreign Origin (DNS rebinding), with 403 (another 4xx noted)",
			run: (*state).httpOrigin},
		{name: "http/get", level: Fail, spec: `basic/transports, "Listening for Messages from the Server"`,
			doc: "GET in the session answers an SSE stream or 405",
			run: (*state).httpGet},
		{name: "http/get-stream", level: Fail, spec: `basic/transports, "Listening for Messages from the Server", "Multiple Connections"`,
			doc: `in a legacy session the check opens by hand, with its GET stream open: a POSTed ping's response is not on
				the GET stream, read to its end once DELETE ended the session (MUST NOT send a response there, nor a message
				on two streams); skipped where GET or DELETE is refused, or the stream does not end with its session`,
			run: (*state).httpGetStream},
		{name: "http/priming", level: Warn, spec: `basic/transports, "Resumability and Redelivery" (SEP-1699)`,
			doc: `from 2025-11-25, a POST answered with an SSE stream begins with a priming event (an id, no data) and sets
				retry, so that the client can resume if the server closes the stream before the response`,
			run: (*state).httpPriming},
		{name: "http/streams", level: Fail, spec: `basic/transports, "Resumability and Redelivery"`,
			doc: `in a legacy session, two POSTed pings answered with SSE streams: no event id on both (MUST be unique across
				the session's streams); the first stream resumed with GET and its first event id replays its own response
				before anything of the second (MUST NOT replay another stream's messages). At 2026-07-28, an SSE answer to
				server/discover carries X-Accel-Buffering: no`,
			warns: `at 2026-07-28, an SSE answer without X-Accel-Buffering: no (SHOULD); in either era, an SSE stream still open
				when the request's time is up after it carried its response (SHOULD terminate)`,
			run: (*state).httpStreams},
		{name: "http/delete", level: Fail, spec: `basic/transports, "Session Management"`,
			doc:   "DELETE ends the session (2xx; 405 noted), after which a request with its id gets 404",
			warns: "an answer to DELETE other than 2xx, 405 or 5xx",
			run:   (*state).httpDelete,
			then:  (*suite).closeHTTP},

		{name: "http/headers", level: Fail, spec: "basic/transports at 2026-07-28 (SEP-2243)",
			doc: `over streamable HTTP at 2026-07-28: a request whose MCP-Protocol-Version (differing from its _meta, or missing
				when the server speaks no version before 2025-06-18), Mcp-Method, Mcp-Name or Mcp-Param-* header is missing or
				differs from its body, or whose Mcp-Param-* value is raw UTF-8, gets 400; header names are matched ignoring
				case, whitespace around a header's value is ignored, a base64-encoded value (=?base64?...?=) is compared
				decoded and one with upper-case markers as it is, and an argument absent or null needs no header`,
			warns: "a 400 without JSON-RPC error -32020 (HeaderMismatch); a base64-encoded Mcp-Name refused; an integer header written 7.0 for 7 refused",
			run:   (*state).httpHeaders},
		{name: "http/legacy-traffic", level: Warn, spec: `basic/transports at 2026-07-28, "Earlier Streamable HTTP Revisions", SHOULD`,
			doc: `a server that speaks only 2026-07-28 answers GET (with a Last-Event-ID too) and DELETE with 405, and serves
				a request carrying an Mcp-Session-Id as if it had none, giving out no session id`,
			run: (*state).httpLegacyTraffic},
		{name: "tools/list", level: Fail, spec: "server/utilities/pagination", needs: "tools",
			doc: "every page read; no cursor repeats, no tool twice",
			run: func(c *state) {
				s := c.s
				cn := c.main()
				from := cn.tap.mark()
				defer func() { s.inv.toolsListed = span{cn, from, cn.tap.mark()} }()
				s.inv.tools = listAll(c, "tools/list", cn.cl.ListTools, func(r *client.ListToolsResult) ([]*client.Tool, string, bool) {
					return r.Tools, r.NextCursor, r.HasNextPage()
				}, func(t *client.Tool) string { return t.Name })
			},
			then: func(s *suite) {
				if s.caps.Tools != nil && s.inv.tools == nil {
					s.inv.tools = quietList(s, (*client.Client).Tools)
				}
			}},
		{name: "tools/names", level: Warn, spec: "server/tools, SHOULD", needs: "tools",
			doc: "1-128 characters of A-Z a-z 0-9 _ - .",
			run: func(c *state) { c.useSpan(c.s.inv.toolsListed); c.toolNames(c.s.inv.tools) }},
		{name: "tools/descriptions", level: Warn, spec: "a convention: optional in the schema", needs: "tools",
			doc: "every tool has one",
			run: func(c *state) { c.useSpan(c.s.inv.toolsListed); c.toolDescriptions(c.s.inv.tools) }},
		{name: "tools/schemas/<tool>", level: Fail, spec: "server/tools, MUST",
			doc: `inputSchema and outputSchema are valid JSON Schema (2020-12 unless $schema says otherwise, patterns
				ECMA-262) with "type": "object"; one past 256 KiB or 64 levels of nesting is skipped as too big to check`,
			items: perTool(func(c *state, t *client.Tool) { c.useSpan(c.s.inv.toolsListed); c.toolSchemas(t) })},
		{name: "tools/x-mcp-header", level: Fail, spec: `basic/transports at 2026-07-28, "Schema Extension" (SEP-2243)`, needs: "tools",
			doc: `every x-mcp-header annotation in a tool's inputSchema: a non-empty HTTP field-name token (no control
				characters), unique ignoring case within the schema, on a property of type integer, string or boolean,
				reached from the root through properties keys alone (never items, oneOf, anyOf, allOf, not, if/then/else,
				$ref); a client over streamable HTTP drops a tool that breaks one`,
			run: (*state).toolHeaderAnnotations},
		{name: "tools/calls/<tool>", level: Fail, spec: "server/tools, MUST",
			doc: `Options.Calls calls with arguments that validate against the inputSchema (on a dual-era server, the first 4
				again at the newest legacy version it offers): each answers in time (each
				progress notification gives a call the timeout again, up to 6 timeouts in all: basic/lifecycle "Timeouts"), the
				connection stays up, the handler does not crash, no crash text ("panic", "goroutine", source paths, stack
				traces) reaches the client, a success carries structuredContent valid against the outputSchema, an isError
				result carries none (the kit's error contract, as mcptest.Assert(t).ToolError judges it); with
				Options.Logs, a crash has exactly one ERROR record with a stack. A schema asking for more than the generator
				makes (a count past 10000, more than 100000 values and characters in one set) is skipped, naming the keyword`,
			warns: `a tool failure as a JSON-RPC error instead of an isError result (SHOULD), no answer in time to a value at
				an extreme the inputSchema allows (it should bound it); a tool with an outputSchema that fails every call (its
				output never checked) is noted`,
			items: perTool((*state).toolCalls)},
		{name: "tools/input-required/<tool>", level: Warn, spec: "multi round-trip requests at 2026-07-28 (SEP-2322)",
			doc: `for each tool that answered input_required in tools/calls, retried raw: with its requestState changed and
				the input answered (an elicitation accepted with content generated from its schema), it gets a JSON-RPC error,
				not a complete result (the client can change the state, so a server protects it); with inputResponses that hold
				none of what was asked, a new input_required result asking again (SHOULD re-request)`,
			items: perAskingTool((*state).inputRequired)},
		{name: "tools/malformed-input/<tool>", level: Warn, spec: `multi round-trip requests at 2026-07-28, "Error Handling", SHOULD`,
			doc: `for each tool that answered input_required in tools/calls, retried raw: with inputResponses that are not an
				InputResponses object, a JSON-RPC error; with the answers it asked for plus one it never asked for, what the
				answers alone get (the unknown one ignored)`,
			items: perAskingTool((*state).malformedInput)},
		{name: "tools/request-state/<tool>", level: Fail, spec: "multi round-trip requests at 2026-07-28: servers MUST treat requestState as attacker-controlled input",
			doc: `for each tool that answered input_required with a requestState in tools/calls, retried raw with the input
				answered and requestStates it never gave out (empty, not base64, cut-off JSON, JSON claiming privileges, an
				unsigned token, 64 KiB): each gets an answer (an error, input_required or a result), the server neither crashes
				nor stops answering, and a ping after them succeeds. A forged state accepted is noted (whether that is a breach
				depends on what the state holds: tools/input-required)`,
			items: perAskingTool((*state).requestStateForged)},
		{name: "tools/invalid-arguments/<tool>", level: Fail, spec: `server/tools, "Security Considerations": servers MUST validate all tool inputs`,
			doc: `a required property left out, a property of the wrong type: each rejected before the handler runs, as an
				isError result or -32602 (noted), and never crashing the handler. "Servers MUST validate all tool inputs" is
				read as: what the handler does with forbidden input must be a refusal; a plain result may be a refusal in
				the tool's own words, which a client cannot tell from the handler acting on it, so it is warned about, not
				failed. A property additionalProperties: false forbids may be ignored instead (noted): the handler gets
				nothing it could act on`,
			warns: `a result without isError (input validation errors SHOULD be tool execution errors), a JSON-RPC error
				other than -32602`,
			items: perTool((*state).toolInvalidArguments)},
		{name: "tools/unknown-tool", level: Fail, spec: `server/tools, "Error Handling"`, needs: "tools",
			doc:   "not a success",
			warns: "other than -32602 or an isError result",
			run:   (*state).unknownTool},
		{name: "tools/progress", level: Fail, spec: "basic/utilities/progress", needs: "tools",
			doc: "progress notifications carry their request's token",
			run: (*state).progress},
		{name: "tools/cancellation", level: Fail, spec: "basic/utilities/cancellation", needs: "tools",
			doc: `a cancelled call leaves the server serving; the call cancelled is one of a tool that reported progress in
				tools/calls, once it has started. Once the server kept serving, skipped unless what it did with the call
				can be seen: no tool reported progress, the call ended or showed no progress before the cancellation, no
				progress nor result for it came within twice the longest gap between its progress notifications, or over
				streamable HTTP at a legacy version, where the client stops reading the cancelled stream; a verdict never
				depends on how fast the machine is`,
			warns: "progress or the result after the cancellation (SHOULD stop, SHOULD NOT answer)",
			run:   func(c *state) { c.cancellation(c.s.inv.tools) }},

		{name: "tasks/required/<tool>", level: Fail, spec: "server/tools, MUST",
			doc: `2025-11-25: a tool whose execution.taskSupport is "required" refuses a plain tools/call with -32601
				(-32600 noted); its generated calls (tools/calls) run as tasks`,
			items: perTaskTool(client.TaskSupportRequired, func(c *state, t *client.Tool) { c.taskRequired(tk, t) })},
		{name: "tasks/optional/<tool>", level: Fail, spec: "basic/utilities/tasks",
			doc: `2025-11-25: a tool whose taskSupport is "optional" answers a plain call and makes a task of a
				task-augmented one, which ends in time and is not cancelled unasked`,
			items: perTaskTool(client.TaskSupportOptional, func(c *state, t *client.Tool) { c.taskOptional(tk, t) })},
		{name: "tasks/forbidden", level: Warn, spec: `basic/utilities/tasks, "Tool-Level Negotiation", SHOULD`,
			doc: `2025-11-25: a task-augmented call of the first tool that does not support tasks (taskSupport absent or
				"forbidden") is refused with -32601`,
			run: func(c *state) { c.taskForbidden(tk) }},
		{name: "tasks/unknown-task", level: Fail,
			spec: `basic/utilities/tasks, "Error Handling"; the 2026-07-28 extension keeps it`,
			doc: `tasks/get of an id the server never gave out is -32602; so are, at 2025-11-25, tasks/result and
				tasks/cancel`,
			warns: "at 2026-07-28, tasks/cancel or tasks/update of that id other than -32602 (SHOULD)",
			run:   func(c *state) { c.unknownTask(tk) }},
		{name: "tasks/cancel", level: Fail, spec: "basic/utilities/tasks",
			doc: `a task cancelled with tasks/cancel reaches a terminal status and keeps it; 2025-11-25: tasks/cancel
				answers the task cancelled, or -32602 for one that has ended (cancelling it again once ended: -32602, status unchanged);
				2026-07-28: it acknowledges`,
			warns: "at 2026-07-28, no terminal status in time (cancellation is cooperative)",
			run:   func(c *state) { c.cancelTask(tk) }},
		{name: "tasks/failed-result", level: Fail, spec: "basic/utilities/tasks",
			doc: `a task made to fail (arguments that break the inputSchema) ends with what the call would have returned
				(2025-11-25: tasks/result): an isError result or a JSON-RPC error, consistent with its status
				(2026-07-28: failed only for a JSON-RPC error), no crash text`,
			warns: "a JSON-RPC error rather than an isError result, no related-task metadata on tasks/result, a failed task without statusMessage",
			run:   func(c *state) { c.failedTaskResult(tk) }},
		{name: "tasks/created", level: Fail, spec: `basic/utilities/tasks, "Task Status Lifecycle", "Task ID Requirements"`,
			doc: `a second task of a tool that made one: at 2025-11-25 each CreateTaskResult gives status working; no two
				tasks the checks made on the connection share an id`,
			run: func(c *state) { c.taskCreated(tk) }},
		{name: "tasks/result-blocks", level: Fail, spec: `basic/utilities/tasks, "Result Retrieval"`,
			doc: `2025-11-25: tasks/result sent as soon as a task is created answers only once it has ended: tasks/get then
				reports a terminal status (skipped if no answer came in time)`,
			run: func(c *state) { c.taskResultBlocks(tk) }},
		{name: "tasks/related-task", level: Fail, spec: `basic/utilities/tasks, "Associating Task-Related Messages"`,
			doc: `tasks/get (2025-11-25: and tasks/result) with related-task metadata naming another task answers for the task
				the taskId parameter names`,
			warns: "related-task metadata on the tasks/get result (SHOULD NOT)",
			run:   func(c *state) { c.taskRelatedMeta(tk) }},
		{name: "tasks/list", level: Fail, spec: `basic/utilities/tasks, "Listing Tasks"`,
			doc: `2025-11-25, tasks.list declared: every task the checks made that tasks/get still reports is in tasks/list,
				following nextCursor; a cursor never given out is -32602`,
			warns: "related-task metadata on its pages (SHOULD NOT)",
			run:   func(c *state) { c.taskList(tk) }},
		{name: "tasks/no-extension", level: Fail, spec: `tasks extension, "Capability Negotiation", "Protocol Errors"`,
			doc: `2026-07-28: a tool call that made a task, sent without the tasks extension declared, gets no CreateTaskResult:
				it is served, or refused with -32021 naming the extension; tasks/get, tasks/update and tasks/cancel of the
				task without the extension are -32021`,
			run: func(c *state) { c.taskNoExtension(tk) }},
		{name: "tasks/listen", level: Fail, spec: `tasks extension, "Task Status Notifications"`,
			doc: `2026-07-28: a task called with a progress token, its status listened to (subscriptions/listen, taskIds): no
				progress or log notification on that stream; the same listen without the extension declared is -32021 naming
				it. Skipped when the server refuses the listen with the extension declared (task notifications are optional)`,
			run: func(c *state) { c.taskListen(tk) }},
		{name: "tasks/param-ignored", level: Fail, spec: `basic/utilities/tasks, "Task Support and Handling"`,
			doc: `2025-11-25, a server that does not declare tasks for tools/call (checked there when it offers it): a tool
				call with params.task is answered as the plain call was`,
			run: (*state).taskParamIgnored},
		{name: "tasks/status-notifications", level: Fail, spec: "basic/utilities/tasks",
			doc: `notifications/tasks/status (notifications/tasks) carry tasks, a terminal status is never followed by
				another, the last agrees with tasks/get`,
			warns: "notifications about tasks other connections created",
			run:   func(c *state) { c.taskNotifications(tk) },
			then:  func(*suite) { tk.close() }},

		{name: "resources/list", level: Fail, spec: "server/utilities/pagination", needs: "resources",
			doc: "paging, as for tools",
			run: func(c *state) {
				c.s.inv.resources = listAll(c, "resources/list", c.main().cl.ListResources, func(r *client.ListResourcesResult) ([]*client.Resource, string, bool) {
					return r.Resources, r.NextCursor, r.HasNextPage()
				}, func(r *client.Resource) string { return r.URI })
			}},
		{name: "resources/templates/list", level: Fail, spec: "server/utilities/pagination", needs: "resources",
			doc: "paging, as for tools",
			run: func(c *state) {
				c.s.inv.templates = listAll(c, "resources/templates/list", c.main().cl.ListResourceTemplates, func(r *client.ListResourceTemplatesResult) ([]*client.ResourceTemplate, string, bool) {
					return r.ResourceTemplates, r.NextCursor, r.HasNextPage()
				}, func(r *client.ResourceTemplate) string { return r.URITemplate })
			},
			then: func(s *suite) {
				if s.caps.Resources == nil {
					return
				}
				if s.inv.resources == nil {
					s.inv.resources = quietList(s, (*client.Client).Resources)
				}
				if s.inv.templates == nil {
					s.inv.templates = quietList(s, (*client.Client).ResourceTemplates)
				}
			}},
		{name: "resources/read/<name>", level: Fail, spec: "server/resources",
			doc: "every listed resource (the first " + strconv.Itoa(maxItems) + ") reads, with contents",
			items: func(s *suite) []item {
				var out []item
				for _, r := range s.inv.resources[:min(len(s.inv.resources), maxItems)] {
					out = append(out, item{elem(r.Name), func(c *state) { c.readResource(r) }})
				}
				return out
			}},
		{name: "resources/templates/read/<name>", level: Fail, spec: "server/resources",
			doc:   "expansions read with contents, or fail",
			warns: "other than resource not found",
			items: func(s *suite) []item {
				var out []item
				for _, t := range s.inv.templates {
					out = append(out, item{elem(t.Name), func(c *state) { c.readTemplate(t) }})
				}
				return out
			}},
		{name: "resources/unknown-uri", level: Fail, spec: "server/resources", needs: "resources",
			doc: "not a success, data.uri naming no other URI, no -32002 at 2026-07-28, which retired it",
			warns: `other than resource not found (SHOULD): -32002 up to 2025-11-25, -32602 at 2026-07-28, the other one
				or no data.uri noted; neither data.uri nor the message naming the URI warned`,
			run: (*state).unknownResource},

		{name: "prompts/list", level: Fail, spec: "server/utilities/pagination", needs: "prompts",
			doc: "paging, as for tools",
			run: func(c *state) {
				c.s.inv.prompts = listAll(c, "prompts/list", c.main().cl.ListPrompts, func(r *client.ListPromptsResult) ([]*client.Prompt, string, bool) {
					return r.Prompts, r.NextCursor, r.HasNextPage()
				}, func(p *client.Prompt) string { return p.Name })
			},
			then: func(s *suite) {
				if s.caps.Prompts != nil && s.inv.prompts == nil {
					s.inv.prompts = quietList(s, (*client.Client).Prompts)
				}
			}},
		{name: "prompts/get/<prompt>", level: Fail, spec: "server/prompts",
			doc:   "renders with generated arguments",
			warns: "an error other than -32602",
			items: perPrompt((*state).getPrompt)},
		{name: "prompts/missing-argument/<prompt>", level: Warn, spec: "server/prompts, SHOULD",
			doc:   "a required argument left out gets -32602",
			items: perPrompt((*state).promptMissingArgument)},
		{name: "prompts/unknown-prompt", level: Warn, spec: "server/prompts, SHOULD", needs: "prompts",
			doc: "-32602",
			run: (*state).unknownPrompt},

		{name: "subscriptions/listen", level: Fail, spec: `basic/patterns/subscriptions at 2026-07-28`,
			doc: `at 2026-07-28, from a server that declares a listChanged or resources.subscribe, on a connection of its own:
				subscriptions/listen asking for each is acknowledged (notifications/subscriptions/acknowledged), then closed;
				what comes on it is judged by monitor/subscription and monitor/list-changed`,
			run: (*state).listen},
		{name: "stateless", level: Fail, spec: `basic at 2026-07-28, "Statelessness"`,
			doc: `at 2026-07-28: a request (a list the server declares, or server/discover) sent as the first message of a new
				connection, with no server/discover before it, is answered, and lists no tool the checks' connection was not given`,
			warns: `a page asked for, with its cursor, on a connection other than the one given the cursor, refused (SHOULD NOT
				require the same connection)`,
			run: (*state).stateless},

		{name: "messages", level: Fail, spec: "the specification's Schema Reference for the connection's version",
			doc: `every message the server sent in the checks before this one has the shape its version's schema gives it:
				the JSON-RPC envelope, each result and notification (required members and their types, the content blocks
				the version has, at most 100 completion values), and at 2026-07-28 resultType on every result and ttlMs and
				cacheScope on cacheable ones; at most ` + strconv.Itoa(maxWireViolations) + ` listed, each with the check it came in`,
			run: (*state).messages},
		{name: "shutdown", level: Warn, spec: `basic/lifecycle, "Shutdown"`,
			doc: `over stdio ([Command]), the server process exits with status 0 when its stdin closes, on every connection
				the checks made but those left with a request still at work (timed out, or cancelled and still reporting
				progress); reported once`,
			run: (*state).shutdown},
		monitorRow(),
	}, lintRows()...)
}

// all runs every check, row by row.
func (s *suite) all() {
	for _, f := range checkTable() {
		if f.items == nil {
			s.check(f.name, f.bind(f.run))
		} else {
			for _, it := range f.items(s) {
				s.check(f.instance(it.elem), f.bind(it.run))
			}
		}
		if f.then != nil {
			f.then(s)
		}
	}
}

// bind makes run a check of row f: its findings take f's level, and it is
// skipped unless the server declares what f needs.
func (f *family) bind(run func(c *state)) func(c *state) {
	return func(c *state) {
		c.fam = f
		if f.needs != "" {
			c.needs(c.s.declares(f.needs), f.needs)
		}
		run(c)
	}
}

// instance names the check of a family for one item.
func (f *family) instance(elem string) string {
	return f.name[:strings.LastIndexByte(f.name, '/')+1] + elem
}

// declares reports whether the server declared the capability.
func (s *suite) declares(capability string) bool {
	switch capability {
	case "tools":
		return s.caps.Tools != nil
	case "resources":
		return s.caps.Resources != nil
	case "prompts":
		return s.caps.Prompts != nil
	}
	return false
}

// perTool makes the checks of a family of one check per listed tool.
func perTool(run func(c *state, t *client.Tool)) func(s *suite) []item {
	return func(s *suite) []item {
		var out []item
		for _, t := range s.inv.tools {
			out = append(out, item{elem(t.Name), func(c *state) { run(c, t) }})
		}
		return out
	}
}

// perTaskTool makes the checks of a family of one check per listed tool whose
// execution.taskSupport is support.
func perTaskTool(support string, run func(c *state, t *client.Tool)) func(s *suite) []item {
	return func(s *suite) []item {
		var out []item
		for _, t := range s.inv.tools {
			if t.TaskSupport() == support {
				out = append(out, item{elem(t.Name), func(c *state) { run(c, t) }})
			}
		}
		return out
	}
}

// perPrompt makes the checks of a family of one check per listed prompt.
func perPrompt(run func(c *state, p *client.Prompt)) func(s *suite) []item {
	return func(s *suite) []item {
		var out []item
		for _, p := range s.inv.prompts {
			out = append(out, item{elem(p.Name), func(c *state) { run(c, p) }})
		}
		return out
	}
}

// rule is the row as a [Rule], its doc on one line.
func (f *family) rule() Rule {
	return Rule{ID: f.name, Level: f.level, Spec: f.spec, Doc: strings.Join(strings.Fields(f.doc), " ")}
}
