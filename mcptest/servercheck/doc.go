// Package servercheck is a battery of checks that any MCP server must pass, the
// engine of mcptest.CheckServer, usable without package testing (as
// testing/fstest.TestFS is): a command-line tool or a CI job runs the same
// checks with [Run] and gets a [Result] per check, as each finishes,
// through Options.OnResult.
//
// The checks need no fixture. They read what the server declares and lists,
// and call what it offers, with arguments generated from its schemas by a
// seeded generator (the same seed sends the same calls).
//
// # Levels
//
// A check fails ([Fail]) when the server breaks a MUST: of the MCP
// specification, of JSON-RPC 2.0 (which MCP requires), or of the error
// contract's crash rules (a crash leaks nothing to the client and is logged
// once with its stack). It warns ([Warn]) when the server breaks a SHOULD of
// the specification or a convention clients rely on; a warning fails nothing
// unless Options.Strict (mcptest.StrictChecks, mcptestkit check --strict).
// Every finding's Detail cites the rule.
//
// Each check has the level of its rule, F (fails) or W (warns); an F check
// may also warn about a SHOULD beside its MUST. Whatever its level, a check
// fails when the server crashes or shows crash text to the client, or when
// the check cannot go on (the connection broke, a request it needs failed
// or got no answer).
//
// # Checks
//
// The checks, in the order they run, with their level and their rule (a
// page of the specification, named as on modelcontextprotocol.io, or
// another); a name with a placeholder (tools/calls/<tool>) stands for a
// check per tool, resource, prompt or protocol version:
//
//	handshake/<version>                F  the handshake at every protocol version the client speaks; nothing but ping
//	                                      and log messages before notifications/initialized (MUST NOT). A version the
//	                                      server's server/discover answer does not offer, or 2026-07-28 on a
//	                                      legacy-only server (one whose answer the client's fallback reads as legacy),
//	                                      is skipped, naming what it speaks (basic/lifecycle)
//	version-negotiation                F  on a new connection: initialize asking for a version that does not exist
//	                                      (2099-12-31) gets a version the server supports or an error, never that
//	                                      version; a server that answers 2026-07-28 requests (a result with
//	                                      resultType) answers server/discover (MUST implement it); asked even when
//	                                      server/discover lists no legacy version, since a dual-era server may list
//	                                      only its newest (basic/lifecycle, "Version Negotiation"); W a legacy version
//	                                      offered instead of the one asked for that is not the latest the server
//	                                      agrees to (SHOULD)
//	capabilities                       F  a declared capability's list answers, an undeclared one lists nothing; every
//	                                      method of a declared capability is implemented (not -32601):
//	                                      resources/templates/list, completion/complete, and at a legacy version
//	                                      resources/subscribe and unsubscribe (resources.subscribe) and
//	                                      logging/setLevel (logging) (basic/lifecycle: capabilities); W an undeclared
//	                                      one answers other than -32601 (JSON-RPC 2.0)
//	ping                               F  an empty result; at 2026-07-28, which has no ping, on a connection at the
//	                                      newest legacy version the server offers, or, when its server/discover lists
//	                                      none, at the newest the client speaks if the server answers initialize there
//	                                      (a dual-era server that lists only its newest era) (basic/utilities/ping,
//	                                      MUST respond promptly)
//	unknown-method                     F  -32601 in a JSON-RPC response; an HTTP error instead is reported with its
//	                                      status and body (JSON-RPC 2.0)
//	invalid-params                     F  tools/call and prompts/get without a name, resources/read without a uri
//	                                      (each of a declared capability): not a success; what the server lists (the
//	                                      first page of each list) is the same before and after (JSON-RPC 2.0); W a
//	                                      list that changed across refused requests (a convention); an error other
//	                                      than -32602 is noted
//	invalid-cursor                     W  each declared list (tools, prompts, resources, resource templates) asked for
//	                                      a page with a cursor the server never gave out: -32602; a list that gives
//	                                      out no cursor at all may ignore it (noted) (server/utilities/pagination,
//	                                      "Error Handling", SHOULD)
//	malformed-frame                    F  a frame that is not JSON gets -32700 with id null, and the connection keeps
//	                                      serving; skipped, before it starts anything, over stdio and HTTP, whose
//	                                      transports will not send such a frame (JSON-RPC 2.0)
//	required-meta                      F  at 2026-07-28, on a connection of its own: a request whose _meta names the
//	                                      protocol version but not io.modelcontextprotocol/clientCapabilities is
//	                                      rejected with -32602 (a list the server declares, or server/discover) (basic
//	                                      at 2026-07-28, "_meta")
//	invalid-log-level                  W  from a server that declares logging, on a connection of its own: a log level
//	                                      that does not exist (logging/setLevel; at 2026-07-28 a request's _meta
//	                                      logLevel) gets -32602 (server/utilities/logging, "Error Handling", SHOULD)
//	invalid-cancellation               W  on a connection of its own: notifications/cancelled for a request id never
//	                                      sent, for a request answered already, and with a requestId that is no id are
//	                                      ignored: the next requests are answered as before
//	                                      (basic/utilities/cancellation, "Error Handling", SHOULD)
//	http/sessions                      F  over streamable HTTP, in a legacy session: a request with an Mcp-Session-Id
//	                                      the server never gave out is not served (basic/transports, "Session
//	                                      Management"); W an answer other than 404; a session id shorter than 16
//	                                      characters, or one a second session also got (SHOULD be globally unique and
//	                                      cryptographically secure)
//	http/no-session                    W  over streamable HTTP, in a legacy session: a request without the
//	                                      Mcp-Session-Id the server gave out, if refused, gets 400 (served: noted, the
//	                                      server does not require one) (basic/transports, "Session Management",
//	                                      SHOULD)
//	http/protocol-version              F  from 2025-06-18, a request with an unsupported MCP-Protocol-Version is not
//	                                      served (basic/transports, "Protocol Version Header"); W an answer other than
//	                                      400; a stateless server that speaks 2025-03-26 refusing a request without
//	                                      the header (SHOULD assume 2025-03-26)
//	http/bad-input                     F  over streamable HTTP, in either era: a POST whose body is not JSON gets an
//	                                      HTTP error status (4xx or 5xx) (basic/transports, "Sending Messages to the
//	                                      Server")
//	http/authorization                 F  over streamable HTTP, a server that answers a request without credentials
//	                                      with 401: a made-up bearer token gets 401 too; the 401's WWW-Authenticate
//	                                      names the Protected Resource Metadata (resource_metadata), or it is at the
//	                                      well-known URI (RFC 9728), and it names at least one authorization server. A
//	                                      server that serves the request is skipped. No authorization server is needed
//	                                      (basic/authorization); W offline_access in the challenge's scope or in
//	                                      scopes_supported (SHOULD NOT)
//	http/notifications                 F  a POSTed notification gets 202 Accepted with no body (basic/transports,
//	                                      "Sending Messages to the Server")
//	http/origin                        F  a server on localhost refuses a request with a foreign Origin (DNS
//	                                      rebinding), with 403 (another 4xx noted) (basic/transports, "Security
//	                                      Warning")
//	http/get                           F  GET in the session answers an SSE stream or 405 (basic/transports,
//	                                      "Listening for Messages from the Server")
//	http/get-stream                    F  in a legacy session the check opens by hand, with its GET stream open: a
//	                                      POSTed ping's response is not on the GET stream, read to its end once DELETE
//	                                      ended the session (MUST NOT send a response there, nor a message on two
//	                                      streams); skipped where GET or DELETE is refused, or the stream does not end
//	                                      with its session (basic/transports, "Listening for Messages from the
//	                                      Server", "Multiple Connections")
//	http/priming                       W  from 2025-11-25, a POST answered with an SSE stream begins with a priming
//	                                      event (an id, no data) and sets retry, so that the client can resume if the
//	                                      server closes the stream before the response (basic/transports,
//	                                      "Resumability and Redelivery" (SEP-1699))
//	http/streams                       F  in a legacy session, two POSTed pings answered with SSE streams: no event id
//	                                      on both (MUST be unique across the session's streams); the first stream
//	                                      resumed with GET and its first event id replays its own response before
//	                                      anything of the second (MUST NOT replay another stream's messages). At
//	                                      2026-07-28, an SSE answer to server/discover carries X-Accel-Buffering: no
//	                                      (basic/transports, "Resumability and Redelivery"); W at 2026-07-28, an SSE
//	                                      answer without X-Accel-Buffering: no (SHOULD); in either era, an SSE stream
//	                                      still open when the request's time is up after it carried its response
//	                                      (SHOULD terminate)
//	http/delete                        F  DELETE ends the session (2xx; 405 noted), after which a request with its id
//	                                      gets 404 (basic/transports, "Session Management"); W an answer to DELETE
//	                                      other than 2xx, 405 or 5xx
//	http/headers                       F  over streamable HTTP at 2026-07-28: a request whose MCP-Protocol-Version
//	                                      (differing from its _meta, or missing when the server speaks no version
//	                                      before 2025-06-18), Mcp-Method, Mcp-Name or Mcp-Param-* header is missing or
//	                                      differs from its body, or whose Mcp-Param-* value is raw UTF-8, gets 400;
//	                                      header names are matched ignoring case, whitespace around a header's value
//	                                      is ignored, a base64-encoded value (=?base64?...?=) is compared decoded and
//	                                      one with upper-case markers as it is, and an argument absent or null needs
//	                                      no header (basic/transports at 2026-07-28 (SEP-2243)); W a 400 without
//	                                      JSON-RPC error -32020 (HeaderMismatch); a base64-encoded Mcp-Name refused;
//	                                      an integer header written 7.0 for 7 refused
//	http/legacy-traffic                W  a server that speaks only 2026-07-28 answers GET (with a Last-Event-ID too)
//	                                      and DELETE with 405, and serves a request carrying an Mcp-Session-Id as if
//	                                      it had none, giving out no session id (basic/transports at 2026-07-28,
//	                                      "Earlier Streamable HTTP Revisions", SHOULD)
//	tools/list                         F  every page read; no cursor repeats, no tool twice
//	                                      (server/utilities/pagination)
//	tools/names                        W  1-128 characters of A-Z a-z 0-9 _ - . (server/tools, SHOULD)
//	tools/descriptions                 W  every tool has one (a convention: optional in the schema)
//	tools/schemas/<tool>               F  inputSchema and outputSchema are valid JSON Schema (2020-12 unless $schema
//	                                      says otherwise, patterns ECMA-262) with "type": "object"; one past 256 KiB
//	                                      or 64 levels of nesting is skipped as too big to check (server/tools, MUST)
//	tools/x-mcp-header                 F  every x-mcp-header annotation in a tool's inputSchema: a non-empty HTTP
//	                                      field-name token (no control characters), unique ignoring case within the
//	                                      schema, on a property of type integer, string or boolean, reached from the
//	                                      root through properties keys alone (never items, oneOf, anyOf, allOf, not,
//	                                      if/then/else, $ref); a client over streamable HTTP drops a tool that breaks
//	                                      one (basic/transports at 2026-07-28, "Schema Extension" (SEP-2243))
//	tools/calls/<tool>                 F  Options.Calls calls with arguments that validate against the inputSchema (on
//	                                      a dual-era server, the first 4 again at the newest legacy version it
//	                                      offers): each answers in time (each progress notification gives a call the
//	                                      timeout again, up to 6 timeouts in all: basic/lifecycle "Timeouts"), the
//	                                      connection stays up, the handler does not crash, no crash text ("panic",
//	                                      "goroutine", source paths, stack traces) reaches the client, a success
//	                                      carries structuredContent valid against the outputSchema, an isError result
//	                                      carries none (the kit's error contract, as mcptest.Assert(t).ToolError
//	                                      judges it); with Options.Logs, a crash has exactly one ERROR record with a
//	                                      stack. A schema asking for more than the generator makes (a count past
//	                                      10000, more than 100000 values and characters in one set) is skipped, naming
//	                                      the keyword (server/tools, MUST); W a tool failure as a JSON-RPC error
//	                                      instead of an isError result (SHOULD), no answer in time to a value at an
//	                                      extreme the inputSchema allows (it should bound it); a tool with an
//	                                      outputSchema that fails every call (its output never checked) is noted
//	tools/input-required/<tool>        W  for each tool that answered input_required in tools/calls, retried raw: with
//	                                      its requestState changed and the input answered (an elicitation accepted
//	                                      with content generated from its schema), it gets a JSON-RPC error, not a
//	                                      complete result (the client can change the state, so a server protects it);
//	                                      with inputResponses that hold none of what was asked, a new input_required
//	                                      result asking again (SHOULD re-request) (multi round-trip requests at
//	                                      2026-07-28 (SEP-2322))
//	tools/malformed-input/<tool>       W  for each tool that answered input_required in tools/calls, retried raw: with
//	                                      inputResponses that are not an InputResponses object, a JSON-RPC error; with
//	                                      the answers it asked for plus one it never asked for, what the answers alone
//	                                      get (the unknown one ignored) (multi round-trip requests at 2026-07-28,
//	                                      "Error Handling", SHOULD)
//	tools/request-state/<tool>         F  for each tool that answered input_required with a requestState in
//	                                      tools/calls, retried raw with the input answered and requestStates it never
//	                                      gave out (empty, not base64, cut-off JSON, JSON claiming privileges, an
//	                                      unsigned token, 64 KiB): each gets an answer (an error, input_required or a
//	                                      result), the server neither crashes nor stops answering, and a ping after
//	                                      them succeeds. A forged state accepted is noted (whether that is a breach
//	                                      depends on what the state holds: tools/input-required) (multi round-trip
//	                                      requests at 2026-07-28: servers MUST treat requestState as
//	                                      attacker-controlled input)
//	tools/invalid-arguments/<tool>     F  a required property left out, a property of the wrong type: each rejected
//	                                      before the handler runs, as an isError result or -32602 (noted), and never
//	                                      crashing the handler. "Servers MUST validate all tool inputs" is read as:
//	                                      what the handler does with forbidden input must be a refusal; a plain result
//	                                      may be a refusal in the tool's own words, which a client cannot tell from
//	                                      the handler acting on it, so it is warned about, not failed. A property
//	                                      additionalProperties: false forbids may be ignored instead (noted): the
//	                                      handler gets nothing it could act on (server/tools, "Security
//	                                      Considerations": servers MUST validate all tool inputs); W a result without
//	                                      isError (input validation errors SHOULD be tool execution errors), a
//	                                      JSON-RPC error other than -32602
//	tools/unknown-tool                 F  not a success (server/tools, "Error Handling"); W other than -32602 or an
//	                                      isError result
//	tools/progress                     F  progress notifications carry their request's token
//	                                      (basic/utilities/progress)
//	tools/cancellation                 F  a cancelled call leaves the server serving; the call cancelled is one of a
//	                                      tool that reported progress in tools/calls, once it has started. Once the
//	                                      server kept serving, skipped unless what it did with the call can be seen:
//	                                      no tool reported progress, the call ended or showed no progress before the
//	                                      cancellation, no progress nor result for it came within twice the longest
//	                                      gap between its progress notifications, or over streamable HTTP at a legacy
//	                                      version, where the client stops reading the cancelled stream; a verdict
//	                                      never depends on how fast the machine is (basic/utilities/cancellation); W
//	                                      progress or the result after the cancellation (SHOULD stop, SHOULD NOT
//	                                      answer)
//	tasks/required/<tool>              F  2025-11-25: a tool whose execution.taskSupport is "required" refuses a plain
//	                                      tools/call with -32601 (-32600 noted); its generated calls (tools/calls) run
//	                                      as tasks (server/tools, MUST)
//	tasks/optional/<tool>              F  2025-11-25: a tool whose taskSupport is "optional" answers a plain call and
//	                                      makes a task of a task-augmented one, which ends in time and is not
//	                                      cancelled unasked (basic/utilities/tasks)
//	tasks/forbidden                    W  2025-11-25: a task-augmented call of the first tool that does not support
//	                                      tasks (taskSupport absent or "forbidden") is refused with -32601
//	                                      (basic/utilities/tasks, "Tool-Level Negotiation", SHOULD)
//	tasks/unknown-task                 F  tasks/get of an id the server never gave out is -32602; so are, at
//	                                      2025-11-25, tasks/result and tasks/cancel (basic/utilities/tasks, "Error
//	                                      Handling"; the 2026-07-28 extension keeps it); W at 2026-07-28, tasks/cancel
//	                                      or tasks/update of that id other than -32602 (SHOULD)
//	tasks/cancel                       F  a task cancelled with tasks/cancel reaches a terminal status and keeps it;
//	                                      2025-11-25: tasks/cancel answers the task cancelled, or -32602 for one that
//	                                      has ended (cancelling it again once ended: -32602, status unchanged);
//	                                      2026-07-28: it acknowledges (basic/utilities/tasks); W at 2026-07-28, no
//	                                      terminal status in time (cancellation is cooperative)
//	tasks/failed-result                F  a task made to fail (arguments that break the inputSchema) ends with what
//	                                      the call would have returned (2025-11-25: tasks/result): an isError result
//	                                      or a JSON-RPC error, consistent with its status (2026-07-28: failed only for
//	                                      a JSON-RPC error), no crash text (basic/utilities/tasks); W a JSON-RPC error
//	                                      rather than an isError result, no related-task metadata on tasks/result, a
//	                                      failed task without statusMessage
//	tasks/created                      F  a second task of a tool that made one: at 2025-11-25 each CreateTaskResult
//	                                      gives status working; no two tasks the checks made on the connection share
//	                                      an id (basic/utilities/tasks, "Task Status Lifecycle", "Task ID
//	                                      Requirements")
//	tasks/result-blocks                F  2025-11-25: tasks/result sent as soon as a task is created answers only once
//	                                      it has ended: tasks/get then reports a terminal status (skipped if no answer
//	                                      came in time) (basic/utilities/tasks, "Result Retrieval")
//	tasks/related-task                 F  tasks/get (2025-11-25: and tasks/result) with related-task metadata naming
//	                                      another task answers for the task the taskId parameter names
//	                                      (basic/utilities/tasks, "Associating Task-Related Messages"); W related-task
//	                                      metadata on the tasks/get result (SHOULD NOT)
//	tasks/list                         F  2025-11-25, tasks.list declared: every task the checks made that tasks/get
//	                                      still reports is in tasks/list, following nextCursor; a cursor never given
//	                                      out is -32602 (basic/utilities/tasks, "Listing Tasks"); W related-task
//	                                      metadata on its pages (SHOULD NOT)
//	tasks/no-extension                 F  2026-07-28: a tool call that made a task, sent without the tasks extension
//	                                      declared, gets no CreateTaskResult: it is served, or refused with -32021
//	                                      naming the extension; tasks/get, tasks/update and tasks/cancel of the task
//	                                      without the extension are -32021 (tasks extension, "Capability Negotiation",
//	                                      "Protocol Errors")
//	tasks/listen                       F  2026-07-28: a task called with a progress token, its status listened to
//	                                      (subscriptions/listen, taskIds): no progress or log notification on that
//	                                      stream; the same listen without the extension declared is -32021 naming it.
//	                                      Skipped when the server refuses the listen with the extension declared (task
//	                                      notifications are optional) (tasks extension, "Task Status Notifications")
//	tasks/param-ignored                F  2025-11-25, a server that does not declare tasks for tools/call (checked
//	                                      there when it offers it): a tool call with params.task is answered as the
//	                                      plain call was (basic/utilities/tasks, "Task Support and Handling")
//	tasks/status-notifications         F  notifications/tasks/status (notifications/tasks) carry tasks, a terminal
//	                                      status is never followed by another, the last agrees with tasks/get
//	                                      (basic/utilities/tasks); W notifications about tasks other connections
//	                                      created
//	resources/list                     F  paging, as for tools (server/utilities/pagination)
//	resources/templates/list           F  paging, as for tools (server/utilities/pagination)
//	resources/read/<name>              F  every listed resource (the first 50) reads, with contents (server/resources)
//	resources/templates/read/<name>    F  expansions read with contents, or fail (server/resources); W other than
//	                                      resource not found
//	resources/unknown-uri              F  not a success, data.uri naming no other URI, no -32002 at 2026-07-28, which
//	                                      retired it (server/resources); W other than resource not found (SHOULD):
//	                                      -32002 up to 2025-11-25, -32602 at 2026-07-28, the other one or no data.uri
//	                                      noted; neither data.uri nor the message naming the URI warned
//	prompts/list                       F  paging, as for tools (server/utilities/pagination)
//	prompts/get/<prompt>               F  renders with generated arguments (server/prompts); W an error other than
//	                                      -32602
//	prompts/missing-argument/<prompt>  W  a required argument left out gets -32602 (server/prompts, SHOULD)
//	prompts/unknown-prompt             W  -32602 (server/prompts, SHOULD)
//	subscriptions/listen               F  at 2026-07-28, from a server that declares a listChanged or
//	                                      resources.subscribe, on a connection of its own: subscriptions/listen asking
//	                                      for each is acknowledged (notifications/subscriptions/acknowledged), then
//	                                      closed; what comes on it is judged by monitor/subscription and
//	                                      monitor/list-changed (basic/patterns/subscriptions at 2026-07-28)
//	stateless                          F  at 2026-07-28: a request (a list the server declares, or server/discover)
//	                                      sent as the first message of a new connection, with no server/discover
//	                                      before it, is answered, and lists no tool the checks' connection was not
//	                                      given (basic at 2026-07-28, "Statelessness"); W a page asked for, with its
//	                                      cursor, on a connection other than the one given the cursor, refused (SHOULD
//	                                      NOT require the same connection)
//	messages                           F  every message the server sent in the checks before this one has the shape
//	                                      its version's schema gives it: the JSON-RPC envelope, each result and
//	                                      notification (required members and their types, the content blocks the
//	                                      version has, at most 100 completion values), and at 2026-07-28 resultType on
//	                                      every result and ttlMs and cacheScope on cacheable ones; at most 20 listed,
//	                                      each with the check it came in (the specification's Schema Reference for the
//	                                      connection's version)
//	shutdown                           W  over stdio ([Command]), the server process exits with status 0 when its
//	                                      stdin closes, on every connection the checks made but those left with a
//	                                      request still at work (timed out, or cancelled and still reporting
//	                                      progress); reported once (basic/lifecycle, "Shutdown")
//	monitor/<rule>                     F  the protocol monitor's rules, judged on every message of every connection
//	                                      the checks made before them: monitor/jsonrpc, monitor/id-echo,
//	                                      monitor/one-response, monitor/progress-token, monitor/progress-increasing,
//	                                      monitor/progress-after-response, monitor/log-level,
//	                                      monitor/server-request-era, monitor/input-capability, monitor/list-changed,
//	                                      monitor/cursor, monitor/resource-uri, monitor/result-type,
//	                                      monitor/cancelled, monitor/meta-key, monitor/error-code,
//	                                      monitor/server-request-id, monitor/server-cancelled, monitor/subscription,
//	                                      monitor/server-info, monitor/cache-scope, monitor/list-order,
//	                                      monitor/structured-text, monitor/embedded-resource, monitor/uri-syntax,
//	                                      monitor/header-annotation, monitor/task-extension. A rule that saw nothing
//	                                      it judges is skipped (the section each rule cites); W a SHOULD rule
//	                                      (monitor/cursor, monitor/resource-uri, monitor/cancelled,
//	                                      monitor/server-info, monitor/list-order, monitor/structured-text,
//	                                      monitor/embedded-resource) or the SHOULD part of a MUST rule (a log below
//	                                      the level set, an unannounced list change)
//	lint/descriptions/<tool>           W  the tool's description is more than one word; a required parameter has a
//	                                      description (warned), an optional one too, and none is one word (noted): the
//	                                      descriptions are how a model picks the tool and fills its arguments (a tool
//	                                      with no description at all is tools/descriptions') (a convention: the MCP
//	                                      documentation's tool-design guidance)
//	lint/enums/<tool>                  W  a parameter with enum values says what they mean: its description names
//	                                      them, or each value is a oneOf/anyOf const with a title or description
//	                                      (noted otherwise) (a convention: the MCP documentation's tool-design
//	                                      guidance)
//	lint/annotations/<tool>            W  the hints agree with each other and with the name: destructiveHint true with
//	                                      readOnlyHint true (destructiveHint is meaningful only when readOnlyHint is
//	                                      false), readOnlyHint on a tool named for deleting (delete, remove, drop,
//	                                      destroy, purge, erase, truncate, wipe) are warned; destructiveHint false on
//	                                      such a tool is noted (server/tools, "Tool Annotations" (ToolAnnotations in
//	                                      the schema))
//	lint/output-text/<tool>            W  a tool with an outputSchema whose successful calls in tools/calls returned
//	                                      structuredContent also returned a text block: a client that passes only
//	                                      content to the model otherwise shows it nothing; skipped when no call
//	                                      succeeded (server/tools, "Structured Content": SHOULD also return the
//	                                      serialized JSON in a TextContent block)
//	lint/names                         W  no two tools' names are equal once case is folded (a client or model that
//	                                      folds case calls the wrong one); a name past 64 characters or with a dot,
//	                                      which some clients refuse (their pattern is ^[a-zA-Z0-9_-]{1,64}$), is noted
//	                                      (the specification's own rules are tools/names') (server/tools, "Tool
//	                                      Names": SHOULD be unique within a server)
//	lint/tokens                        W  the tokens tools/list costs a model's context, per tool and in all, counted
//	                                      with Options.Tokens (mcptestkit check counts with o200k_base); warned past
//	                                      Options.TokenBudget (default 3000); skipped without a tokenizer (a
//	                                      convention: every tool's definition is in the model's context on every
//	                                      request)
//
// The tasks checks run where the server has tasks: on the main connection
// (2025-11-25 with the tasks capability for tools/call, 2026-07-28 with the
// io.modelcontextprotocol/tasks extension), or, when that speaks 2026-07-28
// without the extension and was opened era-neutrally, on a 2025-11-25
// connection if the server offers it (and declares tasks there); else they
// are skipped, naming why. A tool that requires a task is called as one by
// tools/calls and tools/invalid-arguments, which skip it where no task can
// be made.
//
// The checks call every tool, many times, with odd arguments: run them
// against a test instance of a server, never against one whose tools act on
// the world (files, accounts, deployments).
//
// A check whose capability the server does not declare is skipped. Options
// select checks by name as go test's -run and -skip do. In-process servers
// (a mcptest.Server, checked by mcptest.CheckServer) also report a handler panic
// their adapter had to recover: a server without a crash guard fails with
// how to install one.
//
// Every failure says what was sent, what came back and what the protocol or
// the error contract expects, and carries the messages of the connection
// around it (Result.Transcript).
//
// # Conformance
//
// The official conformance suite (@modelcontextprotocol/conformance
// 0.2.0-alpha.12) tests a server that serves its fixture's fixed tools,
// resources and prompts, over HTTP. The checks need no fixture, run over
// every transport and are gated on what the server declares; each server
// scenario of the suite, and the checks that cover its rules on any server
// (or why none does):
//
//	server-initialize                              handshake/<version>, version-negotiation, messages
//	server-session-lifecycle                       http/sessions, http/notifications, http/delete
//	server-stateless                               handshake/<version>, messages; every check at 2026-07-28 runs without a
//	                                               session; over HTTP the http/ checks are of legacy sessions
//	logging-set-level                              capabilities
//	ping                                           ping
//	completion-complete                            capabilities, messages
//	tools-list                                     tools/list, tools/names, tools/schemas/<tool>, messages
//	tools-call-simple-text                         tools/calls/<tool>, messages; on every tool the server has, not a fixed one
//	tools-call-image                               tools/calls/<tool>, messages; on every tool the server has, not a fixed one
//	tools-call-audio                               tools/calls/<tool>, messages; on every tool the server has, not a fixed one
//	tools-call-embedded-resource                   tools/calls/<tool>, messages; on every tool the server has, not a fixed one
//	tools-call-mixed-content                       tools/calls/<tool>, messages; on every tool the server has, not a fixed one
//	tools-call-with-logging                        messages; needs the fixture's tool that logs; the log notifications any tool
//	                                               sends are checked by messages
//	tools-call-error                               tools/calls/<tool>, tools/invalid-arguments/<tool>, tools/unknown-tool
//	tools-call-with-progress                       tools/progress, tools/calls/<tool>, messages
//	tools-call-sampling                            needs a tool that asks the client (the fixture's); a server's own tools that
//	                                               ask are answered by Options.Client's callbacks during tools/calls
//	tools-call-elicitation                         needs a tool that asks the client (the fixture's); a server's own tools that
//	                                               ask are answered by Options.Client's callbacks during tools/calls
//	json-schema-2020-12                            tools/schemas/<tool>
//	elicitation-sep1034-defaults                   needs a tool that asks the client (the fixture's); a server's own tools that
//	                                               ask are answered by Options.Client's callbacks during tools/calls
//	server-sse-polling                             http/priming, tools/calls/<tool>; a stream that ends before the response
//	                                               without an event id fails the call; resumption itself (GET with
//	                                               Last-Event-ID) is not sent (a gap)
//	server-sse-multiple-streams                    http/get; several streams at once are not checked (a gap)
//	elicitation-sep1330-enums                      needs a tool that asks the client (the fixture's); a server's own tools that
//	                                               ask are answered by Options.Client's callbacks during tools/calls
//	resources-list                                 resources/list, messages
//	resources-read-text                            resources/read/<name>, messages
//	resources-read-binary                          resources/read/<name>, messages
//	resources-templates-read                       resources/templates/list, resources/templates/read/<name>
//	resources-subscribe                            capabilities; notifications/resources/updated after a change is not waited
//	                                               for (the checks change nothing)
//	resources-unsubscribe                          capabilities
//	sep-2164-resource-not-found                    resources/unknown-uri
//	sep-2640-skills-directory                      none: the skills extension (sep-2640) is not spoken by the checks
//	sep-2640-skills-enumeration                    none: the skills extension (sep-2640) is not spoken by the checks
//	sep-2640-skills-manifest                       none: the skills extension (sep-2640) is not spoken by the checks
//	prompts-list                                   prompts/list, messages
//	prompts-get-simple                             prompts/get/<prompt>, messages
//	prompts-get-with-args                          prompts/get/<prompt>, prompts/missing-argument/<prompt>
//	prompts-get-embedded-resource                  prompts/get/<prompt>, messages
//	prompts-get-with-image                         prompts/get/<prompt>, messages
//	dns-rebinding-protection                       http/origin
//	caching                                        messages; ttlMs and cacheScope are checked on every cacheable result at
//	                                               2026-07-28
//	http-header-validation                         http/headers; Mcp-Method and Mcp-Name missing, differing, with spaces
//	                                               around, base64-encoded
//	http-custom-header-server-validation           http/headers, tools/calls/<tool>; a differing and a missing Mcp-Param-*
//	                                               header, on the first tool whose x-mcp-header binds a top-level string or
//	                                               integer; encodings are not varied
//	tasks-lifecycle                                tasks/optional/<tool>, tasks/cancel, tasks/unknown-task
//	tasks-capability-negotiation                   tasks/required/<tool>, tasks/optional/<tool>
//	tasks-wire-fields                              tasks/status-notifications, messages; the tasks extension's wire rules on
//	                                               task tools the server has
//	tasks-request-state-removal                    needs the fixture's input_required task tool
//	tasks-mrtr-input                               needs the fixture's input_required task tool
//	tasks-request-headers                          none yet: the header rules are checked on tools/list, tools/call and
//	                                               resources/read or prompts/get, not on a task's own requests (a gap)
//	tasks-dispatch-and-envelope                    tasks/optional/<tool>, tasks/failed-result
//	tasks-status-notifications                     tasks/status-notifications
//	tasks-required-task-error                      tasks/required/<tool>
//	tasks-mrtr-composition                         needs the fixture's input_required task tool
//	input-required-result-basic-elicitation        needs the fixture's input_required tools; a server's own tools that ask are
//	                                               answered during tools/calls, their results checked by messages
//	input-required-result-basic-sampling           needs the fixture's input_required tools; a server's own tools that ask are
//	                                               answered during tools/calls, their results checked by messages
//	input-required-result-basic-list-roots         needs the fixture's input_required tools; a server's own tools that ask are
//	                                               answered during tools/calls, their results checked by messages
//	input-required-result-request-state            needs the fixture's input_required tools; a server's own tools that ask are
//	                                               answered during tools/calls, their results checked by messages
//	input-required-result-multiple-input-requests  needs the fixture's input_required tools; a server's own tools that ask are
//	                                               answered during tools/calls, their results checked by messages
//	input-required-result-multi-round              needs the fixture's input_required tools; a server's own tools that ask are
//	                                               answered during tools/calls, their results checked by messages
//	input-required-result-missing-input-response   tools/input-required/<tool>; on every tool that answers input_required
//	input-required-result-non-tool-request         needs the fixture's input_required tools; a server's own tools that ask are
//	                                               answered during tools/calls, their results checked by messages
//	input-required-result-result-type              messages; resultType is checked on every result at 2026-07-28
//	input-required-result-unsupported-methods      tools/list, prompts/list, messages; an input_required result is checked on
//	                                               every request that may not have one
//	input-required-result-tampered-state           tools/input-required/<tool>; on every tool that answers input_required with
//	                                               a requestState, changed otherwise than the suite does
//	input-required-result-capability-check         needs the fixture's input_required tools; a server's own tools that ask are
//	                                               answered during tools/calls, their results checked by messages
//	input-required-result-ignore-extra-params      needs the fixture's input_required tools; a server's own tools that ask are
//	                                               answered during tools/calls, their results checked by messages
//	input-required-result-validate-input           tools/invalid-arguments/<tool>; input validation is checked on the first
//	                                               round; the fixture's retry rounds are not
//
// # Requirements
//
// [Requirements] is the specification read sentence by sentence: every MUST,
// MUST NOT, SHOULD and SHOULD NOT that revisions 2025-11-25 and 2026-07-28
// (with the tasks extension) put on a server, each with the checks and the
// protocol monitor's rules that judge it, or why none can (not observable
// from a client, needs a fixture, needs authorization, binds the client, the
// transport's, or not checked yet). The whole table, with its citations, is
// REQUIREMENTS.md beside this package
// (https://github.com/mcptestkit/mcptestkit/blob/main/mcptest/servercheck/REQUIREMENTS.md);
// a check's rules, for a report, are the rows that name it. Counted:
//
//	568 requirements, 287 judged by a check or monitor rule (53 by monitor rules
//	alone), 281 with a reason (127 not observable, 41 needs a fixture, 34 needs
//	authorization, 66 client rule, 10 transport layer, 3 not checked yet)
//
// [Fuzzer] drives the same invariants from a fuzzer's bytes (mcptest.Fuzz
// wraps it for go test -fuzz).
package servercheck
