package monitor

// Severity is the keyword of the specification a rule enforces.
type Severity uint8

const (
	// Must: the text says MUST or MUST NOT (or JSON-RPC 2.0 requires it).
	Must Severity = iota
	// Should: the text says SHOULD or SHOULD NOT.
	Should
)

func (s Severity) String() string {
	if s == Should {
		return "SHOULD"
	}
	return "MUST"
}

// Rule is one rule of the protocol the monitor judges on live sessions.
type Rule struct {
	// ID names the rule, "monitor/id-echo"; fixed, for the requirement
	// table.
	ID string
	// Citation is the address of the specification's section.
	Citation string
	// Severity is the keyword of the text; a finding may be weaker (see
	// the rule's Doc), never stronger.
	Severity Severity
	// Doc says in one line what the server must do.
	Doc string
}

const spec = "https://modelcontextprotocol.io/specification/"

// The rules' indexes in rules.
const (
	ruleJSONRPC = iota
	ruleIDEcho
	ruleOneResponse
	ruleProgressToken
	ruleProgressIncreasing
	ruleProgressAfterResponse
	ruleLogLevel
	ruleServerRequestEra
	ruleInputCapability
	ruleListChanged
	ruleCursor
	ruleResourceURI
	ruleResultType
	ruleCancelled
	ruleMetaKey
	ruleErrorCode
	ruleServerRequestID
	ruleServerCancelled
	ruleSubscription
	ruleServerInfo
	ruleCacheScope
	ruleListOrder
	ruleStructuredText
	ruleEmbeddedResource
	ruleURISyntax
	ruleHeaderAnnotation
	ruleTaskExtension
	numRules
)

var rules = [numRules]Rule{
	ruleJSONRPC: {"monitor/jsonrpc", spec + "2025-11-25/basic#messages", Must,
		"every message the server sends is one well-formed JSON-RPC 2.0 request, notification or response"},
	ruleIDEcho: {"monitor/id-echo", spec + "2025-11-25/basic#responses", Must,
		"a response carries the id of its request exactly, of the same JSON type; null only for a request whose id could not be read"},
	ruleOneResponse: {"monitor/one-response", spec + "2025-11-25/basic#responses", Must,
		"one response per request: none twice, none to an id no request in flight carries"},
	ruleProgressToken: {"monitor/progress-token", spec + "2025-11-25/basic/utilities/progress#behavior-requirements", Must,
		"progress notifications only reference a token a request of the client gave"},
	ruleProgressIncreasing: {"monitor/progress-increasing", spec + "2025-11-25/basic/utilities/progress#progress-flow", Must,
		"the progress value increases with each notification of a token"},
	ruleProgressAfterResponse: {"monitor/progress-after-response", spec + "2025-11-25/basic/utilities/progress#behavior-requirements", Must,
		"no progress for a request after its response, nor for a task after the server gave it a terminal status"},
	ruleLogLevel: {"monitor/log-level", spec + "2025-11-25/server/utilities/logging", Must,
		"log notifications only with the logging capability and (2026-07-28) for a request that set _meta logLevel (MUST); at or above the level set (SHOULD)"},
	ruleServerRequestEra: {"monitor/server-request-era", spec + "2026-07-28/basic/patterns/mrtr", Must,
		"a 2026-07-28 server sends no JSON-RPC request: it asks for input with an input_required result"},
	ruleInputCapability: {"monitor/input-capability", spec + "2025-11-25/basic/lifecycle#operation", Must,
		"elicitation, sampling and roots requests (or 2026-07-28 inputRequests) only for capabilities and modes the client declared"},
	ruleListChanged: {"monitor/list-changed", spec + "2025-11-25/server/tools#list-changed-notification", Must,
		"list_changed only when listChanged was declared (and, 2026-07-28, asked for) (MUST); a list that changed is announced when listChanged was declared (SHOULD; at 2026-07-28, judged while one subscriptions/listen asking for it was open across both listings)"},
	ruleCursor: {"monitor/cursor", spec + "2025-11-25/server/utilities/pagination#implementation-guidelines", Should,
		"nextCursor never repeats a cursor already given in the same listing (stable cursors)"},
	ruleResourceURI: {"monitor/resource-uri", spec + "2025-11-25/server/resources#reading-resources", Should,
		"resources/read contents are of the resource asked for or a sub-resource of it"},
	ruleResultType: {"monitor/result-type", spec + "2026-07-28/basic#responses", Must,
		"a result to a 2026-07-28 request carries resultType"},
	ruleTaskExtension: {"monitor/task-extension", spec + "2026-07-28/tasks-extension#capability-negotiation", Must,
		"no CreateTaskResult (resultType task) to a 2026-07-28 request that did not declare the io.modelcontextprotocol/tasks extension"},
	ruleCancelled: {"monitor/cancelled", spec + "2025-11-25/basic/utilities/cancellation#behavior-requirements", Should,
		"no response to a request after the server has read its notifications/cancelled"},
	ruleMetaKey: {"monitor/meta-key", spec + "2025-11-25/basic#meta", Must,
		"every _meta key the server sends, and every extension identifier it declares (prefix mandatory), follows the _meta key naming rules"},
	ruleErrorCode: {"monitor/error-code", spec + "2026-07-28/basic#error-codes", Must,
		"an error to a 2026-07-28 request carries no code of -32020..-32099 the specification does not define, nor the retired -32042"},
	ruleServerRequestID: {"monitor/server-request-id", spec + "2025-11-25/basic#requests", Must,
		"a request of the server carries an id none of its earlier requests in the session carried"},
	ruleServerCancelled: {"monitor/server-cancelled", spec + "2026-07-28/basic/patterns/cancellation", Must,
		"a 2026-07-28 server sends notifications/cancelled only to end a subscriptions/listen in flight"},
	ruleSubscription: {"monitor/subscription", spec + "2026-07-28/basic/patterns/subscriptions", Must,
		"at 2026-07-28, change notifications name their subscription, come after its acknowledgement and only as it asked; log and progress notifications never name one"},
	ruleServerInfo: {"monitor/server-info", spec + "2026-07-28/basic#meta", Should,
		"every result to a 2026-07-28 request carries _meta io.modelcontextprotocol/serverInfo"},
	ruleCacheScope: {"monitor/cache-scope", spec + "2026-07-28/server/utilities/caching#interaction-with-pagination", Must,
		"every page of one 2026-07-28 listing has the same cacheScope"},
	ruleListOrder: {"monitor/list-order", spec + "2026-07-28/server/tools#capabilities", Should,
		"tools/list at 2026-07-28 gives the same tools in the same order each time"},
	ruleStructuredText: {"monitor/structured-text", spec + "2025-11-25/server/tools#structured-content", Should,
		"before 2026-07-28, a tool result with structuredContent also carries a text block"},
	ruleEmbeddedResource: {"monitor/embedded-resource", spec + "2025-11-25/server/tools#embedded-resources", Should,
		"a server whose tool results embed resources declares the resources capability"},
	ruleURISyntax: {"monitor/uri-syntax", spec + "2025-11-25/server/resources#custom-uri-schemes", Must,
		"every URI resources/list gives is an RFC 3986 URI"},
	ruleHeaderAnnotation: {"monitor/header-annotation", spec + "2026-07-28/server/tools#x-mcp-header", Must,
		"at 2026-07-28, an x-mcp-header annotation sits on a property reached from the inputSchema's root through properties alone"},
}

// Rules returns the rules the monitor judges, in a fixed order.
func Rules() []Rule { return append([]Rule(nil), rules[:]...) }
