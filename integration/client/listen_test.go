package client_test

import (
	"context"
	"slices"
	"testing"

	. "github.com/mcptestkit/mcptestkit/client"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// noEvent checks that no event arrived before a round trip that started
// after the thing that must not have caused one: the server writes a
// notification before a later response, and the client handles messages in
// order.
func noEvent(t *testing.T, c *Client, events <-chan string) {
	t.Helper()
	_, err := c.CallTool(t.Context(), "echo", map[string]any{"text": "sync"})
	require.NoError(t, err)
	select {
	case got := <-events:
		t.Fatalf("unexpected event %q", got)
	default:
	}
}

// Listen is era-neutral: subscriptions/listen on 2026-07-28, the legacy
// notifications plus resources/subscribe before.
func TestMatrixListen(t *testing.T) {
	matrix(t, func(t *testing.T, fx fixture, version string) {
		events := make(chan string, 16)
		c, ctl := open(t, fx, version, eventOptions(events))
		ctx := t.Context()
		sub, err := c.Listen(ctx, ListenFilter{
			ToolsListChanged: true, PromptsListChanged: true, ResourcesListChanged: true,
			ResourceSubscriptions: []string{"file:///hello.txt"},
		})
		require.NoError(t, err)
		assert.Equal(t, ListenFilter{
			ToolsListChanged: true, PromptsListChanged: true, ResourcesListChanged: true,
			ResourceSubscriptions: []string{"file:///hello.txt"},
		}, sub.Accepted())
		assert.NoError(t, sub.Err())

		ctl.addTool("new_tool")
		expectEvent(t, events, "tools")
		ctl.addPrompt("new_prompt")
		expectEvent(t, events, "prompts")
		ctl.addResource("file:///new.txt")
		expectEvent(t, events, "resources")
		ctl.updated("file:///hello.txt")
		expectEvent(t, events, "updated file:///hello.txt")
		ctl.updated("file:///blob.bin") // not subscribed
		noEvent(t, c, events)

		require.NoError(t, sub.Close())
		<-sub.Done()
		assert.NoError(t, sub.Err())
		ctl.updated("file:///hello.txt")
		noEvent(t, c, events)
		require.NoError(t, sub.Close(), "second Close")
	})
}

func TestMatrixListenEndsWithConnection(t *testing.T) {
	matrix(t, func(t *testing.T, fx fixture, version string) {
		c, _ := open(t, fx, version, nil)
		sub, err := c.Listen(t.Context(), ListenFilter{ToolsListChanged: true, ResourceSubscriptions: []string{"file:///hello.txt"}})
		require.NoError(t, err)
		require.NoError(t, c.Close())
		<-sub.Done()
		assert.ErrorIs(t, sub.Err(), ErrClosed)
		_, err = c.Listen(t.Context(), ListenFilter{ToolsListChanged: true})
		assert.ErrorIs(t, err, ErrClosed)
	})
}

func TestMatrixSubscribe(t *testing.T) {
	matrix(t, func(t *testing.T, fx fixture, version string) {
		events := make(chan string, 16)
		c, ctl := open(t, fx, version, eventOptions(events))
		ctx := t.Context()
		err := c.Subscribe(ctx, "file:///hello.txt")
		if c.IsModern() {
			require.ErrorContains(t, err, "use Listen")
			require.Error(t, c.Unsubscribe(ctx, "file:///hello.txt"))
			require.Error(t, c.NotifyRootsListChanged(ctx))
			return
		}
		require.NoError(t, err)
		ctl.updated("file:///hello.txt")
		expectEvent(t, events, "updated file:///hello.txt")
		require.NoError(t, c.Unsubscribe(ctx, "file:///hello.txt"))
		ctl.updated("file:///hello.txt")
		noEvent(t, c, events)
		require.NoError(t, c.NotifyRootsListChanged(ctx))
	})
}

// Legacy servers send list changes without any subscription.
func TestMatrixLegacyListChangedWithoutListen(t *testing.T) {
	matrix(t, func(t *testing.T, fx fixture, version string) {
		events := make(chan string, 16)
		c, ctl := open(t, fx, version, eventOptions(events))
		ctl.addTool("another")
		if c.IsModern() {
			// Only a listen stream must carry it (go-sdk keeps to that;
			// mcp-go over a stream transport sends it anyway).
			if fx.name == "gosdk" {
				noEvent(t, c, events)
			}
			return
		}
		expectEvent(t, events, "tools")
	})
}

func TestMatrixPagination(t *testing.T) {
	for _, fx := range fixtures {
		for _, v := range versionCases {
			t.Run(fx.name+"/"+versionName(v), func(t *testing.T) {
				t.Parallel()
				srv, _ := fx.newServer(t, 2)
				c, _ := connect(t, srv, &Options{ProtocolVersion: v})
				ctx := t.Context()
				first, err := c.ListTools(ctx, "")
				require.NoError(t, err)
				require.Len(t, first.Tools, 2)
				require.NotEmpty(t, first.NextCursor)
				require.True(t, first.HasNextPage())
				second, err := c.ListTools(ctx, first.NextCursor)
				require.NoError(t, err)
				assert.NotEqual(t, first.Tools[0].Name, second.Tools[0].Name)

				// By hand, page by page, until there is no next page.
				var byHand []string
				for page := first; ; {
					for _, tool := range page.Tools {
						byHand = append(byHand, tool.Name)
					}
					if !page.HasNextPage() {
						assert.Empty(t, page.NextCursor)
						break
					}
					page, err = c.ListTools(ctx, page.NextCursor)
					require.NoError(t, err)
				}

				var all []string
				for tool, err := range c.Tools(ctx) {
					require.NoError(t, err)
					all = append(all, tool.Name)
				}
				assert.Equal(t, byHand, all)
				// Every tool once, across at least five pages of two.
				assert.GreaterOrEqual(t, len(all), 9)
				assert.Len(t, all, len(slices.Compact(slices.Sorted(slices.Values(all)))))
				assert.Contains(t, all, "echo")
				assert.Contains(t, all, "slow")
				// Stopping early stops fetching.
				n := 0
				for range c.Tools(ctx) {
					n++
					if n == 3 {
						break
					}
				}
				assert.Equal(t, 3, n)
				ctxDone, cancel := context.WithCancel(ctx)
				cancel()
				for tool, err := range c.Tools(ctxDone) {
					assert.Nil(t, tool)
					assert.ErrorIs(t, err, context.Canceled)
				}
			})
		}
	}
}
