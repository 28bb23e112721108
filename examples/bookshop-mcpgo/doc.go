// Package bookshopmcpgo is the Bookshop server of the MCP error-handling
// guide written with mark3labs/mcp-go, and its tests show where mcp-go's
// answers differ from the guide's contract and what to write to get the
// contract anyway. Read it after examples/bookshop (the official go-sdk),
// which follows the guide with no extra effort.
//
// [NewNaive] is the server as a Go programmer writes it first; [New] makes
// the deliberate choices that give the contract; [NewUnchecked] crashes, for
// the crash guard. The differences the tests pin:
//
//	case                        NewNaive (mcp-go's default)           New (the contract)
//	get_author("Nothing")       JSON-RPC -32603: the model sees       mcp.NewToolResultError: a result,
//	                            nothing                               isError: true, the model reads it
//	get_author({"title": 42})   the handler runs with bad input       WithInputSchemaValidation: an
//	                                                                  error result, handler never runs
//	books://Nothing             -32603 from the template handler      one resource per book: the SDK's
//	                                                                  "not found" (-32002 legacy,
//	                                                                  -32602 at 2026-07-28), no data.uri
//	a crash                     (both: the crash guard) a result "Error executing tool get_author"
//	                            and an ERROR record with the stack
//
// One gap remains: mcp-go never sends data.uri with "resource not found", so
// at 2026-07-28 the error is a bare -32602 and a client cannot tell which
// read failed from the error alone. The tests show how to assert on it.
//
// # Running the tests
//
//	go test ./examples/bookshop-mcpgo/
package bookshopmcpgo
