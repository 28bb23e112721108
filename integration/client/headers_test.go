package client_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"sync"
	"testing"

	. "github.com/mcptestkit/mcptestkit/client"

	mcpgomcp "github.com/mark3labs/mcp-go/mcp"
	mcpgoserver "github.com/mark3labs/mcp-go/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client/transport"
)

// lookupSchema has an argument that travels in an HTTP header too
// (Mcp-Param-Region) on 2026-07-28 streamable HTTP.
const lookupSchema = `{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}`

// postLog records, for each POST a handler serves, its Mcp-Method and
// Mcp-Param-Region headers and the status it answered with. The status is
// written down when the handler sends it, before the client can see it.
type postLog struct {
	next http.Handler
	mu   sync.Mutex
	seen []string
}

func (l *postLog) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	l.mu.Lock()
	i := len(l.seen)
	l.seen = append(l.seen, r.Method+" "+r.Header.Get("Mcp-Method")+" region="+r.Header.Get("Mcp-Param-Region"))
	l.mu.Unlock()
	l.next.ServeHTTP(&statusWriter{ResponseWriter: w, log: l, i: i}, r)
}

func (l *postLog) posts() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.seen...)
}

type statusWriter struct {
	http.ResponseWriter
	log     *postLog
	i       int
	written bool
}

func (w *statusWriter) WriteHeader(code int) {
	w.note(code)
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	w.note(http.StatusOK) // the implicit status, when none was sent
	return w.ResponseWriter.Write(b)
}

// note records the first status only, as net/http keeps only that.
func (w *statusWriter) note(code int) {
	if w.written {
		return
	}
	w.written = true
	w.log.mu.Lock()
	w.log.seen[w.i] += " " + http.StatusText(code)
	w.log.mu.Unlock()
}

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// The two SDKs' 2026-07-28 streamable HTTP handlers, each with a tool whose
// "region" argument is bound to a header and which reports the header it got.
var headerServers = []struct {
	name    string
	handler func() http.Handler
}{
	{"gosdk", func() http.Handler {
		s := mcp.NewServer(&mcp.Implementation{Name: "headers", Version: "1"}, nil)
		s.AddTool(&mcp.Tool{Name: "lookup", InputSchema: json.RawMessage(lookupSchema)},
			func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "region " + req.Extra.Header.Get("Mcp-Param-Region")}}}, nil
			})
		return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true})
	}},
	{"mcpgo", func() http.Handler {
		s := mcpgoserver.NewMCPServer("headers", "1", mcpgoserver.WithToolCapabilities(true))
		s.AddTool(mcpgomcp.NewToolWithRawSchema("lookup", "", json.RawMessage(lookupSchema)),
			func(_ context.Context, req mcpgomcp.CallToolRequest) (*mcpgomcp.CallToolResult, error) {
				return mcpgomcp.NewToolResultText("region " + req.Header.Get("Mcp-Param-Region")), nil
			})
		return mcpgoserver.NewStreamableHTTPServer(s, mcpgoserver.WithStreamableHTTPLogger(slog.New(slog.DiscardHandler)))
	}},
}

// A tool with an x-mcp-header annotation, called before it was listed: the
// transport does not know the binding yet and sends no Mcp-Param-Region, the
// server refuses the call with -32020, and the client lists the tools (which
// teaches the transport) and retries the call once, which now succeeds.
func TestHeaderMismatchRelistsAndRetries(t *testing.T) {
	for _, hs := range headerServers {
		t.Run(hs.name, func(t *testing.T) {
			log := &postLog{next: hs.handler()}
			c, err := Connect(t.Context(), transport.Handler(log), nil)
			require.NoError(t, err)
			t.Cleanup(func() { c.Close() })
			require.True(t, c.IsModern())

			res, err := c.CallTool(t.Context(), "lookup", map[string]any{"region": "eu-west-1"})
			require.NoError(t, err)
			assert.Equal(t, "region eu-west-1", res.Text())
			assert.Equal(t, []string{
				"POST server/discover region= OK",
				"POST tools/call region= Bad Request",
				"POST tools/list region= OK",
				"POST tools/call region=eu-west-1 OK",
			}, log.posts())

			// The binding is known now: the next call goes through at once.
			res, err = c.CallTool(t.Context(), "lookup", map[string]any{"region": "ap-south-1"})
			require.NoError(t, err)
			assert.Equal(t, "region ap-south-1", res.Text())
			assert.Len(t, log.posts(), 5)
		})
	}
}
