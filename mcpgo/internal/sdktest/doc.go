// Package sdktest is test support for the adapter (mcpgo/mcpgotest) and
// the crash guard (mcpgo). Their tests drive the server under test with
// the test kit's own client (package client, directly or through
// mcptest.Connect) over a memtransport pair, so that the bytes on the wire
// are a real client's and no other SDK is needed. What they share is here,
// once:
//
//   - [Serve], which runs an adapter for the length of a test and records
//     the panics its last-resort recovery reports, and [Served.Connect];
//   - [ServeRepeatedly] and [AssertPanicAnswered], for the tests that
//     serving a server again changes nothing;
//   - [EachEra], the two protocol generations every behaviour is tested in,
//     and [Release] and [SkipUnlessModern] for the mcp-go releases that
//     speak only the first;
//   - [Request] values and helpers ([Call], [Text], [WireError],
//     [ProgressOrder]);
//   - [AssertCrash] and [AssertFailure], which say once what each row of the
//     guard contract means, for the cases the guard's tests list;
//   - [BenchCallTool], which measures the adapter as gosdk/gosdktest's
//     benchmark measures its own.
//
// It imports testing, testify and logcapture: only _test.go files import
// it, never the adapter or the guard themselves.
package sdktest
