package jsonrpc_test

import (
	"encoding/json"
	"fmt"

	"github.com/mcptestkit/mcptestkit/internal/jsonrpc"
)

func Example() {
	// The sender encodes once...
	req := jsonrpc.AppendRequest(nil, jsonrpc.Int64ID(1), "tools/list", json.RawMessage(`{"cursor":"c2"}`))
	fmt.Println(string(req))

	// ...and the receiver decodes once; params stay raw for the layer that
	// knows their shape.
	m, err := jsonrpc.Decode(req)
	if err != nil {
		panic(err)
	}
	fmt.Println(m.IsRequest(), m.ID, m.Method, string(m.Params))

	resp := jsonrpc.AppendError(nil, m.ID, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid cursor"})
	fmt.Println(string(resp))
	// Output:
	// {"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"c2"}}
	// true 1 tools/list {"cursor":"c2"}
	// {"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid cursor"}}
}
