package client

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/mcptestkit/mcptestkit/internal/jsonrpc"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

// FuzzClientFrames feeds arbitrary server frames (the input split at
// newlines) to a connected legacy client with two calls in flight: a
// tools/call with a progress handler (token 2, request id 3) and a ping (id
// 4), and every callback set. Whatever arrives, nothing panics, every call
// ends (by the frames, or by Close), and Close returns.
func FuzzClientFrames(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"hi"}]}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":2,"progress":1}}` + "\n" +
			`{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"bad"}}` + "\n" +
			`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":2,"progress":2}}`,
		`{"jsonrpc":"2.0","id":9,"method":"roots/list"}` + "\n" + `{"jsonrpc":"2.0","id":9,"method":"roots/list"}`,
		`{"jsonrpc":"2.0","id":"s","method":"sampling/createMessage","params":{"messages":[],"maxTokens":1}}`,
		`{"jsonrpc":"2.0","id":1.0,"result":{}}` + "\n" + `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse"}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"t"}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}`,
		`[{"jsonrpc":"2.0","id":4,"result":{}}]` + "\n" + `{"jsonrpc":"2.0","id":4,"res`,
		`{"jsonrpc":"2.0","id":99999999999999999999999,"result":{}}` + "\n" + `{"jsonrpc":"2.0","id":"3","result":{}}`,
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":{"a":1}}}` + "\n" + `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":7}}`,
		`{"jsonrpc":"2.0","id":4,"result":{}}` + "\n" + `{"jsonrpc":"2.0","id":4,"result":{}}`,
		`{"jsonrpc":"2.0","id":5,"method":"elicitation/create","params":{"message":"?","requestedSchema":{"type":"object"}}}` + "\n" +
			`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}`,
		"\x00\xff{}\n\n   \n{",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ce, se := memtransport.Pair(memtransport.WithTranscriptLimit(0), memtransport.WithMaxMessageSize(0))
		defer se.Close()
		opts := &Options{
			ProtocolVersion: Version20251125,
			ListRoots:       func(context.Context) ([]*Root, error) { return []*Root{{URI: "file:///r"}}, nil },
			Elicit: func(context.Context, *ElicitRequest) (*ElicitResult, error) {
				return &ElicitResult{Action: ElicitDecline}, nil
			},
			CreateMessage: func(ctx context.Context, _ *CreateMessageRequest) (*CreateMessageResult, error) {
				return nil, ctx.Err()
			},
			OnLog:             func(*LogMessage) {},
			OnResourceUpdated: func(string) {},
			OnNotification:    func(string, json.RawMessage) {},
		}
		type connected struct {
			c   *Client
			err error
		}
		cc := make(chan connected, 1)
		go func() {
			c, err := Connect(context.Background(), ce, opts)
			cc <- connected{c, err}
		}()
		ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
		defer cancel()
		recv := func() *jsonrpc.Message {
			b, err := se.Receive(ctx)
			if err != nil {
				t.Fatalf("the fake server expected a message: %v", err)
			}
			m, err := jsonrpc.Decode(b)
			if err != nil {
				t.Fatal(err)
			}
			return m
		}
		m := recv()
		se.Send(ctx, jsonrpc.AppendResult(nil, m.ID, []byte(`{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"f","version":"1"}}`)))
		recv() // notifications/initialized
		r := <-cc
		if r.err != nil {
			t.Fatal(r.err)
		}
		c := r.c
		calls := make(chan error, 2)
		go func() {
			_, err := c.CallTool(context.Background(), "t", nil, WithProgress(func(Progress) {}))
			calls <- err
		}()
		if m := recv(); m.ID.String() != "3" {
			t.Fatalf("the call's id is %s, not 3", m.ID)
		}
		go func() { calls <- c.Ping(context.Background()) }()
		recv()
		// What the client sends from now on is read and dropped.
		go func() {
			for {
				if _, err := se.Receive(context.Background()); err != nil {
					return
				}
			}
		}()
		for frame := range bytes.SplitSeq(data, []byte("\n")) {
			if se.SendRaw(ctx, frame) != nil {
				t.Fatal("the client stopped reading")
			}
		}
		closed := make(chan error, 1)
		go func() { closed <- c.Close() }()
		for range 2 {
			select {
			case <-calls:
			case <-ctx.Done():
				t.Fatal("a call did not end after Close")
			}
		}
		select {
		case <-closed:
		case <-time.After(hangGuard):
			t.Fatal("Close did not return")
		}
	})
}
