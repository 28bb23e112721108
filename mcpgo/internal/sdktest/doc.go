// Package sdktest is the mcp-go part of the test support for the adapter
// (mcpgo/mcpgotest) and the crash guard (mcpgo); what does not depend on the
// SDK is in internal/adaptertest, which gosdk has a copy of. Their
// tests drive the server under test with the test kit's own client (package
// client, directly or through mcptest.Connect) over a memtransport pair, so
// that the bytes on the wire are a real client's and no other SDK is
// needed. Here:
//
//   - [EachEra], the eras of [adaptertest.Eras] with the 2026-07-28 one
//     skipped on a release without it, and [Release], [SpeaksModern] and
//     [SkipUnlessModern] for the mcp-go releases that speak only the first;
//   - [Answer], [Crash] and [Failure], the guard contract's rows with errors
//     stated as the client sees them ([WireErr]), and [AssertCrash] and
//     [AssertFailure].
//
// Only _test.go files import it, never the adapter or the guard themselves.
package sdktest
