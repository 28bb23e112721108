package gosdk

import (
	"bytes"
	"encoding/json"
	"reflect"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// params returns a request's params, or nil when it has none. The SDK
// leaves the params of a method whose params are optional a typed nil
// pointer, on which GetMeta panics.
func params(req mcp.Request) mcp.Params {
	if isNil(req) {
		return nil
	}
	p := req.GetParams()
	if isNil(p) {
		return nil
	}
	return p
}

// isNil reports whether v is nil or a nil pointer.
func isNil(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	return rv.Kind() == reflect.Pointer && rv.IsNil()
}

// subject returns what a request acts on: a tool or prompt name, or a
// resource URI; "" when the method has no such thing.
func subject(req mcp.Request) string {
	switch p := params(req).(type) {
	case *mcp.CallToolParamsRaw:
		return p.Name
	case *mcp.GetPromptParams:
		return p.Name
	case *mcp.ReadResourceParams:
		return p.URI
	case *mcp.SubscribeParams:
		return p.URI
	case *mcp.UnsubscribeParams:
		return p.URI
	}
	return ""
}

// toolResult returns r, a result the guard makes for a tools/call request,
// as req's version needs it: at 2026-07-28 with resultType, which go-sdk
// adds to what a tool handler returns inside the middleware the guard
// wraps, and so never to the guard's own results.
func toolResult(req mcp.Request, r *mcp.CallToolResult) mcp.Result {
	p := params(req)
	if p == nil {
		return r
	}
	if v, _ := p.GetMeta()["io.modelcontextprotocol/protocolVersion"].(string); v < "2026-07-28" {
		return r
	}
	return completeToolResult{r}
}

// completeToolResult is a tool result that says it is complete.
type completeToolResult struct{ *mcp.CallToolResult }

// MarshalJSON encodes the result with resultType "complete".
func (r completeToolResult) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(r.CallToolResult)
	if err != nil || len(b) < 2 || b[0] != '{' || bytes.Contains(b, []byte(`"resultType"`)) {
		return b, err
	}
	sep := ","
	if string(b) == "{}" {
		sep = ""
	}
	return append([]byte(`{"resultType":"complete"`+sep), b[1:]...), nil
}
