package servercheck_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcptestkit/mcptestkit/mcptest/servercheck"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

// A program checks a server of its own process: here one written by hand,
// which speaks the legacy handshake and ping and answers every other
// request -32601. An SDK's server is checked the same way through its
// adapter: servercheck.InProcess(gosdktest.Server(srv)).
func ExampleInProcess() {
	err := servercheck.Run(context.Background(), servercheck.InProcess(pinger{}), &servercheck.Options{
		Run:      "^(ping|unknown-method)$",
		OnResult: func(r servercheck.Result) { fmt.Println(r.Name, r.Status) },
	})
	fmt.Println("error:", err)
	// Output:
	// ping pass
	// unknown-method pass
	// error: <nil>
}

// pinger serves one connection until it closes, as Serve must.
type pinger struct{}

func (pinger) Serve(ctx context.Context, conn *memtransport.Conn) error {
	for {
		msg, err := conn.Receive(ctx)
		if err != nil {
			return err // the connection closed
		}
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(msg, &req) != nil || req.ID == nil {
			continue // a notification
		}
		res := map[string]any{"jsonrpc": "2.0", "id": req.ID}
		switch req.Method {
		case "initialize":
			res["result"] = map[string]any{
				"protocolVersion": "2025-11-25",
				"capabilities":    map[string]any{},
				"serverInfo":      map[string]any{"name": "pinger", "version": "v1.0.0"},
			}
		case "ping":
			res["result"] = map[string]any{}
		default:
			res["error"] = map[string]any{"code": -32601, "message": "method not found: " + req.Method}
		}
		b, _ := json.Marshal(res)
		if err := conn.Send(ctx, b); err != nil {
			return err
		}
	}
}
