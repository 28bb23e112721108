package memtransport_test

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/mcptestkit/mcptestkit/memtransport"
)

func ExamplePair() {
	ctx := context.Background()
	client, server := memtransport.Pair()

	_ = client.Send(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	req, _ := server.Receive(ctx)
	fmt.Printf("server got %s\n", req)

	_ = server.Send(ctx, []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))
	_ = server.Close()
	resp, _ := client.Receive(ctx)
	fmt.Printf("client got %s\n", resp)

	_, err := client.Receive(ctx)
	fmt.Println(errors.Is(err, io.ErrClosedPipe))
	// Output:
	// server got {"jsonrpc":"2.0","id":1,"method":"ping"}
	// client got {"jsonrpc":"2.0","id":1,"result":{}}
	// true
}

func ExampleConn_Transcript() {
	ctx := context.Background()
	client, server := memtransport.Pair()
	defer client.Close()

	_ = client.Send(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	_ = server.Send(ctx, []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))
	_ = client.SendRaw(ctx, []byte(`{not json`))

	for _, e := range client.Transcript().Entries {
		fmt.Println(e.Seq, e.Dir, e.Raw, string(e.Data))
	}
	// Output:
	// 1 client→server false {"jsonrpc":"2.0","id":1,"method":"ping"}
	// 2 server→client false {"jsonrpc":"2.0","id":1,"result":{}}
	// 3 client→server true {not json
}

func ExampleWithFault() {
	ctx := context.Background()
	// Lose the server's first message, as if the network ate it.
	client, server := memtransport.Pair(memtransport.WithFault(func(f memtransport.Frame) memtransport.Action {
		return memtransport.Action{Drop: f.Dir == memtransport.ServerToClient && f.N == 1}
	}))
	defer client.Close()

	_ = server.Send(ctx, []byte(`{"lost":true}`))
	_ = server.Send(ctx, []byte(`{"lost":false}`))
	msg, _ := client.Receive(ctx)
	fmt.Printf("%s\n", msg)
	fmt.Println(client.Transcript().Entries[0].Note)
	// Output:
	// {"lost":false}
	// dropped
}

func ExampleConn_Stream() {
	ctx := context.Background()
	client, server := memtransport.Pair()
	defer client.Close()

	// A server that speaks newline-delimited JSON over a reader and a writer.
	_, _ = server.Stream().Write([]byte("{\"a\":1}\n{\"b\":2}\n"))
	for range 2 {
		msg, _ := client.Receive(ctx)
		fmt.Printf("%s\n", msg)
	}
	// Output:
	// {"a":1}
	// {"b":2}
}
