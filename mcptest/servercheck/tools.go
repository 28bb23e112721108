package servercheck

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/client/transport"
	"github.com/mcptestkit/mcptestkit/internal/toolschema"
	"github.com/mcptestkit/mcptestkit/mcptest/internal/toolrule"
)

// maxToolFailures bounds the failures one tool check reports: after a few,
// more of the same only bury the first.
const maxToolFailures = 3

// crashText is the bare text the crash guard answers a panicking tool with.
func crashText(tool string) string { return "Error executing tool " + tool }

// outcome is what one tool call did, judged.
type outcome struct {
	problem string // "" when the call kept the contract
	warn    bool   // problem breaks a SHOULD, not a MUST
	fatal   bool   // the connection broke or hung: stop calling
	crashed bool
	asked   string // the call failed after the client could not give the input the server asked for: why
	// progressed counts the progress notifications the call got.
	progressed int
	// working is how long a call ran that was still reporting progress
	// when the client stopped waiting, after maxProgressTimeouts timeouts:
	// slow by design, not a hang; its result was not seen.
	working time.Duration
}

// callTool calls tool t with args over cn and judges what came back by the
// invariants every call must keep: an answer in time, a connection that
// stays up, no crash, no crash text, structured output valid.
func (c *state) callTool(cn *conn, t *client.Tool, out *schema, args map[string]any) (*client.CallToolResult, outcome, error) {
	var o outcome
	var logsBefore int
	if c.s.opts.Logs != nil {
		logsBefore = countCrashRecords(c.s.opts.Logs())
	}
	// A value at an extreme the schema allows may ask for endless work, with
	// progress all along: such a call gets the timeout once.
	ctx, progress, stop := c.progressCtx(extreme(args) == "")
	refusedBefore, _ := cn.tap.refusals()
	start := time.Now()
	res, err := cn.cl.CallTool(ctx, t.Name, args, append(taskCallOptions(cn, t, progress), client.WithTimeout(0))...)
	progressed, capped := stop()
	o.progressed = progressed
	if n, m := cn.tap.refusals(); n > refusedBefore && (err != nil || res.IsError) {
		o.asked = "it asked the client for " + m + ", which this client has no callback for"
	}
	sent := fmt.Sprintf("called tool %q with arguments %s", t.Name, compactJSON(args))
	crashes := c.s.takeCrashes()
	if len(crashes) > 0 {
		o.crashed = true
		o.problem = fmt.Sprintf("%s\n"+
			"the handler panicked (%s), and the server has no crash guard of its own: the harness's adapter "+
			"recovered it; in production this panic crashes the server process.\n"+
			"%s", sent, crashes[0], guardHint)
		return res, o, err
	}
	switch {
	case brokeConnection(cn, err):
		o.fatal = true
		o.problem = fmt.Sprintf("%s\n"+
			"the connection broke: %v\n"+
			"expected: a result (isError for a failure); a server that dies on a call has crashed, probably without a crash guard.\n"+
			"%s", sent, err, guardHint)
		return res, o, err
	case timedOut(err) && capped && progressed > 0 && extreme(args) == "":
		// It kept reporting progress to the end: working, not hung. How
		// long is the finding; no verdict rests on how fast it got there.
		o.fatal = true
		cn.abandoned = true
		o.working = time.Since(start)
		return res, o, err
	case timedOut(err):
		o.fatal = true
		cn.abandoned = true
		if x := extreme(args); x != "" {
			// Not a hang: the schema lets a model ask for this much work.
			o.warn = true
			o.problem = fmt.Sprintf("%s\n"+
				"no answer within %v: the arguments hold %s, an extreme value the inputSchema allows (the "+
				"generator keeps to the schema), so a model may send it too\n"+
				"expected: a bound in the inputSchema (\"maximum\", \"maxLength\", \"maxItems\") or a quick "+
				"refusal (an isError result) for what the tool cannot do in reasonable time (a tool that does "+
				"not answer with ordinary values fails this check instead)", sent, c.s.timeout, x)
			return res, o, err
		}
		o.problem = fmt.Sprintf("%s\nno answer within %v\nexpected: an answer (the call was cancelled after the timeout)", sent, c.s.timeout)
		if progressed > 0 {
			o.problem = fmt.Sprintf("%s\nno answer within %v, the most a call may take, although it reported progress "+
				"(%d notification(s), each of which gave it %v more)\nexpected: an answer (the call was cancelled)", sent, c.s.timeout*maxProgressTimeouts, progressed, c.s.timeout)
		}
		o.problem += "; every request gets a response (JSON-RPC 2.0), and a client stops waiting after its timeout " +
			"(basic/lifecycle, \"Timeouts\": progress MAY reset it, up to a maximum)"
		return res, o, err
	}
	if e, ok := errorCode(err); ok && e.Code == transport.CodeHTTPError {
		var status int
		var ended bool
		e.DataField("status", &status)
		if e.DataField("streamEnded", &ended); ended {
			o.problem = fmt.Sprintf("%s\n"+
				"the server ended the call's SSE stream before the response (%s): the response is lost\n"+
				"expected: a response on the stream; a server may close a stream early only after an event with an "+
				"id, which the client resumes from with GET and Last-Event-ID (basic/transports, \"Resumability and "+
				"Redelivery\"; SEP-1699, 2025-11-25), and every request gets a response (JSON-RPC 2.0). A handler "+
				"that panics inside an HTTP server that recovers it ends the stream this way too.", sent, strings.TrimPrefix(e.Message, "transport: "))
			if c.s.checkAlive(cn, c.name); c.s.dead != "" {
				o.fatal = true
				o.problem += "\n" + c.s.dead + ": the checks after this one are skipped"
			}
			return res, o, err
		}
		if status == 0 {
			o.crashed = true
			cut := strings.TrimPrefix(e.Message, "transport: ")
			if c.s.checkAlive(cn, c.name); c.s.dead != "" {
				o.fatal = true
				o.problem = fmt.Sprintf("%s\n"+
					"the server died on this call: no HTTP response came (%s), and %s; the checks after this one are skipped\n"+
					"expected: a result (isError for a failure); a crash guard keeps a handler's panic from killing the server.\n"+
					"%s", sent, cut, c.s.dead, guardHint)
				return res, o, err
			}
			o.problem = fmt.Sprintf("%s\n"+
				"no HTTP response came at all: the connection was cut (%s); most likely the handler panicked and the HTTP server "+
				"dropped the request\n"+
				"expected: a result (isError for a failure).\n"+
				"%s", sent, cut, guardHint)
			return res, o, err
		}
		if status >= 500 {
			o.crashed = true
			o.problem = fmt.Sprintf("%s\n"+
				"the server failed with HTTP %d (%s): the request died in the server, most likely a handler panic without a crash guard\n"+
				"expected: a result (isError for a failure).\n"+
				"%s", sent, status, describe(nil, err), guardHint)
			return res, o, err
		}
	}
	guarded := err == nil && res.IsError && strings.TrimSpace(res.Text()) == crashText(t.Name)
	if e, ok := errorCode(err); ok && e.Code == client.CodeInternalError && strings.Contains(e.Message, "panic") {
		guarded = true
	}
	if c.s.opts.Logs != nil {
		n := countCrashRecords(c.s.opts.Logs()) - logsBefore
		switch {
		case n > 0 || guarded:
			o.crashed = true
			if n != 1 {
				o.problem = fmt.Sprintf("%s\nthe handler crashed and the server logged %d ERROR record(s) with a stack for it\nexpected: exactly one ERROR record with the stack per crash", sent, n)
				return res, o, err
			}
		}
	} else if guarded {
		o.crashed = true
	}
	if l := leakIn(res, err, compactJSON(args)); l != "" {
		o.problem = fmt.Sprintf("%s\n"+
			"the answer shows the client what looks like crash text: %q\n"+
			"expected: a panic's value, the words \"panic\" or \"goroutine\", stack traces and source file "+
			"paths stay in the server's log; the client gets the bare text %q", sent, l, crashText(t.Name))
		return res, o, err
	}
	if o.crashed {
		o.problem = fmt.Sprintf("%s\n"+
			"the handler crashed (the crash guard caught it: the client got %s)\n"+
			"expected: no crash on arguments that conform to the inputSchema; a failure the model can act on "+
			"is an isError result with a message", sent, describe(res, err))
	}
	return res, o, err
}

// leakIn returns crash text in an error or a failed result, or "".
func leakIn(res *client.CallToolResult, err error, sent string) string {
	if e, ok := errorCode(err); ok {
		return leak(e.Message+" "+string(e.Data), sent)
	}
	if err == nil && res != nil && res.IsError {
		return leak(res.Text(), sent)
	}
	return ""
}

func countCrashRecords(recs []LogRecord) int {
	n := 0
	for _, r := range recs {
		if r.Level >= 8 && r.Stack != "" { // slog.LevelError
			n++
		}
	}
	return n
}

// toolCalls calls t with generated arguments that conform to its input
// schema.
func (c *state) toolCalls(t *client.Tool) {
	if c.s.opts.Calls < 0 {
		c.skipf("generated calls are turned off")
	}
	c.skipTaskOnly(c.main(), t)
	in, err := c.s.compile(t.InputSchema, t.Name+"/inputSchema")
	if err != nil {
		c.skipf("%s", unusable(t, err))
	}
	var out *schema
	if len(strings.TrimSpace(string(t.OutputSchema))) > 0 {
		if out, err = c.s.compile(t.OutputSchema, t.Name+"/outputSchema"); errors.Is(err, toolschema.ErrTooBig) {
			c.notef("tool %q: the outputSchema was not read, so no output is checked against it: %v", t.Name, err)
		} else if err != nil {
			c.breakf("tool %q: the outputSchema is not valid, so no output can be checked: %v", t.Name, err)
		}
	}
	e := newSeeded(c.s.opts.Seed, t.Name)
	var calls, ok, toolErrors, ungen, failures, asked int
	var why, firstError, askedWhy string // why the last argument set that failed did; the first tool error; what the client could not give
	var working string                   // a call still at work when the client stopped waiting
	sent := map[string]bool{}
	var argSets []map[string]any
	for range c.s.opts.Calls {
		args, w := in.conforming(e)
		if w != "" {
			ungen++
			why = w
			continue
		}
		if key := compactJSON(args); sent[key] {
			continue // a small schema runs out of new arguments
		} else {
			sent[key] = true
		}
		argSets = append(argSets, args)
	}
	// On a dual-era server the calls go at the connection's 2026-07-28, and
	// the first few again at the newest legacy version it offers: each era
	// has its own path through the server.
	type call struct {
		legacy bool
		args   map[string]any
	}
	plan := make([]call, 0, len(argSets)+legacyCalls)
	for _, args := range argSets {
		plan = append(plan, call{false, args})
	}
	if c.s.legacyEra() != "" {
		for _, args := range argSets[:min(len(argSets), legacyCalls)] {
			plan = append(plan, call{true, args})
		}
	}
	legacyRan := 0
	for _, p := range plan {
		args := p.args
		cn := c.main()
		if p.legacy {
			if cn = c.s.legacyConn(); cn == nil {
				break
			}
			c.use(cn)
			legacyRan++
		}
		calls++
		res, o, err := c.callTool(cn, t, out, args)
		if p.legacy && o.problem != "" {
			o.problem = "at " + cn.cl.ProtocolVersion() + " (the server's legacy era): " + o.problem
		}
		if o.working > 0 {
			calls--
			working = fmt.Sprintf("the call with arguments %s was still at work after %v, reporting progress all along (%d "+
				"notification(s)), when the client stopped waiting (at %d times the timeout) and cancelled it: a tool slow by "+
				"design, not a hang; its result was not seen", compactJSON(args), o.working.Round(time.Millisecond), o.progressed, maxProgressTimeouts)
			break
		}
		if !p.legacy && err == nil && o.progressed > c.s.inv.slow[t.Name].progress { // a call that ended: not one to keep a server busy forever
			if c.s.inv.slow == nil {
				c.s.inv.slow = map[string]slowCall{}
			}
			c.s.inv.slow[t.Name] = slowCall{args, o.progressed}
		}
		if o.problem == "" {
			if w := cmp.Or(o.asked, needsClient(err)); w != "" {
				asked++
				askedWhy = w
				continue
			}
			o.problem, o.warn = c.judgeResult(t, out, args, res, err)
			if p.legacy && o.problem != "" {
				o.problem = "at " + cn.cl.ProtocolVersion() + " (the server's legacy era): " + o.problem
			}
		}
		if o.problem != "" {
			if o.warn {
				c.warnf("%s", o.problem)
			} else {
				c.failf("%s", o.problem)
			}
			failures++
			if o.fatal || failures >= maxToolFailures {
				break
			}
			continue
		}
		if res.IsError {
			toolErrors++
			if firstError == "" {
				firstError = cut(res.Text(), 300)
			}
		} else {
			ok++
		}
	}
	if legacyRan > 0 {
		c.notef("%d of the calls again at %s, the server's legacy era", legacyRan, c.s.legacyEra())
	}
	if working != "" {
		if calls == 0 {
			c.skipf("tool %q: %s", t.Name, working)
		}
		c.notef("%s", working)
	}
	if calls == 0 {
		c.skipf("tool %q: no arguments generated from the inputSchema: %s", t.Name, why)
	}
	if asked > 0 {
		if asked == calls {
			c.skipf("tool %q: %s, so no call got its result (%d call(s)); give Options.Client the callbacks "+
				"(Elicit, CreateMessage, ListRoots) and capabilities it needs to check it", t.Name, askedWhy, calls)
		}
		c.notef("%d call(s) not judged: %s", asked, askedWhy)
	}
	c.notef("%d call(s): %d succeeded, %d tool error(s)", calls-asked, ok, toolErrors)
	if out != nil && ok == 0 && toolErrors > 0 && failures == 0 {
		// What the generator could reach, not a breach: no SHOULD asks a
		// tool to succeed on arguments it made up.
		c.notef("tool %q declares an outputSchema, but none of its %d call(s) with arguments valid against its inputSchema "+
			"succeeded (each was an isError result), so no output was checked against it; test its success in a test of "+
			"your own if it needs arguments the generator cannot guess (an id that exists); the first answer: %s", t.Name, calls, firstError)
	}
	if ungen > 0 {
		c.notef("%d time(s) no arguments were generated from the inputSchema, so nothing was sent; the last time: %s", ungen, why)
	}
}

// needsClient says why a call's error is the client's lack, not the server's
// fault, or returns "": the tool asked (input_required) for what the
// client has no callback for, or the server refused the call because the
// client did not declare a capability it needs (-32021, which 2026-07-28
// specifies for that).
func needsClient(err error) string {
	var ire *client.InputRequiredError
	if errors.As(err, &ire) && ire.Err != nil {
		return "it asks the client for input this client could not give (" + cut(ire.Err.Error(), 200) + ")"
	}
	if e, ok := errorCode(err); ok && e.Code == client.CodeMissingRequiredClientCapability {
		return "the server refused it for a client capability the client did not declare (-32021 " + strconv.Quote(cut(e.Message, 200)) + ")"
	} else if ok && clientLacks.MatchString(e.Message) {
		// Before 2026-07-28 no code says so; the message does.
		return "the server failed it because the client lacks a capability (error " + strconv.FormatInt(e.Code, 10) + " " + strconv.Quote(cut(e.Message, 200)) + ")"
	}
	return ""
}

// clientLacks matches an error message that blames the client's missing
// sampling, elicitation or roots support ("client does not support
// elicitation", go-sdk's words).
var clientLacks = regexp.MustCompile(`(?i)client (does not|doesn't) support (elicitation|sampling|roots)|(elicitation|sampling|roots) (capability )?(is )?not (supported|declared) by (the )?client`)

// judgeResult checks the result of a call with conforming arguments;
// warn says the problem breaks a SHOULD, not a MUST.
func (c *state) judgeResult(t *client.Tool, out *schema, args map[string]any, res *client.CallToolResult, err error) (problem string, warn bool) {
	sent := fmt.Sprintf("called tool %q with arguments %s", t.Name, compactJSON(args))
	if e, ok := errorCode(err); ok && e.Code == client.CodeHeaderMismatch {
		return fmt.Sprintf("%s\n"+
			"got %s\n"+
			"expected: a result: the client sent the headers of the tool's x-mcp-header annotations as the "+
			"specification converts them (a string as it is, an empty one as an empty value, an integer in decimal, "+
			"a boolean as true or false, base64 for what is not plain ASCII), and a server rejects only headers that "+
			"differ from the body (SEP-2243, basic/transports at 2026-07-28); a server that takes an empty value for a "+
			"missing header refuses every call with an empty string there", sent, describe(nil, err)), true
	}
	if err != nil {
		return fmt.Sprintf("%s\n"+
			"got %s\n"+
			"expected: a result; a tool that fails says so in an isError result the model can read, not in a "+
			"JSON-RPC error (the arguments conform to the inputSchema): errors that originate from the tool "+
			"SHOULD be reported inside the result (specification, server/tools, \"Error Handling\")", sent, describe(nil, err)), true
	}
	c.s.lint.sawResult(t.Name, res)
	if broken := toolrule.StructuredOnError(res); broken != "" {
		return fmt.Sprintf("%s\n"+
			"got an isError result with structuredContent: %s\n"+
			"expected: %s: a failed call has no value to structure; its message goes in content, where the model "+
			"reads it (the kit's error contract, which mcptest.Assert(t).ToolError judges by too; a client validating "+
			"structuredContent against the outputSchema would take the error's for output)", sent, cut(res.String(), 600), broken), false
	}
	if res.IsError || out == nil {
		return "", false
	}
	if len(res.StructuredContent) == 0 || string(res.StructuredContent) == "null" {
		return fmt.Sprintf("%s\n"+
			"got a successful result without structuredContent: %s\n"+
			"expected: a tool with an outputSchema returns structuredContent that validates against it with "+
			"every successful result (servers MUST provide structured results that conform to the "+
			"outputSchema: specification, server/tools, \"Output Schema\")", sent, cut(res.String(), 800)), false
	}
	if verr := out.validateJSON(res.StructuredContent); verr != nil {
		return fmt.Sprintf("%s\n"+
			"structuredContent does not match the outputSchema:\n"+
			"%v\n"+
			"structuredContent: %s\n"+
			"outputSchema: %s\n"+
			"(servers MUST provide structured results that conform to the outputSchema: specification, "+
			"server/tools, \"Output Schema\")", sent, verr, cut(string(res.StructuredContent), 800), cut(string(t.OutputSchema), 800)), false
	}
	return "", false
}

// extreme describes the first value in args at an extreme a generator
// reaches for (a number of a million or more, a string of a thousand
// characters, an array of a hundred items), or returns "".
func extreme(args map[string]any) string {
	var walk func(path string, v any) string
	walk = func(path string, v any) string {
		switch v := v.(type) {
		case float64:
			if v >= 1e6 || v <= -1e6 {
				return fmt.Sprintf("%s = %s", path, compactJSON(v))
			}
		case int, int64:
			return walk(path, toFloat(v))
		case json.Number:
			f, _ := v.Float64()
			return walk(path, f)
		case string:
			if len(v) >= 1000 {
				return fmt.Sprintf("%s, a string of %d bytes", path, len(v))
			}
		case []any:
			if len(v) >= 100 {
				return fmt.Sprintf("%s, an array of %d items", path, len(v))
			}
			for i, e := range v {
				if x := walk(fmt.Sprintf("%s[%d]", path, i), e); x != "" {
					return x
				}
			}
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(v)) {
				if x := walk(path+"."+k, v[k]); x != "" {
					return x
				}
			}
		}
		return ""
	}
	for _, k := range slices.Sorted(maps.Keys(args)) {
		if x := walk(k, args[k]); x != "" {
			return x
		}
	}
	return ""
}

func toFloat(v any) float64 {
	switch v := v.(type) {
	case int:
		return float64(v)
	case int64:
		return float64(v)
	}
	return 0
}

// toolInvalidArguments calls t with arguments that break its input schema
// and expects them rejected before the handler runs.
func (c *state) toolInvalidArguments(t *client.Tool) {
	c.skipTaskOnly(c.main(), t)
	in, err := c.s.compile(t.InputSchema, t.Name+"/inputSchema")
	if err != nil {
		c.skipf("%s", unusable(t, err))
	}
	vs, why := in.violations(newSeeded(c.s.opts.Seed, "invalid/"+t.Name))
	if why != "" {
		c.skipf("tool %q: no conforming arguments to break were generated from the inputSchema: %s", t.Name, why)
	}
	if len(vs) == 0 {
		c.skipf("the inputSchema has nothing to break (no required property, no typed property, no additionalProperties: false)")
	}
	var via, ignored []string
	for _, v := range vs {
		cn := c.main()
		res, o, err := c.callTool(cn, t, nil, v.args)
		sent := fmt.Sprintf("called tool %q with arguments that break its inputSchema (%s): %s", t.Name, v.what, compactJSON(v.args))
		if o.problem != "" {
			if o.crashed {
				o.problem += "\nthe handler ran although the arguments break the inputSchema: validate arguments before the handler"
			}
			c.failf("%s", o.problem)
			if o.fatal {
				return
			}
			continue
		}
		e, isRPC := errorCode(err)
		switch {
		case err == nil && res.IsError:
			via = append(via, "isError")
		case isRPC && e.Code == client.CodeInvalidParams:
			via = append(via, "-32602")
		case err == nil && v.harmless:
			ignored = append(ignored, v.what)
		case err == nil:
			// A plain result is a success or a refusal in prose ("please
			// give a name"): the kit cannot tell which, so it is no breach
			// of the MUST it can show, only of the SHOULD either way breaks.
			c.warnf("%s\n"+
				"got a result without isError: %s\n"+
				"either the handler ran on input its schema forbids (servers MUST validate all tool inputs: "+
				"specification 2025-11-25, server/tools, \"Security Considerations\"), or the tool refused it in its own "+
				"words, which a client cannot tell from a success\n"+
				"expected: rejected before the handler runs, as an isError result that says what is wrong (input "+
				"validation errors SHOULD be tool execution errors: server/tools, \"Error Handling\"). mcp-go validates "+
				"only with server.WithInputSchemaValidation()", sent, cut(res.String(), 400))
		default:
			c.warnf("%s\n"+
				"got %s\n"+
				"expected: an isError result that says what is wrong (or JSON-RPC error -32602): input "+
				"validation errors SHOULD be tool execution errors the model can read (specification 2025-11-25, server/tools)", sent, describe(nil, err))
		}
	}
	if len(ignored) > 0 {
		c.notef("accepted, ignoring it: %s (harmless: the handler gets nothing it could act on)", strings.Join(ignored, "; "))
	}
	if len(via) > 0 {
		c.notef("rejected as: %s", strings.Join(via, ", "))
		for _, v := range via {
			if v == "-32602" {
				c.notef("the server rejects invalid arguments with JSON-RPC error -32602; since 2025-11-25 the specification asks for an isError result the model can read")
				break
			}
		}
	}
}
