package transport_test

//lint:file-ignore SA1019 sampling, roots and logging are deprecated as of 2026-07-28 (SEP-2577) but still served, and the kit tests them at every version

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	mcpgomcp "github.com/mark3labs/mcp-go/mcp"
	mcpgoserver "github.com/mark3labs/mcp-go/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptestkit/mcptestkit/client/transport"
)

// recorded is one HTTP request a server saw.
type recorded struct {
	Method string
	Header http.Header
	Body   string
}

// recorder wraps a handler and keeps every request it serves.
type recorder struct {
	next http.Handler
	mu   sync.Mutex
	reqs []recorded
	seen chan recorded // every request, for tests that wait for one
}

func record(next http.Handler) *recorder {
	return &recorder{next: next, seen: make(chan recorded, 1024)}
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	var body []byte
	if req.Body != nil {
		body, _ = io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	rec := recorded{Method: req.Method, Header: req.Header.Clone(), Body: string(body)}
	r.mu.Lock()
	r.reqs = append(r.reqs, rec)
	r.mu.Unlock()
	select {
	case r.seen <- rec:
	default:
	}
	r.next.ServeHTTP(w, req)
}

// requests returns the recorded requests matching keep.
func (r *recorder) requests(keep func(recorded) bool) []recorded {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []recorded
	for _, q := range r.reqs {
		if keep(q) {
			out = append(out, q)
		}
	}
	return out
}

// waitRequest waits for a request matching keep (one already seen counts).
func (r *recorder) waitRequest(t testing.TB, keep func(recorded) bool) recorded {
	t.Helper()
	if got := r.requests(keep); len(got) > 0 {
		return got[0]
	}
	timeout := time.After(20 * time.Second)
	for {
		select {
		case q := <-r.seen:
			if keep(q) {
				return q
			}
		case <-timeout:
			t.Fatal("the server never saw the expected request")
		}
	}
}

// posts returns a filter for POSTs whose body mentions method.
func posts(method string) func(recorded) bool {
	return func(q recorded) bool {
		return q.Method == http.MethodPost && strings.Contains(q.Body, `"method":"`+method+`"`)
	}
}

func method(m string) func(recorded) bool {
	return func(q recorded) bool { return q.Method == m }
}

// connector makes a transport to a handler: over a real socket on
// 127.0.0.1, or in-process.
type connector struct {
	name    string
	connect func(t testing.TB, h http.Handler, opts ...transport.HTTPOption) *transport.StreamableHTTP
}

var connectors = []connector{
	{"socket", func(t testing.TB, h http.Handler, opts ...transport.HTTPOption) *transport.StreamableHTTP {
		t.Helper()
		srv := httptest.NewServer(h) // listens on 127.0.0.1
		t.Cleanup(srv.Close)
		tr := transport.HTTP(srv.URL+"/mcp", opts...)
		t.Cleanup(func() { tr.Close() })
		return tr
	}},
	{"in-process", func(t testing.TB, h http.Handler, opts ...transport.HTTPOption) *transport.StreamableHTTP {
		t.Helper()
		tr := transport.Handler(h, opts...)
		t.Cleanup(func() { tr.Close() })
		return tr
	}},
}

// gosdkFixture is a go-sdk server whose tools report to the test.
type gosdkFixture struct {
	server    *mcp.Server
	started   chan string // the slow tool began
	cancelled chan string // the slow tool's context ended
}

func objectSchema(props string) json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":` + props + `}`)
}

func textResult(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func newGoSDKFixture(t testing.TB) *gosdkFixture {
	t.Helper()
	f := &gosdkFixture{started: make(chan string, 8), cancelled: make(chan string, 8)}
	s := mcp.NewServer(&mcp.Implementation{Name: "gosdk-http", Version: "1.0.0"}, nil)
	s.AddTool(&mcp.Tool{Name: "echo", InputSchema: objectSchema(`{"text":{"type":"string"}}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in struct{ Text string }
			_ = json.Unmarshal(req.Params.Arguments, &in)
			return textResult("echo: " + in.Text), nil
		})
	s.AddTool(&mcp.Tool{Name: "lookup", InputSchema: objectSchema(`{
			"region": {"type": "string", "x-mcp-header": "Region"},
			"limit":  {"type": "integer", "x-mcp-header": "Limit"},
			"opts":   {"type": "object", "properties": {"dry": {"type": "boolean", "x-mcp-header": "Dry-Run"}}}}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			// Report the Mcp-Param-* headers the server received.
			var lines []string
			for k, v := range req.Extra.Header {
				if strings.HasPrefix(k, "Mcp-Param-") || k == "Mcp-Name" || k == "Mcp-Method" {
					lines = append(lines, k+": "+strings.Join(v, ","))
				}
			}
			sort.Strings(lines)
			return textResult(strings.Join(lines, "\n")), nil
		})
	s.AddTool(&mcp.Tool{Name: "slow", InputSchema: objectSchema(`{}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			f.started <- "slow"
			<-ctx.Done()
			f.cancelled <- "slow"
			return nil, ctx.Err()
		})
	s.AddTool(&mcp.Tool{Name: "progress", InputSchema: objectSchema(`{}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			for i := 1; i <= 3; i++ {
				err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
					ProgressToken: req.Params.GetProgressToken(), Progress: float64(i), Total: 3,
				})
				if err != nil {
					return nil, err
				}
			}
			return textResult("done"), nil
		})
	s.AddTool(&mcp.Tool{Name: "interrupt", InputSchema: objectSchema(`{}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			// Send one event, then close the stream the way SEP-1699 polling
			// does; the result goes to the event store for the resumed GET.
			err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
				ProgressToken: req.Params.GetProgressToken(), Progress: 1, Total: 2,
			})
			if err != nil {
				return nil, err
			}
			if req.Extra == nil || req.Extra.CloseSSEStream == nil {
				return nil, errors.New("no CloseSSEStream")
			}
			req.Extra.CloseSSEStream(mcp.CloseSSEStreamArgs{RetryAfter: 20 * time.Millisecond})
			return textResult("finished after the stream closed"), nil
		})
	s.AddTool(&mcp.Tool{Name: "roots", InputSchema: objectSchema(`{}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, err := req.Session.ListRoots(ctx, nil)
			if err != nil {
				return nil, err
			}
			var uris []string
			for _, r := range res.Roots {
				uris = append(uris, r.URI)
			}
			return textResult("roots: " + strings.Join(uris, ",")), nil
		})
	f.server = s
	return f
}

// gosdkHandler serves f over go-sdk's streamable HTTP handler.
func gosdkHandler(f *gosdkFixture, opts *mcp.StreamableHTTPOptions) http.Handler {
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return f.server }, opts)
}

// mcpgoServer is an mcp-go server with tools like the go-sdk fixture's.
func mcpgoServer(t testing.TB) *mcpgoserver.MCPServer {
	t.Helper()
	s := mcpgoserver.NewMCPServer("mcpgo-http", "1.0.0", mcpgoserver.WithToolCapabilities(true))
	s.AddTool(mcpgomcp.NewTool("echo", mcpgomcp.WithString("text")),
		func(ctx context.Context, req mcpgomcp.CallToolRequest) (*mcpgomcp.CallToolResult, error) {
			return mcpgomcp.NewToolResultText("echo: " + req.GetString("text", "")), nil
		})
	s.AddTool(mcpgomcp.NewToolWithRawSchema("lookup", "headers", objectSchema(`{
			"region": {"type": "string", "x-mcp-header": "Region"},
			"limit":  {"type": "integer", "x-mcp-header": "Limit"}}`)),
		func(ctx context.Context, req mcpgomcp.CallToolRequest) (*mcpgomcp.CallToolResult, error) {
			var lines []string
			for k, v := range req.Header {
				if strings.HasPrefix(k, "Mcp-Param-") || k == "Mcp-Name" || k == "Mcp-Method" {
					lines = append(lines, k+": "+strings.Join(v, ","))
				}
			}
			sort.Strings(lines)
			return mcpgomcp.NewToolResultText(strings.Join(lines, "\n")), nil
		})
	s.AddTool(mcpgomcp.NewTool("progress"),
		func(ctx context.Context, req mcpgomcp.CallToolRequest) (*mcpgomcp.CallToolResult, error) {
			srv := mcpgoserver.ServerFromContext(ctx)
			var token mcpgomcp.ProgressToken
			if req.Params.Meta != nil {
				token = req.Params.Meta.ProgressToken
			}
			for i := 1; i <= 3; i++ {
				err := srv.SendNotificationToClient(ctx, "notifications/progress", map[string]any{
					"progressToken": token, "progress": i, "total": 3,
				})
				if err != nil {
					return nil, fmt.Errorf("progress: %w", err)
				}
			}
			return mcpgomcp.NewToolResultText("done"), nil
		})
	return s
}
