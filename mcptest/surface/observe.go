package surface

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"os"
	"sync"
	"sync/atomic"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/internal/jsonscan"
)

// Env names where test binaries write their reports, as -coverprofile
// names a coverage profile: set, every connection of the harness records
// what it exercised, and the report is rewritten whenever the last open
// connection closes. A directory (an existing one, or a name ending in "/")
// gets one file per test binary, named for its package, for `mcptestkit
// surface` to merge; a file gets each binary's report as a part of it (see
// [Report]), so that the binaries of one go test run add up.
const Env = "MCPTEST_SURFACE"

// The process's report: what the test binary's connections exercised.
// Like -cover's counters it is one for the process, since a report spans
// every test of the binary; each connection adds to it once, when it
// closes.
var (
	recording atomic.Bool // set by Env or Run
	mu        sync.Mutex
	total     = &Report{}
	open      int // connections observed and not closed
)

func init() { recording.Store(os.Getenv(Env) != "") }

// Enabled reports whether connections are recorded: Env is set, or the
// test binary runs through [Run].
func Enabled() bool { return recording.Load() }

// Snapshot returns a copy of the process's report so far: every
// connection that has closed.
func Snapshot() *Report {
	mu.Lock()
	defer mu.Unlock()
	r := &Report{}
	r.Merge(total)
	return r
}

// Observe wraps tr so that what goes over it counts in the process's
// report, under source (Tests, Check, Fuzz). It returns tr unchanged when
// recording is off ([Enabled]). The harness of package mcptest observes
// every connection it makes; a program with connections of its own may
// observe them too.
func Observe(tr client.Transport, source string) client.Transport {
	if !Enabled() || tr == nil {
		return tr
	}
	mu.Lock()
	open++
	mu.Unlock()
	return &observer{inner: tr, source: source, pending: map[string]pending{}, rec: &Server{}}
}

// observer watches one connection. What it sees accumulates in rec and
// joins the process's report once, when the connection closes: no lock is
// shared per message.
type observer struct {
	inner  client.Transport
	source string

	mu      sync.Mutex
	server  string // serverInfo.name, once seen
	pending map[string]pending
	rec     *Server
	closed  bool
}

type pending struct {
	method, name string
}

// Unwrap returns the observed transport.
func (o *observer) Unwrap() client.Transport { return o.inner }

// watched are the requests whose answers the observer reads.
var watched = map[string]bool{"initialize": true, "server/discover": true, "tools/list": true, "tools/call": true,
	"resources/list": true, "resources/templates/list": true, "resources/read": true, "prompts/list": true, "prompts/get": true,
	"notifications/cancelled": true}

func (o *observer) Send(ctx context.Context, msg []byte) error {
	if m := methodOf(msg); watched[m] {
		var id, params []byte
		jsonscan.Object(msg, func(key []byte, _ bool, value []byte) bool {
			switch string(key) {
			case "id":
				id = value
			case "params":
				params = value
			}
			return true
		})
		o.mu.Lock()
		o.sent(m, id, params)
		o.mu.Unlock()
	}
	return o.inner.Send(ctx, msg)
}

func (o *observer) Receive(ctx context.Context) ([]byte, error) {
	msg, err := o.inner.Receive(ctx)
	if err != nil {
		return msg, err
	}
	o.mu.Lock()
	if len(o.pending) > 0 {
		var id, result, rpcErr []byte
		isResponse := true
		jsonscan.Object(msg, func(key []byte, _ bool, value []byte) bool {
			switch string(key) {
			case "id":
				id = value
			case "result":
				result = value
			case "error":
				rpcErr = value
			case "method":
				isResponse = false
				return false
			}
			return true
		})
		if p, ok := o.pending[string(id)]; ok && isResponse && len(id) > 0 {
			delete(o.pending, string(id))
			o.answered(p, result, rpcErr)
		}
	}
	o.mu.Unlock()
	return msg, nil
}

// Close closes the connection and adds what it exercised to the report;
// requests still unanswered count as timeouts.
func (o *observer) Close() error {
	err := o.inner.Close()
	o.mu.Lock()
	if o.closed {
		o.mu.Unlock()
		return err
	}
	o.closed = true
	for _, p := range o.pending {
		if p.method == "tools/call" {
			o.outcome(p.name, "timeout")
		}
	}
	o.pending = nil
	name := o.server
	if name == "" {
		name = "(unnamed server)"
	}
	rec := o.rec
	o.mu.Unlock()

	mu.Lock()
	total.Merge(&Report{Servers: map[string]*Server{name: rec}})
	total.Servers[name].prune()
	open--
	var snapshot *Report
	if open == 0 && os.Getenv(Env) != "" {
		snapshot = &Report{}
		snapshot.Merge(total)
	}
	mu.Unlock()
	if snapshot != nil {
		_ = writeReport(snapshot) // a report that cannot be written is said by Run
	}
	return err
}

// methodOf finds a message's method cheaply: the value after "method":.
func methodOf(msg []byte) string {
	i := bytes.Index(msg, []byte(`"method"`))
	if i < 0 {
		return ""
	}
	rest := bytes.TrimLeft(msg[i+len(`"method"`):], " \t\r\n:")
	if len(rest) == 0 || rest[0] != '"' {
		return ""
	}
	end := bytes.IndexByte(rest[1:], '"')
	if end < 0 {
		return ""
	}
	return string(rest[1 : 1+end])
}

// sent records a request the client sends. Called with o.mu held.
func (o *observer) sent(method string, id, params []byte) {
	if method == "notifications/cancelled" {
		var rid []byte
		jsonscan.Object(params, func(key []byte, _ bool, value []byte) bool {
			if string(key) == "requestId" {
				rid = value
				return false
			}
			return true
		})
		if pend, ok := o.pending[string(rid)]; ok {
			delete(o.pending, string(rid))
			if pend.method == "tools/call" {
				o.outcome(pend.name, "timeout")
			}
		}
		return
	}
	if len(id) == 0 || len(o.pending) >= 10000 {
		return
	}
	var name, uri string
	var args []byte
	retry := false // a multi round-trip retry: the same call again
	jsonscan.Object(params, func(key []byte, _ bool, value []byte) bool {
		switch string(key) {
		case "name":
			name, _ = jsonscan.String(value)
		case "uri":
			uri, _ = jsonscan.String(value)
		case "arguments":
			args = value
		case "inputResponses", "requestState":
			retry = true
		}
		return true
	})
	switch method {
	case "tools/call":
		if !retry {
			t := getTool(&o.rec.Tools, name)
			inc(&t.Calls, o.source)
			o.arguments(&t.Arguments, args)
		}
	case "prompts/get":
		if !retry {
			pr := getPrompt(&o.rec.Prompts, name)
			inc(&pr.Calls, o.source)
			o.arguments(&pr.Arguments, args)
		}
	case "resources/read":
		if !retry {
			inc(&getResource(&o.rec.Resources, uri).Reads, o.source)
		}
	}
	o.pending[string(id)] = pending{method: method, name: name}
}

// maxValues bounds the values kept per argument and connection.
const maxValues = 100

// arguments records which arguments a call gave and the values it sent;
// an argument's calls without it are its tool's calls less those with it.
func (o *observer) arguments(dst *map[string]*Argument, args []byte) {
	jsonscan.Object(args, func(key []byte, escaped bool, value []byte) bool {
		if escaped {
			return true
		}
		if *dst == nil {
			*dst = map[string]*Argument{}
		}
		a := (*dst)[string(key)]
		if a == nil {
			a = &Argument{}
			(*dst)[string(key)] = a
		}
		inc(&a.Given, o.source)
		// Any value might be one of an enum this connection has not seen
		// declared: short ones are kept, up to a bound; prune drops those
		// that are not.
		if len(value) < 200 {
			if a.Sent == nil {
				a.Sent = map[string]map[string]int{}
			}
			sent := a.Sent[o.source]
			if sent == nil {
				sent = map[string]int{}
				a.Sent[o.source] = sent
			}
			if _, ok := sent[string(value)]; ok || len(sent) < maxValues {
				sent[compact(value)]++
			}
		}
		return true
	})
}

// answered records the answer to a watched request. Called with o.mu held.
func (o *observer) answered(p pending, result, rpcErr []byte) {
	if len(rpcErr) > 0 && !jsonscan.IsNull(rpcErr) {
		if p.method == "tools/call" {
			o.outcome(p.name, "error")
		}
		return
	}
	switch p.method {
	case "initialize", "server/discover":
		type info struct {
			Name string `json:"name"`
		}
		var r struct {
			ServerInfo   info `json:"serverInfo"`
			Capabilities struct {
				Tools, Resources, Prompts json.RawMessage
			} `json:"capabilities"`
			Meta struct {
				ServerInfo info `json:"io.modelcontextprotocol/serverInfo"`
			} `json:"_meta"`
		}
		if json.Unmarshal(result, &r) == nil {
			if n := cmp.Or(r.ServerInfo.Name, r.Meta.ServerInfo.Name); n != "" {
				o.server = n
			}
			caps := r.Capabilities
			o.offers(caps.Tools, "tools")
			o.offers(caps.Resources, "resources", "templates")
			o.offers(caps.Prompts, "prompts")
		}
	case "tools/call":
		var isError bool
		var resultType string
		var content []byte
		jsonscan.Object(result, func(key []byte, _ bool, value []byte) bool {
			switch string(key) {
			case "isError":
				isError, _ = jsonscan.Bool(value)
			case "resultType":
				resultType, _ = jsonscan.String(value)
			case "content":
				content = value
			}
			return true
		})
		switch {
		case resultType == "input_required" || resultType == "task":
			// Not the outcome: the retry's answer, or the task's result, is.
		case isError && guardAnswer(content, p.name):
			o.outcome(p.name, "crash")
		case isError:
			o.outcome(p.name, "isError")
		default:
			o.outcome(p.name, "success")
		}
	case "tools/list":
		o.listed(result, "tools")
		var r struct {
			Tools []struct {
				Name        string          `json:"name"`
				InputSchema json.RawMessage `json:"inputSchema"`
			} `json:"tools"`
		}
		if json.Unmarshal(result, &r) == nil {
			for _, t := range r.Tools {
				tool := getTool(&o.rec.Tools, t.Name)
				tool.Declared = true
				declareArguments(&tool.Arguments, t.InputSchema)
			}
		}
	case "prompts/list":
		o.listed(result, "prompts")
		var r struct {
			Prompts []struct {
				Name      string `json:"name"`
				Arguments []struct {
					Name     string `json:"name"`
					Required bool   `json:"required"`
				} `json:"arguments"`
			} `json:"prompts"`
		}
		if json.Unmarshal(result, &r) == nil {
			for _, p := range r.Prompts {
				pr := getPrompt(&o.rec.Prompts, p.Name)
				pr.Declared = true
				for _, a := range p.Arguments {
					arg := getArg(&pr.Arguments, a.Name)
					arg.Declared = true
					arg.Required = arg.Required || a.Required
				}
			}
		}
	case "resources/list":
		o.listed(result, "resources")
		var r struct {
			Resources []struct {
				URI string `json:"uri"`
			} `json:"resources"`
		}
		if json.Unmarshal(result, &r) == nil {
			for _, x := range r.Resources {
				getResource(&o.rec.Resources, x.URI).Declared = true
			}
		}
	case "resources/templates/list":
		o.listed(result, "templates")
		var r struct {
			Templates []struct {
				URITemplate string `json:"uriTemplate"`
			} `json:"resourceTemplates"`
		}
		if json.Unmarshal(result, &r) == nil {
			for _, x := range r.Templates {
				getResource(&o.rec.Templates, x.URITemplate).Declared = true
			}
		}
	}
}

// offers notes that the server offers kinds of item, when its capability
// (the JSON value cap) is there.
func (o *observer) offers(cap json.RawMessage, kinds ...string) {
	if len(cap) == 0 || jsonscan.IsNull(cap) {
		return
	}
	for _, k := range kinds {
		if _, seen := o.rec.Listed[k]; !seen {
			if o.rec.Listed == nil {
				o.rec.Listed = map[string]bool{}
			}
			o.rec.Listed[k] = false
		}
	}
}

// listed notes a list's last page (one without nextCursor): the
// connection has seen every item of kind the server declares.
func (o *observer) listed(result []byte, kind string) {
	var r struct {
		NextCursor string `json:"nextCursor"`
	}
	if json.Unmarshal(result, &r) != nil || r.NextCursor != "" {
		return
	}
	if o.rec.Listed == nil {
		o.rec.Listed = map[string]bool{}
	}
	o.rec.Listed[kind] = true
}

func (o *observer) outcome(tool, what string) {
	t := getTool(&o.rec.Tools, tool)
	if t.Outcomes == nil {
		t.Outcomes = map[string]map[string]int{}
	}
	inc2(t.Outcomes, o.source, what)
}

// guardAnswer reports whether content is the crash guard's answer: one
// text block, "Error executing tool <name>".
func guardAnswer(content []byte, name string) bool {
	var c []struct {
		Text string `json:"text"`
	}
	return json.Unmarshal(content, &c) == nil && len(c) == 1 && c[0].Text == "Error executing tool "+name
}

func inc(m *map[string]int, k string) {
	if *m == nil {
		*m = map[string]int{}
	}
	(*m)[k]++
}

func inc2(m map[string]map[string]int, k1, k2 string) {
	inner := m[k1]
	if inner == nil {
		inner = map[string]int{}
		m[k1] = inner
	}
	inner[k2]++
}

// declareArguments records a tool's top-level properties: required or
// not, and their enum values.
func declareArguments(dst *map[string]*Argument, schema json.RawMessage) {
	var s struct {
		Properties map[string]struct {
			Enum []json.RawMessage `json:"enum"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return
	}
	for name, p := range s.Properties {
		a := getArg(dst, name)
		a.Declared = true
		for _, r := range s.Required {
			a.Required = a.Required || r == name
		}
		for _, v := range p.Enum {
			if c := compact(v); !contains(a.Enum, c) {
				a.Enum = append(a.Enum, c)
			}
		}
	}
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func compact(v []byte) string {
	if !bytes.ContainsAny(v, " \t\r\n") {
		return string(v)
	}
	var b bytes.Buffer
	if json.Compact(&b, v) != nil {
		return string(v)
	}
	return b.String()
}
