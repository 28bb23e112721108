package transport

import (
	"encoding/json"
	"net/http"
)

// 2026-07-28: the per-request headers (MCP-Protocol-Version, Mcp-Method,
// Mcp-Name, Mcp-Param-*), and the x-mcp-header bindings they come from.

// LearnToolHeaders records the x-mcp-header annotations of a tool from a
// 2026-07-28 tools/list result, so that its tools/call requests carry the
// Mcp-Param-* headers they ask for. When the annotations are invalid it
// forgets the tool, logs a warning (as the spec asks) and returns why; the
// spec then requires the client to drop the tool from the list. The client
// package calls this for every tool it lists; the transport does not read
// tools/list results itself.
func (t *StreamableHTTP) LearnToolHeaders(tool string, inputSchema json.RawMessage) error {
	b, err := toolParamBindings(inputSchema)
	if err != nil {
		t.cfg.logger.Warn("transport: dropping a tool from tools/list: invalid x-mcp-header annotation",
			"tool", tool, "url", t.url, "error", err)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if err != nil || len(b) == 0 {
		delete(t.tools, tool)
		return err
	}
	t.tools[tool] = b
	return nil
}

// requestParams holds what the transport reads from a request's params.
type requestParams struct {
	Meta struct {
		ProtocolVersion string `json:"io.modelcontextprotocol/protocolVersion"`
	} `json:"_meta"`
	Name      json.RawMessage `json:"name"`
	URI       json.RawMessage `json:"uri"`
	TaskID    json.RawMessage `json:"taskId"`
	Arguments json.RawMessage `json:"arguments"`
}

func stringOf(raw json.RawMessage) (string, bool) {
	var s string
	if len(raw) == 0 || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// modernHeaders sets the headers of a 2026-07-28 request; t.mu is held.
func (t *StreamableHTTP) modernHeaders(h http.Header, method string, p *requestParams) {
	h.Set(headerProtocolVersion, p.Meta.ProtocolVersion)
	h.Set(headerMethod, method)
	var name string
	var ok bool
	switch method {
	case methodToolsCall, "prompts/get":
		name, ok = stringOf(p.Name)
	case "resources/read":
		name, ok = stringOf(p.URI)
	case "tasks/get", "tasks/update", "tasks/cancel": // the tasks extension routes by task
		name, ok = stringOf(p.TaskID)
	}
	if !ok {
		return
	}
	h.Set(headerName, encodeHeaderValue(name))
	if method == methodToolsCall {
		for k, v := range paramHeaders(t.tools[name], p.Arguments) {
			h.Set(k, v)
		}
	}
}
