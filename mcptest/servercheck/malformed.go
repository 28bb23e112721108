package servercheck

import (
	"encoding/json"
	"fmt"

	"github.com/mcptestkit/mcptestkit/client"
)

// The checks of this file send what a client may send by mistake (a
// request without its required metadata, a log level that does not exist,
// a cancellation of nothing) and judge how the server refuses or ignores
// it.

// rawRequest sends one request of the check's own on cn and returns the
// answer, ending the check when none comes.
func (c *state) rawRequest(cn *conn, name, method string, params map[string]any) (*rpcAnswer, string) {
	ans, sent, err := c.rawAnswer(cn, name, method, params)
	if err != nil {
		c.fatalf("sent %s; %v", sent, err)
	}
	return ans, sent
}

func (c *state) rawAnswer(cn *conn, name, method string, params map[string]any) (*rpcAnswer, string, error) {
	id := rawPrefix + name
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	sent := cut(unstamped(msg), 400)
	ctx, cancel := c.ctx()
	defer cancel()
	data, err := cn.tap.raw(ctx, msg, id)
	if err != nil {
		return nil, sent, fmt.Errorf("got no answer: %w", err)
	}
	var ans rpcAnswer
	if json.Unmarshal(data, &ans) != nil {
		return nil, sent, fmt.Errorf("the answer is not JSON-RPC: %s", cut(string(data), 300))
	}
	return &ans, sent, nil
}

// fresh opens a connection of the check's own, at the version the checks
// use, so that what it sends does not break the main connection.
func (c *state) fresh() *conn {
	cn, err := c.s.open(c.s.opts.Version)
	if cn != nil {
		c.use(cn)
	}
	if err != nil {
		if cn != nil {
			cn.close()
		}
		c.fatalf("could not open a connection: %v", err)
	}
	return cn
}

// listMethod returns a list method of a capability the server declared,
// or server/discover.
func (s *suite) listMethod() string {
	switch {
	case s.caps.Tools != nil:
		return "tools/list"
	case s.caps.Prompts != nil:
		return "prompts/list"
	case s.caps.Resources != nil:
		return "resources/list"
	}
	return "server/discover"
}

// requiredMeta sends a 2026-07-28 request whose _meta names the version
// but not the client's capabilities: malformed, -32602.
func (c *state) requiredMeta() {
	if !c.main().modern() {
		c.skipf("the checks' connection speaks %s: the per-request _meta is 2026-07-28's", c.main().cl.ProtocolVersion())
	}
	cn := c.fresh()
	defer cn.close()
	params := modernMeta()
	meta := params["_meta"].(map[string]any)
	delete(meta, "io.modelcontextprotocol/clientCapabilities")
	method := c.s.listMethod()
	ans, sent := c.rawRequest(cn, "required-meta", method, params)
	switch {
	case ans.Error == nil:
		c.breakf("sent %s, whose _meta lacks io.modelcontextprotocol/clientCapabilities; got %s\n"+
			"expected: JSON-RPC error -32602 (Invalid params): a 2026-07-28 request missing a required _meta field is malformed, "+
			"and the server MUST reject it (basic, \"_meta\")", sent, ans)
	case ans.Error.Code != client.CodeInvalidParams:
		c.breakf("sent %s, whose _meta lacks io.modelcontextprotocol/clientCapabilities; got %s\n"+
			"expected: JSON-RPC error -32602 (Invalid params), the code the specification names for a missing required _meta field", sent, ans)
	}
	if !cn.alive() {
		c.fatalf("the connection ended after the request without its _meta")
	}
}

// invalidLogLevel asks for a log level that does not exist: logging/setLevel
// before 2026-07-28, a request's _meta logLevel from then on.
func (c *state) invalidLogLevel() {
	if c.s.caps.Logging == nil {
		c.skipf("the server does not declare the logging capability")
	}
	cn := c.fresh()
	defer cn.close()
	const level = "mcptestkit-no-such-level"
	var ans *rpcAnswer
	var sent string
	if cn.modern() {
		params := modernMeta()
		params["_meta"].(map[string]any)["io.modelcontextprotocol/logLevel"] = level
		ans, sent = c.rawRequest(cn, "log-level", c.s.listMethod(), params)
		sent += fmt.Sprintf(" (its _meta logLevel %q)", level)
	} else {
		ans, sent = c.rawRequest(cn, "log-level", "logging/setLevel", map[string]any{"level": level})
	}
	hint := ""
	if c.s.sdk != "" {
		hint = fmt.Sprintf("\n(%s, which serves this server, takes a log level without checking it: for this server that is the SDK's "+
			"behaviour; leave the check out with mcptest.SkipChecks(\"invalid-log-level\"))", c.s.sdk)
	}
	switch {
	case ans.Error == nil:
		c.breakf("sent %s, with a log level that does not exist; got %s\nexpected: JSON-RPC error -32602 (Invalid params: invalid log level)%s", sent, ans, hint)
	case ans.Error.Code != client.CodeInvalidParams:
		c.breakf("sent %s, with a log level that does not exist; got %s\nexpected: -32602 (Invalid params), the standard error for an invalid log level", sent, ans)
	}
}

// invalidCancellations sends notifications/cancelled for a request that
// never was, for one answered already, and malformed ones; the server
// ignores them, and keeps serving.
func (c *state) invalidCancellations() {
	cn := c.fresh()
	defer cn.close()
	method, params := "ping", map[string]any{}
	if cn.modern() {
		method, params = c.s.listMethod(), modernMeta()
	}
	first, sent := c.rawRequest(cn, "cancel-done", method, params)
	if first.Error != nil {
		c.skipf("sent %s to have a request to cancel once answered; got %s", sent, first)
	}
	notes := []string{
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"` + rawPrefix + `never-sent","reason":"a check"}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"` + rawPrefix + `cancel-done","reason":"a check"}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":{"not":"an id"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":true}}`,
	}
	for _, n := range notes {
		ctx, cancel := c.ctx()
		err := cn.tap.Send(ctx, []byte(n))
		cancel()
		if err != nil {
			c.breakf("sent notifications/cancelled for a request id never sent, for one answered already, or with a requestId that "+
				"is no id; the next could not be sent: %v\nexpected: invalid cancellation notifications are ignored (SHOULD), and the "+
				"server keeps serving", err)
			return
		}
	}
	for i := range 2 {
		ans, sent, err := c.rawAnswer(cn, fmt.Sprintf("after-cancel-%d", i), method, params)
		if err == nil && ans.Error == nil {
			continue
		}
		got := fmt.Sprint(err)
		if err == nil {
			got = ans.String()
		}
		c.breakf("sent notifications/cancelled for a request id never sent, for one answered already, and two malformed ones; "+
			"then %s got %s\nexpected: invalid cancellation notifications are ignored (SHOULD), and the server keeps serving", sent, got)
		return
	}
}
