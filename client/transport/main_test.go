package transport_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/mcptestkit/mcptestkit/internal/jsonrpc"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// conn is what both transports offer; the helpers below take it.
type conn interface {
	Send(ctx context.Context, msg []byte) error
	Receive(ctx context.Context) ([]byte, error)
	Close() error
}

// send encodes m and sends it.
func send(t testing.TB, c conn, m *jsonrpc.Message) {
	t.Helper()
	b, err := jsonrpc.Encode(m)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	require.NoError(t, c.Send(ctx, b), "sending %s", b)
}

// recv receives and decodes the next message.
func recv(t testing.TB, c conn) *jsonrpc.Message {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	b, err := c.Receive(ctx)
	require.NoError(t, err)
	m, err := jsonrpc.Decode(b)
	require.NoError(t, err, "decoding %s", b)
	return m
}

// recvResponse receives until the response to id, returning it and the
// messages that came before it.
func recvResponse(t testing.TB, c conn, id jsonrpc.ID) (*jsonrpc.Message, []*jsonrpc.Message) {
	t.Helper()
	var before []*jsonrpc.Message
	for {
		m := recv(t, c)
		if m.IsResponse() && m.ID.String() == id.String() {
			return m, before
		}
		before = append(before, m)
	}
}

// request builds a request with params marshalled from p.
func request(t testing.TB, id int64, method string, p any) *jsonrpc.Message {
	t.Helper()
	m := &jsonrpc.Message{ID: jsonrpc.Int64ID(id), Method: method}
	if p != nil {
		b, err := json.Marshal(p)
		require.NoError(t, err)
		m.Params = b
	}
	return m
}

// notification builds a notification with params marshalled from p.
func notification(t testing.TB, method string, p any) *jsonrpc.Message {
	t.Helper()
	m := &jsonrpc.Message{Method: method}
	if p != nil {
		b, err := json.Marshal(p)
		require.NoError(t, err)
		m.Params = b
	}
	return m
}

// initializeParams is a legacy initialize request's params at version v.
func initializeParams(v string) map[string]any {
	return map[string]any{
		"protocolVersion": v,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "transport-test", "version": "1.0.0"},
	}
}

// result decodes a successful response's result into a map.
func result(t testing.TB, m *jsonrpc.Message) map[string]any {
	t.Helper()
	require.Nil(t, m.Error, "response %s is an error", m.ID)
	var r map[string]any
	require.NoError(t, json.Unmarshal(m.Result, &r))
	return r
}

// legacyHandshake runs initialize + notifications/initialized at version v
// and returns the initialize result.
func legacyHandshake(t testing.TB, c conn, v string) map[string]any {
	t.Helper()
	send(t, c, request(t, 1, "initialize", initializeParams(v)))
	resp, _ := recvResponse(t, c, jsonrpc.Int64ID(1))
	r := result(t, resp)
	send(t, c, notification(t, "notifications/initialized", nil))
	return r
}
