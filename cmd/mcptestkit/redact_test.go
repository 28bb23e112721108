package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/internal/cassette"
)

// What the recorder writes of a session holds no secret: not in the
// header's copy of the server's identity, not in a repeated member, not
// in the literal of a --redact, which the header does not keep either.
func TestRecorderWritesNoSecret(t *testing.T) {
	token := "ghp_" + strings.Repeat("aB3dE5gH7jK9mN1pQ2sT4vW6yZ8", 2)[:36]
	rec, err := newRecorder("stdio", &cassette.Redaction{Names: []string{"ssn"}, Patterns: []string{"hunter2"}})
	require.NoError(t, err)
	rec.add("", cassette.ClientToServer, []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`))
	rec.add("", cassette.ServerToClient, []byte(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"notes `+token+`","version":"1"}}}`))
	rec.add("", cassette.ClientToServer, []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"login","arguments":{"password":"s3cr3t-first","password":"","note":"hunter2 is it","ssn":"078-05-1120"}}}`))
	c := rec.finish()
	require.NotNil(t, c.Header.Server)
	head, _ := json.Marshal(c.Header)
	var all strings.Builder
	all.Write(head)
	for _, f := range c.Frames {
		all.Write(f.Msg)
	}
	for _, secret := range []string{token, "s3cr3t-first", "hunter2", "078-05-1120"} {
		assert.NotContains(t, all.String(), secret)
	}
	assert.Contains(t, string(head), `"redact":{"names":["ssn"],"withheld":1}`)
	assert.NotContains(t, rec.red.Summary(), "hunter2")
}
