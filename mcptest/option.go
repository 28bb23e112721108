package mcptest

import (
	"flag"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/logcapture"
	"github.com/mcptestkit/mcptestkit/mcptest/internal/leak"
	"github.com/mcptestkit/mcptestkit/mcptest/servercheck"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

// defaultTimeout bounds the handshake and every request of a connection,
// unless client.Options.Timeout (see [WithClient]) says otherwise: long
// enough for a slow CI machine under -race, short enough that a server that
// never answers fails its test with the method's name instead of hanging
// until go test -timeout kills the whole binary. It is the checks' own
// default too.
const defaultTimeout = servercheck.DefaultTimeout

// defaultLeakWait is how long the leak check waits, after the connection has
// closed, for the connection's goroutines to finish.
const defaultLeakWait = 5 * time.Second

// Option configures [Connect], [CheckServer], [Fuzz], [EachVersion] or
// [Assertions.Golden] (and [Normalize]): each option's documentation says
// which of them it applies to. Given to a call it does not apply to, it fails the
// test, naming both, rather than doing nothing (goleak's rule); so does an
// option for one kind of [Server] only ([WithTransportOptions] for a Server
// served in memory, [LogStderr] and [WithoutExitCheck] for a [Command]
// server) given with another kind. A nil Option is ignored, so that an
// option can be chosen conditionally.
type Option func(*config)

// call is a function that takes Options, as a set of bits: an option says
// which ones it applies to.
type call uint8

const (
	connectCall call = 1 << iota
	checkCall
	fuzzCall
	eachCall
	goldenCall

	// connections are the calls that connect to a server.
	connections = connectCall | checkCall | fuzzCall
)

// String names the calls in c, for messages: "Connect, CheckServer and Fuzz".
func (c call) String() string {
	var names []string
	for i, n := range []string{"Connect", "CheckServer", "Fuzz", "EachVersion", "Golden"} {
		if c&(1<<i) != 0 {
			names = append(names, n)
		}
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// option returns the Option named name (as the user writes it, for
// messages) that applies to the calls in to and sets what set sets.
func option(name string, to call, set func(*config)) Option {
	return func(c *config) {
		c.given = append(c.given, given{name, to})
		set(c)
	}
}

// given is an option given to a call: its name and the calls it applies to.
type given struct {
	name string
	to   call
}

type config struct {
	client          client.Options
	version         string // WithProtocolVersion
	versionConflict string // WithClient and WithProtocolVersion pin different versions
	timeout         time.Duration
	leakCheck       bool
	leakIgnores     []string
	leakWait        time.Duration
	head, tail      int
	lineMax         int
	pairOptions     []memtransport.Option
	crashCatcher    bool
	monitor         MonitorMode
	transcriptTo    []*Transcript // WithTranscript
	verbatim        bool          // the transcript printed as sent
	// RecordNotifications
	notifications []*Notifications

	// given lists the options given, with the calls they apply to.
	given []given
	// only lists the options given that apply to one kind of Server only.
	only []onlyFor

	// Command servers (external.go).
	logStderr bool
	exitCheck bool

	// CheckServer and Fuzz (check.go).
	skip   []string
	strict bool
	logs   *logcapture.Recorder

	// EachVersion (version.go).
	versions versionRange

	// Golden and Normalize (golden.go).
	golden goldenConfig

	// knobs are set by the package's own tests only (knobs_test.go).
	knobs knobs
}

// knobs are the test seams of the harness: the package's own tests set them
// to reach states a user's test cannot (a leak checked at once, a census of
// their own, a short grace); nothing outside the package can.
type knobs struct {
	leakNow    bool                       // check at once, never as part of a later census
	census     *leak.Census               // nil: leak.Shared
	serveGrace time.Duration              // how long cleanup waits for Serve (0: the connection's timeout)
	deadline   time.Time                  // the test's deadline, if not t.Deadline()
	checks     func(*servercheck.Options) // edits the options of the checks
}

// misused says which of the options given do not apply to fn (one of the
// calls, as a function name), or "".
func (c *config) misused(fn call) string {
	var msgs []string
	for _, g := range c.given {
		if g.to&fn == 0 {
			msgs = append(msgs, fmt.Sprintf("mcptest.%s applies to %v, not %v", g.name, g.to, fn))
		}
	}
	return strings.Join(msgs, "; ")
}

// newConfig applies opts. The caller reports what c.misused says of its
// call.
func newConfig(opts []Option) *config {
	c := &config{
		leakCheck:    true,
		leakIgnores:  leak.DefaultIgnores(),
		leakWait:     defaultLeakWait,
		head:         transcriptHead,
		tail:         transcriptTail,
		lineMax:      transcriptLine,
		crashCatcher: true,
		exitCheck:    true,
	}
	if verbose() { // go test -v: every message, as sent
		c.head, c.tail, c.lineMax, c.verbatim = -1, -1, 0, true
	}
	for _, o := range opts {
		if o != nil {
			o(c)
		}
	}
	// The client's own zero Timeout means "none"; the harness's means
	// defaultTimeout, so that no test hangs by default.
	switch t := c.client.Timeout; {
	case t == 0:
		c.timeout = defaultTimeout
	case t > 0:
		c.timeout = t
	}
	c.client.Timeout = c.timeout
	// WithClient's ProtocolVersion pins as WithProtocolVersion does; two
	// different pins are a mistake to report, not a choice to make.
	switch v := c.client.ProtocolVersion; {
	case v != "" && c.version != "" && v != c.version:
		c.versionConflict = fmt.Sprintf("WithProtocolVersion(%q) and client.Options.ProtocolVersion %q pin two versions", c.version, v)
	case v != "":
		c.version = v
	}
	c.client.ProtocolVersion = c.version
	return c
}

// WithProtocolVersion pins the protocol version: "2026-07-28"
// ([client.LatestVersion]) for the modern protocol with no fallback, or a
// legacy version such as "2025-06-18" ([client.LatestLegacyVersion] is the
// newest) for the initialize handshake at that version. Without it the
// client starts era-neutrally (server/discover, falling back to
// initialize), except inside [EachVersion], which pins its subtest's
// version, and with a [Server] that lists only legacy versions. It
// applies to Connect, CheckServer (whose handshake checks still try every
// version) and Fuzz.
func WithProtocolVersion(version string) Option {
	return option("WithProtocolVersion", connections, func(c *config) { c.version = version })
}

// WithClient sets the options of the connection's client: its name and
// capabilities, the callbacks that answer the server's requests for input
// (CreateMessage for sampling, Elicit, ListRoots), the log level it asks
// for, notification handlers. A later WithClient replaces an earlier one.
//
//	c := mcptest.Connect(t, srv, mcptest.WithClient(client.Options{
//		Elicit:  answer,
//		Timeout: time.Second,
//	}))
//
// One field means something slightly different here: Timeout zero is
// 10 seconds ([servercheck.DefaultTimeout]), not "no bound" (a negative Timeout removes the bound),
// so that no test hangs by default; it bounds the handshake too.
// ProtocolVersion pins the version as [WithProtocolVersion] does.
//
// It applies to Connect, CheckServer and Fuzz: the checks' connections use
// the client's identity, callbacks and timeout too.
func WithClient(opts client.Options) Option {
	return option("WithClient", connections, func(c *config) { c.client = opts })
}

// WithoutLeakCheck turns off the check, made when the test ends, that every
// goroutine the connection started has finished. Use it for a server that
// legitimately keeps goroutines past the end of a connection; [IgnoreLeaks]
// is narrower. It applies to Connect, CheckServer and Fuzz, which check
// the goroutines of all their connections when they end.
func WithoutLeakCheck() Option {
	return option("WithoutLeakCheck", connections, func(c *config) { c.leakCheck = false })
}

// IgnoreLeaks makes the leak check ignore goroutines with any of these
// functions in their stack, written as the runtime names them
// ("github.com/me/srv.(*Cache).refresh", "main.worker.func1").
//
// It applies to Connect, CheckServer and Fuzz.
func IgnoreLeaks(functions ...string) Option {
	return option("IgnoreLeaks", connections, func(c *config) { c.leakIgnores = append(c.leakIgnores, functions...) })
}

// WithTransportOptions passes options to the in-memory connection
// ([memtransport.Pair]) to a Server served in memory: a message size
// limit, buffering, or a fault hook that drops, delays or corrupts
// messages. The other kinds take their transport's options in their
// constructor ([Command], [Handler], [URL]).
//
// It applies to Connect.
func WithTransportOptions(opts ...memtransport.Option) Option {
	return option("WithTransportOptions", connectCall, func(c *config) {
		c.pairOptions = append(c.pairOptions, opts...)
		c.restrict("WithTransportOptions", inMemory)
	})
}

// WithoutCrashReports stops the harness from failing the test when an
// adapter's last-resort recovery reports a handler panic. The panic is still
// recovered (the client gets an error), so a test that provokes a panic on
// purpose, without a crash guard, can assert on what the client sees. The
// test log gets one line naming the method and the panic value instead of
// the report with its stack.
//
// It applies to Connect ([CheckServer] reports a crash as the failure of
// the check that caused it).
func WithoutCrashReports() Option {
	return option("WithoutCrashReports", connectCall, func(c *config) { c.crashCatcher = false })
}

// verbose reports whether the tests run with go test -v, which makes a
// failing test print its whole transcript as sent.
func verbose() bool { return testing.Testing() && flag.Parsed() && testing.Verbose() }

// transcriptFrames is how many of the most recent messages a connection's
// transcript keeps (the frames are shared with the client and server, not
// copied, but a very long run would still hold on to all of them); older
// ones are counted and reported as not recorded.
const transcriptFrames = 10000

// onlyFor is an option that applies to one kind of Server only.
type onlyFor struct {
	option string // as the user wrote it: "LogStderr"
	kind   string // the kind it applies to, as kindOf describes it
}

// restrict notes that option applies to servers of kind only.
func (c *config) restrict(option, kind string) {
	c.only = append(c.only, onlyFor{option, kind})
}

// unusable says which of the options given cannot apply to a server of
// kind, or "".
func (c *config) unusable(kind string) string {
	var msgs []string
	for _, o := range c.only {
		if o.kind != kind {
			msgs = append(msgs, fmt.Sprintf("mcptest.%s applies to %s only", o.option, o.kind))
		}
	}
	if msgs == nil {
		return ""
	}
	return fmt.Sprintf("%s, and this is %s", strings.Join(msgs, "; "), kind)
}

// leakCensus is the census the connection's leak check joins.
func (c *config) leakCensus() *leak.Census {
	if c.knobs.census != nil {
		return c.knobs.census
	}
	return leak.Shared
}
