// Package logcapture captures [log/slog] records in tests, the way pytest's
// caplog fixture captures Python logging: give the code under test the
// recorder's logger, then query and assert on what it logged.
//
//	logs := logcapture.New(t)
//	srv := bookshop.New(logs.Logger())
//	// ... exercise srv ...
//	logs.AssertNone(t, logcapture.AtLeast(slog.LevelWarn)) // an expected failure is not a warning
//	rec := logs.RequireLogged(t, logcapture.Level(slog.LevelError), logcapture.Message("tool handler panicked"))
//	t.Log(rec.Stack())
//
// # The recorder
//
// A [Recorder] is an [slog.Handler] that keeps every record it is given (all
// levels unless [MinLevel] says otherwise). It passes the standard library's
// handler conformance test, [testing/slogtest]. Attribute values are resolved
// ([slog.LogValuer]) when the record is handled, and groups are flattened: an
// attribute "id" inside group "request" is looked up as "request.id". Values
// keep their type ([slog.Value]).
//
// # Queries and matchers
//
// [Recorder.Records], [Recorder.Messages] and [Recorder.Count] take
// [Matcher] values, all of which must match: [Level], [AtLeast], [Message],
// [MessageContains], [MessageMatches], [Attr], [HasAttr], [AttrContains],
// [InGroup], combined with [All], [Any] and [Not], or your own via
// [MatchFunc]. [Recorder.Wait] blocks until a matching record arrives, for
// code that logs from another goroutine after the test has seen its effect.
//
// # Assertions
//
// [Recorder.AssertLogged], [Recorder.AssertNone], [Recorder.AssertNoWarnings]
// and [Recorder.AssertCount] follow testify's shape: they take the test (any
// [TestingT], so they work in subtests and with fakes), report a readable
// failure that names what was looked for and lists every captured record, and
// return whether they passed. Each has its Require twin
// ([Recorder.RequireLogged], [Recorder.RequireNone],
// [Recorder.RequireNoWarnings], [Recorder.RequireCount]), which stops the
// test instead; [Recorder.RequireLogged] returns the record.
//
// # Failure dump
//
// When the test given to [New] fails, the captured records are printed in its
// output under a "Captured log" header, like pytest's "Captured log call"
// section. [NoDump] turns this off.
//
// # Bridges
//
// [Recorder.StdLogger] returns a [*log.Logger] that writes into the recorder,
// for APIs that still take one. [CaptureDefault] points [slog.Default] (and
// with it the [log] package's default logger) at the recorder until the test
// ends; because that is process-wide state, do not use it in parallel tests.
//
// Everything else is per recorder: there are no package globals, every method
// is safe for concurrent use, and recorders work under t.Parallel.
package logcapture
