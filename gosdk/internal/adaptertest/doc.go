// Package adaptertest is the SDK-free part of the test support for the SDK
// adapter modules, gosdk and mcpgo; each has its own internal/sdktest for
// what depends on its SDK (its error type, which protocol versions the
// linked release speaks) and uses this package for the rest:
//
//   - [Serve], which runs an adapter for the length of a test and records
//     the panics its last-resort recovery reports, and [Served.Connect];
//   - [Eras], the two protocol generations every behaviour is tested in,
//     [EachEra] and [EraOf];
//   - [ServeRepeatedly] and [AssertPanicAnswered], for the tests that
//     serving a server again changes nothing;
//   - [Request] values and helpers ([Call], [Text], [WireError],
//     [ProgressOrder]);
//   - [AssertCrash] and [AssertFailure], which say once what each row of the
//     guard contract means, for the cases the guards' tests list;
//   - [BenchCallTool], so both adapters are measured the same way.
//
// It sits above client and mcptest, so it is not in the root module's
// ground-floor internal/; and no other internal directory is one that both
// adapter modules may import. So each keeps its own copy
// (gosdk/internal/adaptertest, mcpgo/internal/adaptertest), which CI keeps
// identical. It imports no MCP SDK; only the adapter modules' tests and
// their internal/sdktest import it.
package adaptertest
