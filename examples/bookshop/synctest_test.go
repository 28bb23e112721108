package bookshop_test

import (
	"context"
	"log/slog"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/examples/bookshop"
	"github.com/mcptestkit/mcptestkit/gosdk/gosdktest"
	"github.com/mcptestkit/mcptestkit/logcapture"
	"github.com/mcptestkit/mcptestkit/mcptest"
)

// withRestock is the Bookshop with a tool that takes an hour: it waits for
// the delivery, or for the request to be cancelled.
func withRestock(logger *slog.Logger) *mcp.Server {
	s := bookshop.New(logger)
	mcp.AddTool(s, &mcp.Tool{Name: "restock", Description: "Wait for the next delivery."},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			select {
			case <-time.After(time.Hour):
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "restocked"}}}, nil, nil
			case <-ctx.Done():
				return nil, nil, ctx.Err()
			}
		})
	return s
}

// Inside synctest.Test the server, the client and the harness run on the
// bubble's fake clock: the hour-long tool answers at once, in real time.
func TestRestockTakesAnHour(t *testing.T) {
	bounded(t, func(t *testing.T) {
		logs := logcapture.New(t)
		c := mcptest.Connect(t, gosdktest.Server(withRestock(logs.Logger())),
			mcptest.WithClient(client.Options{Timeout: 2 * time.Hour})) // the default 10 s is fake time too

		start := time.Now()
		res, err := c.CallTool(t.Context(), "restock", nil)
		require.NoError(t, err)
		mcptest.Assert(t).Text(res, "restocked")
		assert.Equal(t, time.Hour, time.Since(start)) // exactly: the clock moves only when everything waits
		logs.AssertNone(t, logcapture.AtLeast(slog.LevelWarn))
	})
}

// The request timeout is fake time as well: a call that gets no answer
// fails after the default 10 s at once, and the tool sees its context end.
func TestRestockTimesOut(t *testing.T) {
	bounded(t, func(t *testing.T) {
		c := mcptest.Connect(t, gosdktest.Server(withRestock(logcapture.New(t).Logger())))

		start := time.Now()
		_, err := c.CallTool(t.Context(), "restock", nil)
		require.ErrorIs(t, err, context.DeadlineExceeded)
		assert.ErrorContains(t, err, `tools/call "restock": no response within 10s`)
		assert.Equal(t, 10*time.Second, time.Since(start), "the default timeout, on the fake clock")
	})
}

// A Handler server works in the bubble too: the streamable HTTP handler is
// called in the test's process, with no socket.
func TestRestockOverHTTP(t *testing.T) {
	bounded(t, func(t *testing.T) {
		srv := withRestock(logcapture.New(t).Logger())
		handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
		c := mcptest.Connect(t, mcptest.Handler(handler), mcptest.WithClient(client.Options{Timeout: 2 * time.Hour}))

		start := time.Now()
		res, err := c.CallTool(t.Context(), "restock", nil)
		require.NoError(t, err)
		mcptest.Assert(t).Text(res, "restocked")
		assert.Equal(t, time.Hour, time.Since(start))
	})
}

// bounded runs f in a synctest bubble, and ends the test binary if it has
// not finished within a minute of real time: a goroutine blocked on
// something outside the bubble (a mutex, I/O) stops the fake clock, and the
// test would otherwise wait for go test -timeout.
func bounded(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	stop := time.AfterFunc(time.Minute, func() { panic(t.Name() + ": the synctest bubble is stuck") })
	defer stop.Stop()
	synctest.Test(t, f)
}
