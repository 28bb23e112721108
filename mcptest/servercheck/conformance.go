package servercheck

// The official conformance suite (@modelcontextprotocol/conformance) tests
// a server with fixed tools, resources and prompts (its "everything"
// fixture), over HTTP only. The checks here need no fixture: each scenario
// of its server suite maps to the checks that cover the same rule on any
// server, or says why none does. The package documentation's "Conformance"
// list is generated from this table; TestConformanceTable keeps it to the
// suite's scenario list (testdata) and to the checks that exist, and the
// integration module's TestConformanceAgreement runs the suite and the
// checks against one server and holds them to agree on every scenario a
// check covers.

// conformanceRelease is the suite release the table maps.
const conformanceRelease = "0.2.0-alpha.12"

// scenarioMap is one scenario of the suite's server list.
type scenarioMap struct {
	scenario string
	checks   []string // the checks that cover it (names as in the check list)
	note     string   // what is not covered, and why; "" when all is
}

func conformanceTable() []scenarioMap {
	const (
		fixture   = "on every tool the server has, not a fixed one"
		askClient = "needs a tool that asks the client (the fixture's); a server's own tools that ask are answered by Options.Client's callbacks during tools/calls"
		mrtr      = "needs the fixture's input_required tools; a server's own tools that ask are answered during tools/calls, their results checked by messages"
		tasksExt  = "the tasks extension's wire rules on task tools the server has"
		skills    = "none: the skills extension (sep-2640) is not spoken by the checks"
	)
	return []scenarioMap{
		{"server-initialize", []string{"handshake/<version>", "version-negotiation", "messages"}, ""},
		{"server-session-lifecycle", []string{"http/sessions", "http/notifications", "http/delete"}, ""},
		{"server-stateless", []string{"handshake/<version>", "messages"}, "every check at 2026-07-28 runs without a session; over HTTP the http/ checks are of legacy sessions"},
		{"logging-set-level", []string{"capabilities"}, ""},
		{"ping", []string{"ping"}, ""},
		{"completion-complete", []string{"capabilities", "messages"}, ""},
		{"tools-list", []string{"tools/list", "tools/names", "tools/schemas/<tool>", "messages"}, ""},
		{"tools-call-simple-text", []string{"tools/calls/<tool>", "messages"}, fixture},
		{"tools-call-image", []string{"tools/calls/<tool>", "messages"}, fixture},
		{"tools-call-audio", []string{"tools/calls/<tool>", "messages"}, fixture},
		{"tools-call-embedded-resource", []string{"tools/calls/<tool>", "messages"}, fixture},
		{"tools-call-mixed-content", []string{"tools/calls/<tool>", "messages"}, fixture},
		{"tools-call-with-logging", []string{"messages"}, "needs the fixture's tool that logs; the log notifications any tool sends are checked by messages"},
		{"tools-call-error", []string{"tools/calls/<tool>", "tools/invalid-arguments/<tool>", "tools/unknown-tool"}, ""},
		{"tools-call-with-progress", []string{"tools/progress", "tools/calls/<tool>", "messages"}, ""},
		{"tools-call-sampling", nil, askClient},
		{"tools-call-elicitation", nil, askClient},
		{"json-schema-2020-12", []string{"tools/schemas/<tool>"}, ""},
		{"elicitation-sep1034-defaults", nil, askClient},
		{"server-sse-polling", []string{"http/priming", "tools/calls/<tool>"}, "a stream that ends before the response without an event id fails the call; resumption itself (GET with Last-Event-ID) is not sent (a gap)"},
		{"server-sse-multiple-streams", []string{"http/get"}, "several streams at once are not checked (a gap)"},
		{"elicitation-sep1330-enums", nil, askClient},
		{"resources-list", []string{"resources/list", "messages"}, ""},
		{"resources-read-text", []string{"resources/read/<name>", "messages"}, ""},
		{"resources-read-binary", []string{"resources/read/<name>", "messages"}, ""},
		{"resources-templates-read", []string{"resources/templates/list", "resources/templates/read/<name>"}, ""},
		{"resources-subscribe", []string{"capabilities"}, "notifications/resources/updated after a change is not waited for (the checks change nothing)"},
		{"resources-unsubscribe", []string{"capabilities"}, ""},
		{"sep-2164-resource-not-found", []string{"resources/unknown-uri"}, ""},
		{"sep-2640-skills-directory", nil, skills},
		{"sep-2640-skills-enumeration", nil, skills},
		{"sep-2640-skills-manifest", nil, skills},
		{"prompts-list", []string{"prompts/list", "messages"}, ""},
		{"prompts-get-simple", []string{"prompts/get/<prompt>", "messages"}, ""},
		{"prompts-get-with-args", []string{"prompts/get/<prompt>", "prompts/missing-argument/<prompt>"}, ""},
		{"prompts-get-embedded-resource", []string{"prompts/get/<prompt>", "messages"}, ""},
		{"prompts-get-with-image", []string{"prompts/get/<prompt>", "messages"}, ""},
		{"dns-rebinding-protection", []string{"http/origin"}, ""},
		{"caching", []string{"messages"}, "ttlMs and cacheScope are checked on every cacheable result at 2026-07-28"},
		{"http-header-validation", []string{"http/headers"}, "Mcp-Method and Mcp-Name missing, differing, with spaces around, base64-encoded"},
		{"http-custom-header-server-validation", []string{"http/headers", "tools/calls/<tool>"}, "a differing and a missing Mcp-Param-* header, on the first tool whose x-mcp-header binds a top-level string or integer; encodings are not varied"},
		{"tasks-lifecycle", []string{"tasks/optional/<tool>", "tasks/cancel", "tasks/unknown-task"}, ""},
		{"tasks-capability-negotiation", []string{"tasks/required/<tool>", "tasks/optional/<tool>"}, ""},
		{"tasks-wire-fields", []string{"tasks/status-notifications", "messages"}, tasksExt},
		{"tasks-request-state-removal", nil, "needs the fixture's input_required task tool"},
		{"tasks-mrtr-input", nil, "needs the fixture's input_required task tool"},
		{"tasks-request-headers", nil, "none yet: the header rules are checked on tools/list, tools/call and resources/read or prompts/get, not on a task's own requests (a gap)"},
		{"tasks-dispatch-and-envelope", []string{"tasks/optional/<tool>", "tasks/failed-result"}, ""},
		{"tasks-status-notifications", []string{"tasks/status-notifications"}, ""},
		{"tasks-required-task-error", []string{"tasks/required/<tool>"}, ""},
		{"tasks-mrtr-composition", nil, "needs the fixture's input_required task tool"},
		{"input-required-result-basic-elicitation", nil, mrtr},
		{"input-required-result-basic-sampling", nil, mrtr},
		{"input-required-result-basic-list-roots", nil, mrtr},
		{"input-required-result-request-state", nil, mrtr},
		{"input-required-result-multiple-input-requests", nil, mrtr},
		{"input-required-result-multi-round", nil, mrtr},
		{"input-required-result-missing-input-response", []string{"tools/input-required/<tool>"}, "on every tool that answers input_required"},
		{"input-required-result-non-tool-request", nil, mrtr},
		{"input-required-result-result-type", []string{"messages"}, "resultType is checked on every result at 2026-07-28"},
		{"input-required-result-unsupported-methods", []string{"tools/list", "prompts/list", "messages"}, "an input_required result is checked on every request that may not have one"},
		{"input-required-result-tampered-state", []string{"tools/input-required/<tool>"}, "on every tool that answers input_required with a requestState, changed otherwise than the suite does"},
		{"input-required-result-capability-check", nil, mrtr},
		{"input-required-result-ignore-extra-params", nil, mrtr},
		{"input-required-result-validate-input", []string{"tools/invalid-arguments/<tool>"}, "input validation is checked on the first round; the fixture's retry rounds are not"},
	}
}
