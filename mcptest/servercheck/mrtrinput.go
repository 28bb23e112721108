package servercheck

import (
	"encoding/json"
	"fmt"

	"github.com/mcptestkit/mcptestkit/client"
)

// malformedInput retries, raw, a call of a tool that answered
// input_required: with inputResponses that are not an InputResponses
// object (a JSON-RPC error is expected), and with the answers it asked for
// plus one it did not ask for (ignored: answered as without it).
func (c *state) malformedInput(t *client.Tool, a asked) {
	cn := c.main()
	if !cn.modern() {
		c.skipf("input_required is a 2026-07-28 result; the connection speaks %s", cn.cl.ProtocolVersion())
	}
	args := a.args
	if len(args) == 0 {
		args = json.RawMessage(`{}`)
	}
	n := 0
	call := func(extra map[string]any) (*rpcAnswer, string) {
		n++
		params := modernMeta()
		params["name"], params["arguments"] = t.Name, args
		for k, v := range extra {
			params[k] = v
		}
		ans, sent := c.rawRequest(cn, fmt.Sprintf("mi-%d", n), "tools/call", params)
		return ans, sent
	}
	first, sent := call(nil)
	var ir struct {
		ResultType    string                     `json:"resultType"`
		InputRequests map[string]json.RawMessage `json:"inputRequests"`
		RequestState  *string                    `json:"requestState"`
	}
	if first.Error != nil || json.Unmarshal(first.Result, &ir) != nil || ir.ResultType != "input_required" {
		c.skipf("%s again; it answered %s, not input_required this time", sent, first)
	}
	retry := func(responses any) (*rpcAnswer, string, string) {
		extra := map[string]any{"inputResponses": responses}
		if ir.RequestState != nil {
			extra["requestState"] = *ir.RequestState
		}
		ans, sent := call(extra)
		var res struct {
			ResultType string `json:"resultType"`
		}
		kind := "error"
		if ans.Error == nil {
			_ = json.Unmarshal(ans.Result, &res)
			kind = res.ResultType
		}
		return ans, sent, kind
	}
	got, sent, kind := retry("mcptestkit: not an InputResponses object")
	if kind != "error" {
		c.breakf("%s; got %s\nexpected: a JSON-RPC error (-32602): inputResponses that are not an InputResponses object are a "+
			"protocol error, which servers SHOULD validate and answer with a JSON-RPC error (multi round-trip requests, "+
			"\"Error Handling\", 2026-07-28)", sent, got)
	}
	answers := map[string]any{}
	for key, req := range ir.InputRequests {
		answers[key] = c.fakeInput(t.Name+"/"+key, req)
	}
	base, _, baseKind := retry(answers)
	answers["mcptestkit-never-asked"] = map[string]any{"action": "decline"}
	got, sent, kind = retry(answers)
	if baseKind != "error" && kind == "error" {
		c.breakf("%s, one of which it never asked for; got %s, where the same answers without it got %s\n"+
			"expected: the answer it gives without the extra one: servers SHOULD ignore information in inputResponses they "+
			"do not recognize (multi round-trip requests, \"Error Handling\", 2026-07-28)", sent, got, base)
	}
}
