// Package interactive is the Release desk, a server written with the
// official Go SDK (github.com/modelcontextprotocol/go-sdk) whose tools talk
// back to the client in the middle of a call, and its tests, which prove
// that each tool works at every protocol version:
//
//   - deploy asks the user to confirm (elicitation, a form with one
//     checkbox) and deploys only if they ticked it;
//   - release_notes asks the client's model to write the notes (sampling);
//   - migrate reports progress after each table.
//
// [New] is the version to copy. [NewLegacyOnly] writes deploy the old way,
// to show how that fails on 2026-07-28.
//
// # Two eras, one handler
//
// Up to 2025-11-25 a server asks for input by sending a request of its own
// while it serves a call: req.Session.Elicit, req.Session.CreateMessage,
// req.Session.ListRoots. 2026-07-28 forbids that. The server answers the
// call with an input_required result that lists its input requests; the
// client answers them and sends the call again with the answers (multi
// round-trip requests). On a 2026-07-28 connection go-sdk v1.8.0 refuses
// the old calls with
//
//	"elicitation/create" cannot be sent while serving a request on protocol version 2026-07-28: return an InputRequests map instead (multi round-trip requests, SEP-2322)
//
// The new shape works in both eras. For an older client, a middleware that
// every mcp.NewServer installs sends the input requests as real
// elicitation/create, sampling/createMessage or roots/list requests, waits
// for the answers, and runs the handler again with them. So the handler is
// the same for every client, and so is the test: the Elicit and
// CreateMessage callbacks given to mcptest.WithClient answer input requests
// and server requests alike.
//
// # Writing a tool that works in both eras
//
//  1. Look for the answer in req.Params.InputResponses, under the key you
//     asked with. An elicitation answer is a *mcp.ElicitResult; go-sdk
//     decodes a sampling answer from either era as a
//     *mcp.CreateMessageWithToolsResult.
//  2. If it is not there, check that the client can answer
//     (req.Session.InitializeParams().Capabilities, which go-sdk fills in
//     both eras) and return a result with only InputRequests set. A result
//     with content as well is answered with -32603; for mcp.AddTool, go-sdk
//     leaves the structured output out by itself. A client that cannot
//     answer gets a tool error that says so.
//  3. Do nothing irreversible before the answer is there: the handler runs
//     once per round, and the first run only asks. The tests count the
//     deployments in the log to prove it.
//  4. Ask for everything in one round. For an older client go-sdk runs the
//     handler again once only: a handler that asks a second time reaches it
//     as a result with empty content and no error.
//  5. Check the answer yourself. go-sdk validates an older client's form
//     against requestedSchema, but hands a 2026-07-28 answer to the handler
//     as the client sent it.
//  6. Keep nothing in memory between rounds: the retry may reach another
//     server instance. The retry brings the original arguments back; put
//     anything else in RequestState, and sign it, as the client can change
//     it.
//
// Progress needs none of this: it is a notification, which a server may
// send in every era. Send it with req.Session.NotifyProgress when
// req.Params.GetProgressToken() is not nil.
//
// # The cases
//
// Elicitation came in 2025-06-18. The tests that need it run only those
// versions, with mcptest.EachVersion(t, fn, mcptest.Since(client.Version20250618)),
// and TestDeployBeforeElicitation runs exactly the older ones with
// mcptest.Before(client.Version20250618).
//
//	test                            versions           the client                      the client gets
//	TestDeployConfirmed             2025-06-18 and up  accepts, box ticked             "Deployed shop-api to production.",
//	                                                                                   deployed once
//	TestDeployNotConfirmed          2025-06-18 and up  accepts unticked, declines,     "Not deployed: ...", a success (nothing
//	                                                   cancels                         failed, the model must not retry)
//	TestDeployWithoutElicitation    all                no elicitation callback         tool error "... does not support elicitation"
//	TestDeployBeforeElicitation     before 2025-06-18  a callback it cannot declare    the same tool error; the callback never runs
//	TestDeployTheOldWay             2025-06-18 and up  accepts                         legacy: deployed; 2026-07-28: tool error
//	  (NewLegacyOnly)                                                                  quoting go-sdk's refusal
//	TestDeployOnTheWire             newest of each era accepts                         golden transcripts: two tools/call, or
//	                                                                                   one tools/call and an elicitation/create
//	TestReleaseNotes                all                its model answers               "Release notes for shop-api:\n<the text>"
//	TestReleaseNotesWithoutSampling all                no sampling callback            tool error "... does not support sampling"
//	TestReleaseNotesRefused         all                the callback fails with -1      legacy: JSON-RPC error -1 from the server;
//	                                                                                   2026-07-28: *client.InputRequiredError,
//	                                                                                   and the server hears nothing
//	TestMigrateProgress             all                client.WithProgress             1/3, 2/3, 3/3, all before CallTool returns
//	TestMigrateWithoutProgress      era-neutral start  no progress token               no progress notifications
//	TestEmptyArguments              era-neutral start  no changes, no tables           tool errors, before anything is asked
//	TestToolsSnapshot               era-neutral start  tools/list                      testdata/tools.json
//
// # Running the tests
//
//	go test ./examples/interactive/
//
// Start with TestDeployConfirmed. The golden files under testdata pin the
// tools' schemas and the wire of one deploy in each era; after changing a
// tool, refresh them with
//
//	MCPTEST_UPDATE=1 go test ./examples/interactive/
//
// and review the diff.
package interactive
