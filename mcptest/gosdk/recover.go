package gosdk

import (
	"context"
	"encoding/json"
	"reflect"
	"runtime/debug"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptestkit/mcptestkit/internal/crash"
)

// versionsKey carries an adapter's WithProtocolVersions list from Serve's
// context to lastResort: the server, and so its middleware, may be served by
// several adapters with different lists.
type versionsKey struct{}

// lastResort is the receiving middleware the adapter adds to the server as
// its outermost layer. It recovers panics (the SDK runs handlers in bare
// goroutines, so without it a panicking handler kills the whole test binary)
// and enforces WithProtocolVersions.
func lastResort(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			r := crash.Report{Method: method, Name: subject(req), Value: v, Stack: debug.Stack()}
			crash.Deliver(ctx, r)
			res, err = nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: r.String()}
		}()
		if allowed, ok := ctx.Value(versionsKey{}).([]string); ok {
			if err := restrictVersion(allowed, req); err != nil {
				return nil, err
			}
		}
		return next(ctx, method, req)
	}
}

// modern is the first protocol version negotiated per request rather than
// by the initialize handshake.
const modern = "2026-07-28"

// restrictVersion makes a server that supports only the allowed versions,
// the way the SDK's ServerOptions.SupportedProtocolVersions does: the legacy
// initialize handshake is answered with the newest allowed version it can
// negotiate, and a per-request (2026-07-28 and later) request at a version
// not allowed is refused with CodeUnsupportedProtocolVersion.
func restrictVersion(allowed []string, req mcp.Request) error {
	params := params(req)
	if params == nil {
		return nil
	}
	if init, ok := params.(*mcp.InitializeParams); ok {
		if !slices.Contains(allowed, init.ProtocolVersion) {
			init.ProtocolVersion = newestLegacy(allowed)
		}
		return nil
	}
	v, _ := params.GetMeta()[mcp.MetaKeyProtocolVersion].(string)
	if v == "" || slices.Contains(allowed, v) {
		return nil
	}
	data, _ := json.Marshal(mcp.UnsupportedProtocolVersionData{Supported: supported(allowed), Requested: v})
	return &jsonrpc.Error{Code: mcp.CodeUnsupportedProtocolVersion, Message: "unsupported protocol version", Data: data}
}

// newestLegacy returns the newest allowed version the initialize handshake
// can negotiate. When none is allowed it returns the newest such version the
// SDK knows: the handshake then settles on a version the client did not ask
// for, as it would with a server that does not speak the client's.
func newestLegacy(allowed []string) string {
	newest := ""
	for _, v := range mcp.SupportedProtocolVersions() { // newest first
		if v >= modern {
			continue
		}
		if slices.Contains(allowed, v) {
			return v
		}
		if newest == "" {
			newest = v
		}
	}
	return newest
}

// supported lists the allowed versions the SDK knows, newest first.
func supported(allowed []string) []string {
	var out []string
	for _, v := range mcp.SupportedProtocolVersions() {
		if slices.Contains(allowed, v) {
			out = append(out, v)
		}
	}
	return out
}

// subject returns what a request acts on, for a crash report.
func subject(req mcp.Request) string {
	if req == nil {
		return ""
	}
	params, err := json.Marshal(req.GetParams())
	if err != nil {
		return ""
	}
	return crash.Subject(params)
}

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
