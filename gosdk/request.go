package gosdk

import (
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
