package client

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A request that runs out of time names itself and its timeout, is still a
// context.DeadlineExceeded, and the server hears why the client gave up.
func TestMatrixTimeoutNamesTheCall(t *testing.T) {
	matrix(t, func(t *testing.T, fx fixture, version string) {
		c, ctl := open(t, fx, version, &Options{Timeout: 20 * time.Millisecond})
		_, err := c.CallTool(t.Context(), "slow", nil)
		require.EqualError(t, err, `tools/call "slow": no response within 20ms`)
		require.ErrorIs(t, err, context.DeadlineExceeded)
		<-ctl.slowStarted
		require.ErrorIs(t, <-ctl.slowDone, context.Canceled, "the server's handler was cancelled")

		// WithTimeout overrides the default, and its own value is named.
		_, err = c.CallTool(t.Context(), "slow", nil, WithTimeout(30*time.Millisecond))
		require.EqualError(t, err, `tools/call "slow": no response within 30ms`)
		<-ctl.slowStarted
		<-ctl.slowDone

		// The caller's own deadline: the call is named, the cause is the
		// caller's (the client has no timeout of its own to report).
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
		defer cancel()
		_, err = c.CallTool(ctx, "slow", nil, WithTimeout(0))
		require.EqualError(t, err, `tools/call "slow": context deadline exceeded`)
		require.ErrorIs(t, err, context.DeadlineExceeded)
		<-ctl.slowStarted
		<-ctl.slowDone

		// The caller's deadline comes first: it is the one reported.
		ctx2, cancel2 := context.WithTimeout(t.Context(), 20*time.Millisecond)
		defer cancel2()
		_, err = c.CallTool(ctx2, "slow", nil, WithTimeout(time.Hour))
		require.EqualError(t, err, `tools/call "slow": context deadline exceeded`)
		<-ctl.slowStarted
		<-ctl.slowDone

		// A caller's cause is kept.
		why := errors.New("user pressed stop")
		ctx3, cancel3 := context.WithCancelCause(t.Context())
		go func() {
			<-ctl.slowStarted
			cancel3(why)
		}()
		_, err = c.CallTool(ctx3, "slow", nil)
		require.ErrorIs(t, err, why)
		require.EqualError(t, err, `tools/call "slow": user pressed stop`)
		<-ctl.slowDone
	})
}

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
		errc := make(chan error, 1)
		go func() { errc <- tc.call(t.Context()) }()
		m := f.expect(tc.method)
		err := <-errc
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
