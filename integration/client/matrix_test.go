package client_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	. "github.com/mcptestkit/mcptestkit/client"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/memtransport"
)

// The matrix: every fixture server, at every way of starting a connection.
var (
	fixtures = []fixture{goSDKFixture, mcpGoFixture}
	// "" is the era-neutral start, which must land on 2026-07-28.
	versionCases = []string{"", Version20260728, Version20251125, Version20250618, Version20250326, Version20241105}
)

func versionName(v string) string {
	if v == "" {
		return "auto"
	}
	return v
}

// matrix runs f against each fixture at each version.
func matrix(t *testing.T, f func(t *testing.T, fx fixture, version string)) {
	for _, fx := range fixtures {
		for _, v := range versionCases {
			t.Run(fx.name+"/"+versionName(v), func(t *testing.T) {
				t.Parallel()
				f(t, fx, v)
			})
		}
	}
}

// open starts a fixture server and connects to it at version with opts,
// over a memtransport pair made with popts.
func open(t *testing.T, fx fixture, version string, opts *Options, popts ...memtransport.Option) (*Client, *controls) {
	t.Helper()
	srv, ctl := fx.newServer(t, 0)
	o := Options{}
	if opts != nil {
		o = *opts
	}
	o.ProtocolVersion = version
	c, _ := connect(t, srv, &o, popts...)
	return c, ctl
}

func wantVersion(version string) string {
	if version == "" {
		return LatestVersion
	}
	return version
}

func TestMatrixConnect(t *testing.T) {
	matrix(t, func(t *testing.T, fx fixture, version string) {
		c, _ := open(t, fx, version, nil)
		assert.Equal(t, wantVersion(version), c.ProtocolVersion())
		assert.Equal(t, !IsLegacy(wantVersion(version)), c.IsModern())
		assert.Equal(t, "fixture-"+fx.name, c.ServerInfo().Name)
		assert.Equal(t, "1.2.3", c.ServerInfo().Version)
		assert.Equal(t, fixtureInstructions, c.Instructions())
		caps := c.ServerCapabilities()
		require.NotNil(t, caps.Tools, "tools capability")
		require.NotNil(t, caps.Resources, "resources capability")
		require.NotNil(t, caps.Prompts, "prompts capability")
		assert.NotEmpty(t, caps.Raw)
		if c.IsModern() {
			assert.Contains(t, c.ServerVersions(), Version20260728)
		} else {
			assert.Nil(t, c.ServerVersions())
		}
		require.NoError(t, c.Ping(t.Context()))
	})
}

func TestMatrixTools(t *testing.T) {
	matrix(t, func(t *testing.T, fx fixture, version string) {
		c, _ := open(t, fx, version, nil)
		ctx := t.Context()

		page, err := c.ListTools(ctx, "")
		require.NoError(t, err)
		var names []string
		for _, tool := range page.Tools {
			names = append(names, tool.Name)
		}
		for _, want := range []string{"echo", "add", "fail", "content", "progress", "log", "slow", "ask"} {
			assert.Contains(t, names, want)
		}
		var add *Tool
		for tool, err := range c.Tools(ctx) {
			require.NoError(t, err)
			if tool.Name == "add" {
				add = tool
			}
		}
		require.NotNil(t, add)
		assert.Contains(t, string(add.InputSchema), `"a"`)
		require.NotNil(t, add.Annotations)
		assert.Equal(t, "Adder", add.DisplayName())

		res, err := c.CallTool(ctx, "echo", map[string]any{"text": "hi"})
		require.NoError(t, err)
		assert.False(t, res.IsError)
		assert.Equal(t, "echo: hi", res.Text())

		res, err = c.CallTool(ctx, "add", struct {
			A int `json:"a"`
			B int `json:"b"`
		}{2, 40})
		require.NoError(t, err)
		var out struct{ Sum int }
		require.NoError(t, res.UnmarshalStructured(&out))
		assert.Equal(t, 42, out.Sum)
		assert.JSONEq(t, `{"sum":42}`, string(res.StructuredContent))
	})
}

func TestMatrixContentBlocks(t *testing.T) {
	matrix(t, func(t *testing.T, fx fixture, version string) {
		c, _ := open(t, fx, version, nil)
		res, err := c.CallTool(t.Context(), "content", nil)
		require.NoError(t, err)
		require.Len(t, res.Content, 5)
		assert.Equal(t, &TextContent{Text: "text"}, res.Content[0])
		assert.Equal(t, &ImageContent{Data: []byte("png!"), MIMEType: "image/png"}, res.Content[1])
		assert.Equal(t, &AudioContent{Data: []byte("wav!"), MIMEType: "audio/wav"}, res.Content[2])
		link, ok := res.Content[3].(*ResourceLink)
		require.True(t, ok, "%T", res.Content[3])
		assert.Equal(t, "file:///hello.txt", link.URI)
		assert.Equal(t, "hello", link.Name)
		emb, ok := res.Content[4].(*EmbeddedResource)
		require.True(t, ok, "%T", res.Content[4])
		assert.Equal(t, &ResourceContents{URI: "file:///e.txt", MIMEType: "text/plain", Text: "embedded"}, emb.Resource)
	})
}

func TestMatrixToolErrors(t *testing.T) {
	matrix(t, func(t *testing.T, fx fixture, version string) {
		c, _ := open(t, fx, version, nil)
		ctx := t.Context()

		// A failing tool is a result, not a Go error.
		res, err := c.CallTool(ctx, "fail", nil)
		require.NoError(t, err)
		assert.True(t, res.IsError)
		assert.Equal(t, "boom", res.Text())
		assert.EqualError(t, res.ToolError(), "tool error: boom")

		// A JSON-RPC error keeps code, message and data.
		_, err = c.CallTool(ctx, "protoerr", nil)
		var e *Error
		require.ErrorAs(t, err, &e)
		code, msg, data := fx.protoErr(c.IsModern())
		assert.Equal(t, code, e.Code)
		assert.Equal(t, msg, e.Message)
		if data == "" {
			assert.Empty(t, e.Data)
		} else {
			assert.JSONEq(t, data, string(e.Data))
		}
		assert.Equal(t, "tools/call", e.Method)

		// Unknown tool: invalid params.
		_, err = c.CallTool(ctx, "nosuchtool", nil)
		require.ErrorAs(t, err, &e)
		assert.Equal(t, CodeInvalidParams, e.Code)
		assert.Contains(t, e.Message, "nosuchtool")
		assert.Equal(t, "nosuchtool", e.Name)
		assert.ErrorContains(t, err, `tools/call "nosuchtool": error -32602: `, "the error names the tool")

		// Invalid arguments: both SDKs validate against the schema and
		// answer with a tool error (the model can correct itself).
		res, err = c.CallTool(ctx, "add", map[string]any{"a": "not a number", "b": 1})
		require.NoError(t, err)
		assert.True(t, res.IsError)
		assert.NotEmpty(t, res.Text())

		// Arguments that are not an object never leave the client.
		_, err = c.CallTool(ctx, "add", []int{1, 2})
		require.ErrorContains(t, err, "must encode as a JSON object")
	})
}

// go-sdk sends code 0 for a plain error from a raw tool handler; the client
// keeps it.
func TestGoSDKCodeZeroKept(t *testing.T) {
	for _, v := range versionCases {
		t.Run(versionName(v), func(t *testing.T) {
			c, _ := open(t, goSDKFixture, v, nil)
			_, err := c.CallTool(t.Context(), "rawerr", nil)
			var e *Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, int64(0), e.Code)
			assert.Equal(t, "raw boom", e.Message)
		})
	}
}

func TestMatrixResources(t *testing.T) {
	matrix(t, func(t *testing.T, fx fixture, version string) {
		c, _ := open(t, fx, version, nil)
		ctx := t.Context()

		var uris []string
		for r, err := range c.Resources(ctx) {
			require.NoError(t, err)
			uris = append(uris, r.URI)
		}
		slices.Sort(uris)
		assert.Equal(t, []string{"file:///blob.bin", "file:///hello.txt"}, uris)

		var templates []string
		for rt, err := range c.ResourceTemplates(ctx) {
			require.NoError(t, err)
			templates = append(templates, rt.URITemplate)
		}
		assert.Equal(t, []string{"file:///items/{id}"}, templates)

		res, err := c.ReadResource(ctx, "file:///hello.txt")
		require.NoError(t, err)
		require.Len(t, res.Contents, 1)
		assert.Equal(t, "Hello, world", res.Contents[0].Text)
		assert.Nil(t, res.Contents[0].Blob)

		res, err = c.ReadResource(ctx, "file:///blob.bin")
		require.NoError(t, err)
		require.Len(t, res.Contents, 1)
		assert.Equal(t, []byte{0, 1, 2, 255}, res.Contents[0].Blob)

		res, err = c.ReadResource(ctx, "file:///items/7")
		require.NoError(t, err)
		assert.Equal(t, "item 7", res.Contents[0].Text)

		// Not found, in whichever form the server uses at this version.
		_, err = c.ReadResource(ctx, "file:///nowhere")
		require.Error(t, err)
		assert.ErrorContains(t, err, `resources/read "file:///nowhere": error `, "the error names the URI")
		ok := IsResourceNotFound(err)
		assert.True(t, ok, "IsResourceNotFound(%v)", err)
	})
}

func TestMatrixPrompts(t *testing.T) {
	matrix(t, func(t *testing.T, fx fixture, version string) {
		c, _ := open(t, fx, version, nil)
		ctx := t.Context()
		var prompts []*Prompt
		for p, err := range c.Prompts(ctx) {
			require.NoError(t, err)
			prompts = append(prompts, p)
		}
		require.Len(t, prompts, 1)
		assert.Equal(t, "greet", prompts[0].Name)
		require.Len(t, prompts[0].Arguments, 1)
		assert.True(t, prompts[0].Arguments[0].Required)

		res, err := c.GetPrompt(ctx, "greet", map[string]string{"name": "Ada"})
		require.NoError(t, err)
		assert.Equal(t, "A greeting", res.Description)
		require.Len(t, res.Messages, 1)
		assert.Equal(t, "user", res.Messages[0].Role)
		assert.Equal(t, "Hello, Ada!", res.Text())

		_, err = c.GetPrompt(ctx, "nope", nil)
		var e *Error
		require.ErrorAs(t, err, &e)
		assert.Equal(t, CodeInvalidParams, e.Code)
	})
}

func TestMatrixComplete(t *testing.T) {
	matrix(t, func(t *testing.T, fx fixture, version string) {
		c, _ := open(t, fx, version, nil)
		res, err := c.Complete(t.Context(), &CompleteRequest{Ref: PromptReference("greet"), Argument: "name", Value: "A"})
		require.NoError(t, err)
		assert.Equal(t, []string{"A1", "A2"}, res.Values)
		assert.True(t, res.HasMore)
		require.NotNil(t, res.Total)
		assert.Equal(t, int64(2), *res.Total)
	})
}

func TestMatrixProgressRoutedToItsCall(t *testing.T) {
	matrix(t, func(t *testing.T, fx fixture, version string) {
		c, _ := open(t, fx, version, nil)
		const calls = 4
		var wg sync.WaitGroup
		got := make([][]Progress, calls)
		for i := range calls {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res, err := c.CallTool(t.Context(), "progress", nil, WithProgress(func(p Progress) {
					got[i] = append(got[i], p) // each call's handler sees only its own
				}))
				if assert.NoError(t, err) {
					assert.Equal(t, "done", res.Text())
				}
			}()
		}
		wg.Wait()
		for i := range calls {
			require.Len(t, got[i], 3, "call %d", i)
			for j, p := range got[i] {
				assert.Equal(t, float64(j+1), p.Progress)
				assert.Equal(t, float64(3), p.Total)
				assert.Equal(t, "step "+string(rune('1'+j)), p.Message)
				assert.Equal(t, string(got[i][0].Token), string(p.Token))
			}
		}
		// No handler, no token: the server sends nothing.
		res, err := c.CallTool(t.Context(), "progress", nil)
		require.NoError(t, err)
		assert.Equal(t, "done", res.Text())
	})
}

func TestMatrixLogging(t *testing.T) {
	matrix(t, func(t *testing.T, fx fixture, version string) {
		var mu sync.Mutex
		var logs []*LogMessage
		c, _ := open(t, fx, version, &Options{OnLog: func(m *LogMessage) {
			mu.Lock()
			logs = append(logs, m)
			mu.Unlock()
		}})
		ctx := t.Context()
		// Without a level the servers send nothing (go-sdk), or everything
		// (mcp-go, legacy): set one to make both behave.
		require.NoError(t, c.SetLogLevel(ctx, LevelWarning))
		res, err := c.CallTool(ctx, "log", nil)
		require.NoError(t, err)
		assert.Equal(t, "logged", res.Text())
		mu.Lock()
		defer mu.Unlock()
		require.Len(t, logs, 1, "only the warning passes the level")
		assert.Equal(t, LevelWarning, logs[0].Level)
		assert.Equal(t, "fixture", logs[0].Logger)
		assert.JSONEq(t, `{"msg":"careful"}`, string(logs[0].Data))
		assert.Error(t, c.SetLogLevel(ctx, "loud"))
	})
}

func TestMatrixCancellation(t *testing.T) {
	matrix(t, func(t *testing.T, fx fixture, version string) {
		c, ctl := open(t, fx, version, nil)
		ctx, cancel := context.WithCancel(t.Context())
		errc := make(chan error, 1)
		go func() {
			_, err := c.CallTool(ctx, "slow", nil)
			errc <- err
		}()
		<-ctl.slowStarted
		cancel()
		err := <-errc
		require.ErrorIs(t, err, context.Canceled)
		// The server heard notifications/cancelled: its handler's ctx ended.
		require.ErrorIs(t, <-ctl.slowDone, context.Canceled)
		// The connection is still good.
		res, err := c.CallTool(t.Context(), "echo", map[string]any{"text": "after"})
		require.NoError(t, err)
		assert.Equal(t, "echo: after", res.Text())
	})
}

func TestMatrixTimeout(t *testing.T) {
	matrix(t, func(t *testing.T, fx fixture, version string) {
		c, _ := open(t, fx, version, &Options{Timeout: 20 * time.Millisecond})
		_, err := c.CallTool(t.Context(), "slow", nil)
		require.ErrorIs(t, err, context.DeadlineExceeded)
		res, err := c.CallTool(t.Context(), "echo", map[string]any{"text": "fast"}, WithTimeout(time.Minute))
		require.NoError(t, err)
		assert.Equal(t, "echo: fast", res.Text())

		// A per-call timeout overrides the default.
		c2, _ := open(t, fx, version, &Options{Timeout: time.Hour})
		_, err = c2.CallTool(t.Context(), "slow", nil, WithTimeout(20*time.Millisecond))
		require.ErrorIs(t, err, context.DeadlineExceeded)
	})
}

func TestMatrixConcurrentCalls(t *testing.T) {
	matrix(t, func(t *testing.T, fx fixture, version string) {
		c, ctl := open(t, fx, version, nil)
		ctx, cancel := context.WithCancel(t.Context())
		// A call that stays outstanding while the others overtake it: the
		// responses come back out of order.
		slow := make(chan error, 1)
		go func() {
			_, err := c.CallTool(ctx, "slow", nil)
			slow <- err
		}()
		<-ctl.slowStarted
		var wg sync.WaitGroup
		for i := range 40 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				text := strings.Repeat("x", i)
				res, err := c.CallTool(t.Context(), "echo", map[string]any{"text": text})
				if assert.NoError(t, err) {
					assert.Equal(t, "echo: "+text, res.Text())
				}
			}()
		}
		wg.Wait()
		cancel()
		require.ErrorIs(t, <-slow, context.Canceled)
		<-ctl.slowDone
	})
}

func TestMatrixCloseUnblocksCalls(t *testing.T) {
	matrix(t, func(t *testing.T, fx fixture, version string) {
		c, ctl := open(t, fx, version, nil)
		errc := make(chan error, 1)
		go func() {
			_, err := c.CallTool(t.Context(), "slow", nil)
			errc <- err
		}()
		<-ctl.slowStarted
		require.NoError(t, c.Close())
		require.ErrorIs(t, <-errc, ErrClosed)
		<-ctl.slowDone
		_, err := c.CallTool(t.Context(), "echo", nil)
		require.ErrorIs(t, err, ErrClosed)
		require.ErrorIs(t, c.Err(), ErrClosed)
		select {
		case <-c.Done():
		default:
			t.Fatal("Done not closed after Close")
		}
		require.NoError(t, c.Close(), "second Close")
	})
}
