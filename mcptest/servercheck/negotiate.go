package servercheck

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/mcptestkit/mcptestkit/client"
)

// unknownVersion is a protocol version no server speaks: a server must not
// agree to it.
const unknownVersion = "2099-12-31"

// rawConn is a connection on which a check writes every message itself,
// with no client: for what a client would never send (an initialize at a
// version that does not exist, a request before any handshake).
type rawConn struct {
	*conn
	next int
}

func (s *suite) openRaw() (*rawConn, error) {
	tr, err := s.dial(s.ctx)
	if err != nil {
		return nil, fmt.Errorf("dialing: %w", err)
	}
	return &rawConn{conn: &conn{tap: newTap(tr, nil)}}, nil
}

func (r *rawConn) close() { _ = r.tap.Close() }

// rpcAnswer is the response to one raw request.
type rpcAnswer struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int64           `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

func (a *rpcAnswer) String() string {
	if a.Error != nil {
		return fmt.Sprintf("JSON-RPC error %d %q", a.Error.Code, cut(a.Error.Message, 200))
	}
	return "the result " + cut(string(a.Result), 400)
}

// call sends one request and reads messages until its response, answering
// nothing the server asks on the way.
func (r *rawConn) call(ctx context.Context, method string, params any) (*rpcAnswer, error) {
	r.next++
	id := rawPrefix + "raw-" + strconv.Itoa(r.next)
	msg, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err != nil {
		return nil, err
	}
	if err := r.tap.Send(ctx, msg); err != nil {
		return nil, &sendError{err}
	}
	for {
		data, err := r.tap.Receive(ctx)
		if err != nil {
			return nil, err
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			rpcAnswer
		}
		if json.Unmarshal(data, &m) != nil || m.Method != "" {
			continue
		}
		var got string
		if json.Unmarshal(m.ID, &got) == nil && got == id {
			return &m.rpcAnswer, nil
		}
	}
}

// modernMeta is the _meta a 2026-07-28 request carries.
func modernMeta() map[string]any {
	return map[string]any{"_meta": map[string]any{
		"io.modelcontextprotocol/protocolVersion":    client.Version20260728,
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "mcptestkit-check", "version": "0"},
	}}
}

// versionNegotiation asks for a version that does not exist, and checks that
// a server that fails server/discover does not speak 2026-07-28.
func (c *state) versionNegotiation() {
	r, err := c.s.openRaw()
	if err != nil {
		c.fatalf("could not open a connection: %v", err)
	}
	defer func() { r.close() }()
	c.use(r.conn)
	ctx, cancel := c.ctx()
	defer cancel()

	legacy := true // the server may speak a legacy version: initialize it
	discover, tried := c.discoverAnswer()
	switch {
	case !tried || discover == nil:
		// Not asked, or no answer: a legacy server may ignore a request
		// before initialize.
	case discover.Error == nil:
		var res struct {
			SupportedVersions []string `json:"supportedVersions"`
		}
		_ = json.Unmarshal(discover.Result, &res)
		legacy = slices.ContainsFunc(res.SupportedVersions, client.IsLegacy)
	case discover.Error.Code == client.CodeUnsupportedProtocolVersion:
		// A modern answer: the version is the one at issue, not discover.
	case discover.Error.Code == client.CodeInternalError && !c.modernWithoutDiscover(ctx, r, discover):
		// The one answer that says the server has the method and failed
		// at it: a 2026-07-28 server that MUST answer it, or a legacy one
		// that mistakes an unknown method for its own failure.
		c.breakf("sent server/discover at %s; got %s\n"+
			"expected: a server/discover result listing the versions the server supports (a server that speaks 2026-07-28 "+
			"MUST implement it: basic/lifecycle at 2026-07-28), or, from a server that does not, -32601 (Method not "+
			"found: JSON-RPC 2.0); an internal error tells a client neither which era the server is of nor that it "+
			"may fall back to initialize", client.Version20260728, discover)
	default:
		c.modernWithoutDiscover(ctx, r, discover)
	}
	// A server whose server/discover lists no legacy version may still
	// answer initialize (a dual-era server that lists only its newest era):
	// it is asked all the same, and judged if it answers.
	if !r.alive() {
		r.close()
		if r, err = c.s.openRaw(); err != nil {
			c.fatalf("could not open a second connection: %v", err)
		}
		c.use(r.conn)
	}
	init, err := r.call(ctx, "initialize", map[string]any{
		"protocolVersion": unknownVersion,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "mcptestkit-check", "version": "0"},
	})
	if !legacy && (err != nil || init.Error != nil) {
		c.notef("the server speaks only 2026-07-28 (its server/discover answer lists no legacy version, and initialize got %s)", describeRaw(init, err))
		return
	}
	if err != nil {
		c.fatalf("sent initialize asking for protocol version %s, which does not exist; got no answer: %v", unknownVersion, err)
	}
	if !legacy {
		c.notef("the server's server/discover answer lists no legacy version, but it answers initialize: its legacy era is checked too")
	}
	if init.Error != nil {
		c.notef("initialize at %s, a version that does not exist: %s (a version the server supports was expected, an error is allowed)", unknownVersion, init)
		return
	}
	var res struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	_ = json.Unmarshal(init.Result, &res)
	switch {
	case res.ProtocolVersion == unknownVersion:
		c.breakf("sent initialize asking for protocol version %s, which does not exist; the server agreed to it: %s\n"+
			"expected: the server answers with a version it supports (its latest), or an error; a server that echoes any "+
			"version a client asks for cannot be talking that version's protocol (basic/lifecycle, \"Version Negotiation\": "+
			"if the server does not support the requested version, it MUST respond with another protocol version it supports)",
			unknownVersion, init)
	default:
		c.notef("initialize at %s, a version that does not exist: the server answered with %s", unknownVersion, res.ProtocolVersion)
		c.latestVersion(res.ProtocolVersion)
	}
}

// latestVersion asks, on a connection each, for the legacy versions newer
// than the one the server answered a version it does not support with:
// that answer should be the latest it supports.
func (c *state) latestVersion(answered string) {
	if !client.IsLegacy(answered) {
		return
	}
	versions := client.SupportedVersions()
	slices.Sort(versions)
	slices.Reverse(versions)
	for _, v := range versions {
		if !client.IsLegacy(v) || v <= answered {
			continue
		}
		r, err := c.s.openRaw()
		if err != nil {
			c.fatalf("could not open a connection: %v", err)
		}
		c.use(r.conn)
		ctx, cancel := c.ctx()
		init, err := r.call(ctx, "initialize", map[string]any{
			"protocolVersion": v,
			"capabilities":    map[string]any{},
			"clientInfo":      map[string]any{"name": "mcptestkit-check", "version": "0"},
		})
		cancel()
		r.close()
		var res struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		if err != nil || init.Error != nil || json.Unmarshal(init.Result, &res) != nil || res.ProtocolVersion != v {
			continue
		}
		c.warnf("asked for %s, a version that does not exist, the server answered %s; asked for %s, it agreed to it\n"+
			"expected: the version a server offers instead of one it does not support SHOULD be the latest it supports (basic/lifecycle, \"Version Negotiation\")",
			unknownVersion, answered, v)
		return
	}
}

// discoverAnswer returns the server's answer to server/discover at
// 2026-07-28 on the main connection (nil if none came in time), and whether
// it asked: a main connection that pins a legacy version (the user's choice,
// or mcptest's for a server that lists only legacy versions) does not, and
// then neither does this check.
func (c *state) discoverAnswer() (answer *rpcAnswer, tried bool) {
	if mc := c.s.main; mc != nil {
		return mc.tap.answerTo("server/discover")
	}
	return nil, false
}

// answerTo returns the answer to the first request of method the connection
// sent (nil if none came), and whether such a request was sent.
func (t *tap) answerTo(method string) (*rpcAnswer, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var id json.RawMessage
	for _, f := range t.frames {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			rpcAnswer
		}
		if json.Unmarshal(f.data, &m) != nil {
			continue
		}
		switch {
		case f.out && id == nil && m.Method == method:
			id = m.ID
		case !f.out && id != nil && m.Method == "" && bytes.Equal(m.ID, id):
			return &m.rpcAnswer, true
		}
	}
	return nil, id != nil
}

// modernWithoutDiscover checks a server that answered server/discover with
// an error: a legacy server may, but one that serves 2026-07-28 requests
// (a result with resultType) MUST implement server/discover. It reports
// whether it found the server serving them.
func (c *state) modernWithoutDiscover(ctx context.Context, r *rawConn, discover *rpcAnswer) (found bool) {
	method := ""
	for _, k := range []struct {
		declared bool
		method   string
	}{{c.s.caps.Tools != nil, "tools/list"}, {c.s.caps.Resources != nil, "resources/list"}, {c.s.caps.Prompts != nil, "prompts/list"}} {
		if k.declared {
			method = k.method
			break
		}
	}
	if method == "" || !r.alive() {
		return false
	}
	probe, err := r.call(ctx, method, modernMeta())
	if err != nil || probe.Error != nil {
		return false // not a 2026-07-28 answer: a legacy server
	}
	var res struct {
		ResultType *string `json:"resultType"`
	}
	if json.Unmarshal(probe.Result, &res) != nil || res.ResultType == nil {
		return false // a legacy server that serves requests before initialize
	}
	c.breakf("the server answers 2026-07-28 requests (%s at %s got a result with resultType %q), but server/discover got %s\n"+
		"expected: a server/discover result listing the versions it supports (basic/lifecycle at 2026-07-28: servers MUST "+
		"implement server/discover; clients use it to find a server's era, and fall back to initialize when it fails)",
		method, client.Version20260728, *res.ResultType, strings.TrimPrefix(discover.String(), "the "))
	return true
}

// alive reports whether a raw connection can still be read.
func (r *rawConn) alive() bool {
	select {
	case <-r.tap.closed:
		return false
	default:
		return true
	}
}

// describeRaw says what a raw request got.
func describeRaw(a *rpcAnswer, err error) string {
	if err != nil {
		return "no answer: " + err.Error()
	}
	return a.String()
}
