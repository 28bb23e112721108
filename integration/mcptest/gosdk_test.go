package mcptest_test

//lint:file-ignore SA1019 sampling, roots and logging are deprecated as of 2026-07-28 (SEP-2577) but still served, and the kit tests them at every version

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/gosdk"
	"github.com/mcptestkit/mcptestkit/gosdk/gosdktest"
	"github.com/mcptestkit/mcptestkit/internal/faketb"
	"github.com/mcptestkit/mcptestkit/logcapture"
	"github.com/mcptestkit/mcptestkit/mcptest"
)

// go-sdk servers, through their adapter gosdktest.Server, meet the harness.

func TestConnectCallsARealGoSDKServer(t *testing.T) {
	t.Parallel()
	c := mcptest.Connect(t, gosdktest.Server(probeServer(nil)))
	assert.Equal(t, client.LatestVersion, c.ProtocolVersion(), "era-neutral start lands on the modern protocol")
	echoes(t, c, "hello")

	srv := gosdktest.Server(probeServer(nil)) // one server, a session per version
	mcptest.EachVersion(t, func(t *testing.T, version string) {
		t.Parallel()
		c := mcptest.Connect(t, srv)
		assert.Equal(t, version, c.ProtocolVersion())
		echoes(t, c, version)
	})
}

// The client's identity and callbacks reach a go-sdk server's session.
func TestGoSDKClientOptionsReachTheServer(t *testing.T) {
	t.Parallel()
	type none struct{}
	srv := probeServer(func(s *mcp.Server) {
		mcp.AddTool(s, &mcp.Tool{Name: "whoami"}, func(ctx context.Context, req *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, any, error) {
			info := req.Session.InitializeParams().ClientInfo
			roots, err := req.Session.ListRoots(ctx, nil)
			if err != nil {
				return nil, nil, err
			}
			msg, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 10, Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "hi"}}}})
			if err != nil {
				return nil, nil, err
			}
			el, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "name?", RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}})
			if err != nil {
				return nil, nil, err
			}
			text := fmt.Sprintf("%s %s | %s | %s | %s %v", info.Name, info.Version, roots.Roots[0].URI, msg.Content.(*mcp.TextContent).Text, el.Action, el.Content["name"])
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
		})
	})
	c := mcptest.Connect(t, gosdktest.Server(srv),
		mcptest.WithProtocolVersion(client.LatestLegacyVersion), // server-to-client requests are a legacy feature
		mcptest.WithClient(client.Options{
			ClientInfo: client.Implementation{Name: "probe-client", Version: "v7"},
			ListRoots: func(context.Context) ([]*client.Root, error) {
				return []*client.Root{{URI: "file:///work", Name: "work"}}, nil
			},
			CreateMessage: func(context.Context, *client.CreateMessageRequest) (*client.CreateMessageResult, error) {
				return &client.CreateMessageResult{Role: "assistant", Model: "m", Content: []client.Content{&client.TextContent{Text: "sampled"}}}, nil
			},
			Elicit: func(context.Context, *client.ElicitRequest) (*client.ElicitResult, error) {
				return &client.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
			},
		}),
	)
	res, err := c.CallTool(t.Context(), "whoami", nil)
	require.NoError(t, err)
	mcptest.Assert(t).Text(res, "probe-client v7 | file:///work | sampled | accept Ada")
}

// The adapter's last-resort recovery reports a handler panic to the
// harness, which fails the test; the server lives on.
func TestGoSDKPanicWithoutRecoveryFailsTheTest(t *testing.T) {
	t.Parallel()
	srv := probeServer(boomTool)
	var callErr error
	f := runFake(t, func(tb testing.TB) {
		c := mcptest.Connect(tb, gosdktest.Server(srv))
		_, callErr = c.CallTool(tb.Context(), "boom", nil)
		echoes(tb, c, "still here")
	})
	f.ExpectFailure(t,
		`the server panicked in tools/call "boom": kaboom`,
		"Install the crash guard",
		"srv.AddReceivingMiddleware(gosdk.Guard(logger))",
		"mcptest_test.explode", // the stack names the panicking function
	)
	mcptest.Assert(t).ProtocolError(callErr, client.CodeInternalError)
}

// A go-sdk server that recovers its own panics is left alone.
func TestGoSDKOwnRecoveryIsLeftAlone(t *testing.T) {
	t.Parallel()
	srv := probeServer(func(s *mcp.Server) {
		boomTool(s)
		s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
				defer func() {
					if r := recover(); r != nil {
						res, err = &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "Error executing tool boom"}}}, nil
					}
				}()
				return next(ctx, method, req)
			}
		})
	})
	f := runFake(t, func(tb testing.TB) {
		// go-sdk adds resultType inside the middleware chain, so a result made by an outer
		// middleware lacks it at 2026-07-28: the monitor rightly reports that (a log line
		// here), which is not what this test is about.
		c := mcptest.Connect(tb, gosdktest.Server(srv), mcptest.Monitor(mcptest.MonitorLog))
		res, err := c.CallTool(tb.Context(), "boom", nil)
		require.NoError(tb, err)
		mcptest.Assert(tb).ToolError(res, "Error executing tool boom")
	})
	f.ExpectPass(t)
}

// stackSection returns what a crash report prints after its hint.
func stackSection(t *testing.T, out string) string {
	t.Helper()
	_, stack, ok := strings.Cut(out, "Stack of the panicking goroutine:\n")
	require.True(t, ok, out)
	return stack
}

// The crash reports of the SDKs' recoveries start their stacks at the
// panic: no frames of runtime/debug or of the adapters' recovery.
func TestSDKCrashReportsStartAtThePanic(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		body func(tb testing.TB)
	}{
		{"gosdk", func(tb testing.TB) {
			c := mcptest.Connect(tb, gosdktest.Server(probeServer(boomTool)))
			_, _ = c.CallTool(tb.Context(), "boom", nil)
		}},
		{"mcpgo", func(tb testing.TB) {
			c := mcptest.Connect(tb, mcpgoServer())
			_, _ = c.CallTool(tb.Context(), "boom", nil)
		}},
		{"http-mcpgo", func(tb testing.TB) {
			c := mcptest.Connect(tb, mcptest.Handler(mcpgoHTTP()), mcptest.WithProtocolVersion(client.LatestLegacyVersion))
			_, _ = c.CallTool(tb.Context(), "boom", nil)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := runFake(t, tc.body)
			f.ExpectFailure(t, "panicked", "kaboom")
			stack := stackSection(t, f.Text())
			require.True(t, strings.HasPrefix(stack, "panic("), stack)
			lines := strings.Split(stack, "\n")
			require.GreaterOrEqual(t, len(lines), 3)
			assert.Contains(t, lines[2], "mcptest_test.explode")
			for _, noise := range []string{"runtime/debug.Stack", "lastResort", "goroutine "} {
				assert.NotContains(t, stack[:strings.Index(stack, "mcptest_test.explode")], noise)
			}
		})
	}
}

// elicitServer has a tool that asks the user for a name the 2026-07-28 way
// (an input request), which go-sdk turns into elicitation/create for a
// legacy client.
func elicitServer() *mcp.Server {
	return probeServer(func(s *mcp.Server) {
		mcp.AddTool(s, &mcp.Tool{Name: "greet"}, func(_ context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			answer, ok := req.Params.InputResponses["name"].(*mcp.ElicitResult)
			if !ok {
				return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"name": &mcp.ElicitParams{
					Message:         "Your name?",
					RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}},
				}}}, nil, nil
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hello " + answer.Content["name"].(string)}}}, nil, nil
		})
	})
}

// Elicitation works with go-sdk at every version that has it, in both eras.
func TestGoSDKElicitationSince(t *testing.T) {
	t.Parallel()
	mcptest.EachVersion(t, func(t *testing.T, version string) {
		t.Parallel()
		c := mcptest.Connect(t, gosdktest.Server(elicitServer()), mcptest.WithClient(client.Options{
			Elicit: func(context.Context, *client.ElicitRequest) (*client.ElicitResult, error) {
				return &client.ElicitResult{Action: client.ElicitAccept, Content: map[string]any{"name": "Ada"}}, nil
			},
		}))
		res, err := c.CallTool(t.Context(), "greet", nil)
		require.NoError(t, err)
		mcptest.Assert(t).Text(res, "hello Ada")
	}, mcptest.Since(client.Version20250618))
}

// A go-sdk server refused roots by a client without the callback: the tool
// error quotes the client, and the harness names the option the test lacks.
func TestGoSDKMissingCallbackHint(t *testing.T) {
	t.Parallel()
	srv := probeServer(func(s *mcp.Server) {
		mcp.AddTool(s, &mcp.Tool{Name: "where"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			roots, err := req.Session.ListRoots(ctx, nil)
			if err != nil {
				return nil, nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: roots.Roots[0].URI}}}, nil, nil
		})
	})
	f := runFake(t, func(tb testing.TB) {
		c := mcptest.Connect(tb, gosdktest.Server(srv), mcptest.WithProtocolVersion(client.LatestLegacyVersion))
		res, err := c.CallTool(tb.Context(), "where", nil)
		require.NoError(tb, err)
		mcptest.Assert(tb).ToolSuccess(res)
	})
	f.ExpectFailure(t,
		"client does not support roots (no ListRoots callback)",
		"\nhint: the client answers roots/list only when Connect is given mcptest.WithClient(client.Options{ListRoots: fn})",
	)
}

// A tool written as go-sdk's documentation shows elicitation
// (req.Session.Elicit in the handler) fails at 2026-07-28, which a test that
// pins no version speaks to go-sdk v1.7.0 and later: the assertion and the
// transcript say why and what to pin, and pinned, the same test passes.
func TestGoSDKElicitAt20260728SaysWhatToPin(t *testing.T) {
	t.Parallel()
	srv := probeServer(func(s *mcp.Server) {
		mcp.AddTool(s, &mcp.Tool{Name: "greet"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			el, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "Your name?",
				RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}})
			if err != nil {
				return nil, nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("hello %v", el.Content["name"])}}}, nil, nil
		})
	})
	greet := func(opts ...mcptest.Option) func(tb testing.TB) {
		return func(tb testing.TB) {
			opts = append(opts, mcptest.WithClient(client.Options{Elicit: func(context.Context, *client.ElicitRequest) (*client.ElicitResult, error) {
				return &client.ElicitResult{Action: client.ElicitAccept, Content: map[string]any{"name": "Ada"}}, nil
			}}))
			c := mcptest.Connect(tb, gosdktest.Server(srv), opts...)
			res, err := c.CallTool(tb.Context(), "greet", nil)
			require.NoError(tb, err)
			mcptest.Assert(tb).Text(res, "hello Ada")
		}
	}
	runFake(t, greet()).ExpectFailure(t,
		`actual:   "\"elicitation/create\" cannot be sent while serving a request on protocol version 2026-07-28`,
		"\nhint: at protocol version 2026-07-28 a handler asks the client for input with an input_required result",
		`tools/call "greet" (id 2, message #3) failed at message #4: its handler tried to send elicitation/create; at protocol version 2026-07-28`,
		"to test a handler written for the legacy protocol, pin a legacy version, mcptest.WithProtocolVersion(client.Version20251125)",
	)
	runFake(t, greet(mcptest.WithProtocolVersion(client.Version20251125))).ExpectPass(t)
}

// chattyServer is a go-sdk server whose "import" tool logs through its
// session at three levels and reports progress, and whose resource
// "books://dune" can be subscribed to.
func chattyServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "chatty", Version: "v0"}, &mcp.ServerOptions{
		SubscribeHandler:   func(context.Context, *mcp.SubscribeRequest) error { return nil },
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
	})
	mcp.AddTool(s, &mcp.Tool{Name: "import"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		for _, m := range []struct {
			level mcp.LoggingLevel
			data  any
		}{{"debug", "reading the catalogue"}, {"info", "imported 2 books"}, {"warning", map[string]any{"skipped": 1}}} {
			if err := req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: m.level, Logger: "import", Data: m.data}); err != nil {
				return nil, nil, err
			}
		}
		if token := req.Params.GetProgressToken(); token != nil {
			for i := 1; i <= 2; i++ {
				if err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(i), Total: 2}); err != nil {
					return nil, nil, err
				}
			}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
	})
	s.AddResource(&mcp.Resource{URI: "books://dune", Name: "dune"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "books://dune", Text: "Dune"}}}, nil
	})
	return s
}

// What a go-sdk server sends besides its answers is recorded: its log
// messages at the level asked for and its progress, at every version.
func TestGoSDKRecordNotifications(t *testing.T) {
	t.Parallel()
	mcptest.EachVersion(t, func(t *testing.T, version string) {
		t.Parallel()
		var n mcptest.Notifications
		c := mcptest.Connect(t, gosdktest.Server(chattyServer()), mcptest.WithClient(client.Options{LogLevel: client.LevelInfo}), mcptest.RecordNotifications(&n))
		res, err := c.CallTool(t.Context(), "import", nil, client.WithProgress(func(client.Progress) {}))
		require.NoError(t, err)
		mcptest.Assert(t).Text(res, "done")
		var logs []string
		for _, l := range n.Logs() {
			logs = append(logs, fmt.Sprintf("%s %s %s", l.Level, l.Logger, l.Data))
		}
		assert.Equal(t, []string{`info import "imported 2 books"`, `warning import {"skipped":1}`}, logs)
		assert.Len(t, n.Progress(), 2)
	})
}

// The notifications a go-sdk server sends on its own time are waited for:
// a list change and a resource update, in both eras (a legacy server sends
// them to every session, a 2026-07-28 one to a subscriptions/listen
// stream).
func TestGoSDKNotificationsWaitForChanges(t *testing.T) {
	t.Parallel()
	for _, version := range []string{client.LatestVersion, client.LatestLegacyVersion} {
		t.Run(version, func(t *testing.T) {
			t.Parallel()
			srv := chattyServer()
			var n mcptest.Notifications
			c := mcptest.Connect(t, gosdktest.Server(srv), mcptest.WithProtocolVersion(version), mcptest.RecordNotifications(&n))
			sub, err := c.Listen(t.Context(), client.ListenFilter{ToolsListChanged: true, ResourceSubscriptions: []string{"books://dune"}})
			require.NoError(t, err)
			t.Cleanup(func() { _ = sub.Close() })

			sent := make(chan error, 1)
			go func() {
				mcp.AddTool(srv, &mcp.Tool{Name: "late"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
					return &mcp.CallToolResult{}, nil, nil
				})
				sent <- srv.ResourceUpdated(context.Background(), &mcp.ResourceUpdatedNotificationParams{URI: "books://dune"})
			}()
			u, err := n.Wait(t.Context(), "notifications/resources/updated")
			require.NoError(t, err)
			assert.Equal(t, "books://dune", u.URI)
			_, err = n.Wait(t.Context(), "notifications/tools/list_changed")
			require.NoError(t, err)
			require.NoError(t, <-sent)
		})
	}
}

type sumIn struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

type sumOut struct {
	Sum float64 `json:"sum"`
}

// Against a real go-sdk server: its inferred schemas are valid, and its
// structured output matches them.
func TestSchemasOfARealServer(t *testing.T) {
	t.Parallel()
	srv := probeServer(func(s *mcp.Server) {
		mcp.AddTool(s, &mcp.Tool{Name: "sum"}, func(_ context.Context, _ *mcp.CallToolRequest, in sumIn) (*mcp.CallToolResult, sumOut, error) {
			return nil, sumOut{Sum: in.A + in.B}, nil
		})
	})
	c := mcptest.Connect(t, gosdktest.Server(srv))
	list, err := c.ListTools(t.Context(), "")
	require.NoError(t, err)
	mcptest.Assert(t).ValidSchemas(list.Tools...)

	res, err := c.CallTool(t.Context(), "sum", map[string]any{"a": 1, "b": 2})
	require.NoError(t, err)
	mcptest.Assert(t).Structured(res, sumOut{Sum: 3})
	mcptest.Assert(t).OutputSchema(mcptest.Require(t).Tool(list.Tools, "sum"), res)
}

type countIn struct {
	Count int `json:"count"`
}

// crashingServer is a go-sdk server whose tool crashes on a negative count,
// the edge the generator tries; guarded, behind gosdk.Guard.
func crashingServer(logger *slog.Logger, guarded bool) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "crashy", Version: "v0"}, &mcp.ServerOptions{Logger: logger})
	if guarded {
		s.AddReceivingMiddleware(gosdk.Guard(logger))
	}
	mcp.AddTool(s, &mcp.Tool{Name: "repeat", Description: "Repeat x count times."},
		func(_ context.Context, _ *mcp.CallToolRequest, in countIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("x", in.Count)}}}, nil, nil
		})
	return s
}

func runCheck(t *testing.T, srv mcptest.Server, opts ...mcptest.Option) *faketb.TB {
	t.Helper()
	return runFake(t, func(tb testing.TB) { mcptest.CheckServer(tb, srv, opts...) })
}

// CheckServer finds a go-sdk server's crash, recovered by the adapter (no
// guard) or by gosdk.Guard, which logs it once.
func TestCheckServerGoSDKCrashes(t *testing.T) {
	t.Parallel()
	f := runCheck(t, gosdktest.Server(crashingServer(slog.New(slog.DiscardHandler), false)), mcptest.SkipChecks("malformed-frame"))
	f.ExpectFailure(t,
		`tools/calls/repeat: called tool "repeat" with arguments {"count":-`,
		`the handler panicked (panic in tool "repeat": strings: negative Repeat count), and the server has no crash guard of its own`,
		"srv.AddReceivingMiddleware(gosdk.Guard(logger))",
	)

	logs := logcapture.New(t, logcapture.NoDump())
	f = runCheck(t, gosdktest.Server(crashingServer(logs.Logger(), true)), mcptest.CheckLogs(logs), mcptest.SkipChecks("malformed-frame"))
	f.ExpectFailure(t,
		`tools/calls/repeat: called tool "repeat" with arguments {"count":-`,
		`the handler crashed (the crash guard caught it: the client got {isError:true content:["Error executing tool repeat"]})`,
		"expected: no crash on arguments that conform to the inputSchema",
	)
	assert.NotContains(t, f.Text(), "ERROR record", "the guard logs each crash once")
}

// go-sdk v1.8.0 ends the session on a frame that is not JSON instead of
// answering -32700: the check says so, naming the release, and how to leave
// it out.
func TestCheckServerGoSDKMalformedFrame(t *testing.T) {
	t.Parallel()
	srv := gosdktest.Server(crashingServer(slog.New(slog.DiscardHandler), true))
	runCheck(t, srv).ExpectFailure(t,
		"malformed-frame: sent a frame that is not valid JSON",
		"the connection ended",
		"(go-sdk v1.8.0, which serves this server, ends a session on a frame it cannot decode",
		`leave the check out with mcptest.SkipChecks("malformed-frame")`,
	)
}

// The go-sdk stdio server (testdata/cmdserver) at every version.
func TestCommandGoSDKEveryVersion(t *testing.T) {
	t.Parallel()
	mcptest.EachVersion(t, func(t *testing.T, version string) {
		t.Parallel()
		c := mcptest.Connect(t, mcptest.Command(cmdServer(t, "")))
		assert.Equal(t, version, c.ProtocolVersion())
		assert.Equal(t, "cmdserver", c.ServerInfo().Name)
		echoes(t, c, "over stdio at "+version)
	})
}

// Over stdio, a go-sdk tool that kills the process and one that never
// answers each fail their check, and the checks after them still run on a
// fresh process.
func TestCheckServerGoSDKStdio(t *testing.T) {
	t.Parallel()
	f := runFake(t, func(tb testing.TB) {
		mcptest.CheckServer(tb, mcptest.Command(cmdServer(tb, "")), mcptest.WithClient(client.Options{Timeout: 2 * time.Second}))
	})
	f.ExpectFailure(t,
		"tools/calls/crash: called tool \"crash\" with arguments {}\nthe connection broke",
		"tools/calls/hang: called tool \"hang\" with arguments {}\nno answer within 2s",
	)
	for _, unexpected := range []string{"tools/calls/echo:", "tools/unknown-tool:", "handshake/"} {
		assert.NotContains(t, f.Text(), unexpected)
	}
}

// cmdserverTwin is an in-process go-sdk server declared exactly as
// testdata/cmdserver's echo tool is, so that a session with either gives
// the same messages.
func cmdserverTwin() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "cmdserver", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo the text."},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
		})
	return s
}

// The same go-sdk session, pinned to one version, gives the same messages
// in memory, over stdio and over HTTP: the golden files are mcptest's own
// (testdata/external), which its fake server matches too.
func TestSessionGoldenGoSDK(t *testing.T) {
	t.Parallel()
	for name, connect := range map[string]func(tb testing.TB, opts ...mcptest.Option) *client.Client{
		"memory": func(tb testing.TB, opts ...mcptest.Option) *client.Client {
			return mcptest.Connect(tb, gosdktest.Server(cmdserverTwin()), opts...)
		},
		"command": func(tb testing.TB, opts ...mcptest.Option) *client.Client {
			return mcptest.Connect(tb, mcptest.Command(cmdServer(tb, "")), opts...)
		},
		"http": func(tb testing.TB, opts ...mcptest.Option) *client.Client {
			return mcptest.Connect(tb, mcptest.Handler(gosdkHTTP(cmdserverTwin())), opts...)
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, version := range []string{client.LatestVersion, client.LatestLegacyVersion} {
				if name == "http" && version == client.LatestVersion {
					continue // go-sdk serves 2026-07-28 over HTTP only when stateless
				}
				var tr mcptest.Transcript
				c := connect(t, mcptest.WithProtocolVersion(version), mcptest.WithTranscript(&tr))
				echoes(t, c, "golden")
				mcptest.Assert(t).Golden("external/session-"+version, tr.Messages())
			}
		})
	}
}

// A go-sdk tool that calls an upstream HTTP API with http.DefaultClient
// leaves the connection idle in http.DefaultTransport's pool, with
// net/http's goroutines carrying the connection's label: they belong to
// the process, so the test passes, and its leak check does not wait for
// them. Alone in its process (see runAlone), the check decides as the test
// ends.
func TestGoSDKToolCallingHTTPAPIDoesNotLeak(t *testing.T) {
	if child, _ := runAlone(t); !child {
		return
	}
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "sunny")
	}))
	t.Cleanup(api.Close) // after Connect's cleanup, which checks for leaks
	srv := probeServer(func(s *mcp.Server) {
		mcp.AddTool(s, &mcp.Tool{Name: "weather"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			resp, err := http.DefaultClient.Get(api.URL)
			if err != nil {
				return nil, nil, err
			}
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(body)}}}, nil, err
		})
	})
	c := mcptest.Connect(t, gosdktest.Server(srv))
	res, err := c.CallTool(t.Context(), "weather", nil)
	require.NoError(t, err)
	mcptest.Assert(t).Text(res, "sunny")
}

// A go-sdk tool whose raw handler (Server.AddTool) returns a Go error
// answers the call with JSON-RPC error 0: the test fails at the call, and
// the error says that a failure the model should read is an isError result.
func TestGoSDKRawToolErrorSaysWhatKindOfFailure(t *testing.T) {
	t.Parallel()
	srv := probeServer(func(s *mcp.Server) {
		s.AddTool(&mcp.Tool{Name: "get_order", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, errors.New("Order 99 not found")
		})
	})
	c := mcptest.Connect(t, gosdktest.Server(srv))
	_, err := c.CallTool(t.Context(), "get_order", map[string]any{"id": 99})
	require.EqualError(t, err, `tools/call "get_order": error 0: Order 99 not found `+
		`(a protocol error, which a client need not show the model; a tool failure for the model to read is a result with isError: true)`)
}
