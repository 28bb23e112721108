package servercheck_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/gosdk/gosdktest"
	"github.com/mcptestkit/mcptestkit/mcptest/servercheck"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

type noteIn struct {
	Text string `json:"text"`
}

// A failing check's result carries its name, the detail and the messages
// around the failure; the error Run returns names it.
func TestRunReportsAWarning(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "note"}, func(context.Context, *mcp.CallToolRequest, noteIn) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{}, nil, nil
	})
	for _, strict := range []bool{false, true} {
		var results []servercheck.Result
		err := servercheck.Run(t.Context(), inMemory(gosdktest.Server(s)), &servercheck.Options{
			Run:      "tools/(list|descriptions|calls)",
			OnResult: func(r servercheck.Result) { results = append(results, r) },
			Strict:   strict,
		})
		// A missing description is a convention broken: a warning, which
		// fails the run only when strict.
		if strict {
			require.EqualError(t, err, "1 check(s) failed: tools/descriptions")
		} else {
			require.NoError(t, err)
		}
		require.Len(t, results, 3)
		r := results[1]
		assert.Equal(t, "tools/descriptions", r.Name)
		assert.Equal(t, servercheck.Warn, r.Status)
		assert.Contains(t, r.Detail, `tools without a description: ["note"]`)
		require.NotEmpty(t, r.Transcript, "the excerpt shows the listing")
		assert.True(t, strings.HasPrefix(r.Transcript[0], "→ {"), r.Transcript[0])
		assert.Contains(t, r.Transcript[0], `"method":"tools/list"`)
		assert.Equal(t, servercheck.Pass, results[2].Status)
		assert.Contains(t, results[2].Detail, "call(s):")
		assert.Contains(t, r.String(), "WARN tools/descriptions")
	}
}

// A server that never completes the handshake: no check can run, and the
// error says so.
func TestRunCannotConnect(t *testing.T) {
	silent := inMemory(serveFunc(func(ctx context.Context, conn *memtransport.Conn) error {
		<-conn.Done()
		return nil
	}))
	err := servercheck.Run(t.Context(), silent, &servercheck.Options{Timeout: 100 * time.Millisecond})
	assert.ErrorIs(t, err, servercheck.ErrConnect)

	failing := func(context.Context) (client.Transport, error) { return nil, errors.New("no route to host") }
	err = servercheck.Run(t.Context(), failing, nil)
	assert.ErrorIs(t, err, servercheck.ErrConnect)
	assert.True(t, strings.Contains(err.Error(), "no route to host"), err.Error())
}

func TestRunBadPattern(t *testing.T) {
	err := servercheck.Run(t.Context(), nil, &servercheck.Options{Skip: []string{"tools/("}})
	assert.ErrorContains(t, err, `Options.Skip "tools/("`)
}

type serveFunc func(ctx context.Context, conn *memtransport.Conn) error

func (f serveFunc) Serve(ctx context.Context, conn *memtransport.Conn) error { return f(ctx, conn) }
