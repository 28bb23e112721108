package servercheck

// monitorRules are the rules of the protocol monitor (mcptest/internal/monitor)
// that the requirement table names. They stand here until the monitor
// lands and exposes its own list, which then replaces this one.
var monitorRules = []string{
	"monitor/jsonrpc",                 // well-formed JSON-RPC 2.0 frames
	"monitor/id-echo",                 // a response's id equals its request's, same JSON type
	"monitor/one-response",            // one response per request; none for an unknown id
	"monitor/progress-token",          // progress only for a token the client gave
	"monitor/progress-increasing",     // progress strictly increases
	"monitor/progress-after-response", // no progress after the response
	"monitor/log-level",               // log messages only at or above the level set
	"monitor/server-request-era",      // no server-to-client request at 2026-07-28
	"monitor/input-capability",        // input requests only for declared client capabilities
	"monitor/list-changed",            // list_changed only when the capability says listChanged
	"monitor/cursor",                  // nextCursor never repeats; pagination ends
	"monitor/resource-uri",            // resources/read answers the URI asked
	"monitor/result-type",             // 2026-07-28 results carry resultType
	"monitor/cancelled",               // nothing for a cancelled request but possibly its response
}
