// Command mcptestkit checks, calls and records MCP servers from the command
// line, in any language, for people and for CI:
//
//	go install github.com/mcptestkit/mcptestkit/cmd/mcptestkit@latest
//
//	mcptestkit check                                  # the bundled Bookshop example, in process
//	mcptestkit check -- python server.py              # a server speaking stdio
//	mcptestkit check https://example.com/mcp --header "Authorization: Bearer $TOKEN"
//	mcptestkit list -- ./myserver
//	mcptestkit call get_author title=Dune -- ./myserver
//	mcptestkit record --script steps.json -o session.golden -- ./myserver
//	mcptestkit replay session.golden -- ./myserver
//	mcptestkit diff v1.json -- ./myserver                # which schema changes break clients
//	mcptestkit surface --require surface/*.json          # what the tests never exercised
//	mcptestkit record -o s.cassette -- ./myserver         # a proxy a real client launches
//	mcptestkit serve s.cassette                          # the recorded server, for a client's tests
//	mcptestkit replay s.cassette -- ./myserver           # the server against the recorded answers
//	mcptestkit version                                   # the build: module version, revision, Go
//
// A server is a streamable HTTP URL, or -- followed by the command line of a
// program that speaks MCP on stdin/stdout (everything after -- is the
// server's, flags included); with neither, the command talks to the
// Bookshop of examples/bookshop, served in the process.
//
// # check
//
// check runs the battery of mcptest.CheckServer (package mcptest/servercheck
// lists the checks) and prints a line per check as it finishes (PASS, FAIL
// or SKIP), each failure's detail (what was sent, what came back, what the
// protocol or the error contract expects) with the messages around it, and
// a summary line "N passed, M failed". Colour and a progress line appear
// only on a terminal (NO_COLOR turns colour off). --format json prints the
// report as one JSON document; --junit FILE writes a JUnit XML report for CI.
// --run and --skip select checks by name as go test's -run and -skip do;
// --fuzz-calls sets how many calls with generated arguments each tool gets;
// --timeout bounds each request; --version picks the protocol version.
//
// # list and call
//
// list prints the tools, resources, resource templates and prompts (all
// pages); call calls one tool with key=value arguments (typed by the tool's
// input schema), key:=JSON arguments or --json, and prints the result. A
// tool that requires a task (execution.taskSupport "required"), or any tool
// with --task, runs as a task: call waits for it, printing each status on
// stderr (at 2025-11-25 when the server has tasks only there and no
// --version is given).
//
// # record and replay
//
// record writes a session as a golden file: the protocol version, the
// server's name (not its version), capabilities and instructions, every
// page of its lists, and the outcome (result or JSON-RPC error) of each step
// of a script, a JSON array such as
//
//	[{"tool": "get_author", "arguments": {"title": "Dune"}},
//	 {"resource": "books://Dune"},
//	 {"prompt": "recommend", "arguments": {"title": "Dune"}}]
//
// The file is normalised as mcptest's golden files are (see mcptest.Normalize:
// request ids, the protocol's stamps and cache hints removed, numbers by
// value), so it diffs well in review. replay connects again at the recorded
// protocol version, runs the same steps, and prints a unified diff
// (-recorded +now) when anything changed: a recorded session is a
// regression test for CI. The lists (tools, resources, templates, prompts)
// compare in any order; --ignore NAME leaves out a member that changes from
// run to run, such as a timestamp in _meta.
//
// With -o FILE.cassette, record is a stdio proxy that a real client launches
// in place of the server (mcptestkit record -o s.cassette -- ./myserver), or
// with a URL and --listen ADDR a streamable HTTP reverse proxy: it passes
// every message through unchanged (compressed bodies too: it records what
// they decode to) and writes the session, secrets redacted (--redact-name
// NAME and --redact REGEXP add to the defaults, and the cassette keeps them
// for its replays), for package mcptest/cassette to play back in go test.
// Concurrent HTTP sessions are recorded apart and played apart, one to each
// connection. The output's directory is checked before anything starts.
//
// replay FILE.cassette -- SERVER sends a cassette's recorded requests to a
// server and prints a diff for each answer that differs, as
// mcptest/cassette's Replay does in go test.
//
// serve FILE.cassette plays the recorded server back over stdio (or
// streamable HTTP with --listen ADDR), for testing a client in any language;
// a request it has no recording for gets an error naming the closest one,
// and serve exits 1. --once
// plays each recorded answer once; --ignore-param NAME matches requests
// without that member.
//
// # diff
//
// diff OLD NEW compares two versions of what a server offers and prints
// each change with its JSON path, breaking ones (a removed tool, a new
// required argument, a narrowed type, a removed output field...) first.
// OLD and NEW are files (what list --format json prints, or a golden file
// of the lists), URLs, or, for NEW, -- a server's command line.
//
// # surface
//
// surface FILE... merges the surface reports that test binaries write with
// MCPTEST_SURFACE set (package mcptest/surface), and that check writes with
// it set, and lists per server what the tests exercised of what it
// declares, then what they never did. --source check shows the checks'
// calls instead; --require exits 1 when a declared tool, resource, template
// or prompt was never exercised (--exempt NAME leaves one out); -o FILE
// writes the merged report.
//
// # Exit status
//
// 0: every check passed, the call succeeded, the replay matched, every
// change diff found is compatible. 1: a check failed, the tool failed
// (isError or a JSON-RPC error), the replay differs or the server broke
// during it, diff found a breaking change, surface --require found
// something never exercised. 2: bad usage, or the server could not be
// started or reached. 130 (143 for SIGTERM): interrupted; check stops at
// once, and blames the server for none of the calls it cut short.
package main
