package client

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/memtransport"
)

// Every kind of request names itself when it times out, and the
// notifications/cancelled the server gets gives the same reason.
func TestTimeoutNamesEveryRequest(t *testing.T) {
	c, f := modernFake(t, &Options{Timeout: 10 * time.Millisecond})
	cases := []struct {
		method string
		call   func(ctx context.Context) error
		want   string
	}{
		{"tools/list", func(ctx context.Context) error { _, err := c.ListTools(ctx, ""); return err },
			`tools/list: no response within 10ms`},
		{"resources/read", func(ctx context.Context) error { _, err := c.ReadResource(ctx, "file:///x"); return err },
			`resources/read "file:///x": no response within 10ms`},
		{"prompts/get", func(ctx context.Context) error {
			_, err := c.GetPrompt(ctx, "greet", nil, WithTimeout(15*time.Millisecond))
			return err
		}, `prompts/get "greet": no response within 15ms`},
		{"completion/complete", func(ctx context.Context) error {
			_, err := c.Complete(ctx, &CompleteRequest{Ref: PromptReference("greet"), Argument: "name"})
			return err
		}, `completion/complete: no response within 10ms`},
		{"x/custom", func(ctx context.Context) error { _, err := c.Call(ctx, "x/custom", nil); return err },
			`x/custom: no response within 10ms`},
	}
	for _, tc := range cases {
		// On a busy machine the timeout can expire before the request is
		// sent; the server then hears of nothing, and the call is made again.
		var err error
		for attempt := 0; ; attempt++ {
			require.Less(t, attempt, 100, "in 100 calls the %s request never went out before the call ended", tc.method)
			before := len(f.conn.Transcript().Entries)
			err = tc.call(t.Context())
			if sentSince(f.conn, before) {
				break
			}
			t.Logf("%s ended before its request was sent (%v); calling again", tc.method, err)
		}
		m := f.expect(tc.method)
		require.EqualError(t, err, tc.want)
		require.ErrorIs(t, err, context.DeadlineExceeded)
		cm := f.expect("notifications/cancelled")
		p := params(t, cm)
		assert.Equal(t, m.ID.String(), string(p["requestId"]))
		var reason string
		require.NoError(t, json.Unmarshal(p["reason"], &reason))
		_, cause, _ := strings.Cut(tc.want, ": ")
		assert.Equal(t, "the client stopped waiting: "+cause, reason)
	}
}

// sentSince reports whether the client sent anything on conn (the fake
// server's end) after its transcript held n entries.
func sentSince(conn *memtransport.Conn, n int) bool {
	for _, e := range conn.Transcript().Entries[n:] {
		if e.Dir == memtransport.ClientToServer {
			return true
		}
	}
	return false
}
