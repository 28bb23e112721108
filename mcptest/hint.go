package mcptest

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/internal/jsonrpc"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

// A server's request for input that the client has no callback for fails
// with an error naming a field of client.Options ("client does not support
// sampling (no CreateMessage callback)"), which is right for the client on
// its own; in a test the fix is a Connect option. The harness adds that
// hint where it sees the failure: in its assertions' messages and in the
// notes under a failing test's transcript.

// inputCallback is one kind of request for input and the option that
// answers it.
type inputCallback struct {
	method  string   // the request's method
	markers []string // what a refusal says: the client's text, then an SDK's
	hint    string
}

var inputCallbacks = []inputCallback{
	{"sampling/createMessage", []string{"(no CreateMessage callback)"},
		"the client answers sampling/createMessage only when Connect is given mcptest.WithClient(client.Options{CreateMessage: fn})"},
	{"elicitation/create", []string{"(no Elicit callback)", "client does not support elicitation"},
		"the client answers elicitation/create only when Connect is given mcptest.WithClient(client.Options{Elicit: fn}), at protocol version 2025-06-18 and later"},
	{"roots/list", []string{"(no ListRoots callback)"},
		"the client answers roots/list only when Connect is given mcptest.WithClient(client.Options{ListRoots: fn})"},
}

// callbackHint returns, for a failure message that quotes text (a tool's
// error, an error's message), a line saying which option answers the
// request for input that text says was refused, or "".
func callbackHint(text string) string {
	var hints []string
	for _, c := range inputCallbacks {
		for _, m := range c.markers {
			if strings.Contains(text, m) {
				hints = append(hints, "\nhint: "+c.hint)
				break
			}
		}
	}
	return strings.Join(hints, "")
}

// missingCallbacks returns which requests for input the client, with these
// options, has no callback for.
func missingCallbacks(o *client.Options) func(method string) bool {
	// Three bools, not a map: every connection makes this, few tests read it.
	sampling, elicit, roots := o.CreateMessage == nil, o.Elicit == nil, o.ListRoots == nil
	return func(method string) bool {
		switch method {
		case "sampling/createMessage":
			return sampling
		case "elicitation/create":
			return elicit
		case "roots/list":
			return roots
		}
		return false
	}
}

func inputHint(method string) string {
	for _, c := range inputCallbacks {
		if c.method == method {
			return c.hint
		}
	}
	return ""
}

// inputNotes points at the requests for input in entries that the client
// refused for want of a callback (missing says which): a legacy server's
// request answered with method-not-found, or a 2026-07-28 input_required
// result asking for one, e.g.
//
//	the client has no callback for sampling/createMessage (id 1, message #4), so it refused it at message #5: the client answers sampling/createMessage only when Connect is given mcptest.WithClient(client.Options{CreateMessage: fn})
func inputNotes(entries []memtransport.Entry, missing func(method string) bool) []string {
	type request struct {
		seq    int
		method string
	}
	asked := map[string]request{} // the server's requests, by id
	var notes []string
	for _, e := range entries {
		m, err := jsonrpc.Decode(e.Data)
		if err != nil {
			continue
		}
		switch {
		case e.Dir == memtransport.ServerToClient && m.IsRequest() && missing(m.Method):
			asked[m.ID.String()] = request{e.Seq, m.Method}
		case e.Dir == memtransport.ClientToServer && m.IsResponse() && m.Error != nil && m.Error.Code == jsonrpc.CodeMethodNotFound:
			if r, ok := asked[m.ID.String()]; ok {
				delete(asked, m.ID.String())
				notes = append(notes, fmt.Sprintf("the client has no callback for %s (id %s, message #%d), so it refused it at message #%d: %s", r.method, m.ID, r.seq, e.Seq, inputHint(r.method)))
			}
		case e.Dir == memtransport.ServerToClient && m.IsResponse() && len(m.Result) > 0:
			var res struct {
				ResultType    string `json:"resultType"`
				InputRequests map[string]struct {
					Method string `json:"method"`
				} `json:"inputRequests"`
			}
			if json.Unmarshal(m.Result, &res) != nil || res.ResultType != "input_required" {
				continue
			}
			methods := map[string]bool{}
			for _, r := range res.InputRequests {
				if missing(r.Method) {
					methods[r.Method] = true
				}
			}
			for _, method := range slices.Sorted(maps.Keys(methods)) {
				notes = append(notes, fmt.Sprintf("the server asked for %s input (message #%d, a result of id %s), which the client has no callback for: %s", method, e.Seq, m.ID, inputHint(method)))
			}
		}
	}
	return notes
}
