package gosdktest

import (
	"context"
	"encoding/json"
	"reflect"
	"runtime/debug"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptestkit/mcptestkit/gosdk/internal/release"
	"github.com/mcptestkit/mcptestkit/mcptest/crash"
)

// go-sdk runs each handler on a goroutine of its own and offers no hook
// around it but receiving middleware, which belongs to the *mcp.Server:
// nothing on the adapter's side of the boundary (the transport, the context)
// can recover a handler's panic. So the adapter adds one layer, once per
// server, and makes it act only for its own sessions.

// servingKey marks the contexts of sessions an Adapter serves; its value is
// a context that is done once the session's connection has ended. Requests
// without it (the server served by anything else) pass the layer untouched.
type servingKey struct{}

// endHandlers reports whether the layer must cancel a session's handlers
// when its connection ends. go-sdk does so itself from v1.7.0 on (jsonrpc2
// cancels the requests in flight when its reader stops); before, nothing
// cancels a handler that waits on its context, and Serve, which waits for
// the handlers, would never return. Where the release is unknown, the
// layer does it: cancelling twice is harmless. (Found out on first use, not
// at init, which every test binary importing the package pays for.)
var endHandlers = sync.OnceValue(func() bool { return release.Older(release.Linked(), "v1.7.0-pre.1") })

// layersKey counts the last-resort layers a request has entered; only the
// first (outermost) acts.
type layersKey struct{}

// lastResort is the receiving middleware layer. It recovers a panic no
// middleware inside it recovered (the server has no crash guard), answers
// the request with -32603 naming the panic, and hands the panic to the
// reporter in the context (the harness, which fails the test).
type lastResort struct{ next mcp.MethodHandler }

func (l lastResort) handle(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
	ended, ok := ctx.Value(servingKey{}).(context.Context)
	if !ok {
		return l.next(ctx, method, req)
	}
	if n, ok := ctx.Value(layersKey{}).(*int); ok {
		*n++ // an outer layer is already recovering: stay out of its way
		return l.next(ctx, method, req)
	}
	if endHandlers() {
		var cancel context.CancelCauseFunc
		ctx, cancel = context.WithCancelCause(ctx)
		defer cancel(nil)
		// The cause is the connection's end, io.EOF, as go-sdk v1.8.0
		// gives it.
		stop := context.AfterFunc(ended, func() { cancel(context.Cause(ended)) })
		defer stop()
	}
	layers := 1
	ctx = context.WithValue(ctx, layersKey{}, &layers)
	defer func() {
		v := recover()
		if v == nil {
			return
		}
		r := crash.Report{Method: method, Name: subject(req), Value: v, Stack: debug.Stack()}
		crash.Deliver(ctx, r)
		res, err = nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: r.String()}
	}()
	return l.next(ctx, method, req)
}

// addLastResort adds the lastResort layer to s unless it is already s's
// outermost receiving middleware, so that serving a server any number of
// times, through any number of Adapters, one after another or at once, adds
// it once. (AddReceivingMiddleware calls the middleware with the current
// outermost handler under the server's lock, so two Serves cannot both add
// it.) Middleware the server adds after its first Serve sits outside the
// layer, and the next Serve adds another outside that; only the outermost
// acts.
func addLastResort(s *mcp.Server) {
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		if isLastResort(next) {
			return next
		}
		return lastResort{next}.handle
	})
}

// isLastResort reports whether h is a lastResort layer. Every method value
// of lastResort.handle shares one code pointer, whatever its receiver.
func isLastResort(h mcp.MethodHandler) bool {
	return h != nil && reflect.ValueOf(h).Pointer() == reflect.ValueOf(lastResort{}.handle).Pointer()
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
