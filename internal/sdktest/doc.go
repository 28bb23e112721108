// Package sdktest is test support for the adapter packages mcptest/gosdk and
// mcptest/mcpgo. Their tests drive the server under test with the official
// go-sdk client over a memtransport pair, so that the bytes on the wire are a
// real client's, and both check the same crash-guard contract. What they
// share is here, once:
//
//   - [Transport], a go-sdk client transport over a memtransport end;
//   - [Serve], which runs an adapter for the length of a test and records
//     the panics its last-resort recovery reports, and [Served.Connect];
//   - [EachEra], the two protocol generations every behaviour is tested in;
//   - [Request] values and helpers ([Call], [Text], [WireError],
//     [ProgressOrder]);
//   - [AssertCrash] and [AssertFailure], which say once what each row of the
//     guard contract means, for the cases each adapter's tests list;
//   - [BenchCallTool], so both adapters are measured the same way.
//
// It imports testing, testify and logcapture: only _test.go files import
// it, never the adapters themselves.
package sdktest
