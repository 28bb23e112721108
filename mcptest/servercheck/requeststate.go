package servercheck

import (
	"encoding/json"
	"strings"

	"github.com/mcptestkit/mcptestkit/client"
)

// A 2026-07-28 requestState comes back from the client, which may send
// anything in it: servers MUST treat it as attacker-controlled input. What a
// client can see of that is whether the server survives state it never gave
// out: it answers each forged state (an error, a new input_required or a
// result are all answers) and goes on serving. Whether a forged state was
// rightly refused depends on what the server keeps in it, which a client
// cannot see: tools/input-required warns about a tampered one accepted.

// forgedStates are requestStates no server gave out, in the shapes a
// server's decoding of its own state meets: empty, not base64, a cut-off
// JSON object, JSON claiming privileges, and one far longer than any state.
func forgedStates() []string {
	return []string{
		"",
		"%%%mcptestkit: not base64%%%",
		`{"`,
		`{"admin":true,"user":"mcptestkit","expires":"9999-12-31T00:00:00Z"}`,
		"eyJhbGciOiJub25lIn0.eyJhZG1pbiI6dHJ1ZX0.",
		strings.Repeat("A", 64<<10),
	}
}

// requestStateForged retries the call of a tool that answered
// input_required with a requestState, each time with a forged state and the
// input answered, and then pings the server.
func (c *state) requestStateForged(t *client.Tool, a asked) {
	cn := c.main()
	if !cn.modern() {
		c.skipf("requestState is a 2026-07-28 field; the connection speaks %s", cn.cl.ProtocolVersion())
	}
	if !a.state {
		c.skipf("tool %q answered input_required without a requestState: there is none to forge", t.Name)
	}
	first, sent := c.retryRaw(cn, t, a, "rs", 0, nil)
	var ir struct {
		ResultType    string                     `json:"resultType"`
		InputRequests map[string]json.RawMessage `json:"inputRequests"`
	}
	if first.Error != nil || json.Unmarshal(first.Result, &ir) != nil || ir.ResultType != "input_required" {
		c.skipf("%s again; it answered %s, not input_required this time", sent, first)
	}
	answers := map[string]any{}
	for key, req := range ir.InputRequests {
		answers[key] = c.fakeInput(t.Name+"/"+key, req)
	}
	accepted := 0
	for i, forged := range forgedStates() {
		got, _ := c.retryRaw(cn, t, a, "rs", i+1, map[string]any{"inputResponses": answers, "requestState": forged})
		var res struct {
			ResultType string `json:"resultType"`
		}
		if got.Error == nil && json.Unmarshal(got.Result, &res) == nil && (res.ResultType == "" || res.ResultType == "complete") {
			accepted++
		}
	}
	ctx, cancel := c.ctx()
	defer cancel()
	if err := cn.cl.Ping(ctx); err != nil {
		c.fatalf("after %d calls of tool %q with a requestState it never gave out, ping failed: %v\n"+
			"expected: the server goes on serving (servers MUST treat requestState as attacker-controlled input: "+
			"multi round-trip requests, 2026-07-28)", len(forgedStates()), t.Name, err)
	}
	if accepted > 0 {
		c.notef("%d of %d forged requestState(s) got a complete result (what the state holds decides whether that is a breach: see tools/input-required)", accepted, len(forgedStates()))
	}
}
