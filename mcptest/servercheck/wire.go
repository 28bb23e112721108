package servercheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/mcptestkit/mcptestkit/client"
)

// Every message a server sends is checked against the protocol's rules for
// the connection's version: the JSON-RPC envelope, and the shape of each
// result and notification the specification's schema defines (required
// members, their types, the content blocks a version has, and at
// 2026-07-28 resultType and the caching hints). The rules are written here,
// from the specification's schema pages; members the schema does not name
// are allowed, as MCP allows them.

// wireViolation is one message that breaks a rule.
type wireViolation struct {
	version string
	what    string // "the tools/list result", "notifications/progress"
	path    string // where in the message: "tools[0].inputSchema"
	reason  string
	check   string // the check during which it came
	msg     string // the message, cut
}

func (v wireViolation) String() string {
	at := v.version
	if at == "" {
		at = "any version"
	}
	return fmt.Sprintf("%s breaks the %s schema at %s: %s (during %s)\n\t%s", v.what, at, v.path, v.reason, v.check, v.msg)
}

// wireLog collects the violations of a run, once each (by what and path).
type wireLog struct {
	mu    sync.Mutex
	seen  map[string]bool
	list  []wireViolation
	check string // the check running now
}

const maxWireViolations = 20

func (l *wireLog) add(v wireViolation) {
	l.mu.Lock()
	defer l.mu.Unlock()
	key := v.what + "\x00" + v.path + "\x00" + v.reason
	if l.seen == nil {
		l.seen = map[string]bool{}
	}
	if l.seen[key] {
		return
	}
	l.seen[key] = true
	v.check = l.check
	l.list = append(l.list, v)
}

func (l *wireLog) setCheck(name string) {
	l.mu.Lock()
	l.check = name
	l.mu.Unlock()
}

func (l *wireLog) violations() []wireViolation {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.list)
}

// validateWire checks one message from the server. method is that of the
// request a response answers ("" when unknown); version is the
// connection's ("" before the handshake ends).
func validateWire(version, method string, data []byte) (what string, problems []wireProblem) {
	var m map[string]any
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	if err := d.Decode(&m); err != nil {
		return "a message", []wireProblem{{"", "not a JSON object: " + err.Error()}}
	}
	w := &wireCheck{version: version}
	if m["jsonrpc"] != "2.0" {
		w.bad("jsonrpc", `must be "2.0"`)
	}
	if name, ok := m["method"].(string); ok {
		what = name
		if _, has := m["id"]; has {
			w.id(m["id"], "id")
		}
		if p, has := m["params"]; has {
			if obj, ok := p.(map[string]any); !ok {
				w.bad("params", "must be an object")
			} else {
				w.notification(name, obj)
			}
		}
		return what, w.problems
	}
	_, hasResult := m["result"]
	errObj, hasError := m["error"]
	what = "a response"
	if method != "" {
		what = "the " + method + " response"
	}
	switch {
	case hasResult == hasError:
		w.bad("", "a response has exactly one of result and error")
	case hasError:
		what = "the " + strings.TrimSpace(method+" error")
		if e, ok := errObj.(map[string]any); !ok {
			w.bad("error", "must be an object")
		} else {
			if !isInteger(e["code"]) {
				w.bad("error.code", "must be an integer, got "+show(e["code"]))
			}
			if _, ok := e["message"].(string); !ok {
				w.bad("error.message", "must be a string")
			}
		}
		if m["id"] != nil {
			w.id(m["id"], "id")
		}
	default:
		w.id(m["id"], "id")
		if method != "" {
			what = "the " + method + " result"
		}
		res, ok := m["result"].(map[string]any)
		if !ok {
			w.bad("result", "must be an object")
			break
		}
		w.result(method, res)
	}
	return what, w.problems
}

type wireProblem struct{ path, reason string }

type wireCheck struct {
	version  string
	problems []wireProblem
}

func (w *wireCheck) bad(path, reason string) {
	w.problems = append(w.problems, wireProblem{path, reason})
}

func (w *wireCheck) modern() bool { return w.version == client.Version20260728 }

func (w *wireCheck) id(v any, path string) {
	switch v.(type) {
	case string, json.Number:
	default:
		w.bad(path, "must be a string or a number, got "+show(v))
	}
}

func (w *wireCheck) str(obj map[string]any, key, path string, required bool) {
	v, has := obj[key]
	switch {
	case !has && required:
		w.bad(join(path, key), "is required")
	case has:
		if _, ok := v.(string); !ok {
			w.bad(join(path, key), "must be a string, got "+show(v))
		}
	}
}

func (w *wireCheck) object(obj map[string]any, key, path string, required bool) map[string]any {
	v, has := obj[key]
	if !has {
		if required {
			w.bad(join(path, key), "is required")
		}
		return nil
	}
	o, ok := v.(map[string]any)
	if !ok {
		w.bad(join(path, key), "must be an object, got "+show(v))
	}
	return o
}

func (w *wireCheck) array(obj map[string]any, key, path string, required bool) []any {
	v, has := obj[key]
	if !has {
		if required {
			w.bad(join(path, key), "is required")
		}
		return nil
	}
	a, ok := v.([]any)
	if !ok {
		w.bad(join(path, key), "must be an array, got "+show(v))
	}
	return a
}

func (w *wireCheck) boolean(obj map[string]any, key, path string) {
	if v, has := obj[key]; has {
		if _, ok := v.(bool); !ok {
			w.bad(join(path, key), "must be a boolean, got "+show(v))
		}
	}
}

func (w *wireCheck) number(obj map[string]any, key, path string, required bool) {
	v, has := obj[key]
	switch {
	case !has && required:
		w.bad(join(path, key), "is required")
	case has:
		if _, ok := v.(json.Number); !ok {
			w.bad(join(path, key), "must be a number, got "+show(v))
		}
	}
}

// each runs fn on each element of a that is an object.
func (w *wireCheck) each(a []any, path string, fn func(obj map[string]any, path string)) {
	for i, v := range a {
		p := fmt.Sprintf("%s[%d]", path, i)
		obj, ok := v.(map[string]any)
		if !ok {
			w.bad(p, "must be an object, got "+show(v))
			continue
		}
		fn(obj, p)
	}
}

// mrtrMethods are the requests a server may answer with input_required.
var mrtrMethods = map[string]bool{"tools/call": true, "prompts/get": true, "resources/read": true, "tasks/result": true}

// cacheable are the 2026-07-28 results that carry ttlMs and cacheScope.
var cacheable = map[string]bool{"server/discover": true, "tools/list": true, "prompts/list": true,
	"resources/list": true, "resources/templates/list": true, "resources/read": true}

func (w *wireCheck) result(method string, res map[string]any) {
	if w.modern() && method != "" {
		rt, has := res["resultType"]
		if !has {
			w.bad("result.resultType", "is required at 2026-07-28 on every result")
		} else if _, ok := rt.(string); !ok {
			w.bad("result.resultType", "must be a string, got "+show(rt))
		}
		if cacheable[method] && rt == "complete" {
			w.cache(res)
		}
		if rt == "input_required" && !mrtrMethods[method] {
			w.bad("result.resultType", "is input_required on a "+method+" result: servers MUST NOT send an InputRequiredResult "+
				"but on tools/call, prompts/get, resources/read and tasks/result (SEP-2322)")
		}
		if rt != nil && rt != "complete" {
			return // input_required, a task: another shape
		}
	}
	switch method {
	case "initialize":
		w.str(res, "protocolVersion", "result", true)
		w.object(res, "capabilities", "result", true)
		if info := w.object(res, "serverInfo", "result", true); info != nil {
			w.str(info, "name", "result.serverInfo", true)
			w.str(info, "version", "result.serverInfo", true)
		}
	case "server/discover":
		versions := w.array(res, "supportedVersions", "result", true)
		for i, v := range versions {
			if _, ok := v.(string); !ok {
				w.bad(fmt.Sprintf("result.supportedVersions[%d]", i), "must be a string")
			}
		}
		w.object(res, "capabilities", "result", true)
	case "tools/list":
		w.page(res)
		w.each(w.array(res, "tools", "result", true), "result.tools", w.tool)
	case "tools/call":
		if res["task"] != nil {
			return // a task made: tasks have checks of their own
		}
		w.each(w.array(res, "content", "result", true), "result.content", w.content)
		w.boolean(res, "isError", "result")
		if sc, has := res["structuredContent"]; has && !w.modern() {
			if _, ok := sc.(map[string]any); !ok {
				w.bad("result.structuredContent", "must be an object before 2026-07-28, got "+show(sc))
			}
		}
	case "resources/list":
		w.page(res)
		w.each(w.array(res, "resources", "result", true), "result.resources", func(r map[string]any, p string) {
			w.str(r, "uri", p, true)
			w.str(r, "name", p, true)
			w.str(r, "mimeType", p, false)
		})
	case "resources/templates/list":
		w.page(res)
		w.each(w.array(res, "resourceTemplates", "result", true), "result.resourceTemplates", func(r map[string]any, p string) {
			w.str(r, "uriTemplate", p, true)
			w.str(r, "name", p, true)
		})
	case "resources/read":
		w.each(w.array(res, "contents", "result", true), "result.contents", w.resourceContents)
	case "prompts/list":
		w.page(res)
		w.each(w.array(res, "prompts", "result", true), "result.prompts", func(pr map[string]any, p string) {
			w.str(pr, "name", p, true)
			w.each(w.array(pr, "arguments", p, false), p+".arguments", func(a map[string]any, p string) {
				w.str(a, "name", p, true)
				w.boolean(a, "required", p)
			})
		})
	case "prompts/get":
		w.each(w.array(res, "messages", "result", true), "result.messages", func(msg map[string]any, p string) {
			if r := msg["role"]; r != "user" && r != "assistant" {
				w.bad(p+".role", `must be "user" or "assistant", got `+show(r))
			}
			if c := w.object(msg, "content", p, true); c != nil {
				w.content(c, p+".content")
			}
		})
	case "completion/complete":
		if c := w.object(res, "completion", "result", true); c != nil {
			values := w.array(c, "values", "result.completion", true)
			if len(values) > 100 {
				w.bad("result.completion.values", fmt.Sprintf("holds at most 100 values, got %d", len(values)))
			}
			for i, v := range values {
				if _, ok := v.(string); !ok {
					w.bad(fmt.Sprintf("result.completion.values[%d]", i), "must be a string")
				}
			}
			w.number(c, "total", "result.completion", false)
			w.boolean(c, "hasMore", "result.completion")
		}
	}
}

// page checks a list result's cursor.
func (w *wireCheck) page(res map[string]any) {
	if c, has := res["nextCursor"]; has && c != nil {
		if _, ok := c.(string); !ok {
			w.bad("result.nextCursor", "must be a string, got "+show(c))
		}
	}
}

func (w *wireCheck) cache(res map[string]any) {
	switch v := res["ttlMs"].(type) {
	case nil:
		w.bad("result.ttlMs", "is required at 2026-07-28 on a cacheable result")
	case json.Number:
		if n, err := v.Int64(); err != nil || n < 0 {
			w.bad("result.ttlMs", "must be an integer of milliseconds, 0 or more, got "+v.String())
		}
	default:
		w.bad("result.ttlMs", "must be an integer, got "+show(v))
	}
	if s := res["cacheScope"]; s != "public" && s != "private" {
		w.bad("result.cacheScope", `is required at 2026-07-28 on a cacheable result: "public" or "private", got `+show(s))
	}
}

func (w *wireCheck) tool(t map[string]any, p string) {
	w.str(t, "name", p, true)
	w.str(t, "title", p, false)
	w.str(t, "description", p, false)
	if in := w.object(t, "inputSchema", p, true); in != nil && in["type"] != "object" {
		w.bad(p+".inputSchema.type", `must be "object", got `+show(in["type"]))
	}
	if _, has := t["outputSchema"]; has {
		if out := w.object(t, "outputSchema", p, false); out != nil && out["type"] != "object" {
			w.bad(p+".outputSchema.type", `must be "object", got `+show(out["type"]))
		}
	}
	w.object(t, "annotations", p, false)
}

// contentSince is the version that introduced each content block type.
var contentSince = map[string]string{"text": "", "image": "", "resource": "", "audio": client.Version20250326, "resource_link": client.Version20250618}

func (w *wireCheck) content(c map[string]any, p string) {
	typ, _ := c["type"].(string)
	since, known := contentSince[typ]
	switch {
	case !known:
		w.bad(p+".type", "must be one of text, image, audio, resource_link, resource, got "+show(c["type"]))
		return
	case since != "" && w.version != "" && w.version < since:
		w.bad(p+".type", fmt.Sprintf("%q content came with %s; the connection speaks %s", typ, since, w.version))
	}
	switch typ {
	case "text":
		w.str(c, "text", p, true)
	case "image", "audio":
		w.str(c, "data", p, true)
		w.str(c, "mimeType", p, true)
	case "resource_link":
		w.str(c, "uri", p, true)
		w.str(c, "name", p, true)
	case "resource":
		if r := w.object(c, "resource", p, true); r != nil {
			w.resourceContents(r, p+".resource")
		}
	}
}

func (w *wireCheck) resourceContents(r map[string]any, p string) {
	w.str(r, "uri", p, true)
	_, text := r["text"]
	_, blob := r["blob"]
	switch {
	case text == blob:
		w.bad(p, "has exactly one of text and blob")
	case text:
		w.str(r, "text", p, true)
	default:
		w.str(r, "blob", p, true)
	}
}

var logLevels = []any{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

func (w *wireCheck) notification(method string, p map[string]any) {
	switch method {
	case "notifications/progress":
		switch tok := p["progressToken"].(type) {
		case string, json.Number:
		default:
			w.bad("params.progressToken", "must be a string or a number, got "+show(tok))
		}
		w.number(p, "progress", "params", true)
		w.number(p, "total", "params", false)
		w.str(p, "message", "params", false)
	case "notifications/message":
		if !slices.Contains(logLevels, p["level"]) {
			w.bad("params.level", "must be a syslog level (debug ... emergency), got "+show(p["level"]))
		}
		if _, has := p["data"]; !has {
			w.bad("params.data", "is required")
		}
	case "notifications/resources/updated":
		w.str(p, "uri", "params", true)
	}
}

func isInteger(v any) bool {
	n, ok := v.(json.Number)
	if !ok {
		return false
	}
	_, err := n.Int64()
	return err == nil
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func show(v any) string {
	if v == nil {
		return "nothing"
	}
	b, _ := json.Marshal(v)
	return cut(string(b), 80)
}

// messages reports the run's violations.
func (c *state) messages() {
	vs := c.s.wire.violations()
	if len(vs) == 0 {
		return
	}
	sort.SliceStable(vs, func(i, j int) bool { return vs[i].what < vs[j].what })
	var lines []string
	for i, v := range vs {
		if i == maxWireViolations {
			lines = append(lines, fmt.Sprintf("(%d more)", len(vs)-i))
			break
		}
		lines = append(lines, v.String())
	}
	c.breakf("%d message(s) the server sent break the protocol's schema for the connection's version:\n%s\n"+
		"expected: every message as the specification's schema defines it (its Schema Reference page for the version)",
		len(vs), strings.Join(lines, "\n"))
}
