package servercheck

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/internal/toolschema"
)

// Fuzzer turns a fuzzer's inputs into calls and checks the invariants of
// [Run]'s tool checks on each: an answer in time, the connection intact, no
// crash, no crash text reaching the client, structured output valid. The
// first byte of an input picks a phase: arguments that conform to a tool's
// input schema, arguments that nearly conform (one thing broken), or a raw
// JSON-RPC request; the second picks the tool; the rest drives the
// generator, byte by byte, so that a mutated byte changes one choice.
//
// A Fuzzer is not safe for concurrent use: go test -fuzz runs inputs one at
// a time in each worker process.
type Fuzzer struct {
	s     *suite
	tools []fuzzTool
	n     int // raw requests sent, for their ids
}

type fuzzTool struct {
	tool    *client.Tool
	in, out *schema
}

// NewFuzzer connects to the server, lists its tools and compiles their
// schemas. Options.Version, Timeout, Client and Logs apply.
func NewFuzzer(ctx context.Context, dial Dialer, opts *Options) (*Fuzzer, error) {
	if opts == nil {
		opts = &Options{}
	}
	s, err := newSuite(ctx, dial, opts)
	if err != nil {
		return nil, err
	}
	if err := s.start(); err != nil {
		return nil, err
	}
	f := &Fuzzer{s: s}
	for t, err := range s.main.cl.Tools(ctx) {
		if err != nil {
			s.close()
			return nil, fmt.Errorf("listing the tools: %w", err)
		}
		ft := fuzzTool{tool: t}
		if ft.in, err = s.compile(t.InputSchema, t.Name+"/inputSchema"); err != nil {
			continue // tools/schemas reports it; nothing to generate from
		}
		if len(strings.TrimSpace(string(t.OutputSchema))) > 0 {
			ft.out, _ = s.compile(t.OutputSchema, t.Name+"/outputSchema")
		}
		f.tools = append(f.tools, ft)
	}
	return f, nil
}

// Close closes the connection, and stops regexp2's timing goroutine if a
// lookahead pattern started it (see Run).
func (f *Fuzzer) Close() {
	f.s.close()
	toolschema.StopClock()
}

// Phases of an input, by its first byte modulo 4 (two for conforming
// arguments, which is where handlers crash).
const (
	phaseConform = iota
	phaseConform2
	phaseNear
	phaseRaw
)

// Seeds returns inputs to start from: each phase for each tool.
func (f *Fuzzer) Seeds() [][]byte {
	var out [][]byte
	for i := range max(len(f.tools), 1) {
		for _, p := range []byte{phaseConform, phaseNear, phaseRaw} {
			out = append(out, []byte{p, byte(i), 1, 2, 3, 4, 5, 6, 7, 8})
		}
	}
	return out
}

// Input runs one input and returns what invariant it broke, or nil: the
// invariants of the tool checks, and the MUST rules of the protocol
// monitor (see the monitor/ checks).
func (f *Fuzzer) Input(data []byte) error {
	if err := f.input(data); err != nil {
		return err
	}
	return f.s.main.monitorInput()
}

func (f *Fuzzer) input(data []byte) error {
	if len(data) < 2 {
		return nil
	}
	cn, err := f.s.mainConn()
	if err != nil {
		return err
	}
	f.s.takeCrashes()
	phase, pick := data[0]%4, int(data[1])
	e := &fuzzBytes{b: data[2:]}
	if phase == phaseRaw || len(f.tools) == 0 {
		return f.raw(cn, e)
	}
	ft := f.tools[pick%len(f.tools)]
	g := newGen(e, ft.in.doc)
	args, _ := g.value(ft.in.doc, 0).(map[string]any)
	if args == nil {
		args = map[string]any{}
	}
	if phase == phaseNear {
		args = nearly(args, ft.in, e)
	}
	conforms := ft.in.validate(args) == nil
	c := &state{s: f.s, name: "fuzz"}
	c.use(cn)
	out := ft.out
	if !conforms {
		out = nil // a rejection has no output to check
	}
	res, o, err := c.callTool(cn, ft.tool, out, args)
	if o.problem == "" && conforms && err == nil && !res.IsError {
		o.problem, o.warn = c.judgeResult(ft.tool, out, args, res, nil)
	}
	if o.problem == "" && !conforms {
		// Nearly conforming arguments may be rejected either way, but not
		// with an internal error: that is a handler that ran and failed.
		if e, ok := errorCode(err); ok && e.Code != client.CodeInvalidParams {
			o.problem = fmt.Sprintf("called tool %q with arguments that break its inputSchema: %s\ngot %s\n"+
				"expected: an isError result that says what is wrong (or -32602)", ft.tool.Name, compactJSON(args), describe(nil, err))
		}
	}
	if o.problem != "" && !o.warn {
		// A warning (a SHOULD) is for CheckServer's report; fuzzing looks
		// for what breaks a MUST.
		return errors.New(o.problem + excerptText(c))
	}
	return nil
}

func excerptText(c *state) string {
	var lines []string
	for _, m := range c.marks {
		lines = append(lines, m.c.tap.excerpt(m.mark, m.end, excerptFrames, excerptLine)...)
	}
	if len(lines) == 0 {
		return ""
	}
	return "\nmessages (→ client to server, ← server to client):\n\t" + strings.Join(lines, "\n\t")
}

// nearly breaks args in one way the input drives.
func nearly(args map[string]any, s *schema, e entropy) map[string]any {
	args = maps.Clone(args)
	root, _ := s.doc.(map[string]any)
	props, _ := root["properties"].(map[string]any)
	var names []string
	for k := range props {
		names = append(names, k)
	}
	slices.Sort(names)
	switch e.intn(4) {
	case 0: // a property left out (a required one, often)
		if req, ok := root["required"].([]any); ok && len(req) > 0 {
			k, _ := req[e.intn(len(req))].(string)
			delete(args, k)
		}
	case 1: // a value of the wrong type
		if len(names) > 0 {
			k := names[e.intn(len(names))]
			args[k] = []any{nil, true, 1e308, -1, "", []any{}, map[string]any{}}[e.intn(7)]
		}
	case 2: // a property nobody declared
		args["mcptestkit_extra"] = edgeStrings[e.intn(len(edgeStrings))]
	default: // a string made of the input's bytes
		if len(names) > 0 {
			b, _ := e.raw(64)
			args[names[e.intn(len(names))]] = string(b)
		}
	}
	return args
}

// rawMethods are what raw requests ask for.
var rawMethods = []string{"tools/call", "tools/list", "resources/read", "prompts/get", "resources/templates/list", "completion/complete", "logging/setLevel", "mcptestkit/fuzz"}

// raw sends a JSON-RPC request built from the input, valid JSON with params
// of any shape, and expects an answer (a result or an error) in time.
func (f *Fuzzer) raw(cn *conn, e *fuzzBytes) error {
	f.n++
	id := fmt.Sprintf("%sfuzz-%d", rawPrefix, f.n)
	method := rawMethods[e.intn(len(rawMethods))]
	g := newGen(e, nil)
	params := map[string]any{}
	for range e.intn(4) {
		key := []string{"name", "arguments", "uri", "cursor", "level", "_meta", "ref", "argument"}[e.intn(8)]
		params[key] = g.value(map[string]any{"type": []any{"string", "integer", "object", "array", "boolean", "null"}}, 3)
	}
	if cn.modern() {
		meta, _ := params["_meta"].(map[string]any)
		if meta == nil {
			meta = map[string]any{}
		}
		meta["io.modelcontextprotocol/protocolVersion"] = client.Version20260728
		meta["io.modelcontextprotocol/clientCapabilities"] = map[string]any{}
		meta["io.modelcontextprotocol/clientInfo"] = map[string]any{"name": "mcptestkit", "version": "fuzz"}
		params["_meta"] = meta
	}
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	c := &state{s: f.s, name: "fuzz"}
	c.use(cn)
	ctx, cancel := c.ctx()
	defer cancel()
	resp, err := cn.tap.raw(ctx, msg, id)
	if crashes := f.s.takeCrashes(); len(crashes) > 0 {
		return fmt.Errorf("sent %s\nthe handler panicked (%s), and the server has no crash guard of its own.\n%s%s", msg, crashes[0], guardHint, excerptText(c))
	}
	switch {
	case err != nil && (!cn.alive() || errors.As(err, new(*sendError))):
		return fmt.Errorf("sent %s\nthe connection broke: %v\nexpected: a result or a JSON-RPC error, and the connection kept open%s", msg, err, excerptText(c))
	case err != nil:
		return fmt.Errorf("sent %s\nno answer: %v\nexpected: a result or a JSON-RPC error in time%s", msg, err, excerptText(c))
	}
	var r struct {
		Error *struct {
			Message string          `json:"message"`
			Data    json.RawMessage `json:"data"`
		} `json:"error"`
	}
	_ = json.Unmarshal(resp, &r)
	if r.Error != nil {
		if l := leak(r.Error.Message + " " + string(r.Error.Data)); l != "" {
			return fmt.Errorf("sent %s\nthe error shows the client what looks like crash text: %q%s", msg, l, excerptText(c))
		}
	}
	return nil
}
