package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcptestkit/mcptestkit/internal/jsonrpc"
)

// Defaults for [Options].
const (
	// DefaultMaxInputRounds bounds the multi round-trip loop of 2026-07-28.
	DefaultMaxInputRounds = 10
	// DefaultProbeTimeout bounds the server/discover probe of an era-neutral
	// start; a server that has not answered by then is taken as legacy.
	DefaultProbeTimeout = 5 * time.Second
	// DefaultMaxServerRequests bounds the server-to-client requests answered
	// at once.
	DefaultMaxServerRequests = 64
)

// Options configure a [Client]. The zero value (or nil) is a working client
// that declares no optional capabilities.
type Options struct {
	// ClientInfo names this client to the server. Default: name "mcptestkit".
	ClientInfo Implementation

	// ProtocolVersion pins the protocol version. Empty (the default) starts
	// era-neutrally: server/discover at 2026-07-28, falling back to the
	// initialize handshake at 2025-11-25 when the server is legacy. A legacy
	// version pins the handshake with that version (the server may still
	// answer with another version it prefers; any version this client knows
	// is accepted). "2026-07-28" pins the modern protocol with no fallback.
	ProtocolVersion string

	// Capabilities is the base of the capabilities the client declares:
	// experimental features, extensions, and sub-capabilities such as URL
	// elicitation or sampling with tools. Sampling, Elicitation and Roots are
	// declared whenever the matching callback is set, and only then.
	Capabilities *Capabilities

	// Timeout is the default bound of every request after Connect (zero:
	// none); [WithTimeout] overrides it for one call, and the call's context
	// deadline applies as well. A request that runs out of time is cancelled
	// and returns an error that names it and the timeout
	// (`tools/call "slow": no response within 2s`) and wraps
	// context.DeadlineExceeded. For tools/call, prompts/get and
	// resources/read the bound covers every round of a 2026-07-28 multi
	// round-trip request, input callbacks included.
	Timeout time.Duration
	// ProbeTimeout bounds the server/discover probe of an era-neutral start.
	// Default [DefaultProbeTimeout].
	ProbeTimeout time.Duration
	// MaxInputRounds bounds the rounds of one 2026-07-28 multi round-trip
	// request (input_required results). Default [DefaultMaxInputRounds].
	MaxInputRounds int

	// LogLevel asks the server for log messages at this level and above. On
	// legacy connections Connect sends logging/setLevel when the server has
	// the logging capability; on 2026-07-28 connections every request carries
	// it in _meta (without it, servers send no log messages there).
	LogLevel LogLevel

	// Callbacks for the server's requests for input. On legacy connections
	// each runs in its own goroutine and its ctx ends when the server cancels
	// the request or the client closes (Close waits for callbacks, so they
	// must return when ctx ends). On 2026-07-28 connections they run within
	// the call that needed the input, with that call's ctx. A callback that
	// panics (these or the handlers below) does not end the process: see
	// [PanicError].

	// CreateMessage answers sampling requests (sampling/createMessage). Return
	// an [*Error] (for example [CodeUserRejected]) to send that exact error.
	CreateMessage func(context.Context, *CreateMessageRequest) (*CreateMessageResult, error)
	// Elicit answers elicitation requests (elicitation/create).
	Elicit func(context.Context, *ElicitRequest) (*ElicitResult, error)
	// ListRoots answers roots/list.
	ListRoots func(context.Context) ([]*Root, error)

	// Notification handlers. They run on the client's reader goroutine, one
	// at a time, in the order the server sent the notifications. They must
	// not block, and must not call the client and wait for the answer (that
	// answer would need the reader goroutine): start a goroutine for that.

	// OnLog receives notifications/message.
	OnLog func(*LogMessage)
	// OnToolListChanged receives notifications/tools/list_changed.
	OnToolListChanged func()
	// OnPromptListChanged receives notifications/prompts/list_changed.
	OnPromptListChanged func()
	// OnResourceListChanged receives notifications/resources/list_changed.
	OnResourceListChanged func()
	// OnResourceUpdated receives notifications/resources/updated.
	OnResourceUpdated func(uri string)
	// OnElicitationComplete receives the 2025-11-25
	// notifications/elicitation/complete.
	OnElicitationComplete func(elicitationID string)
	// OnTaskStatus receives task status notifications: the 2025-11-25
	// notifications/tasks/status, and the 2026-07-28 notifications/tasks of
	// a listen stream (ListenFilter.TaskIDs). A wait for the task
	// ([Client.WaitTask], [WithTask]) sees them too.
	OnTaskStatus func(*Task)
	// OnNotification sees every notification from the server, before the
	// typed handler, including ones this client does not know.
	OnNotification func(method string, params json.RawMessage)

	// MaxServerRequests bounds the legacy server-to-client requests
	// (sampling, elicitation, roots) answered at once; each runs its callback
	// on a goroutine of its own. Beyond it, the client answers at once with
	// an error (code -32000) that says so. Default [DefaultMaxServerRequests].
	// Such refusals, and the answers to the server's pings, are sent in order
	// without holding up the client's reading: for a server that sends
	// requests without reading the answers, at most 1 MiB of them wait, and
	// the rest are dropped (and logged).
	MaxServerRequests int

	// OnPanic, when set, sees every panic recovered from a callback above or
	// a [WithProgress] handler, after the Logger. See [PanicError].
	OnPanic func(*PanicError)

	// Logger receives the client's own diagnostics (responses to unknown
	// requests, undecodable messages, dropped notifications, recovered
	// callback panics). Default: discard.
	Logger *slog.Logger
}

// Client is a connection to one MCP server. It is safe for concurrent use:
// calls may overlap, and responses may arrive in any order.
type Client struct {
	t      Transport
	opts   Options
	logger *slog.Logger

	// Set by Connect and not changed afterwards.
	version        string
	serverInfo     Implementation
	serverCaps     ServerCapabilities
	instructions   string
	serverVersions []string
	clientCaps     Capabilities
	meta           []byte // the 2026-07-28 _meta members; nil on legacy connections
	taskMeta       []byte // meta with the tasks extension declared

	logLevel atomic.Pointer[LogLevel]
	nextID   atomic.Int64

	ctx    context.Context // ends when the connection ends
	cancel context.CancelFunc
	// starting holds Connect's ctx while Connect runs: it bounds the
	// cancellations of the start's requests (see [Client.sendCancel]).
	starting atomic.Pointer[context.Context]
	done     chan struct{} // closed when the reader goroutine has returned
	wg       sync.WaitGroup

	mu       sync.Mutex
	closed   bool
	closing  bool  // Close was called
	cause    error // why the connection ended, nil after Close
	pending  map[int64]*pendingCall
	progress map[int64]*progressSink
	subs     map[int64]*Subscription
	inflight map[string]*inflightRequest
	serving  int      // goroutines answering server requests
	refused  int      // server requests refused for want of room
	junk     unusable // what the server sent that the client could not use

	// Tasks: the requestState to echo per task (2026-07-28), and who waits
	// for which task's status notifications.
	taskStates  map[string]string
	taskWatches map[string][]*taskWatch

	out outbox // the responses the reader leaves to be sent

	closeOnce sync.Once
	closeErr  error
}

// Connect starts an MCP session with the server at the other end of t and
// returns once the server is known: after server/discover at 2026-07-28, or
// after the initialize handshake on legacy versions. Connect owns t from
// then on; on failure it closes t. ctx bounds the start only, the
// cancellation of its requests included, so that a Connect that fails
// returns by ctx's deadline.
func Connect(ctx context.Context, t Transport, opts *Options) (*Client, error) {
	if t == nil {
		return nil, errors.New("client: Connect: nil transport")
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.ProtocolVersion != "" && !knownVersion(o.ProtocolVersion) {
		_ = t.Close()
		return nil, fmt.Errorf("client: Connect: unknown protocol version %q (supported: %v)", o.ProtocolVersion, supportedVersions)
	}
	if o.ClientInfo.Name == "" {
		o.ClientInfo.Name = "mcptestkit"
	}
	if o.ClientInfo.Version == "" {
		o.ClientInfo.Version = "v0"
	}
	if o.MaxInputRounds <= 0 {
		o.MaxInputRounds = DefaultMaxInputRounds
	}
	if o.ProbeTimeout <= 0 {
		o.ProbeTimeout = DefaultProbeTimeout
	}
	if o.MaxServerRequests <= 0 {
		o.MaxServerRequests = DefaultMaxServerRequests
	}
	if o.LogLevel != "" && !validLevel(o.LogLevel) {
		_ = t.Close()
		return nil, fmt.Errorf("client: Connect: unknown log level %q", o.LogLevel)
	}
	logger := o.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	c := &Client{
		t:       t,
		opts:    o,
		logger:  logger,
		done:    make(chan struct{}),
		pending: make(map[int64]*pendingCall),
		// progress, subs and inflight are made when first needed: most
		// connections never use them.
	}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	if o.LogLevel != "" {
		lvl := o.LogLevel
		c.logLevel.Store(&lvl)
	}
	c.clientCaps = c.declaredCapabilities()
	c.starting.Store(&ctx)
	go c.readLoop()
	if err := c.start(ctx); err != nil {
		_ = c.Close()
		if note := c.unusableNote(); note != "" {
			err = fmt.Errorf("%w; %s", err, note)
		}
		return nil, fmt.Errorf("client: Connect: %w", err)
	}
	c.starting.Store(nil) // keeps no reference to the caller's ctx
	return c, nil
}

// declaredCapabilities merges Options.Capabilities with what the callbacks
// provide: sampling, elicitation and roots are declared exactly when their
// callback is set, with the sub-capabilities Options.Capabilities gives them.
func (c *Client) declaredCapabilities() Capabilities {
	var caps Capabilities
	if c.opts.Capabilities != nil {
		caps = *c.opts.Capabilities
	}
	caps.Sampling = declared(c.opts.CreateMessage != nil, caps.Sampling, SamplingCapability{})
	caps.Elicitation = declared(c.opts.Elicit != nil, caps.Elicitation, ElicitationCapability{})
	caps.Roots = declared(c.opts.ListRoots != nil, caps.Roots, RootsCapability{ListChanged: true})
	return caps
}

// declared returns nil when the callback is not set, else a copy of the
// configured capability, or def when none was configured.
func declared[T any](callback bool, configured *T, def T) *T {
	if !callback {
		return nil
	}
	p := new(T) // not &def: def would then be on the heap on every path
	*p = def
	if configured != nil {
		*p = *configured
	}
	return p
}

// capabilitiesFor returns the declared capabilities as version knows them:
// no elicitation before 2025-06-18, no elicitation modes or sampling
// sub-capabilities before 2025-11-25, no roots.listChanged, tasks or
// extensions where the version lacks them.
func (c *Client) capabilitiesFor(version string) Capabilities {
	caps := c.clientCaps
	if version < Version20250618 {
		caps.Elicitation = nil
	}
	if version < Version20251125 {
		if caps.Elicitation != nil {
			caps.Elicitation = &ElicitationCapability{}
		}
		if caps.Sampling != nil {
			caps.Sampling = &SamplingCapability{}
		}
		caps.Tasks = nil
	}
	if IsLegacy(version) {
		caps.Extensions = nil
	} else {
		caps.Tasks = nil
		if caps.Roots != nil {
			caps.Roots = &RootsCapability{}
		}
	}
	return caps
}

// start runs the era probe and the handshake.
func (c *Client) start(ctx context.Context) error {
	switch pin := c.opts.ProtocolVersion; {
	case pin == "":
		fallback, err := c.discover(ctx, LatestVersion, true)
		if err == nil || !fallback {
			return err
		}
		c.logger.Debug("server did not take server/discover; falling back to initialize", "error", err)
		return c.initialize(ctx, LatestLegacyVersion)
	case !IsLegacy(pin):
		_, err := c.discover(ctx, pin, false)
		return err
	default:
		return c.initialize(ctx, pin)
	}
}

// discoverResult is the wire form of a server/discover result.
type discoverResult struct {
	ResultType        string             `json:"resultType"`
	SupportedVersions []string           `json:"supportedVersions"`
	Capabilities      ServerCapabilities `json:"capabilities"`
	Instructions      string             `json:"instructions"`
	Meta              struct {
		ServerInfo *Implementation `json:"io.modelcontextprotocol/serverInfo"`
	} `json:"_meta"`
}

// Failures of server/discover that a legacy server's answer would cause.
var (
	errNotDiscover = errors.New("the answer is not a server/discover result")
	errNotListed   = errors.New("the server does not list the version")
)

// discover starts a 2026-07-28 connection: server/discover at version, and
// once more at the newest modern version the server offers instead. When
// probing, fallback reports whether the failure means a legacy server, which
// initialize will start: see [legacyAnswer].
func (c *Client) discover(ctx context.Context, version string, probe bool) (fallback bool, err error) {
	offered, err := c.discoverAt(ctx, version, probe)
	if next := newest(offered, false); err != nil && next != "" {
		// Once, at the newest modern version the server listed: even the
		// version just refused, when its -32022 lists it (SEP-2575: retry
		// with a version the server says it supports).
		_, err = c.discoverAt(ctx, next, probe)
	}
	if err == nil {
		return false, nil
	}
	c.setModern("")
	if probe && legacyAnswer(ctx, err) {
		return true, err
	}
	if supported, ok := versionsOffered(err); ok {
		return false, fmt.Errorf("the server speaks none of this client's versions from %s on (it lists %v): %w", Version20260728, supported, err)
	}
	return false, err
}

// legacyAnswer reports whether a server/discover probe that failed with err
// means a legacy server: the server answered as only a legacy server would
// (an error response, a result that is not a discover result or does not
// list the version, or nothing within the probe timeout), or refused the
// version with a -32022 that lists a legacy version this client speaks. An
// ended ctx or connection means nothing of the kind.
func legacyAnswer(ctx context.Context, err error) bool {
	if ctx.Err() != nil || errors.Is(err, ErrClosed) {
		return false
	}
	if supported, ok := versionsOffered(err); ok {
		return newest(supported, true) != ""
	}
	var rpcErr *Error
	return errors.As(err, &rpcErr) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, errNotDiscover) || errors.Is(err, errNotListed)
}

// discoverAt sends server/discover at version and, when the server speaks
// it, adopts the result. When the server says it does not (a -32022 error,
// or a result whose supportedVersions lack version), offered holds the
// versions it listed.
func (c *Client) discoverAt(ctx context.Context, version string, probe bool) (offered []string, err error) {
	c.setModern(version)
	co := callOptions{} // no timeout: ctx bounds the start
	if probe {
		co.timeout = c.opts.ProbeTimeout
	}
	raw, err := c.call(ctx, op{method: methodDiscover}, nil, &co)
	if err != nil {
		offered, _ = versionsOffered(err)
		return offered, err
	}
	var res discoverResult
	if err := res.decode(raw); err != nil {
		return nil, fmt.Errorf("%s: %w: %w", methodDiscover, errNotDiscover, err)
	}
	if res.ResultType != "" && res.ResultType != resultComplete {
		return nil, fmt.Errorf("%s: %w", methodDiscover, errResultType(res.ResultType))
	}
	if !slices.Contains(res.SupportedVersions, version) {
		return res.SupportedVersions, fmt.Errorf("%s: %w: it lists %v, not %s", methodDiscover, errNotListed, res.SupportedVersions, version)
	}
	c.version = version
	c.serverCaps = res.Capabilities
	c.instructions = res.Instructions
	c.serverVersions = res.SupportedVersions
	if res.Meta.ServerInfo != nil {
		c.serverInfo = *res.Meta.ServerInfo
	}
	return nil, nil
}

// setModern switches the per-request metadata to version, or off with "".
func (c *Client) setModern(version string) {
	if version == "" {
		c.meta, c.taskMeta = nil, nil
		return
	}
	caps, err := marshalCapabilities(c.capabilitiesFor(version))
	if err != nil {
		caps = []byte("{}") // cannot happen: capabilities are plain data
	}
	info, err := marshalImplementation(&c.opts.ClientInfo)
	if err != nil {
		info = []byte(`{"name":"mcptestkit","version":"v0"}`)
	}
	c.meta = staticMeta(version, caps, info)
	c.taskMeta = c.tasksMeta(version)
}

// newest returns the newest version in versions that this client speaks, of
// the legacy era or of the modern one, or "" when there is none.
func newest(versions []string, legacy bool) string {
	best := ""
	for _, v := range versions {
		if knownVersion(v) && IsLegacy(v) == legacy && v > best {
			best = v
		}
	}
	return best
}

// initializeParams encodes the params of initialize exactly as json.Marshal
// does, without reflection for the usual capabilities and client info.
func initializeParams(version string, caps Capabilities, info *Implementation) ([]byte, error) {
	c, err := marshalCapabilities(caps)
	if err != nil {
		return initializeParamsJSON(version, caps, info)
	}
	i, err := marshalImplementation(info)
	if err != nil {
		return initializeParamsJSON(version, caps, info)
	}
	b := make([]byte, 0, 64+len(version)+len(c)+len(i))
	b = jsonrpc.AppendString(append(b, `{"protocolVersion":`...), version)
	b = append(append(b, `,"capabilities":`...), c...)
	b = append(append(b, `,"clientInfo":`...), i...)
	return append(b, '}'), nil
}

// initializeParamsJSON is initializeParams by encoding/json, for its errors.
func initializeParamsJSON(version string, caps Capabilities, info *Implementation) ([]byte, error) {
	return json.Marshal(struct {
		ProtocolVersion string          `json:"protocolVersion"`
		Capabilities    Capabilities    `json:"capabilities"`
		ClientInfo      *Implementation `json:"clientInfo"`
	}{version, caps, info})
}

// initialize runs the legacy handshake at version.
func (c *Client) initialize(ctx context.Context, version string) error {
	params, err := initializeParams(version, c.capabilitiesFor(version), &c.opts.ClientInfo)
	if err != nil {
		return fmt.Errorf("encoding initialize params: %w", err)
	}
	raw, err := c.roundTrip(ctx, op{method: methodInitialize}, params, nil) // bounded by ctx: Timeout is for requests after the start
	if err != nil {
		return err
	}
	var res initializeResult
	if err := res.decode(raw); err != nil {
		return fmt.Errorf("decoding initialize result: %w", err)
	}
	if !knownVersion(res.ProtocolVersion) || !IsLegacy(res.ProtocolVersion) {
		legacy := slices.DeleteFunc(SupportedVersions(), func(v string) bool { return !IsLegacy(v) })
		return fmt.Errorf("server answered initialize with protocol version %q, which this client does not speak over the handshake (it speaks %v)",
			res.ProtocolVersion, legacy)
	}
	c.version = res.ProtocolVersion
	c.serverCaps = res.Capabilities
	c.serverInfo = res.ServerInfo
	c.instructions = res.Instructions
	if err := c.notify(ctx, methodInitialized, nil); err != nil {
		return err
	}
	if lvl := c.opts.LogLevel; lvl != "" && c.serverCaps.Logging != nil {
		if err := c.SetLogLevel(ctx, lvl); err != nil {
			return err
		}
	}
	return nil
}

// ProtocolVersion returns the negotiated protocol version.
func (c *Client) ProtocolVersion() string { return c.version }

// IsModern reports whether the connection speaks 2026-07-28 (no session,
// metadata on every request) rather than a legacy version.
func (c *Client) IsModern() bool { return !IsLegacy(c.version) }

// ServerInfo returns the server's self-description (from initialize, or from
// the serverInfo metadata of server/discover; it may be empty there).
func (c *Client) ServerInfo() Implementation { return c.serverInfo }

// ServerCapabilities returns what the server declared. The caller must not
// modify it.
func (c *Client) ServerCapabilities() *ServerCapabilities { return &c.serverCaps }

// Capabilities returns what this client declared, as sent at the
// negotiated version. It shares its pointers and maps with the client: the
// caller must not modify what they point to.
func (c *Client) Capabilities() Capabilities { return c.capabilitiesFor(c.version) }

// Instructions returns the server's instructions for the model, if any.
func (c *Client) Instructions() string { return c.instructions }

// ServerVersions returns the versions a 2026-07-28 server listed in
// server/discover (nil on legacy connections).
func (c *Client) ServerVersions() []string { return slices.Clone(c.serverVersions) }

// Done returns a channel that is closed when the connection has ended, by
// Close or because the transport failed.
func (c *Client) Done() <-chan struct{} { return c.ctx.Done() }

// Err returns why the connection ended: nil while it is open, an error
// wrapping [ErrClosed] afterwards.
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.closed {
		return nil
	}
	return &closedError{cause: c.cause}
}

// Close ends the connection: every call still waiting returns an error
// wrapping [ErrClosed], callbacks in progress see their context cancelled,
// and Close returns once the client's goroutines have ended and the
// transport is closed. It is safe to call more than once.
func (c *Client) Close() error {
	c.closeOnce.Do(func() {
		c.mu.Lock()
		c.closing = true
		c.mu.Unlock()
		c.cancel()
		c.closeErr = c.t.Close()
		<-c.done
		c.wg.Wait()
	})
	return c.closeErr
}

func validLevel(l LogLevel) bool {
	switch l {
	case LevelDebug, LevelInfo, LevelNotice, LevelWarning, LevelError, LevelCritical, LevelAlert, LevelEmergency:
		return true
	}
	return false
}
