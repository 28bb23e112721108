package mcptest

import (
	"context"
	"time"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/client/transport"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

// DefaultTimeout bounds the handshake and every request of a connection made
// by [Connect], unless [WithTimeout] says otherwise: long enough for a slow
// CI machine under -race, short enough that a server that never answers
// fails its test with the method's name instead of hanging until
// go test -timeout kills the whole binary.
const DefaultTimeout = 10 * time.Second

// DefaultLeakWait is how long the leak check waits, after the connection has
// closed, for the connection's goroutines to finish.
const DefaultLeakWait = 5 * time.Second

// Option configures [Connect] and the other Connect functions
// ([ConnectCommand], [ConnectHTTP], [ConnectURL], [ConnectTransport]).
type Option func(*config)

type config struct {
	client       client.Options
	clientEdits  []func(*client.Options)
	timeout      time.Duration
	leakCheck    bool
	leakIgnores  []string
	leakWait     time.Duration
	transcript   bool
	head, tail   int
	lineMax      int
	pairOptions  []memtransport.Option
	crashCatcher bool
	serveGrace   time.Duration // how long cleanup waits for Serve; a knob for the harness's own tests
	transcriptTo []*Transcript // WithTranscript
	verbatim     bool          // WithVerbatimTranscript
	// RecordNotifications
	notifications []*Notifications

	// External servers (external.go).
	commandOptions []transport.CommandOption
	httpOptions    []transport.HTTPOption
	logStderr      bool
	exitCheck      bool
}

func newConfig(opts []Option) *config {
	c := &config{
		timeout:      DefaultTimeout,
		leakCheck:    true,
		leakIgnores:  DefaultLeakIgnores(),
		leakWait:     DefaultLeakWait,
		transcript:   true,
		head:         DefaultTranscriptHead,
		tail:         DefaultTranscriptTail,
		lineMax:      DefaultTranscriptLine,
		crashCatcher: true,
		serveGrace:   defaultServeGrace,
		exitCheck:    true,
	}
	for _, o := range opts {
		o(c)
	}
	return c
}

// WithProtocolVersion pins the protocol version: "2026-07-28" for the modern
// protocol, or a legacy version such as "2025-06-18" for the initialize
// handshake at that version. Without it the client starts era-neutrally
// (server/discover, falling back to initialize). [EachVersion] runs a test at
// every version the client supports.
func WithProtocolVersion(version string) Option {
	return func(c *config) { c.client.ProtocolVersion = version }
}

// WithLegacy makes the connection use the initialize handshake at the newest
// legacy version, the way clients built before 2026-07-28 connect.
func WithLegacy() Option { return WithProtocolVersion(client.LatestLegacyVersion) }

// WithModern makes the connection use the 2026-07-28 protocol with no
// fallback to the initialize handshake: the test fails at Connect if the
// server only speaks legacy versions.
func WithModern() Option { return WithProtocolVersion(client.LatestVersion) }

// WithClientInfo sets the name and version the client gives the server.
func WithClientInfo(name, version string) Option {
	return func(c *config) { c.client.ClientInfo = client.Implementation{Name: name, Version: version} }
}

// WithCapabilities sets the capabilities the client declares beyond those its
// callbacks imply ([WithSampling], [WithElicitation], [WithRoots] declare
// theirs): experimental features, extensions, sub-capabilities.
func WithCapabilities(caps client.Capabilities) Option {
	return func(c *config) { c.client.Capabilities = &caps }
}

// WithSampling answers the server's sampling requests (sampling/createMessage)
// with fn, and declares the sampling capability.
//
// Sampling exists at every protocol version. At 2026-07-28 (deprecated
// there, still functional) a server asks for it inside a call, as an input
// request of a multi round-trip result, not with a request of its own:
// go-sdk's req.Session.CreateMessage works only on legacy connections.
func WithSampling(fn func(context.Context, *client.CreateMessageRequest) (*client.CreateMessageResult, error)) Option {
	return func(c *config) { c.client.CreateMessage = fn }
}

// WithElicitation answers the server's elicitation requests
// (elicitation/create) with fn, and declares the elicitation capability.
//
// Elicitation came in 2025-06-18 ([client.Version20250618]). At 2024-11-05
// and 2025-03-26 the protocol has no such capability, so the client cannot
// declare it and a server cannot ask (go-sdk's tools fail with "client does
// not support elicitation"); [Connect] logs a note when that happens. In
// [EachVersion], run such a test only where elicitation exists with
// [Since](client.Version20250618). At 2026-07-28 the server asks inside a
// call, as an input request of a multi round-trip result.
func WithElicitation(fn func(context.Context, *client.ElicitRequest) (*client.ElicitResult, error)) Option {
	return func(c *config) { c.client.Elicit = fn }
}

// WithRoots answers the server's roots/list with these roots, and declares
// the roots capability.
//
// Roots exist at every protocol version. At 2026-07-28 (deprecated there,
// still functional) a server asks for them inside a call, as an input
// request of a multi round-trip result, and the client no longer declares
// roots.listChanged.
func WithRoots(roots ...*client.Root) Option {
	return func(c *config) {
		c.client.ListRoots = func(context.Context) ([]*client.Root, error) { return roots, nil }
	}
}

// WithClientOptions lets fn adjust the client's options directly, after every
// other option has been applied: notification handlers, log level, and
// anything else [client.Options] offers. Options.Timeout is set from
// [WithTimeout].
func WithClientOptions(fn func(*client.Options)) Option {
	return func(c *config) { c.clientEdits = append(c.clientEdits, fn) }
}

// WithTimeout bounds the handshake and, by default, every request (see
// [DefaultTimeout]). A request that gets no answer in time returns an error
// naming its method; zero removes the bound.
func WithTimeout(d time.Duration) Option {
	return func(c *config) { c.timeout = d }
}

// WithoutLeakCheck turns off the check, made when the test ends, that every
// goroutine the connection started has finished. Use it for a server that
// legitimately keeps goroutines past the end of a connection; [IgnoreLeaks]
// is narrower.
func WithoutLeakCheck() Option { return func(c *config) { c.leakCheck = false } }

// IgnoreLeaks makes the leak check ignore goroutines with any of these
// functions in their stack, written as the runtime names them
// ("github.com/me/srv.(*Cache).refresh", "main.worker.func1").
func IgnoreLeaks(functions ...string) Option {
	return func(c *config) { c.leakIgnores = append(c.leakIgnores, functions...) }
}

// WithLeakWait sets how long the leak check waits for the connection's
// goroutines to finish after it closed (see [DefaultLeakWait]).
func WithLeakWait(d time.Duration) Option { return func(c *config) { c.leakWait = d } }

// WithoutTranscript stops the transcript of the connection from being
// recorded and printed when the test fails. ([WithTranscript] still gets
// the messages.)
func WithoutTranscript() Option { return func(c *config) { c.transcript = false } }

// DefaultTranscriptFrames is how many of the most recent messages a
// connection's transcript keeps (the frames are shared with the client and
// server, not copied, but a very long run would still hold on to all of
// them); older ones are counted and reported as not recorded.
const DefaultTranscriptFrames = 10000

// WithTranscriptLimits sets how much of the transcript a failing test prints:
// the first head and last tail messages (the middle of a longer run is cut,
// with a note of how many messages), each cut to lineBytes bytes. A negative
// head or tail prints every message; lineBytes <= 0 prints whole messages.
func WithTranscriptLimits(head, tail, lineBytes int) Option {
	return func(c *config) { c.head, c.tail, c.lineMax = head, tail, lineBytes }
}

// WithVerbatimTranscript makes a failing test print the transcript's
// messages exactly as they were sent. By default the printed transcript
// leaves out what the protocol stamps on every message and rarely explains
// a failure (at 2026-07-28 every request repeats the protocol version, the
// client's capabilities and info in "_meta", and every result the server's
// info and caching hints), and says so once at the top. The messages a test
// gets through [WithTranscript] are always as sent.
func WithVerbatimTranscript() Option { return func(c *config) { c.verbatim = true } }

// WithTransportOptions passes options to the in-memory connection
// ([memtransport.Pair]) of [Connect]: a message size limit, buffering, or a
// fault hook that drops, delays or corrupts messages. The other Connect
// functions take [WithCommandOptions] and [WithHTTPOptions] instead.
func WithTransportOptions(opts ...memtransport.Option) Option {
	return func(c *config) { c.pairOptions = append(c.pairOptions, opts...) }
}

// WithoutCrashReports stops the harness from failing the test when an
// adapter's last-resort recovery reports a handler panic. The panic is still
// recovered (the client gets an error), so a test that provokes a panic on
// purpose, without a crash guard, can assert on what the client sees. The
// test log gets one line naming the method and the panic value instead of
// the report with its stack.
func WithoutCrashReports() Option { return func(c *config) { c.crashCatcher = false } }
