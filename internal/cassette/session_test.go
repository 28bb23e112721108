package cassette_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/internal/cassette"
)

// Two sessions recorded at once through the HTTP proxy, their requests
// interleaved under the same ids: each answer pairs with its own session's
// request, and two live connections each play one session.
func TestSessionsPlayApart(t *testing.T) {
	text := `{"cassette":2,"transport":"http"}
{"dir":"c2s","ms":0,"session":1,"msg":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami"}}}
{"dir":"c2s","ms":0,"session":2,"msg":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami"}}}
{"dir":"s2c","ms":1,"session":2,"msg":{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"bob"}]}}}
{"dir":"s2c","ms":2,"session":1,"msg":{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"alice"}]}}}
{"dir":"c2s","ms":3,"session":2,"msg":{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"only_bob"}}}
{"dir":"s2c","ms":4,"session":2,"msg":{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"bob's"}]}}}
`
	c, err := cassette.Read(strings.NewReader(text))
	require.NoError(t, err)
	p, err := cassette.NewPlayer(c, cassette.PlayOptions{})
	require.NoError(t, err)
	call := func(conn *cassette.Conn, name string) string {
		out, miss := conn.Answer([]byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"` + name + `"}}`))
		require.Empty(t, miss)
		require.Len(t, out, 1)
		var m struct {
			Result struct {
				Content []struct{ Text string } `json:"content"`
			} `json:"result"`
		}
		require.NoError(t, json.Unmarshal(out[len(out)-1], &m), "%s", out)
		return m.Result.Content[0].Text
	}
	alice, bob := p.Conn(), p.Conn()
	assert.Equal(t, "alice", call(alice, "whoami"), "the first connection plays the first session")
	assert.Equal(t, "bob", call(bob, "whoami"), "the second, the second")
	assert.Equal(t, "alice", call(alice, "whoami"))
	assert.Equal(t, "bob's", call(alice, "only_bob"), "a request its session never made: another's answer")

	// Written back: version 2, the sessions kept; a recording of one
	// session is written as version 1.
	var b bytes.Buffer
	require.NoError(t, c.Write(&b))
	assert.Equal(t, text, b.String())
	for i := range c.Frames {
		c.Frames[i].Session = 0
	}
	b.Reset()
	require.NoError(t, c.Write(&b))
	assert.True(t, strings.HasPrefix(b.String(), `{"cassette":1,`), b.String())
	assert.NotContains(t, b.String(), "session")

	_, err = cassette.Read(strings.NewReader(`{"cassette":1}` + "\n" + `{"dir":"c2s","ms":0,"session":1,"msg":{"jsonrpc":"2.0","id":1,"method":"ping"}}`))
	assert.ErrorContains(t, err, "2: session 1: a version 1 cassette has none")
}
