package cassette_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/internal/cassette"
)

func TestRoundTrip(t *testing.T) {
	c := &cassette.Cassette{
		Header: cassette.Header{ProtocolVersion: "2025-11-25", Server: &cassette.Info{Name: "notes", Version: "v1"}, Transport: "stdio"},
		Frames: []cassette.Frame{
			{Dir: cassette.ClientToServer, Ms: 0, Msg: json.RawMessage(`{"jsonrpc":"2.0", "id":1,"method":"ping"}`)},
			{Dir: cassette.ServerToClient, Ms: 2, Msg: json.RawMessage(`{"jsonrpc":"2.0","id":1,"result":{}}`)},
		},
	}
	var b bytes.Buffer
	require.NoError(t, c.Write(&b))
	assert.Equal(t, `{"cassette":1,"protocolVersion":"2025-11-25","server":{"name":"notes","version":"v1"},"transport":"stdio"}
{"dir":"c2s","ms":0,"msg":{"jsonrpc":"2.0","id":1,"method":"ping"}}
{"dir":"s2c","ms":2,"msg":{"jsonrpc":"2.0","id":1,"result":{}}}
`, b.String())
	got, err := cassette.Read(&b)
	require.NoError(t, err)
	assert.Equal(t, c.Header.Server, got.Header.Server)
	assert.Len(t, got.Frames, 2)
}

// A tampered or broken file fails naming its line.
func TestReadRefuses(t *testing.T) {
	head := `{"cassette":1}` + "\n"
	ok := `{"dir":"c2s","ms":1,"msg":{"jsonrpc":"2.0","id":1,"method":"ping"}}` + "\n"
	for _, tc := range []struct{ name, text, want string }{
		{"empty", "", "1: empty: no cassette header"},
		{"not a header", `{"dir":"c2s"}` + "\n", `1: not a cassette header: json: unknown field "dir"`},
		{"version", `{"cassette":3}` + "\n", "1: cassette version 3, this build reads versions 1 to 2"},
		{"direction", head + ok + `{"dir":"up","ms":1,"msg":{"jsonrpc":"2.0","id":1,"method":"ping"}}`, `3: dir is "up"`},
		{"time", head + ok + `{"dir":"s2c","ms":0,"msg":{"jsonrpc":"2.0","id":1,"result":{}}}`, "3: ms 0 goes back in time"},
		{"message", head + `{"dir":"s2c","ms":0,"msg":{"id":1,"result":{}}}`, "2: msg is not a JSON-RPC 2.0 message"},
		{"truncated", head + `{"dir":"s2c","ms":0,"msg":{"jsonrpc":"2.0","id":1,"res`, "2: not a message line"},
		{"extra member", head + `{"dir":"s2c","ms":0,"msg":{"jsonrpc":"2.0","id":1,"result":{}},"x":1}`, `2: not a message line: json: unknown field "x"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := cassette.Read(strings.NewReader(tc.text))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			var le *cassette.LineError
			assert.True(t, errors.As(err, &le))
		})
	}
}
