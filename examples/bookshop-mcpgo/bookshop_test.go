package bookshopmcpgo_test

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/mcptestkit/mcptestkit/client"
	bookshop "github.com/mcptestkit/mcptestkit/examples/bookshop-mcpgo"
	"github.com/mcptestkit/mcptestkit/guard"
	"github.com/mcptestkit/mcptestkit/logcapture"
	"github.com/mcptestkit/mcptestkit/mcpgo"
	"github.com/mcptestkit/mcptestkit/mcpgo/mcpgotest"
	"github.com/mcptestkit/mcptestkit/mcptest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// The contract, in mcp-go: return mcp.NewToolResultError(msg), nil.
func TestGetAuthorUnknownTitle(t *testing.T) {
	t.Parallel()
	logs := logcapture.New(t)
	c := mcptest.Connect(t, mcpgotest.Server(bookshop.New(logs.Logger())))

	res, err := c.CallTool(t.Context(), "get_author", map[string]any{"title": "Nothing"})
	require.NoError(t, err)
	mcptest.Assert(t).ToolError(res, "No book titled")
	mcptest.Assert(t).Text(res, `No book titled "Nothing" in the catalog.`)
	logs.AssertNone(t, logcapture.AtLeast(slog.LevelWarn))
}

// Where mcp-go differs: a Go error returned by a tool handler is not a tool
// error but a JSON-RPC -32603, so the model never reads the message and
// cannot retry with a better title.
func TestGoErrorFromAToolIsAProtocolError(t *testing.T) {
	t.Parallel()
	logs := logcapture.New(t)
	c := mcptest.Connect(t, mcpgotest.Server(bookshop.NewNaive(logs.Logger())))

	res, err := c.CallTool(t.Context(), "get_author", map[string]any{"title": "Nothing"})
	assert.Nil(t, res)
	e := mcptest.Require(t).ProtocolError(err, client.CodeInternalError)
	assert.Equal(t, `No book titled "Nothing" in the catalog.`, e.Message)
	logs.AssertNone(t, logcapture.AtLeast(slog.LevelWarn))
}

// The other way to the contract: keep returning Go errors from tools and
// let the crash guard turn them into error results.
func TestToolErrorsAsResults(t *testing.T) {
	t.Parallel()
	logs := logcapture.New(t)
	srv := server.NewMCPServer("lookup", "v1", mcpgo.Guard(logs.Logger(), guard.ToolErrorsAsResults))
	srv.AddTool(mcp.NewTool("get_author", mcp.WithString("title", mcp.Required())), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, fmt.Errorf("No book titled %q in the catalog.", req.GetString("title", ""))
	})
	c := mcptest.Connect(t, mcpgotest.Server(srv))

	res, err := c.CallTool(t.Context(), "get_author", map[string]any{"title": "Nothing"})
	require.NoError(t, err)
	mcptest.Assert(t).ToolError(res, "No book titled")
	logs.AssertLogged(t, logcapture.Level(slog.LevelInfo), logcapture.Message(guard.MsgToolError))
	logs.AssertNone(t, logcapture.AtLeast(slog.LevelWarn))
}

func TestGetAuthor(t *testing.T) {
	t.Parallel()
	for name, srv := range map[string]mcptest.Server{
		"New":      mcpgotest.Server(bookshop.New(logcapture.New(t).Logger())),
		"NewNaive": mcpgotest.Server(bookshop.NewNaive(logcapture.New(t).Logger())),
	} {
		c := mcptest.Connect(t, srv)
		res, err := c.CallTool(t.Context(), "get_author", map[string]any{"title": "Dune"})
		require.NoError(t, err, name)
		mcptest.Assert(t).Text(res, "Frank Herbert")
	}
}

// A crash, with the crash guard: the same bare result and ERROR record as
// with go-sdk.
func TestGetAuthorCrash(t *testing.T) {
	t.Parallel()
	logs := logcapture.New(t)
	c := mcptest.Connect(t, mcpgotest.Server(bookshop.NewUnchecked(logs.Logger())))

	res, err := c.CallTool(t.Context(), "get_author", map[string]any{"title": "Nothing"})
	require.NoError(t, err)
	mcptest.Assert(t).ToolError(res)
	mcptest.Assert(t).Text(res, "Error executing tool get_author")

	rec := logs.RequireLogged(t,
		logcapture.Level(slog.LevelError),
		logcapture.Message(guard.MsgToolPanic),
		logcapture.Attr(guard.ToolKey, "get_author"))
	assert.Contains(t, rec.Stack(), "bookshop-mcpgo.authorOf", "the stack names the panicking function")
	assert.Equal(t, 1, logs.Count(logcapture.AtLeast(slog.LevelWarn)))

	res, err = c.CallTool(t.Context(), "get_author", map[string]any{"title": "Neuromancer"})
	require.NoError(t, err)
	mcptest.Assert(t).Text(res, "William Gibson")
}

// Without WithInputSchemaValidation, mcp-go hands bad arguments to the
// handler; with it, they are an error result before the handler runs.
func TestArgumentsRejectedByTheSchema(t *testing.T) {
	t.Parallel()
	c := mcptest.Connect(t, mcpgotest.Server(bookshop.NewUnchecked(logcapture.New(t).Logger())))
	for name, args := range map[string]map[string]any{
		"wrong type": {"title": 42},
		"missing":    {},
	} {
		res, err := c.CallTool(t.Context(), "get_author", args)
		require.NoError(t, err, name)
		// NewUnchecked would crash on these; validation stops them first.
		mcptest.Assert(t).ToolError(res, "input schema validation failed")
	}

	naive := mcptest.Connect(t, mcpgotest.Server(bookshop.NewNaive(logcapture.New(t).Logger())))
	_, err := naive.CallTool(t.Context(), "get_author", map[string]any{"title": 42})
	// The handler ran, and its own argument check failed with a Go error.
	e := mcptest.Require(t).ProtocolError(err, client.CodeInternalError)
	assert.Contains(t, e.Message, `"title"`)
}

// Resource not found: with one resource per book, mcp-go answers a URI that
// matches nothing with its own "not found". On legacy connections that is
// -32002, which the contract accepts.
func TestReadUnknownBookLegacy(t *testing.T) {
	t.Parallel()
	c := mcptest.Connect(t, mcpgotest.Server(bookshop.New(logcapture.New(t).Logger())), mcptest.WithProtocolVersion(client.LatestLegacyVersion))

	_, err := c.ReadResource(t.Context(), "books://Nothing")
	mcptest.Assert(t).ResourceNotFound(err, "books://Nothing")
}

// At 2026-07-28 it is -32602, but without data.uri: the one part of the
// contract mcp-go cannot give. Assert the code and recognise the message.
func TestReadUnknownBookModern(t *testing.T) {
	t.Parallel()
	c := mcptest.Connect(t, mcpgotest.Server(bookshop.New(logcapture.New(t).Logger())))
	require.Equal(t, client.Version20260728, c.ProtocolVersion())

	_, err := c.ReadResource(t.Context(), "books://Nothing")
	e := mcptest.Require(t).ProtocolError(err, client.CodeInvalidParams)
	assert.Empty(t, e.Data, "mcp-go sends no data.uri")
	notFound := client.IsResourceNotFound(err)
	assert.True(t, notFound, "the client still recognises it by its message: %q", e.Message)
}

// With a books://{title} template, as NewNaive has, an unknown title reaches
// the handler, and a handler's error is always -32603 in mcp-go: it cannot
// say "not found".
func TestTemplateCannotSayNotFound(t *testing.T) {
	t.Parallel()
	c := mcptest.Connect(t, mcpgotest.Server(bookshop.NewNaive(logcapture.New(t).Logger())))

	_, err := c.ReadResource(t.Context(), "books://Nothing")
	e := mcptest.Require(t).ProtocolError(err, client.CodeInternalError)
	assert.Equal(t, `No book titled "Nothing" in the catalog.`, e.Message)
}

// Not even mcp-go's own sentinel helps: a template handler that returns
// server.ErrResourceNotFound, bare or wrapped, still gets -32603. (The
// workaround is New's: one resource per book.)
func TestTemplateErrResourceNotFoundIsStillInternalError(t *testing.T) {
	t.Parallel()
	srv := server.NewMCPServer("lookup", "v1")
	srv.AddResourceTemplate(mcp.NewResourceTemplate("books://{title}", "book"),
		func(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			if strings.HasSuffix(req.Params.URI, "Bare") {
				return nil, server.ErrResourceNotFound
			}
			return nil, fmt.Errorf("%w: %s", server.ErrResourceNotFound, req.Params.URI)
		})
	c := mcptest.Connect(t, mcpgotest.Server(srv))
	for _, uri := range []string{"books://Bare", "books://Wrapped"} {
		_, err := c.ReadResource(t.Context(), uri)
		mcptest.Require(t).ProtocolError(err, client.CodeInternalError)
		assert.False(t, client.IsResourceNotFound(err), uri)
	}
}

// Another resource failure: -32603 with the handler's message, in both
// versions of the server.
func TestReadUnreadableBook(t *testing.T) {
	t.Parallel()
	for name, srv := range map[string]mcptest.Server{
		"New":      mcpgotest.Server(bookshop.New(logcapture.New(t).Logger())),
		"NewNaive": mcpgotest.Server(bookshop.NewNaive(logcapture.New(t).Logger())),
	} {
		c := mcptest.Connect(t, srv)
		_, err := c.ReadResource(t.Context(), "books://The%20Library%20of%20Babel")
		e := mcptest.Require(t).ProtocolError(err, client.CodeInternalError)
		assert.Contains(t, e.Message, "infinitely many pages", name)

		res, err := c.ReadResource(t.Context(), "books://Dune")
		require.NoError(t, err, name)
		require.Len(t, res.Contents, 1)
		assert.Equal(t, "Dune by Frank Herbert", res.Contents[0].Text)
	}
}

func TestUnknownTool(t *testing.T) {
	t.Parallel()
	c := mcptest.Connect(t, mcpgotest.Server(bookshop.New(logcapture.New(t).Logger())))

	_, err := c.CallTool(t.Context(), "get_publisher", nil)
	e := mcptest.Require(t).ProtocolError(err, client.CodeInvalidParams)
	assert.Contains(t, e.Message, "get_publisher")
}

func TestBooksByAuthor(t *testing.T) {
	t.Parallel()
	c := mcptest.Connect(t, mcpgotest.Server(bookshop.New(logcapture.New(t).Logger())))

	res, err := c.CallTool(t.Context(), "books_by_author", map[string]any{"author": "William Gibson"})
	require.NoError(t, err)
	mcptest.Assert(t).ToolSuccess(res)
	mcptest.Assert(t).Structured(res, bookshop.BooksByAuthorOutput{Books: []bookshop.Book{{Title: "Neuromancer", Author: "William Gibson"}}})

	list, err := c.ListTools(t.Context(), "")
	require.NoError(t, err)
	mcptest.Assert(t).ValidSchemas(list.Tools...)
	mcptest.Assert(t).OutputSchema(mcptest.Require(t).Tool(list.Tools, "books_by_author"), res)
}

// A prompt handler's error is -32603 in mcp-go (go-sdk lets it choose).
func TestRecommendPrompt(t *testing.T) {
	t.Parallel()
	c := mcptest.Connect(t, mcpgotest.Server(bookshop.New(logcapture.New(t).Logger())))

	p, err := c.GetPrompt(t.Context(), "recommend", map[string]string{"title": "Neuromancer"})
	require.NoError(t, err)
	assert.Equal(t, "I enjoyed Neuromancer by William Gibson. Suggest three books I might like next.", p.Text())

	_, err = c.GetPrompt(t.Context(), "recommend", map[string]string{"title": "Nothing"})
	mcptest.Assert(t).ProtocolError(err, client.CodeInternalError)
}

func TestToolsSnapshot(t *testing.T) {
	t.Parallel()
	c := mcptest.Connect(t, mcpgotest.Server(bookshop.New(logcapture.New(t).Logger())))

	list, err := c.ListTools(t.Context(), "")
	require.NoError(t, err)
	mcptest.Assert(t).Golden("tools", list)
}

func TestContractAtEveryVersion(t *testing.T) {
	t.Parallel()
	mcptest.EachVersion(t, func(t *testing.T, version string) {
		t.Parallel()
		logs := logcapture.New(t)
		c := mcptest.Connect(t, mcpgotest.Server(bookshop.New(logs.Logger())))

		res, err := c.CallTool(t.Context(), "get_author", map[string]any{"title": "Nothing"})
		require.NoError(t, err)
		mcptest.Assert(t).ToolError(res, "No book titled")

		_, err = c.ReadResource(t.Context(), "books://Nothing")
		notFound := client.IsResourceNotFound(err)
		assert.True(t, notFound, "%v", err)
		logs.AssertNone(t, logcapture.AtLeast(slog.LevelWarn))
	})
}
