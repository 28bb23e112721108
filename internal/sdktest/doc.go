// Package sdktest is test support for the adapter packages mcptest/gosdk and
// mcptest/mcpgo. Their tests drive the server under test with the official
// go-sdk client over a memtransport pair, so that the bytes on the wire are a
// real client's; this package holds what both need for that, once: a go-sdk
// client [Transport] over a memtransport end, [Serve] to run an adapter for
// the length of a test and record the panics it reports, the two protocol
// eras ([EachEra]), small result helpers, and the raw-frame round-trip
// benchmark ([BenchCallTool]) so both adapters are measured the same way.
//
// It imports testing and testify: only _test.go files import it, never the
// adapters themselves.
package sdktest
