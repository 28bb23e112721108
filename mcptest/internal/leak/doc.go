// Package leak is the goroutine leak check of mcptest's harness: the
// label that marks what a connection starts, the census that finds the
// goroutines still running once it has closed, and the report. Users never
// call it; mcptest.IgnoreLeaks and mcptest.WithoutLeakCheck are its knobs.
//
// goleak.VerifyNone compares the whole process before and after, which is
// wrong under t.Parallel: another test's goroutines, started meanwhile, look
// like leaks. So Connect starts the server and the client inside
// runtime/pprof.Do with a label naming the connection. Go copies a
// goroutine's labels to every goroutine it starts, so everything the
// connection starts, transitively (SDK readers and handler goroutines,
// goroutines a tool handler starts), carries the label, and no other test's
// goroutine does. When the test ends, the harness closes the connection,
// waits for Serve to return, and fails the test if labelled goroutines are
// still running after a few seconds, listing their stacks (the goroutine
// profile prints labels). CheckServer and Fuzz label all their
// connections with one label of their own and check it once they have all
// closed.
//
// Reading the profile costs time in proportion to every goroutine in the
// process, and a suite of thousands of parallel tests has thousands (each
// test waiting in t.Parallel is one), so one read per connection would make
// the suite's time grow with the square of its size. Most connections need
// no read: a goroutine's labels keep the label's value reachable, so once
// the garbage collector finds a closed connection's value unreachable (a
// busy test binary collects every few milliseconds), no goroutine carries
// it and the connection is clean (the harness checks once per test binary,
// in the background once it has many goroutines, that the runtime behaves
// so; a small test binary reads instead). In a process with few
// goroutines, where a read costs well under a millisecond, the profile is
// read at once when a connection closes and no other is open, for every
// connection waiting, so that a leak fails its own test, or at least the
// test that ends a suite of parallel tests; a connection that was the only
// one open and left no more goroutines in the process than there were when
// it connected needs no read at once (tests that do not run in parallel; a
// benchmark). Any other connection the collector has not cleared within a
// second is looked up in the profile, in one read for all of them; a leak
// found that way, after its test has ended, fails the test whose cleanup
// made the read, and the report names the test that leaked; run that test
// on its own to see it fail by itself. A connection still waiting when the
// test binary exits is not checked (goleak.VerifyTestMain in TestMain sees its
// goroutines), and while a CPU profile is recorded (go test -cpuprofile)
// the profiler keeps the labels it sampled reachable, so more connections
// need a read.
//
// The harness keeps nothing of a finished test's connection: the testing
// package keeps every finished subtest's cleanups until the parent test
// ends, so the harness's cleanup lets go of the client, the transports and
// the transcript once it has run.
//
// SDK-owned goroutines that may outlive a connection by design (mcp-go's
// task expiry) are ignored, and so are those net/http keeps for an idle
// client connection in an http.Transport's pool (a handler's request
// through http.DefaultClient leaves them): they belong to the Transport,
// which may reuse the connection for any test. One still holding a
// response whose body was never closed is a leak. A connection to a server outside the process
// makes its transport inside the label too, and sends every message from a labelled
// goroutine, so that what a transport starts per message (an HTTP request,
// an in-process handler call and the server session it opens) is counted
// even when the test's goroutine sends it.
//
// Limits: a goroutine started from an unlabelled goroutine is not seen:
// one the test goroutine starts itself (after Connect returned), a
// time.AfterFunc callback (the runtime starts those), or one started by code
// that replaces its goroutine's labels (pprof.SetGoroutineLabels with a
// fresh context). Run goleak.VerifyTestMain in TestMain as well: it checks
// the whole binary once every test has finished. A schema pattern Go's RE2
// cannot parse (a lookahead: JSON Schema patterns are ECMA-262) is matched
// by regexp2, whose timeout clock, one goroutine, stops by itself a second
// after the last match; CheckServer and Fuzz wait for it (up to 2 s) before
// they return, so that it is gone when goleak looks.
package leak
