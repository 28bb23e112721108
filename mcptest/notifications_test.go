package mcptest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client"
)

// chattyServer is a server whose "import" tool logs at three levels and
// reports progress, and whose resource "books://dune" can be subscribed to.
func chattyServer() *fakeServer {
	return &fakeServer{name: "chatty", resources: map[string]string{"books://dune": "Dune"}, tools: []*fakeTool{
		newTool("import", func(ctx context.Context, c *fakeCall) (*fakeResult, error) {
			for _, m := range []struct {
				level string
				data  any
			}{{"debug", "reading the catalogue"}, {"info", "imported 2 books"}, {"warning", map[string]any{"skipped": 1}}} {
				if err := c.log(ctx, m.level, "import", m.data); err != nil {
					return nil, err
				}
			}
			for i := 1; i <= 2; i++ {
				if err := c.progress(ctx, float64(i), 2); err != nil {
					return nil, err
				}
			}
			return fakeText("done"), nil
		}),
	}}
}

func logData(t *testing.T, logs []client.LogMessage) []string {
	t.Helper()
	out := make([]string, len(logs))
	for i, l := range logs {
		out[i] = fmt.Sprintf("%s %s %s", l.Level, l.Logger, l.Data)
	}
	return out
}

// Log messages the server sends through its session while it serves a call
// are recorded by the time the call returns, at every version, filtered by
// the level the test asked for.
func TestRecordNotificationsLogs(t *testing.T) {
	t.Parallel()
	EachVersion(t, func(t *testing.T, version string) {
		t.Parallel()
		var n Notifications
		c := Connect(t, chattyServer(), WithProtocolVersion(version), WithClient(client.Options{LogLevel: client.LevelInfo}), RecordNotifications(&n))
		res, err := c.CallTool(t.Context(), "import", nil)
		require.NoError(t, err)
		Assert(t).Text(res, "done")
		assert.Equal(t, []string{`info import "imported 2 books"`, `warning import {"skipped":1}`}, logData(t, n.Logs()))
		assert.Equal(t, 2, n.Count("notifications/message"))
		all := n.All()
		require.Len(t, all, 2)
		assert.Equal(t, "notifications/message", all[0].Method)
		assert.JSONEq(t, `{"level":"info","logger":"import","data":"imported 2 books"}`, string(all[0].Params))
	})
}

// Without client.Options.LogLevel a 2026-07-28 server sends no log messages at all.
func TestNoLogLevelNoLogs(t *testing.T) {
	t.Parallel()
	var n Notifications
	c := Connect(t, chattyServer(), WithProtocolVersion(client.LatestVersion), RecordNotifications(&n))
	_, err := c.CallTool(t.Context(), "import", nil)
	require.NoError(t, err)
	assert.Empty(t, n.Logs())
}

func TestLogLevelRejectsAnUnknownLevel(t *testing.T) {
	t.Parallel()
	f := runFake(t, func(tb testing.TB) { Connect(tb, probeServer(), WithClient(client.Options{LogLevel: "loud"})) })
	f.expectFailure(t, `unknown log level "loud"`)
}

// Progress is recorded, and the user's own handlers (here the call's
// progress callback and an OnNotification) still run.
func TestRecordNotificationsProgressAndOwnHandlers(t *testing.T) {
	t.Parallel()
	var n Notifications
	var own []string
	c := Connect(t, chattyServer(), RecordNotifications(&n),
		WithClient(client.Options{
			OnNotification: func(method string, _ json.RawMessage) { own = append(own, method) },
		}))
	var seen []float64
	_, err := c.CallTool(t.Context(), "import", nil, client.WithProgress(func(p client.Progress) { seen = append(seen, p.Progress) }))
	require.NoError(t, err)
	assert.Equal(t, []float64{1, 2}, seen)
	progress := n.Progress()
	require.Len(t, progress, 2)
	assert.Equal(t, 2.0, progress[1].Progress)
	assert.Equal(t, 2.0, progress[1].Total)
	assert.Equal(t, []string{"notifications/progress", "notifications/progress"}, own)
}

// Notifications the server sends on its own time are waited for: a list
// change and a resource update, in both eras (a legacy server sends them
// to every session, a 2026-07-28 one to a subscriptions/listen stream).
func TestRecordNotificationsWaitForChanges(t *testing.T) {
	t.Parallel()
	for _, version := range []string{client.LatestVersion, client.LatestLegacyVersion} {
		t.Run(version, func(t *testing.T) {
			t.Parallel()
			srv := chattyServer()
			var n Notifications
			c := Connect(t, srv, WithProtocolVersion(version), RecordNotifications(&n))
			sub, err := c.Listen(t.Context(), client.ListenFilter{ToolsListChanged: true, ResourceSubscriptions: []string{"books://dune"}})
			require.NoError(t, err)
			t.Cleanup(func() { _ = sub.Close() })

			// From another goroutine, as a server's background work would.
			sent := make(chan error, 1)
			go func() {
				if err := srv.notify("notifications/tools/list_changed", nil); err != nil {
					sent <- err
					return
				}
				sent <- srv.notify("notifications/resources/updated", map[string]any{"uri": "books://dune"})
			}()
			u, err := n.Wait(t.Context(), "notifications/resources/updated")
			require.NoError(t, err)
			assert.Equal(t, "books://dune", u.URI)
			_, err = n.Wait(t.Context(), "notifications/tools/list_changed")
			require.NoError(t, err)
			require.NoError(t, <-sent)

			// WaitFunc picks by content; Clear starts afresh.
			got, err := n.WaitFunc(t.Context(), func(r Notification) bool { return r.URI == "books://dune" })
			require.NoError(t, err)
			assert.Equal(t, "notifications/resources/updated", got.Method)
			n.Clear()
			assert.Empty(t, n.All())
		})
	}
}

// A notification that never comes fails the wait with what did come,
// bounded by ctx, by the connection's timeout, or by its end.
func TestNotificationsWaitGivesUp(t *testing.T) {
	t.Parallel()
	var n Notifications
	c := Connect(t, chattyServer(), WithProtocolVersion(client.LatestLegacyVersion), WithClient(client.Options{LogLevel: client.LevelWarning, Timeout: 2 * time.Second}), RecordNotifications(&n))
	_, err := c.CallTool(t.Context(), "import", nil)
	require.NoError(t, err)

	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	_, err = n.Wait(ctx, "notifications/tools/list_changed")
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.EqualError(t, err, "mcptest: waiting for notifications/tools/list_changed: context deadline exceeded (notifications recorded: notifications/message)")

	// With no deadline of its own, the connection's timeout bounds it.
	_, err = n.WaitFunc(context.Background(), func(Notification) bool { return false })
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.ErrorContains(t, err, "no answer within the connection's timeout, 2s")

	// Once the connection has ended, nothing more can come.
	require.NoError(t, c.Close())
	_, err = n.Wait(context.Background(), "notifications/tools/list_changed")
	assert.ErrorContains(t, err, "the connection ended")
	assert.False(t, errors.Is(err, context.DeadlineExceeded))
}
