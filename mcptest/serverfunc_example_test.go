package mcptest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/mcptestkit/mcptestkit/mcptest"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

// Any server that can serve one end of a connection is a Server: here an
// MCP server written by hand, with no SDK, that greets.
func ExampleServerFunc() {
	runTest(func(t testing.TB) { // t stands in for the test's *testing.T; it prints what the test reports.
		c := mcptest.Connect(t, mcptest.ServerFunc(greeter))
		fmt.Println(c.ProtocolVersion(), c.ServerInfo().Name)

		list, err := c.ListTools(t.Context(), "")
		if err != nil {
			t.Fatal(err)
		}
		fmt.Println(list.Tools[0].Name, string(list.Tools[0].InputSchema))

		for _, args := range []map[string]any{{"name": "Ada"}, {}} {
			res, err := c.CallTool(t.Context(), "greet", args)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Println(res)
		}
	})
	// Output:
	// 2025-11-25 greeter
	// greet {"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}
	// {isError:false content:["Hello, Ada"]}
	// {isError:true content:["greet needs a name"]}
}

// greeter serves one connection: the legacy handshake (initialize), ping,
// logging/setLevel, and one tool, "greet", which logs at level info when
// the client asked for info or debug. It answers every other request
// -32601 (server/discover too, which makes the client fall back to
// initialize), and returns when the connection closes. Its tool has no
// description, which the protocol allows and CheckServer warns of (see
// its example).
func greeter(ctx context.Context, conn *memtransport.Conn) error {
	logLevel := "" // no log messages until the client sets a level
	for {
		msg, err := conn.Receive(ctx)
		if err != nil {
			return err // memtransport.ErrClosed: the client has gone
		}
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if err := json.Unmarshal(msg, &req); err != nil {
			if err := reply(ctx, conn, []byte("null"), nil, &rpcError{-32700, "parse error"}); err != nil {
				return err
			}
			continue
		}
		if req.ID == nil {
			continue // a notification: notifications/initialized, notifications/cancelled
		}
		var result any
		var rpcErr *rpcError
		switch req.Method {
		case "initialize":
			var p struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			_ = json.Unmarshal(req.Params, &p)
			version := "2025-11-25" // the newest it speaks, unless the client asks for an older one
			switch p.ProtocolVersion {
			case "2024-11-05", "2025-03-26", "2025-06-18":
				version = p.ProtocolVersion
			}
			result = map[string]any{
				"protocolVersion": version,
				"capabilities":    map[string]any{"tools": map[string]any{}, "logging": map[string]any{}},
				"serverInfo":      map[string]any{"name": "greeter", "version": "v1.0.0"},
			}
		case "ping":
			result = map[string]any{}
		case "logging/setLevel":
			var p struct {
				Level string `json:"level"`
			}
			_ = json.Unmarshal(req.Params, &p)
			switch p.Level {
			case "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency":
				logLevel, result = p.Level, map[string]any{}
			default:
				rpcErr = &rpcError{-32602, fmt.Sprintf("invalid log level %q", p.Level)}
			}
		case "tools/list":
			result = map[string]any{"tools": []any{map[string]any{
				"name":        "greet",
				"inputSchema": json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`),
			}}}
		case "tools/call":
			var p struct {
				Name      string `json:"name"`
				Arguments struct {
					Name *string `json:"name"`
				} `json:"arguments"`
			}
			switch err := json.Unmarshal(req.Params, &p); {
			case p.Name != "greet":
				rpcErr = &rpcError{-32602, fmt.Sprintf("unknown tool %q", p.Name)}
			case err != nil || p.Arguments.Name == nil:
				// A tool's failure is a result the model reads, not a protocol error.
				result = map[string]any{"isError": true, "content": []any{map[string]any{"type": "text", "text": "greet needs a name"}}}
			default:
				if logLevel == "debug" || logLevel == "info" {
					log := map[string]any{"level": "info", "data": "greeting " + *p.Arguments.Name}
					if err := notify(ctx, conn, "notifications/message", log); err != nil {
						return err
					}
				}
				result = map[string]any{"content": []any{map[string]any{"type": "text", "text": "Hello, " + *p.Arguments.Name}}}
			}
		default:
			rpcErr = &rpcError{-32601, "method not found: " + req.Method}
		}
		if err := reply(ctx, conn, req.ID, result, rpcErr); err != nil {
			return err
		}
	}
}

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// reply sends the response to the request with id id: its result, or err.
func reply(ctx context.Context, conn *memtransport.Conn, id json.RawMessage, result any, err *rpcError) error {
	msg := map[string]any{"jsonrpc": "2.0", "id": id}
	if err != nil {
		msg["error"] = err
	} else {
		msg["result"] = result
	}
	b, _ := json.Marshal(msg)
	return conn.Send(ctx, b)
}

// notify sends a notification.
func notify(ctx context.Context, conn *memtransport.Conn, method string, params any) error {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
	return conn.Send(ctx, b)
}
