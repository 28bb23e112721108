package servercheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mcptestkit/mcptestkit/client"
)

// The 2026-07-28 multi round-trip requests (SEP-2322): a tool that answers
// input_required gets its retries checked on raw messages, which the client
// would never send: one whose requestState was tampered with, and one whose
// inputResponses miss what was asked.

// asked is a tool seen answering input_required, with the arguments of
// that call.
type asked struct {
	args  json.RawMessage
	state bool // the result carried a requestState
}

// seeInputRequired records the tool of a tools/call answered with
// input_required. Called with t.mu held.
func (t *tap) seeInputRequired(env envelope) {
	if env.Method != "" || len(env.Result) == 0 || !bytes.Contains(env.Result, []byte(`"input_required"`)) {
		return
	}
	var res struct {
		ResultType   string  `json:"resultType"`
		RequestState *string `json:"requestState"`
	}
	if json.Unmarshal(env.Result, &res) != nil || res.ResultType != "input_required" {
		return
	}
	if m, ok := t.sent[string(env.ID)]; !ok || m.method != "tools/call" {
		return
	}
	tool := t.requests[string(env.ID)].tool
	if _, seen := t.inputRequired[tool]; seen || tool == "" || len(t.inputRequired) >= 100 {
		return
	}
	for i := len(t.frames) - 1; i >= 0; i-- {
		f := t.frames[i]
		var req struct {
			ID     json.RawMessage `json:"id"`
			Params struct {
				Arguments json.RawMessage `json:"arguments"`
			} `json:"params"`
		}
		if f.out && json.Unmarshal(f.data, &req) == nil && bytes.Equal(req.ID, env.ID) {
			t.inputRequired[tool] = asked{args: req.Params.Arguments, state: res.RequestState != nil}
			return
		}
	}
}

// askingTools returns the tools seen answering input_required, by name.
func (t *tap) askingTools() map[string]asked {
	t.mu.Lock()
	defer t.mu.Unlock()
	return maps.Clone(t.inputRequired)
}

// perAskingTool makes the checks of a family of one check per tool that
// answered input_required in tools/calls.
func perAskingTool(run func(c *state, t *client.Tool, a asked)) func(s *suite) []item {
	return func(s *suite) []item {
		if s.main == nil {
			return nil
		}
		seen := s.main.tap.askingTools()
		var out []item
		for _, t := range s.inv.tools {
			if a, ok := seen[t.Name]; ok {
				out = append(out, item{elem(t.Name), func(c *state) { run(c, t, a) }})
			}
		}
		return out
	}
}

// inputRequired sends the tool's call again, raw, then two retries no
// client would send: one with the requestState changed, one with an
// inputResponses key the server never asked for.
func (c *state) inputRequired(t *client.Tool, a asked) {
	cn := c.main()
	if !cn.modern() {
		c.skipf("input_required is a 2026-07-28 result; the connection speaks %s", cn.cl.ProtocolVersion())
	}
	call := func(n int, extra map[string]any) (*rpcAnswer, string) { return c.retryRaw(cn, t, a, "ir", n, extra) }
	first, sent := call(1, nil)
	var ir struct {
		ResultType    string                     `json:"resultType"`
		InputRequests map[string]json.RawMessage `json:"inputRequests"`
		RequestState  *string                    `json:"requestState"`
	}
	if first.Error != nil || json.Unmarshal(first.Result, &ir) != nil || ir.ResultType != "input_required" {
		c.skipf("%s again; it answered %s, not input_required this time", sent, first)
	}
	answers := map[string]any{}
	for key, req := range ir.InputRequests {
		answers[key] = c.fakeInput(t.Name+"/"+key, req)
	}
	if ir.RequestState != nil {
		tampered := *ir.RequestState + "-mcptestkit-tampered"
		got, sent := call(2, map[string]any{"inputResponses": answers, "requestState": tampered})
		var res struct {
			ResultType string `json:"resultType"`
		}
		_ = json.Unmarshal(got.Result, &res)
		switch {
		case got.Error != nil:
		case res.ResultType == "" || res.ResultType == "complete":
			c.breakf("%s; got a complete result: %s\n"+
				"expected: a JSON-RPC error: requestState comes back from the client, which can change it, so a server "+
				"protects what it keeps there (a signature, an HMAC) and rejects state that fails the check (SEP-2322, "+
				"2026-07-28; the conformance suite's input-required-result-tampered-state)", sent, cut(string(got.Result), 300))
		default:
			c.notef("%s; got input_required again, not the error a failed integrity check gives", sent)
		}
	}
	wrong := map[string]any{"mcptestkit-never-asked": map[string]any{"action": "decline"}}
	got, sent := call(3, map[string]any{"inputResponses": wrong})
	var res struct {
		ResultType string `json:"resultType"`
	}
	_ = json.Unmarshal(got.Result, &res)
	if got.Error != nil || res.ResultType != "input_required" {
		c.breakf("%s, none of which it asked for; got %s\n"+
			"expected: a new input_required result asking again for what is missing (servers SHOULD re-request missing "+
			"information rather than fail: SEP-2322, 2026-07-28)", sent, got)
	}
}

// retryRaw sends, raw, the tools/call of t that answered input_required,
// with extra params (inputResponses, requestState), and returns the answer
// and a sentence saying what was sent. A call with no answer fails the
// check: the server broke, or stopped answering, on a request a client can
// send.
func (c *state) retryRaw(cn *conn, t *client.Tool, a asked, tag string, n int, extra map[string]any) (*rpcAnswer, string) {
	args := a.args
	if len(args) == 0 {
		args = json.RawMessage(`{}`)
	}
	params := modernMeta()
	params["name"] = t.Name
	params["arguments"] = args
	maps.Copy(params, extra)
	id := fmt.Sprintf("%s%s-%d", rawPrefix, tag, n)
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
	ctx, cancel := c.ctx()
	defer cancel()
	data, err := cn.tap.raw(ctx, msg, id)
	if err != nil {
		c.fatalf("sent %s; got no answer: %v", cut(string(msg), 300), err)
	}
	var ans rpcAnswer
	if json.Unmarshal(data, &ans) != nil {
		c.fatalf("sent %s; the answer is not JSON-RPC: %s", cut(string(msg), 300), cut(string(data), 300))
	}
	return &ans, fmt.Sprintf("called tool %q with arguments %s%s", t.Name, compactJSON(args), describeExtra(extra))
}

// fakeInput answers an input request the way a client could: an
// elicitation accepted with content generated from its schema (declined
// when none can be), a sampled text, no roots.
func (c *state) fakeInput(name string, req json.RawMessage) any {
	var r struct {
		Method string `json:"method"`
		Params struct {
			RequestedSchema json.RawMessage `json:"requestedSchema"`
		} `json:"params"`
	}
	_ = json.Unmarshal(req, &r)
	switch r.Method {
	case "elicitation/create":
		if s, err := c.s.compile(r.Params.RequestedSchema, name+"/requestedSchema"); err == nil && len(r.Params.RequestedSchema) > 0 {
			if content, why := s.conforming(newSeeded(c.s.opts.Seed, name)); why == "" {
				return map[string]any{"action": "accept", "content": content}
			}
		}
	case "sampling/createMessage":
		return map[string]any{"role": "assistant", "model": "mcptestkit", "content": map[string]any{"type": "text", "text": "mcptestkit"}}
	case "roots/list":
		return map[string]any{"roots": []any{}}
	}
	return map[string]any{"action": "decline"}
}

func describeExtra(extra map[string]any) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(extra)) {
		parts = append(parts, k+" "+cut(compactJSON(extra[k]), 200))
	}
	if len(parts) == 0 {
		return ""
	}
	return " and " + strings.Join(parts, " and ")
}
