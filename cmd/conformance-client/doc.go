// Command conformance-client is the MCP client that the official conformance
// suite (@modelcontextprotocol/conformance) drives; conformance/run.sh runs
// every client scenario against it.
//
// Usage: conformance-client [flags-ignored...] <server-url>
//
// The suite names the scenario in MCP_CONFORMANCE_SCENARIO and, for some,
// passes data (pre-registered credentials, keys, an ID token) as JSON in
// MCP_CONFORMANCE_CONTEXT. The program connects with package client over the
// streamable HTTP transport, with package client/oauth handling
// authorization, does what the scenario expects, and exits 0 on success and
// 1 on any error, within its own deadline so the suite never has to kill it.
//
// Every HTTP exchange is traced to stderr (bodies clipped), which the suite
// saves per scenario under conformance/results/latest: the wire evidence
// when a scenario fails.
package main
