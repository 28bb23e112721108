package transport

import (
	"encoding/json"
	"net/http"
)

// 2026-07-28: the per-request headers (MCP-Protocol-Version, Mcp-Method,
// Mcp-Name, Mcp-Param-*), and the x-mcp-header bindings they come from.

// learnTools records the x-mcp-header bindings of each tool in a tools/list
// result and drops the tools whose annotations are invalid, as the spec
// requires of a client. It reports whether it dropped any.
func (t *StreamableHTTP) learnTools(result json.RawMessage) (json.RawMessage, bool) {
	var r map[string]json.RawMessage
	var tools []json.RawMessage
	if json.Unmarshal(result, &r) != nil || json.Unmarshal(r["tools"], &tools) != nil {
		return result, false // not a list result: the client will say so
	}
	kept := make([]json.RawMessage, 0, len(tools))
	t.mu.Lock()
	for _, raw := range tools {
		var tool struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		if json.Unmarshal(raw, &tool) != nil {
			kept = append(kept, raw)
			continue
		}
		b, err := toolParamBindings(tool.InputSchema)
		if err != nil {
			delete(t.tools, tool.Name)
			t.cfg.logger.Warn("transport: dropping a tool from tools/list: invalid x-mcp-header annotation",
				"tool", tool.Name, "url", t.url, "error", err)
			continue
		}
		if len(b) > 0 {
			t.tools[tool.Name] = b
		} else {
			delete(t.tools, tool.Name)
		}
		kept = append(kept, raw)
	}
	t.mu.Unlock()
	if len(kept) == len(tools) {
		return result, false
	}
	list, err := json.Marshal(kept)
	if err != nil {
		return result, false
	}
	r["tools"] = list
	out, err := json.Marshal(r)
	if err != nil {
		return result, false
	}
	return out, true
}

// requestParams holds what the transport reads from a request's params.
type requestParams struct {
	Meta struct {
		ProtocolVersion string `json:"io.modelcontextprotocol/protocolVersion"`
	} `json:"_meta"`
	Name      json.RawMessage `json:"name"`
	URI       json.RawMessage `json:"uri"`
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
