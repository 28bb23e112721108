// Package sdktest is the go-sdk part of the test support for the adapter
// (gosdk/gosdktest) and the crash guard (gosdk); what does not depend on the
// SDK is in internal/adaptertest, which mcpgo has a copy of. Their
// tests drive the server under test with the mcptestkit client (package
// client) over a memtransport pair, so that the bytes on the wire are a real
// client's and a test can choose its protocol version with every go-sdk
// release from the module's floor on (go-sdk's own client gained that
// option only in v1.8.0). Here:
//
//   - [Serve] and [Served.Connect], which start the client as the linked
//     release needs ([StartVersion]);
//   - [EachEra], [SpeaksModern] and [SkipUnlessSpeaks], which fit a test to
//     the protocol versions the linked go-sdk release speaks;
//   - [Answer], [Crash] and [Failure], the guard contract's rows with errors
//     stated as go-sdk's jsonrpc.Error ([WireError]), and [AssertCrash] and
//     [AssertFailure];
//   - [Transport], a go-sdk client transport over a memtransport end, for
//     the tests that go-sdk's own client works through the adapter;
//   - [SetField], to set an SDK option that only newer releases have.
//
// Only _test.go files import it, never the adapter or the guard themselves.
package sdktest
