// Package sdktest is test support for the adapters (gosdk/gosdktest,
// mcpgo/mcpgotest) and the crash guards (gosdk, mcpgo). Their
// tests drive the server under test with the official go-sdk client over a
// memtransport pair, so that the bytes on the wire are a real client's, and
// both guards' tests check the same contract. What they share is here, once:
//
//   - [Transport], a go-sdk client transport over a memtransport end;
//   - [Serve], which runs an adapter for the length of a test and records
//     the panics its last-resort recovery reports, and [Served.Connect];
//   - [ServeRepeatedly] and [AssertPanicAnswered], for the tests that
//     serving a server again changes nothing;
//   - [EachEra], the two protocol generations every behaviour is tested in;
//   - [Request] values and helpers ([Call], [Text], [WireError],
//     [ProgressOrder]);
//   - [AssertCrash] and [AssertFailure], which say once what each row of the
//     guard contract means, for the cases each guard's tests list;
//   - [BenchCallTool], so both adapters are measured the same way.
//
// It imports testing, testify and logcapture: only _test.go files import
// it, never the adapters or the guards themselves.
package sdktest
