package client

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/internal/jsonrpc"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

// fake is a scripted server: the test reads what the client sends and
// writes exactly what the server answers, to reach the paths that real
// servers do not take.
type fake struct {
	t    *testing.T
	conn *memtransport.Conn
}

// fakeConnect starts Connect against a fake server; script plays the
// server's side of the start. It returns the client (or Connect's error).
func fakeConnect(t *testing.T, opts *Options, script func(f *fake)) (*Client, *fake, error) {
	t.Helper()
	ce, se := memtransport.Pair()
	return fakeConnectOn(t, ce, se, opts, script)
}

// fakeConnectOn is fakeConnect with the client on tr and the fake server on
// se.
func fakeConnectOn(t *testing.T, tr Transport, se *memtransport.Conn, opts *Options, script func(f *fake)) (*Client, *fake, error) {
	t.Helper()
	f := &fake{t: t, conn: se}
	type result struct {
		c   *Client
		err error
	}
	done := make(chan result, 1)
	go func() {
		c, err := Connect(t.Context(), tr, opts)
		done <- result{c, err}
	}()
	script(f)
	r := <-done
	t.Cleanup(func() {
		if r.c != nil {
			r.c.Close()
		}
		se.Close()
	})
	return r.c, f, r.err
}

// modernFake connects a client to a fake 2026-07-28 server.
func modernFake(t *testing.T, opts *Options) (*Client, *fake) {
	t.Helper()
	c, f, err := fakeConnect(t, opts, func(f *fake) { f.acceptDiscover() })
	require.NoError(t, err)
	return c, f
}

// legacyFake connects a client to a fake server at version.
func legacyFake(t *testing.T, version string, opts *Options) (*Client, *fake) {
	t.Helper()
	o := Options{}
	if opts != nil {
		o = *opts
	}
	o.ProtocolVersion = version
	c, f, err := fakeConnect(t, &o, func(f *fake) { f.acceptInitialize(version) })
	require.NoError(t, err)
	return c, f
}

// fakeWait bounds the wait for the client's next message, so that a client
// that never sends it fails the test instead of hanging it.
const fakeWait = 10 * time.Second

func (f *fake) recv() *jsonrpc.Message {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(f.t.Context(), fakeWait)
	defer cancel()
	data, err := f.conn.Receive(ctx)
	require.NoError(f.t, err, "the fake server expected a message from the client")
	m, err := jsonrpc.Decode(data)
	require.NoError(f.t, err)
	return m
}

// expect receives the next message and checks its method.
func (f *fake) expect(method string) *jsonrpc.Message {
	f.t.Helper()
	m := f.recv()
	require.Equal(f.t, method, m.Method, "params: %s", m.Params)
	return m
}

func (f *fake) send(raw string) {
	f.t.Helper()
	require.NoError(f.t, f.conn.SendRaw(f.t.Context(), []byte(raw)))
}

func (f *fake) reply(id jsonrpc.ID, result string) {
	f.t.Helper()
	f.send(string(jsonrpc.AppendResult(nil, id, json.RawMessage(result))))
}

func (f *fake) fail(id jsonrpc.ID, code int64, msg, data string) {
	f.t.Helper()
	e := &jsonrpc.Error{Code: code, Message: msg}
	if data != "" {
		e.Data = json.RawMessage(data)
	}
	f.send(string(jsonrpc.AppendError(nil, id, e)))
}

const fakeDiscover = `{"resultType":"complete","supportedVersions":["2026-07-28","2025-11-25"],` +
	`"capabilities":{"tools":{"listChanged":true},"resources":{"subscribe":true},"logging":{},"x-custom":{"a":1}},` +
	`"instructions":"be nice","ttlMs":0,"cacheScope":"public","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"fake","version":"9"}}}`

func (f *fake) acceptDiscover() {
	f.t.Helper()
	m := f.expect("server/discover")
	f.reply(m.ID, fakeDiscover)
}

func (f *fake) acceptInitialize(version string) {
	f.t.Helper()
	m := f.expect("initialize")
	f.reply(m.ID, `{"protocolVersion":"`+version+`","capabilities":{"tools":{},"logging":{}},"serverInfo":{"name":"fake","version":"9"}}`)
	f.expect("notifications/initialized")
}

func params(t *testing.T, m *jsonrpc.Message) map[string]json.RawMessage {
	t.Helper()
	var p map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(m.Params, &p))
	return p
}

// logBuffer is a slog logger writing to a buffer, safe to read while the
// client writes.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (b *logBuffer) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

func TestDiscoverResultAdopted(t *testing.T) {
	c, _ := modernFake(t, nil)
	assert.Equal(t, Version20260728, c.ProtocolVersion())
	assert.Equal(t, Implementation{Name: "fake", Version: "9"}, c.ServerInfo())
	assert.Equal(t, "be nice", c.Instructions())
	assert.Equal(t, []string{Version20260728, Version20251125}, c.ServerVersions())
	caps := c.ServerCapabilities()
	assert.True(t, caps.Tools.ListChanged)
	assert.True(t, caps.Resources.Subscribe)
	assert.NotNil(t, caps.Logging)
	assert.Nil(t, caps.Prompts)
	assert.Contains(t, string(caps.Raw), `"x-custom":{"a":1}`, "unknown capabilities kept")
}

func TestProbeFallsBackOnError(t *testing.T) {
	for _, code := range []int64{CodeMethodNotFound, CodeInvalidParams, CodeInvalidRequest, 0, -32000} {
		c, _, err := fakeConnect(t, nil, func(f *fake) {
			m := f.expect("server/discover")
			f.fail(m.ID, code, "not initialized", "")
			m = f.expect("initialize")
			p := params(t, m)
			assert.JSONEq(t, `"2025-11-25"`, string(p["protocolVersion"]))
			assert.JSONEq(t, `{"name":"mcptestkit","version":"v0"}`, string(p["clientInfo"]))
			f.reply(m.ID, `{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"old","version":"1"},"instructions":"hi"}`)
			f.expect("notifications/initialized")
		})
		require.NoError(t, err, "code %d", code)
		assert.Equal(t, Version20250618, c.ProtocolVersion(), "the server's choice is accepted")
		assert.False(t, c.IsModern())
		assert.Equal(t, "old", c.ServerInfo().Name)
		assert.Equal(t, "hi", c.Instructions())
	}
}

func TestProbeFallsBackOnSilence(t *testing.T) {
	c, _, err := fakeConnect(t, &Options{ProbeTimeout: 30 * 1e6}, func(f *fake) {
		probe := f.expect("server/discover")
		// No answer: the client gives up, says so, and starts the handshake.
		cancel := f.expect("notifications/cancelled")
		assert.Equal(t, probe.ID.String(), string(params(t, cancel)["requestId"]))
		assert.JSONEq(t, `"the client stopped waiting: no response within 30ms"`, string(params(t, cancel)["reason"]))
		f.acceptInitialize(Version20251125)
		// A late answer to the probe is ignored.
		f.reply(probe.ID, fakeDiscover)
	})
	require.NoError(t, err)
	assert.Equal(t, Version20251125, c.ProtocolVersion())
}

func TestProbeUnsupportedVersion(t *testing.T) {
	// The server speaks only legacy versions: initialize.
	c, _, err := fakeConnect(t, nil, func(f *fake) {
		m := f.expect("server/discover")
		f.fail(m.ID, CodeUnsupportedProtocolVersion, "Unsupported protocol version", `{"supported":["2025-06-18"],"requested":"2026-07-28"}`)
		f.acceptInitialize(Version20250618)
	})
	require.NoError(t, err)
	assert.Equal(t, Version20250618, c.ProtocolVersion())

	// The server speaks only versions this client does not know: fail.
	_, _, err = fakeConnect(t, nil, func(f *fake) {
		m := f.expect("server/discover")
		f.fail(m.ID, CodeUnsupportedProtocolVersion, "Unsupported protocol version", `{"supported":["2027-01-01"],"requested":"2026-07-28"}`)
	})
	require.ErrorContains(t, err, "2027-01-01")
	supported, ok := versionsOffered(err)
	require.True(t, ok)
	assert.Equal(t, []string{"2027-01-01"}, supported)
}

func TestDiscoverListingNoModernVersionFallsBack(t *testing.T) {
	for _, result := range []string{
		`{"resultType":"complete","supportedVersions":["2025-11-25"],"capabilities":{}}`,
		`{"supportedVersions":["2027-01-01"]}`,
		`{}`, // what a legacy server that answers anything with {} sends
	} {
		c, _, err := fakeConnect(t, nil, func(f *fake) {
			m := f.expect("server/discover")
			f.reply(m.ID, result)
			f.acceptInitialize(Version20251125)
		})
		require.NoError(t, err, result)
		assert.Equal(t, Version20251125, c.ProtocolVersion(), result)
	}
	// Pinned, the same answer is a failure that says what the server listed.
	_, _, err := fakeConnect(t, &Options{ProtocolVersion: Version20260728}, func(f *fake) {
		m := f.expect("server/discover")
		f.reply(m.ID, `{"supportedVersions":["2025-11-25"]}`)
	})
	require.EqualError(t, err, "client: Connect: server/discover: the server does not list the version: it lists [2025-11-25], not 2026-07-28")
}

func TestPinnedModernDoesNotFallBack(t *testing.T) {
	_, _, err := fakeConnect(t, &Options{ProtocolVersion: Version20260728}, func(f *fake) {
		m := f.expect("server/discover")
		f.fail(m.ID, CodeMethodNotFound, "method not found", "")
	})
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, CodeMethodNotFound, e.Code)
}

func TestInitializeUnknownVersionRejected(t *testing.T) {
	var f *fake
	_, f, err := fakeConnect(t, &Options{ProtocolVersion: Version20250326}, func(fk *fake) {
		m := fk.expect("initialize")
		assert.JSONEq(t, `"2025-03-26"`, string(params(t, m)["protocolVersion"]))
		fk.reply(m.ID, `{"protocolVersion":"1999-01-01","capabilities":{},"serverInfo":{"name":"x","version":"1"}}`)
	})
	require.ErrorContains(t, err, `"1999-01-01"`)
	require.ErrorContains(t, err, "(it speaks [2025-11-25 2025-06-18 2025-03-26 2024-11-05])")
	// The client closed the connection.
	_, rerr := f.conn.Receive(t.Context())
	require.ErrorIs(t, rerr, io.ErrClosedPipe)
}

func TestConnectRejectsBadOptions(t *testing.T) {
	ce, se := memtransport.Pair()
	defer se.Close()
	_, err := Connect(t.Context(), ce, &Options{ProtocolVersion: "2020-01-01"})
	require.ErrorContains(t, err, `unknown protocol version "2020-01-01"`)
	_, err = Connect(t.Context(), nil, nil)
	require.Error(t, err)
	ce2, se2 := memtransport.Pair()
	defer se2.Close()
	_, err = Connect(t.Context(), ce2, &Options{LogLevel: "chatty"})
	require.ErrorContains(t, err, "chatty")
}

func TestConnectHonoursContext(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	ce, se := memtransport.Pair()
	defer se.Close()
	errc := make(chan error, 1)
	go func() {
		_, err := Connect(ctx, ce, &Options{ProtocolVersion: Version20251125})
		errc <- err
	}()
	_, err := se.Receive(t.Context()) // initialize, never answered
	require.NoError(t, err)
	cancel()
	require.ErrorIs(t, <-errc, context.Canceled)
}

func TestModernMetaOnEveryRequest(t *testing.T) {
	c, f := modernFake(t, &Options{
		ClientInfo: Implementation{Name: "tester", Version: "2"},
		LogLevel:   LevelInfo,
		Elicit:     func(context.Context, *ElicitRequest) (*ElicitResult, error) { return nil, nil },
	})
	errc := make(chan error, 1)
	go func() {
		_, err := c.CallTool(t.Context(), "t", nil, WithMeta(Meta{"trace": "abc"}), WithProgress(func(Progress) {}))
		errc <- err
	}()
	m := f.expect("tools/call")
	var p struct {
		Name string `json:"name"`
		Meta map[string]json.RawMessage
	}
	var raw map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(m.Params, &raw))
	require.NoError(t, json.Unmarshal(raw["_meta"], &p.Meta))
	assert.JSONEq(t, `"2026-07-28"`, string(p.Meta["io.modelcontextprotocol/protocolVersion"]))
	assert.JSONEq(t, `{"elicitation":{}}`, string(p.Meta["io.modelcontextprotocol/clientCapabilities"]))
	assert.JSONEq(t, `{"name":"tester","version":"2"}`, string(p.Meta["io.modelcontextprotocol/clientInfo"]))
	assert.JSONEq(t, `"info"`, string(p.Meta["io.modelcontextprotocol/logLevel"]))
	assert.JSONEq(t, `"abc"`, string(p.Meta["trace"]))
	assert.NotEmpty(t, p.Meta["progressToken"])
	_, hasArgs := raw["arguments"]
	assert.False(t, hasArgs, "nil arguments are omitted")
	f.reply(m.ID, `{"content":[]}`) // no resultType: complete
	require.NoError(t, <-errc)

	// Even a request with nothing else to say carries params with _meta.
	go func() {
		_, err := c.ListTools(t.Context(), "")
		errc <- err
	}()
	m = f.expect("tools/list")
	assert.Contains(t, string(m.Params), `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"`)
	f.reply(m.ID, `{"tools":[],"resultType":"complete","ttlMs":5,"cacheScope":"private"}`)
	require.NoError(t, <-errc)

	// SetLogLevel changes what later requests carry, with no request of its own.
	require.NoError(t, c.SetLogLevel(t.Context(), LevelError))
	go func() {
		_, err := c.ListPrompts(t.Context(), "abc")
		errc <- err
	}()
	m = f.expect("prompts/list")
	assert.Contains(t, string(m.Params), `"cursor":"abc"`)
	assert.Contains(t, string(m.Params), `"io.modelcontextprotocol/logLevel":"error"`)
	f.reply(m.ID, `{"prompts":[],"resultType":"complete"}`)
	require.NoError(t, <-errc)
}

func TestLegacyRequestsCarryNoModernMeta(t *testing.T) {
	c, f := legacyFake(t, Version20251125, nil)
	errc := make(chan error, 1)
	go func() {
		_, err := c.ListTools(t.Context(), "")
		errc <- err
	}()
	m := f.expect("tools/list")
	assert.Empty(t, m.Params, "no params at all")
	f.reply(m.ID, `{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}`)
	require.NoError(t, <-errc)
}

func TestResultTypeChecked(t *testing.T) {
	c, f := modernFake(t, nil)
	type outcome struct {
		res *CallToolResult
		err error
	}
	oc := make(chan outcome, 1)
	go func() {
		res, err := c.CallTool(t.Context(), "t", nil)
		oc <- outcome{res, err}
	}()
	m := f.expect("tools/call")
	f.reply(m.ID, `{"resultType":"task","taskId":"1"}`)
	o := <-oc
	require.ErrorContains(t, o.err, `resultType "task"`)

	errc := make(chan error, 1)
	go func() {
		_, err := c.ListTools(t.Context(), "")
		errc <- err
	}()
	m = f.expect("tools/list")
	f.reply(m.ID, `{"resultType":"input_required","inputRequests":{}}`)
	require.ErrorContains(t, <-errc, "only tools/call, prompts/get and resources/read")
}

func TestMRTRRoundsAreBounded(t *testing.T) {
	c, f := modernFake(t, &Options{MaxInputRounds: 3, ListRoots: func(context.Context) ([]*Root, error) {
		return []*Root{{URI: "file:///r"}}, nil
	}})
	errc := make(chan error, 1)
	go func() {
		_, err := c.GetPrompt(t.Context(), "p", map[string]string{"a": "b"})
		errc <- err
	}()
	state := `"odd \"state\" \u2028 ünïcode"`
	var ids []string
	for round := 1; round <= 3; round++ {
		m := f.expect("prompts/get")
		ids = append(ids, m.ID.String())
		p := params(t, m)
		assert.JSONEq(t, `"p"`, string(p["name"]))
		assert.JSONEq(t, `{"a":"b"}`, string(p["arguments"]), "the original params on every round")
		if round == 1 {
			assert.NotContains(t, p, "requestState")
			assert.NotContains(t, p, "inputResponses")
		} else {
			assert.JSONEq(t, state, string(p["requestState"]), "echoed exactly")
			assert.JSONEq(t, `{"r":{"roots":[{"uri":"file:///r"}]}}`, string(p["inputResponses"]))
		}
		f.reply(m.ID, `{"resultType":"input_required","inputRequests":{"r":{"method":"roots/list"}},"requestState":`+state+`}`)
	}
	err := <-errc
	var ire *InputRequiredError
	require.ErrorAs(t, err, &ire)
	assert.Equal(t, 3, ire.Rounds)
	assert.Equal(t, "p", ire.Name)
	assert.EqualError(t, err, `prompts/get "p": input required: the server still asks for input at the limit of Options.MaxInputRounds (after 3 rounds)`)
	assert.Len(t, ids, 3)
	assert.NotEqual(t, ids[0], ids[1])
	assert.NotEqual(t, ids[1], ids[2])
}

func TestMRTRLoadShedding(t *testing.T) {
	c, f := modernFake(t, nil)
	type outcome struct {
		res *ReadResourceResult
		err error
	}
	oc := make(chan outcome, 1)
	go func() {
		res, err := c.ReadResource(t.Context(), "file:///x")
		oc <- outcome{res, err}
	}()
	m := f.expect("resources/read")
	f.reply(m.ID, `{"resultType":"input_required","requestState":"busy"}`)
	m = f.expect("resources/read")
	p := params(t, m)
	assert.JSONEq(t, `"busy"`, string(p["requestState"]))
	assert.NotContains(t, p, "inputResponses")
	f.reply(m.ID, `{"resultType":"complete","contents":[{"uri":"file:///x","text":"ok"}]}`)
	o := <-oc
	require.NoError(t, o.err)
	assert.Equal(t, "ok", o.res.Contents[0].Text)

	// A server that never gets ready: the client gives up.
	go func() {
		res, err := c.ReadResource(t.Context(), "file:///x")
		oc <- outcome{res, err}
	}()
	for range maxShedding + 1 {
		m := f.expect("resources/read")
		f.reply(m.ID, `{"resultType":"input_required","inputRequests":{},"requestState":"busy"}`)
	}
	o = <-oc
	var ire *InputRequiredError
	require.ErrorAs(t, o.err, &ire)
	assert.Contains(t, ire.Reason, "retry later")
}

func TestMRTRRejectsForeignInputMethod(t *testing.T) {
	c, f := modernFake(t, nil)
	errc := make(chan error, 1)
	go func() {
		_, err := c.CallTool(t.Context(), "t", nil)
		errc <- err
	}()
	m := f.expect("tools/call")
	f.reply(m.ID, `{"resultType":"input_required","inputRequests":{"x":{"method":"tools/call"}}}`)
	require.EqualError(t, <-errc, `tools/call "t": input required: answering the server's input requests failed (after 1 round): `+
		`input request "x": method "tools/call" may not be used as an input request`)
}

func TestUnknownResponseIDLogged(t *testing.T) {
	var logs logBuffer
	c, f := legacyFake(t, Version20251125, &Options{Logger: logs.logger()})
	f.send(`{"jsonrpc":"2.0","id":9999,"result":{}}`)
	f.send(`{"jsonrpc":"2.0","id":"abc","result":{}}`)
	f.send(`this is not json`)
	// A ping round trip: the client handled everything sent before its answer.
	errc := make(chan error, 1)
	go func() { errc <- c.Ping(t.Context()) }()
	m := f.expect("ping")
	f.reply(m.ID, `{}`)
	require.NoError(t, <-errc)
	out := logs.String()
	assert.Contains(t, out, "unknown request")
	assert.Contains(t, out, "id=9999")
	assert.Contains(t, out, `id="\"abc\""`)
	assert.Contains(t, out, "not JSON-RPC")
}

func TestServerRequestsOnLegacyConnection(t *testing.T) {
	elicitStarted := make(chan struct{})
	elicitDone := make(chan error, 1)
	c, f := legacyFake(t, Version20251125, &Options{
		Elicit: func(ctx context.Context, req *ElicitRequest) (*ElicitResult, error) {
			close(elicitStarted)
			<-ctx.Done()
			elicitDone <- ctx.Err()
			return nil, ctx.Err()
		},
	})
	_ = c
	f.send(`{"jsonrpc":"2.0","id":"p1","method":"ping"}`)
	m := f.recv()
	assert.Equal(t, `"p1"`, m.ID.String())
	assert.JSONEq(t, `{}`, string(m.Result))

	f.send(`{"jsonrpc":"2.0","id":2,"method":"sampling/createMessage","params":{"messages":[],"maxTokens":1}}`)
	m = f.recv()
	require.NotNil(t, m.Error)
	assert.Equal(t, CodeMethodNotFound, m.Error.Code)
	assert.Contains(t, m.Error.Message, "sampling")

	f.send(`{"jsonrpc":"2.0","id":3,"method":"no/such"}`)
	m = f.recv()
	require.NotNil(t, m.Error)
	assert.Equal(t, CodeMethodNotFound, m.Error.Code)

	// URL mode was not declared.
	f.send(`{"jsonrpc":"2.0","id":4,"method":"elicitation/create","params":{"mode":"url","message":"go","url":"https://example.com","elicitationId":"e"}}`)
	m = f.recv()
	require.NotNil(t, m.Error)
	assert.Equal(t, CodeInvalidParams, m.Error.Code)

	// The server cancels a request being answered: the callback's ctx ends
	// and no response is sent.
	f.send(`{"jsonrpc":"2.0","id":5,"method":"elicitation/create","params":{"message":"name?","requestedSchema":{"type":"object"}}}`)
	<-elicitStarted
	f.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5,"reason":"changed my mind"}}`)
	require.ErrorIs(t, <-elicitDone, context.Canceled)
	f.send(`{"jsonrpc":"2.0","id":6,"method":"ping"}`)
	m = f.recv()
	assert.Equal(t, "6", m.ID.String(), "no response to the cancelled request came first")
}

func TestCapabilitiesFollowVersion(t *testing.T) {
	opts := func() *Options {
		return &Options{
			Capabilities: &Capabilities{
				Elicitation:  &ElicitationCapability{Form: true, URL: true},
				Sampling:     &SamplingCapability{Tools: true},
				Experimental: map[string]json.RawMessage{"x": json.RawMessage(`{}`)},
				Extensions:   map[string]json.RawMessage{"io.example/ext": json.RawMessage(`{}`)},
			},
			Elicit:        func(context.Context, *ElicitRequest) (*ElicitResult, error) { return nil, nil },
			CreateMessage: func(context.Context, *CreateMessageRequest) (*CreateMessageResult, error) { return nil, nil },
			ListRoots:     func(context.Context) ([]*Root, error) { return nil, nil },
		}
	}
	cases := map[string]string{
		Version20241105: `{"experimental":{"x":{}},"roots":{"listChanged":true},"sampling":{}}`,
		Version20250618: `{"experimental":{"x":{}},"roots":{"listChanged":true},"sampling":{},"elicitation":{}}`,
		Version20251125: `{"experimental":{"x":{}},"roots":{"listChanged":true},"sampling":{"tools":{}},"elicitation":{"form":{},"url":{}}}`,
	}
	for v, want := range cases {
		o := opts()
		o.ProtocolVersion = v
		_, _, err := fakeConnect(t, o, func(f *fake) {
			m := f.expect("initialize")
			assert.JSONEq(t, want, string(params(t, m)["capabilities"]), v)
			f.reply(m.ID, `{"protocolVersion":"`+v+`","capabilities":{},"serverInfo":{"name":"x","version":"1"}}`)
			f.expect("notifications/initialized")
		})
		require.NoError(t, err)
	}
	c, _ := modernFake(t, opts())
	caps, err := json.Marshal(c.Capabilities())
	require.NoError(t, err)
	assert.JSONEq(t, `{"experimental":{"x":{}},"roots":{},"sampling":{"tools":{}},"elicitation":{"form":{},"url":{}},"extensions":{"io.example/ext":{}}}`, string(caps))
}

func TestLegacySetsLogLevelAtStart(t *testing.T) {
	_, _, err := fakeConnect(t, &Options{ProtocolVersion: Version20250618, LogLevel: LevelDebug}, func(f *fake) {
		f.acceptInitialize(Version20250618) // the fake declares logging
		m := f.expect("logging/setLevel")
		assert.JSONEq(t, `{"level":"debug"}`, string(m.Params))
		f.reply(m.ID, `{}`)
	})
	require.NoError(t, err)
}

func TestListenDemultiplexes(t *testing.T) {
	events := make(chan string, 16)
	var logs logBuffer
	o := eventOptions(events)
	o.Logger = logs.logger()
	c, f := modernFake(t, o)

	type outcome struct {
		sub *Subscription
		err error
	}
	oc := make(chan outcome, 1)
	listen := func(filter ListenFilter) {
		go func() {
			s, err := c.Listen(t.Context(), filter)
			oc <- outcome{s, err}
		}()
	}
	listen(ListenFilter{ToolsListChanged: true, ResourceSubscriptions: []string{"file:///a"}})
	m := f.expect("subscriptions/listen")
	p := params(t, m)
	assert.JSONEq(t, `{"toolsListChanged":true,"resourceSubscriptions":["file:///a"]}`, string(p["notifications"]))
	assert.Contains(t, string(p["_meta"]), "protocolVersion")
	id := m.ID.String()
	f.send(`{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{"toolsListChanged":true},"_meta":{"io.modelcontextprotocol/subscriptionId":` + id + `}}}`)
	o1 := <-oc
	require.NoError(t, o1.err)
	assert.Equal(t, ListenFilter{ToolsListChanged: true}, o1.sub.Accepted(), "what the server agreed to")

	f.send(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":` + id + `}}}`)
	expectEvent(t, events, "tools")
	// Tagged with a subscription that is not ours: dropped.
	f.send(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":424242}}}`)

	// A second subscription, ended by the server with a response.
	listen(ListenFilter{PromptsListChanged: true})
	m2 := f.expect("subscriptions/listen")
	id2 := m2.ID.String()
	f.send(`{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{"promptsListChanged":true},"_meta":{"io.modelcontextprotocol/subscriptionId":` + id2 + `}}}`)
	o2 := <-oc
	require.NoError(t, o2.err)
	f.send(`{"jsonrpc":"2.0","method":"notifications/prompts/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":` + id2 + `}}}`)
	expectEvent(t, events, "prompts")
	f.reply(m2.ID, `{"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId":`+id2+`}}`)
	<-o2.sub.Done()
	var ended *SubscriptionEndedError
	require.ErrorAs(t, o2.sub.Err(), &ended)

	// The first one the server ends with notifications/cancelled (stdio).
	f.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + id + `,"reason":"shutting down"}}`)
	<-o1.sub.Done()
	require.ErrorAs(t, o1.sub.Err(), &ended)
	assert.Equal(t, "shutting down", ended.Reason)
	// Its traffic after the end is dropped.
	f.send(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":` + id + `}}}`)

	// A listen the server refuses.
	listen(ListenFilter{ToolsListChanged: true})
	m3 := f.expect("subscriptions/listen")
	f.fail(m3.ID, CodeInvalidParams, "bad filter", "")
	o3 := <-oc
	var e *Error
	require.ErrorAs(t, o3.err, &e)
	assert.Equal(t, "subscriptions/listen", e.Method)

	// Closing a subscription sends notifications/cancelled for its id.
	listen(ListenFilter{ToolsListChanged: true})
	m4 := f.expect("subscriptions/listen")
	f.send(`{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{"toolsListChanged":true},"_meta":{"io.modelcontextprotocol/subscriptionId":` + m4.ID.String() + `}}}`)
	o4 := <-oc
	require.NoError(t, o4.err)
	require.NoError(t, o4.sub.Close())
	cm := f.expect("notifications/cancelled")
	assert.Equal(t, m4.ID.String(), string(params(t, cm)["requestId"]))

	select {
	case got := <-events:
		t.Fatalf("unexpected event %q", got)
	default:
	}
	assert.Contains(t, logs.String(), "no current subscription")
}

func TestListenWaitHonoursContext(t *testing.T) {
	c, f := modernFake(t, nil)
	ctx, cancel := context.WithCancel(t.Context())
	errc := make(chan error, 1)
	go func() {
		_, err := c.Listen(ctx, ListenFilter{ToolsListChanged: true})
		errc <- err
	}()
	m := f.expect("subscriptions/listen")
	cancel()
	require.ErrorIs(t, <-errc, context.Canceled)
	cm := f.expect("notifications/cancelled")
	assert.Equal(t, m.ID.String(), string(params(t, cm)["requestId"]))
}

func TestConnectionLost(t *testing.T) {
	c, f := legacyFake(t, Version20251125, nil)
	errc := make(chan error, 1)
	go func() {
		_, err := c.CallTool(t.Context(), "t", nil)
		errc <- err
	}()
	f.expect("tools/call")
	f.conn.Close()
	err := <-errc
	require.ErrorIs(t, err, ErrClosed)
	require.ErrorIs(t, err, io.ErrClosedPipe, "the cause is kept")
	<-c.Done()
	require.ErrorIs(t, c.Err(), ErrClosed)
	_, err = c.ListTools(t.Context(), "")
	require.ErrorIs(t, err, ErrClosed)
}

func TestNotificationHandlers(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	var completed []string
	c, f := legacyFake(t, Version20251125, &Options{
		OnNotification: func(method string, _ json.RawMessage) {
			mu.Lock()
			seen = append(seen, method)
			mu.Unlock()
		},
		OnElicitationComplete: func(id string) {
			mu.Lock()
			completed = append(completed, id)
			mu.Unlock()
		},
	})
	f.send(`{"jsonrpc":"2.0","method":"notifications/elicitation/complete","params":{"elicitationId":"el-1"}}`)
	f.send(`{"jsonrpc":"2.0","method":"notifications/custom/thing","params":{"x":1}}`)
	f.send(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":77,"progress":1}}`)
	errc := make(chan error, 1)
	go func() { errc <- c.Ping(t.Context()) }()
	m := f.expect("ping")
	f.reply(m.ID, `{}`)
	require.NoError(t, <-errc)
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []string{"notifications/elicitation/complete", "notifications/custom/thing", "notifications/progress"}, seen)
	assert.Equal(t, []string{"el-1"}, completed)
}

func TestUnknownContentKept(t *testing.T) {
	c, f := legacyFake(t, Version20251125, nil)
	type outcome struct {
		res *CallToolResult
		err error
	}
	oc := make(chan outcome, 1)
	go func() {
		res, err := c.CallTool(t.Context(), "t", map[string]int{"n": 1})
		oc <- outcome{res, err}
	}()
	m := f.expect("tools/call")
	f.reply(m.ID, `{"content":[{"type":"hologram","frames":[1,2]},{"type":"text","text":"ok"}]}`)
	o := <-oc
	require.NoError(t, o.err)
	require.Len(t, o.res.Content, 2)
	raw, ok := o.res.Content[0].(*RawContent)
	require.True(t, ok)
	assert.Equal(t, "hologram", raw.ContentType())
	assert.JSONEq(t, `{"type":"hologram","frames":[1,2]}`, string(raw.JSON))
	assert.Equal(t, "ok", o.res.Text())
}

func TestRawCall(t *testing.T) {
	c, f := modernFake(t, nil)
	type outcome struct {
		raw json.RawMessage
		err error
	}
	oc := make(chan outcome, 1)
	go func() {
		raw, err := c.Call(t.Context(), "x/custom", map[string]int{"n": 1})
		oc <- outcome{raw, err}
	}()
	m := f.expect("x/custom")
	p := params(t, m)
	assert.JSONEq(t, `1`, string(p["n"]))
	assert.Contains(t, p, "_meta")
	f.reply(m.ID, `{"anything":true}`)
	o := <-oc
	require.NoError(t, o.err)
	assert.JSONEq(t, `{"anything":true}`, string(o.raw))
	_, err := c.Call(t.Context(), "x/custom", "not an object")
	require.ErrorContains(t, err, "must encode as a JSON object")
}

// Issue 32 (request-metadata, SEP-2575): a server that refuses the
// client's version with a -32022 listing that same version is asked again,
// once, at it.
func TestDiscoverRetriesAVersionTheServerLists(t *testing.T) {
	c, _, err := fakeConnect(t, &Options{ProtocolVersion: Version20260728}, func(f *fake) {
		m := f.expect("server/discover")
		f.fail(m.ID, CodeUnsupportedProtocolVersion, "Unsupported protocol version", `{"supported":["2026-07-28"],"requested":"2026-07-28"}`)
		f.acceptDiscover()
	})
	require.NoError(t, err)
	assert.Equal(t, Version20260728, c.ProtocolVersion())

	// Twice refused: the error, no third try.
	_, _, err = fakeConnect(t, &Options{ProtocolVersion: Version20260728}, func(f *fake) {
		for range 2 {
			m := f.expect("server/discover")
			f.fail(m.ID, CodeUnsupportedProtocolVersion, "Unsupported protocol version", `{"supported":["2026-07-28"],"requested":"2026-07-28"}`)
		}
	})
	require.ErrorContains(t, err, "the server speaks none of this client's versions from 2026-07-28 on (it lists [2026-07-28])")
}

// The probe's answers that do not mean a legacy server are failures, not a
// fall back to initialize.
func TestProbeFailuresThatAreNotLegacy(t *testing.T) {
	// An answer that is not a discover result at all: a legacy server's
	// odd reply, so the client falls back.
	c, _, err := fakeConnect(t, nil, func(f *fake) {
		m := f.expect("server/discover")
		f.reply(m.ID, `[1,2]`)
		f.acceptInitialize(Version20251125)
	})
	require.NoError(t, err)
	assert.Equal(t, Version20251125, c.ProtocolVersion())
	assert.False(t, c.IsModern())

	// A modern pin and a server that speaks only legacy versions: an error
	// that says so.
	_, _, err = fakeConnect(t, &Options{ProtocolVersion: Version20260728}, func(f *fake) {
		m := f.expect("server/discover")
		f.fail(m.ID, CodeUnsupportedProtocolVersion, "Unsupported protocol version", `{"supported":["2025-11-25"],"requested":"2026-07-28"}`)
	})
	require.ErrorContains(t, err, "the server speaks none of this client's versions from 2026-07-28 on (it lists [2025-11-25])")
	_, ok := versionsOffered(err)
	assert.True(t, ok, "the server's error is kept")

	// An unknown resultType: not legacy, not usable.
	_, _, err = fakeConnect(t, nil, func(f *fake) {
		m := f.expect("server/discover")
		f.reply(m.ID, `{"resultType":"later","supportedVersions":["2026-07-28"]}`)
	})
	require.ErrorContains(t, err, `server/discover: server sent resultType "later"`)

	// The connection ends during the probe: no fall back.
	_, _, err = fakeConnect(t, nil, func(f *fake) {
		f.expect("server/discover")
		f.conn.Close()
	})
	require.ErrorIs(t, err, ErrClosed)
}

// Sampling, elicitation and roots are declared exactly when their callback
// is set, with the sub-capabilities Options.Capabilities gives them.
func TestCapabilitiesFollowCallbacks(t *testing.T) {
	base := &Capabilities{
		Sampling:    &SamplingCapability{Tools: true},
		Elicitation: &ElicitationCapability{URL: true},
		Roots:       &RootsCapability{}, // no listChanged, on purpose
	}
	c, _ := legacyFake(t, Version20251125, &Options{Capabilities: base})
	caps := c.Capabilities()
	assert.Nil(t, caps.Sampling, "configured but no callback")
	assert.Nil(t, caps.Elicitation)
	assert.Nil(t, caps.Roots)

	c, _ = legacyFake(t, Version20251125, &Options{
		Capabilities: base,
		ListRoots:    func(context.Context) ([]*Root, error) { return nil, nil },
		Elicit:       func(context.Context, *ElicitRequest) (*ElicitResult, error) { return nil, nil },
	})
	caps = c.Capabilities()
	assert.Nil(t, caps.Sampling)
	assert.Equal(t, &ElicitationCapability{URL: true}, caps.Elicitation)
	assert.Equal(t, &RootsCapability{}, caps.Roots, "the configured roots capability is kept")
	assert.NotSame(t, base.Roots, caps.Roots, "a copy, not the caller's")

	c, _ = legacyFake(t, Version20251125, &Options{ListRoots: func(context.Context) ([]*Root, error) { return nil, nil }})
	assert.Equal(t, &RootsCapability{ListChanged: true}, c.Capabilities().Roots, "the default")
}
