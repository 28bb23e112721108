package interactive_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/examples/interactive"
	"github.com/mcptestkit/mcptestkit/gosdk/gosdktest"
	"github.com/mcptestkit/mcptestkit/guard"
	"github.com/mcptestkit/mcptestkit/logcapture"
	"github.com/mcptestkit/mcptestkit/mcptest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var shopAPI = map[string]any{"service": "shop-api", "environment": "production"}

// The user confirms, at every version that has elicitation. The callback
// given as client.Options.Elicit answers in both eras: a 2026-07-28 client runs
// it for the input request and retries the call, a legacy client runs it
// for the server's elicitation/create request. The test cannot tell which
// happened, which is the point.
func TestDeployConfirmed(t *testing.T) {
	t.Parallel()
	mcptest.EachVersion(t, func(t *testing.T, version string) {
		t.Parallel()
		logs := logcapture.New(t)
		var asked atomic.Int32
		c := mcptest.Connect(t, gosdktest.Server(interactive.New(logs.Logger())),
			mcptest.WithClient(client.Options{Elicit: func(_ context.Context, req *client.ElicitRequest) (*client.ElicitResult, error) {
				asked.Add(1)
				assert.Equal(t, "form", req.Mode)
				assert.Equal(t, "Deploy shop-api to production?", req.Message)
				assert.JSONEq(t, `{"type":"object","properties":{"confirm":{"type":"boolean","title":"Deploy","description":"Tick to deploy now."}},"required":["confirm"]}`, string(req.RequestedSchema))
				return &client.ElicitResult{Action: client.ElicitAccept, Content: map[string]any{"confirm": true}}, nil
			}}))

		res, err := c.CallTool(t.Context(), "deploy", shopAPI)
		require.NoError(t, err)
		mcptest.Assert(t).ToolSuccess(res)
		mcptest.Assert(t).Text(res, "Deployed shop-api to production.")
		mcptest.Assert(t).Structured(res, interactive.DeployOutput{Deployed: true, Answer: client.ElicitAccept})
		assert.Equal(t, int32(1), asked.Load(), "the user is asked once")
		// The handler ran twice (once to ask, once with the answer) and
		// deployed once.
		logs.AssertCount(t, 1, logcapture.Message(interactive.MsgDeployed), logcapture.Attr("service", "shop-api"))
		logs.AssertNoWarnings(t)
	}, mcptest.Since(client.Version20250618))
}

// Every answer that is not a ticked form deploys nothing, and is not a tool
// error: nothing failed, and the model must not try again on its own.
func TestDeployNotConfirmed(t *testing.T) {
	t.Parallel()
	answers := map[string]struct {
		answer *client.ElicitResult
		text   string
	}{
		"unticked":  {&client.ElicitResult{Action: client.ElicitAccept, Content: map[string]any{"confirm": false}}, "Not deployed: the user did not tick the box to deploy shop-api to production."},
		"declined":  {&client.ElicitResult{Action: client.ElicitDecline}, "Not deployed: the user declined to deploy shop-api to production."},
		"cancelled": {&client.ElicitResult{Action: client.ElicitCancel}, "Not deployed: the user dismissed the confirmation for shop-api."},
	}
	mcptest.EachVersion(t, func(t *testing.T, version string) {
		t.Parallel()
		for name, tc := range answers {
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				logs := logcapture.New(t)
				c := mcptest.Connect(t, gosdktest.Server(interactive.New(logs.Logger())),
					mcptest.WithClient(client.Options{Elicit: func(context.Context, *client.ElicitRequest) (*client.ElicitResult, error) {
						return tc.answer, nil
					}}))

				res, err := c.CallTool(t.Context(), "deploy", shopAPI)
				require.NoError(t, err)
				mcptest.Assert(t).ToolSuccess(res)
				mcptest.Assert(t).Text(res, tc.text)
				mcptest.Assert(t).Structured(res, interactive.DeployOutput{Deployed: false, Answer: tc.answer.Action})
				logs.AssertNone(t, logcapture.Message(interactive.MsgDeployed))
				logs.AssertNoWarnings(t)
			})
		}
	}, mcptest.Since(client.Version20250618))
}

// A client that cannot ask the user gets a tool error that says so, in both
// eras, instead of a question it cannot answer.
func TestDeployWithoutElicitation(t *testing.T) {
	t.Parallel()
	mcptest.EachVersion(t, func(t *testing.T, version string) {
		t.Parallel()
		logs := logcapture.New(t)
		c := mcptest.Connect(t, gosdktest.Server(interactive.New(logs.Logger())))
		require.Nil(t, c.Capabilities().Elicitation)

		res, err := c.CallTool(t.Context(), "deploy", shopAPI)
		require.NoError(t, err)
		mcptest.Assert(t).ToolError(res, "without the user's confirmation", "does not support elicitation")
		logs.AssertNone(t, logcapture.Message(interactive.MsgDeployed))
	})
}

// Before 2025-06-18 the protocol has no elicitation, so even a client with
// the callback cannot declare it: the tool answers as it does to a client
// without one, and the callback never runs. These are the versions
// TestDeployConfirmed leaves out.
func TestDeployBeforeElicitation(t *testing.T) {
	t.Parallel()
	mcptest.EachVersion(t, func(t *testing.T, version string) {
		t.Parallel()
		c := mcptest.Connect(t, gosdktest.Server(interactive.New(logcapture.New(t).Logger())),
			mcptest.WithClient(client.Options{Elicit: func(context.Context, *client.ElicitRequest) (*client.ElicitResult, error) {
				t.Error("the callback ran at a version without elicitation")
				return &client.ElicitResult{Action: client.ElicitDecline}, nil
			}}))
		require.Nil(t, c.Capabilities().Elicitation, "the client cannot declare elicitation at %s", version)

		res, err := c.CallTool(t.Context(), "deploy", shopAPI)
		require.NoError(t, err)
		mcptest.Assert(t).ToolError(res, "does not support elicitation")
	}, mcptest.Before(client.Version20250618))
}

// The handler that calls req.Session.Elicit itself works on legacy
// connections and fails on 2026-07-28, where a server may send no requests
// of its own. This is the error the handler gets there; New shows the fix.
func TestDeployTheOldWay(t *testing.T) {
	t.Parallel()
	mcptest.EachVersion(t, func(t *testing.T, version string) {
		t.Parallel()
		logs := logcapture.New(t)
		c := mcptest.Connect(t, gosdktest.Server(interactive.NewLegacyOnly(logs.Logger())),
			mcptest.WithClient(client.Options{Elicit: func(context.Context, *client.ElicitRequest) (*client.ElicitResult, error) {
				return &client.ElicitResult{Action: client.ElicitAccept, Content: map[string]any{"confirm": true}}, nil
			}}))

		res, err := c.CallTool(t.Context(), "deploy", shopAPI)
		require.NoError(t, err)
		if client.IsLegacy(version) {
			mcptest.Assert(t).Text(res, "Deployed shop-api to production.")
			logs.AssertCount(t, 1, logcapture.Message(interactive.MsgDeployed))
			return
		}
		mcptest.Assert(t).ToolError(res, `"elicitation/create" cannot be sent while serving a request on protocol version 2026-07-28: return an InputRequests map instead`)
		logs.AssertNone(t, logcapture.Message(interactive.MsgDeployed))
	}, mcptest.Since(client.Version20250618))
}

// What crosses the wire for one confirmed deploy, in each era: at
// 2026-07-28 two tools/call requests (the second with inputResponses), on
// legacy one tools/call and the server's own elicitation/create request.
// Only the wire differs: the handler and the test are the same. (The
// golden files leave out the handshake and _meta.)
func TestDeployOnTheWire(t *testing.T) {
	t.Parallel()
	for _, version := range []string{client.LatestVersion, client.LatestLegacyVersion} {
		t.Run(version, func(t *testing.T) {
			t.Parallel()
			var tr mcptest.Transcript
			c := mcptest.Connect(t, gosdktest.Server(interactive.New(logcapture.New(t).Logger())),
				mcptest.WithProtocolVersion(version),
				mcptest.WithTranscript(&tr),
				mcptest.WithClient(client.Options{Elicit: func(context.Context, *client.ElicitRequest) (*client.ElicitResult, error) {
					return &client.ElicitResult{Action: client.ElicitAccept, Content: map[string]any{"confirm": true}}, nil
				}}))
			start := len(tr.Messages()) // after the handshake

			_, err := c.CallTool(t.Context(), "deploy", shopAPI)
			require.NoError(t, err)
			mcptest.Assert(t).Golden("deploy-"+version, tr.Messages()[start:], mcptest.IgnoreFields("_meta"))
		})
	}
}

// The client's model writes the notes: the CreateMessage callback answers in
// both eras, as Elicit does. Sampling exists at every version.
func TestReleaseNotes(t *testing.T) {
	t.Parallel()
	mcptest.EachVersion(t, func(t *testing.T, version string) {
		t.Parallel()
		logs := logcapture.New(t)
		var sampled atomic.Int32
		c := mcptest.Connect(t, gosdktest.Server(interactive.New(logs.Logger())),
			mcptest.WithClient(client.Options{CreateMessage: func(_ context.Context, req *client.CreateMessageRequest) (*client.CreateMessageResult, error) {
				sampled.Add(1)
				assert.Equal(t, "You write short, plain release notes for engineers.", req.SystemPrompt)
				assert.Equal(t, int64(300), req.MaxTokens)
				if assert.Len(t, req.Messages, 1) {
					assert.Equal(t, "user", req.Messages[0].Role)
					assert.Equal(t, []client.Content{&client.TextContent{Text: "Write release notes for shop-api from these changes:\n- faster checkout\n- fix the basket total"}}, req.Messages[0].Content)
				}
				return &client.CreateMessageResult{
					Role:       "assistant",
					Content:    []client.Content{&client.TextContent{Text: "Checkout is faster, and the basket total is right again."}},
					Model:      "test-model",
					StopReason: "endTurn",
				}, nil
			}}))

		res, err := c.CallTool(t.Context(), "release_notes", map[string]any{
			"service": "shop-api",
			"changes": []string{"faster checkout", "fix the basket total"},
		})
		require.NoError(t, err)
		mcptest.Assert(t).ToolSuccess(res)
		mcptest.Assert(t).Text(res, "Release notes for shop-api:\nCheckout is faster, and the basket total is right again.")
		assert.Equal(t, int32(1), sampled.Load(), "the model is asked once")
		logs.AssertNoWarnings(t)
	})
}

func TestReleaseNotesWithoutSampling(t *testing.T) {
	t.Parallel()
	mcptest.EachVersion(t, func(t *testing.T, version string) {
		t.Parallel()
		c := mcptest.Connect(t, gosdktest.Server(interactive.New(logcapture.New(t).Logger())))

		res, err := c.CallTool(t.Context(), "release_notes", map[string]any{"service": "shop-api", "changes": []string{"faster checkout"}})
		require.NoError(t, err)
		mcptest.Assert(t).ToolError(res, "does not support sampling")
	})
}

// A refused sampling request is where the eras part. Sampling has no
// "decline" answer, so the client's callback fails. On legacy connections
// that error answers the server's sampling/createMessage request, and
// go-sdk fails the tools/call with it: a JSON-RPC error carrying the
// client's own code. At 2026-07-28 the client simply does not retry: the
// call ends in the client, with a *client.InputRequiredError wrapping the
// callback's error, and the server never hears of it.
func TestReleaseNotesRefused(t *testing.T) {
	t.Parallel()
	mcptest.EachVersion(t, func(t *testing.T, version string) {
		t.Parallel()
		logs := logcapture.New(t)
		c := mcptest.Connect(t, gosdktest.Server(interactive.New(logs.Logger())),
			mcptest.WithClient(client.Options{CreateMessage: func(context.Context, *client.CreateMessageRequest) (*client.CreateMessageResult, error) {
				return nil, &client.Error{Code: client.CodeUserRejected, Message: "The user rejected the sampling request."}
			}}))

		res, err := c.CallTool(t.Context(), "release_notes", map[string]any{"service": "shop-api", "changes": []string{"faster checkout"}})
		assert.Nil(t, res)
		if client.IsLegacy(version) {
			e := mcptest.Require(t).ProtocolError(err, client.CodeUserRejected)
			assert.Equal(t, "tools/call", e.Method, "the server's answer to the call")
			assert.Contains(t, e.Message, "The user rejected the sampling request.")
			logs.AssertLogged(t, logcapture.Message(guard.MsgRequestFailed), logcapture.Attr(guard.CodeKey, client.CodeUserRejected))
			return
		}
		var ire *client.InputRequiredError
		require.ErrorAs(t, err, &ire)
		assert.Equal(t, "release_notes", ire.Name)
		var rejected *client.Error
		if assert.ErrorAs(t, err, &rejected, "the callback's error is kept") {
			assert.Equal(t, client.CodeUserRejected, rejected.Code)
			assert.Empty(t, rejected.Method, "the error was never sent or received")
		}
		logs.AssertNone(t, logcapture.Message(guard.MsgRequestFailed))
	})
}

// Progress is a notification, which needs nothing era-specific: every value
// reaches the WithProgress callback, in order, before CallTool returns. So
// the test reads the slice the callback filled without a lock, and the race
// detector checks that promise.
func TestMigrateProgress(t *testing.T) {
	t.Parallel()
	mcptest.EachVersion(t, func(t *testing.T, version string) {
		t.Parallel()
		c := mcptest.Connect(t, gosdktest.Server(interactive.New(logcapture.New(t).Logger())))

		var seen []client.Progress
		res, err := c.CallTool(t.Context(), "migrate", map[string]any{"tables": []string{"users", "orders", "invoices"}},
			client.WithProgress(func(p client.Progress) { seen = append(seen, p) }))
		require.NoError(t, err)
		mcptest.Assert(t).Text(res, "Migrated 3 tables.")

		type step struct {
			Progress, Total float64
			Message         string
		}
		var got []step
		for _, p := range seen {
			got = append(got, step{p.Progress, p.Total, p.Message})
		}
		assert.Equal(t, []step{
			{1, 3, "migrated users"},
			{2, 3, "migrated orders"},
			{3, 3, "migrated invoices"},
		}, got)
	})
}

// Without a progress token the server sends no progress at all.
func TestMigrateWithoutProgress(t *testing.T) {
	t.Parallel()
	var progress atomic.Int32
	c := mcptest.Connect(t, gosdktest.Server(interactive.New(logcapture.New(t).Logger())),
		mcptest.WithClient(client.Options{
			OnNotification: func(method string, _ json.RawMessage) {
				if method == "notifications/progress" {
					progress.Add(1)
				}
			},
		}))

	res, err := c.CallTool(t.Context(), "migrate", map[string]any{"tables": []string{"users", "orders"}})
	require.NoError(t, err)
	mcptest.Assert(t).Text(res, "Migrated 2 tables.")
	assert.Zero(t, progress.Load())
}

// Bad arguments are tool errors the model can correct, before anything is
// asked.
func TestEmptyArguments(t *testing.T) {
	t.Parallel()
	c := mcptest.Connect(t, gosdktest.Server(interactive.New(logcapture.New(t).Logger())),
		mcptest.WithClient(client.Options{CreateMessage: func(context.Context, *client.CreateMessageRequest) (*client.CreateMessageResult, error) {
			return nil, errors.New("not reached")
		}}))

	res, err := c.CallTool(t.Context(), "release_notes", map[string]any{"service": "shop-api", "changes": []string{}})
	require.NoError(t, err)
	mcptest.Assert(t).ToolError(res, "No changes given")

	res, err = c.CallTool(t.Context(), "migrate", map[string]any{"tables": []string{}})
	require.NoError(t, err)
	mcptest.Assert(t).ToolError(res, "No tables given")
}

// The tools' contract, pinned. Refresh with MCPTEST_UPDATE=1.
func TestToolsSnapshot(t *testing.T) {
	t.Parallel()
	c := mcptest.Connect(t, gosdktest.Server(interactive.New(logcapture.New(t).Logger())))

	list, err := c.ListTools(t.Context(), "")
	require.NoError(t, err)
	mcptest.Assert(t).ValidSchemas(list.Tools...)
	mcptest.Assert(t).Golden("tools", list)
}
