package adaptertest

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

// Text returns the text of a result's first content, which must be text.
func Text(t testing.TB, res *client.CallToolResult) string {
	t.Helper()
	require.NotEmpty(t, res.Content)
	tc, ok := res.Content[0].(*client.TextContent)
	require.True(t, ok, "content is %T", res.Content[0])
	return tc.Text
}

// WireError returns the JSON-RPC error err carries (code, message and
// data, without the client's note of the request it answered), and fails
// the test at once if it carries none.
func WireError(t testing.TB, err error) *client.Error {
	t.Helper()
	var we *client.Error
	require.ErrorAs(t, err, &we)
	return &client.Error{Code: we.Code, Message: we.Message, Data: we.Data}
}

// ProgressOrder reads a transcript and counts the tools/call requests that
// carried a progress token and got a response (calls), and how many of those
// responses went out before the progress notification for their token
// (late).
func ProgressOrder(t testing.TB, tr memtransport.Transcript) (calls, late int) {
	t.Helper()
	type frame struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Meta struct {
				ProgressToken any `json:"progressToken"`
			} `json:"_meta"`
			ProgressToken any `json:"progressToken"`
		} `json:"params"`
	}
	tokenOf := map[string]any{} // request id -> progress token
	notified := map[any]bool{}
	for _, e := range tr.Entries {
		var f frame
		require.NoError(t, json.Unmarshal(e.Data, &f), "frame %d", e.Seq)
		switch {
		case e.Dir == memtransport.ClientToServer && f.Method == "tools/call" && f.Params.Meta.ProgressToken != nil:
			tokenOf[string(f.ID)] = f.Params.Meta.ProgressToken
		case e.Dir == memtransport.ServerToClient && f.Method == "notifications/progress":
			notified[f.Params.ProgressToken] = true
		case e.Dir == memtransport.ServerToClient && f.Method == "":
			if tok, ok := tokenOf[string(f.ID)]; ok {
				calls++
				if !notified[tok] {
					late++
				}
			}
		}
	}
	return calls, late
}
