package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
	"testing"

	. "github.com/mcptestkit/mcptestkit/client"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// inputOptions answers every kind of input request and counts the calls.
func inputOptions(calls *atomic.Int32) *Options {
	return &Options{
		Elicit: func(_ context.Context, req *ElicitRequest) (*ElicitResult, error) {
			calls.Add(1)
			if req.Message != "Your name?" || req.Mode != "form" || len(req.RequestedSchema) == 0 {
				return nil, errors.New("unexpected elicitation request")
			}
			return &ElicitResult{Action: ElicitAccept, Content: map[string]any{"name": "Ada"}}, nil
		},
		CreateMessage: func(_ context.Context, req *CreateMessageRequest) (*CreateMessageResult, error) {
			calls.Add(1)
			if req.MaxTokens != 50 || len(req.Messages) != 1 || len(req.Messages[0].Content) != 1 {
				return nil, errors.New("unexpected sampling request")
			}
			if tc, ok := req.Messages[0].Content[0].(*TextContent); !ok || tc.Text != "Capital of France?" {
				return nil, errors.New("unexpected sampling message")
			}
			return &CreateMessageResult{Role: "assistant", Content: []Content{&TextContent{Text: "Paris"}}, Model: "test-model", StopReason: "endTurn"}, nil
		},
		ListRoots: func(context.Context) ([]*Root, error) {
			calls.Add(1)
			return []*Root{{URI: "file:///work", Name: "work"}, {URI: "file:///tmp"}}, nil
		},
	}
}

// The server asks for input: through input_required results on 2026-07-28,
// through server-to-client requests on legacy connections. The callbacks are
// the same, and so is the outcome.
func TestMatrixInputRequests(t *testing.T) {
	matrix(t, func(t *testing.T, fx fixture, version string) {
		want := []string{"roots", "sample"}
		expect := "sample=Paris/test-model roots=file:///work,file:///tmp state=state-1"
		if wantVersion(version) >= Version20250618 { // elicitation exists from 2025-06-18
			want = append(want, "elicit")
			expect = "elicit=accept:Ada " + expect
		}
		var calls atomic.Int32
		c, _ := open(t, fx, version, inputOptions(&calls))
		caps := c.Capabilities()
		require.NotNil(t, caps.Sampling)
		require.NotNil(t, caps.Roots)
		res, err := c.CallTool(t.Context(), "ask", map[string]any{"want": want})
		require.NoError(t, err)
		require.False(t, res.IsError, res.Text())
		assert.Equal(t, expect, res.Text())
		assert.Equal(t, int32(len(want)), calls.Load())
	})
}

// Without a callback the capability is not declared, and the server's request
// fails: the call fails too.
func TestMatrixInputWithoutCallback(t *testing.T) {
	matrix(t, func(t *testing.T, fx fixture, version string) {
		c, _ := open(t, fx, version, nil)
		caps := c.Capabilities()
		assert.Nil(t, caps.Sampling)
		assert.Nil(t, caps.Elicitation)
		assert.Nil(t, caps.Roots)
		res, err := c.CallTool(t.Context(), "ask", map[string]any{"want": []string{"sample"}})
		if err == nil {
			// A server may report the failure as a tool error instead.
			assert.True(t, res.IsError, "the call succeeded without the input: %s", res.Text())
			return
		}
		if c.IsModern() {
			var ire *InputRequiredError
			require.ErrorAs(t, err, &ire)
			var e *Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, CodeMethodNotFound, e.Code)
		}
	})
}

func TestMatrixElicitationDeclined(t *testing.T) {
	matrix(t, func(t *testing.T, fx fixture, version string) {
		if wantVersion(version) < Version20250618 {
			t.Skip("elicitation does not exist before 2025-06-18")
		}
		c, _ := open(t, fx, version, &Options{Elicit: func(context.Context, *ElicitRequest) (*ElicitResult, error) {
			return &ElicitResult{Action: ElicitDecline}, nil
		}})
		res, err := c.CallTool(t.Context(), "ask", map[string]any{"want": []string{"elicit"}})
		require.NoError(t, err)
		assert.Equal(t, "elicit=decline:<nil> state=state-1", res.Text())
	})
}

// A callback error on a legacy connection is the error response the server
// gets; an *Error goes out exactly.
func TestMatrixCallbackErrorReachesServer(t *testing.T) {
	matrix(t, func(t *testing.T, fx fixture, version string) {
		c, _ := open(t, fx, version, &Options{CreateMessage: func(context.Context, *CreateMessageRequest) (*CreateMessageResult, error) {
			return nil, &Error{Code: CodeUserRejected, Message: "user said no"}
		}})
		res, err := c.CallTool(t.Context(), "ask", map[string]any{"want": []string{"sample"}})
		if c.IsModern() {
			// 2026-07-28 has no error slot: the client stops and reports.
			var ire *InputRequiredError
			require.ErrorAs(t, err, &ire)
			assert.Contains(t, err.Error(), "user said no")
			return
		}
		// The server turns the failed sampling into an error of its own.
		if err == nil {
			assert.True(t, res.IsError)
			assert.Contains(t, res.Text(), "user said no")
			return
		}
		assert.Contains(t, err.Error(), "user said no")
	})
}

func TestInputResponsesWireShape(t *testing.T) {
	var calls atomic.Int32
	srv, _ := goSDKFixture.newServer(t, 0)
	c, end := connect(t, srv, inputOptions(&calls))
	require.True(t, c.IsModern())
	_, err := c.CallTool(t.Context(), "ask", map[string]any{"want": []string{"roots", "elicit"}})
	require.NoError(t, err)
	var ids []string
	var retry map[string]json.RawMessage
	for _, e := range end.Transcript().Entries {
		var m struct {
			ID     json.RawMessage            `json:"id"`
			Method string                     `json:"method"`
			Params map[string]json.RawMessage `json:"params"`
		}
		require.NoError(t, json.Unmarshal(e.Data, &m))
		if m.Method == "tools/call" {
			ids = append(ids, string(m.ID))
			retry = m.Params
		}
	}
	require.Len(t, ids, 2)
	assert.NotEqual(t, ids[0], ids[1], "a retry has a new id")
	assert.JSONEq(t, `"state-1"`, string(retry["requestState"]))
	assert.JSONEq(t, `{"name":{"action":"accept","content":{"name":"Ada"}},"roots":{"roots":[{"uri":"file:///work","name":"work"},{"uri":"file:///tmp"}]}}`, string(retry["inputResponses"]))
	assert.JSONEq(t, `{"want":["roots","elicit"]}`, string(retry["arguments"]))
	assert.Contains(t, string(retry["_meta"]), `"io.modelcontextprotocol/clientCapabilities":{"roots":{},"sampling":{},"elicitation":{}}`)
}

// The server pings the client in the middle of a call (legacy only).
func TestGoSDKServerPingsClient(t *testing.T) {
	for _, v := range versionCases[2:] {
		t.Run(v, func(t *testing.T) {
			c, _ := open(t, goSDKFixture, v, nil)
			res, err := c.CallTool(t.Context(), "pingback", nil)
			require.NoError(t, err)
			assert.Equal(t, "pong", res.Text())
		})
	}
}

// Cancelling a call cancels the callback answering the server's input
// request: directly on 2026-07-28 (the callback runs within the call), and
// through the server's notifications/cancelled on legacy connections.
func TestMatrixCancelReachesCallback(t *testing.T) {
	matrix(t, func(t *testing.T, fx fixture, version string) {
		started := make(chan struct{}, 1)
		ended := make(chan error, 1)
		c, _ := open(t, fx, version, &Options{CreateMessage: func(ctx context.Context, _ *CreateMessageRequest) (*CreateMessageResult, error) {
			started <- struct{}{}
			<-ctx.Done()
			ended <- ctx.Err()
			return nil, ctx.Err()
		}})
		ctx, cancel := context.WithCancel(t.Context())
		errc := make(chan error, 1)
		go func() {
			_, err := c.CallTool(ctx, "ask", map[string]any{"want": []string{"sample"}})
			errc <- err
		}()
		<-started
		cancel()
		require.ErrorIs(t, <-errc, context.Canceled)
		if !c.IsModern() && fx.name == "mcpgo" {
			// mcp-go does not tell the client when it stops waiting for a
			// request of its own; the callback ends with the connection.
			return
		}
		select {
		case err := <-ended:
			require.ErrorIs(t, err, context.Canceled)
		case <-t.Context().Done():
			t.Fatal("the callback was never cancelled")
		}
	})
}
