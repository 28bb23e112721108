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

// At 2026-07-28 a server may not send the client a request of its own while
// it serves one; the SDKs refuse it in the handler, so a handler written the
// legacy way fails with the refusal's text. A test that pins no version
// speaks 2026-07-28 to a server that does, which is where users meet it.
var versionRefusals = []string{
	"cannot be sent while serving a request on protocol version",      // go-sdk
	"server-initiated requests are not supported in protocol version", // mcp-go
}

const versionRefusalHint = "at protocol version 2026-07-28 a handler asks the client for input with an input_required result " +
	"(multi round-trip requests), not with a request of its own (elicitation, sampling, roots). " +
	"Connect speaks 2026-07-28 when the server does and the test pins no version: to test a handler written for the legacy protocol, " +
	"pin a legacy version, mcptest.WithProtocolVersion(client.Version20251125) (in mcptest.EachVersion: mcptest.Before(client.Version20260728)); " +
	"to serve 2026-07-28 clients, write the tool for input_required"

// legacyTasksHint explains a server that makes no task at 2026-07-28 because
// it serves only the tasks of 2025-11-25 (mcp-go does).
const legacyTasksHint = "the server declares the tasks of 2025-11-25 (capabilities.tasks), not the 2026-07-28 tasks extension " +
	"(" + client.ExtensionTasks + "), so at 2026-07-28 it runs no tool as a task: " +
	"to test its tasks, connect with mcptest.WithProtocolVersion(client.Version20251125)"

// refusedRequest returns the method of the request to the client that text
// says the server's SDK refused to send at 2026-07-28 ("" when the text does
// not name it), and whether text says so.
func refusedRequest(text string) (method string, ok bool) {
	for _, m := range versionRefusals {
		i := strings.Index(text, m)
		if i < 0 {
			continue
		}
		// Both SDKs quote the method first: `"elicitation/create" cannot be sent ...`.
		before := strings.TrimRight(text[:i], ": ")
		if q, found := strings.CutSuffix(before, `"`); found {
			if j := strings.LastIndexByte(q, '"'); j >= 0 && strings.Contains(q[j+1:], "/") {
				method = q[j+1:]
			}
		}
		return method, true
	}
	return "", false
}

// callbackHint returns, for a failure message that quotes text (a tool's
// error, an error's message), a line for each request for input that text
// says was refused: which option answers it, or why 2026-07-28 forbids it;
// "" for none.
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
	if _, ok := refusedRequest(text); ok {
		hints = append(hints, "\nhint: "+versionRefusalHint)
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

// versionNotes points at what failed in entries because the connection
// speaks 2026-07-28 to a server written for the legacy protocol: a
// handler's request to the client that the server's SDK refused (see
// versionRefusals), and a task asked of a server that serves only the tasks
// of 2025-11-25. e.g.
//
//	tools/call "greet" (id 2, message #3) failed at message #4: its handler tried to send elicitation/create; at protocol version 2026-07-28 a handler asks ...
func versionNotes(entries []memtransport.Entry) []string {
	type request struct {
		seq          int
		method, what string
		task         bool // a tools/call that asked for a task (2026-07-28)
	}
	asked := map[string]request{} // the client's requests, by id
	var notes []string
	legacyTasks, taskNoted := false, false
	for _, e := range entries {
		m, err := jsonrpc.Decode(e.Data)
		if err != nil {
			continue
		}
		if e.Dir == memtransport.ClientToServer && m.IsRequest() {
			var p struct {
				Name string `json:"name"`
				URI  string `json:"uri"`
				Meta struct {
					Caps struct {
						Extensions map[string]json.RawMessage `json:"extensions"`
					} `json:"io.modelcontextprotocol/clientCapabilities"`
				} `json:"_meta"`
			}
			_ = json.Unmarshal(m.Params, &p) // a request of another shape is still named by its method
			r := request{seq: e.Seq, method: m.Method, what: m.Method}
			if p.Name+p.URI != "" {
				r.what += fmt.Sprintf(" %q", p.Name+p.URI)
			}
			_, r.task = p.Meta.Caps.Extensions[client.ExtensionTasks]
			asked[m.ID.String()] = r
			continue
		}
		if e.Dir != memtransport.ServerToClient || !m.IsResponse() {
			continue
		}
		r, ok := asked[m.ID.String()]
		if !ok {
			continue
		}
		delete(asked, m.ID.String())
		text := ""
		if m.Error != nil {
			text = m.Error.Message
		} else {
			var res struct {
				IsError bool `json:"isError"`
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
				Capabilities struct {
					Tasks      json.RawMessage            `json:"tasks"`
					Extensions map[string]json.RawMessage `json:"extensions"`
				} `json:"capabilities"`
				SupportedVersions []string `json:"supportedVersions"`
			}
			if json.Unmarshal(m.Result, &res) != nil {
				continue
			}
			if r.method == "server/discover" {
				_, modernTasks := res.Capabilities.Extensions[client.ExtensionTasks]
				legacyTasks = len(res.Capabilities.Tasks) > 0 && string(res.Capabilities.Tasks) != "null" && !modernTasks &&
					slices.Contains(res.SupportedVersions, client.Version20251125)
			}
			for _, c := range res.Content {
				if res.IsError {
					text += c.Text
				}
			}
		}
		if method, ok := refusedRequest(text); ok {
			if method == "" {
				method = "a request to the client"
			}
			notes = append(notes, fmt.Sprintf("%s (id %s, message #%d) failed at message #%d: its handler tried to send %s; %s",
				r.what, m.ID, r.seq, e.Seq, method, versionRefusalHint))
		}
		if legacyTasks && r.task && r.method == "tools/call" && !taskNoted {
			taskNoted = true
			notes = append(notes, fmt.Sprintf("%s (id %s, message #%d) asked for a task at protocol version 2026-07-28, but %s", r.what, m.ID, r.seq, legacyTasksHint))
		}
	}
	return notes
}
