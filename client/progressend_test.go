package client

import (
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Progress the client reads after the response is dropped: once the
// response is in, its token is finished (progress stops at completion),
// however soon the caller gets to run. (Before: the reader ran the handler
// for the 5 notifications that followed the response, too.)
func TestProgressAfterResponseDropped(t *testing.T) {
	c, f := legacyFake(t, Version20251125, nil)
	var calls atomic.Int32
	out := make(chan error, 1)
	go func() {
		_, err := c.CallTool(t.Context(), "t", nil, WithProgress(func(Progress) { calls.Add(1) }))
		out <- err
	}()
	m := f.expect(methodCallTool)
	var p struct {
		Meta struct {
			ProgressToken json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
	}
	require.NoError(t, json.Unmarshal(m.Params, &p))
	token := string(p.Meta.ProgressToken)
	progress := func(n int) {
		f.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":%s,"progress":%d}}`, token, n))
	}
	progress(1)
	f.reply(m.ID, `{"content":[]}`)
	for i := range 5 {
		progress(2 + i)
	}
	require.NoError(t, returns(t, "CallTool", func() error { return <-out }))
	f.pingSync() // the client has read everything the server sent
	assert.Equal(t, int32(1), calls.Load(), "the handler ran for the progress before the response only")
}
