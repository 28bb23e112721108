// Package sdktest is test support for the adapter (gosdk/gosdktest) and the
// crash guard (gosdk). Their tests drive the server under test with the
// mcptestkit client (package client) over a memtransport pair, so that the
// bytes on the wire are a real client's and a test can choose its protocol
// version with every go-sdk release from the module's floor on (go-sdk's
// own client gained that option only in v1.8.0). What they share is here,
// once:
//
//   - [Serve], which runs an adapter for the length of a test and records
//     the panics its last-resort recovery reports, and [Served.Connect];
//   - [EachEra], the two protocol generations every behaviour is tested in,
//     and [SkipUnlessSpeaks] and [StartVersion], which fit a test to the
//     protocol versions the linked go-sdk release speaks;
//   - [ServeRepeatedly] and [AssertPanicAnswered], for the tests that
//     serving a server again changes nothing;
//   - [Request] values and helpers ([Call], [Text], [WireError],
//     [ProgressOrder]);
//   - [AssertCrash] and [AssertFailure], which say once what each row of the
//     guard contract means, for the cases the guard's tests list;
//   - [Transport], a go-sdk client transport over a memtransport end, for
//     the tests that go-sdk's own client works through the adapter;
//   - [SetField], to set an SDK option that only newer releases have;
//   - [BenchCallTool], so both adapters are measured the same way.
//
// It imports testing, testify and logcapture: only _test.go files import
// it, never the adapter or the guard themselves.
package sdktest
