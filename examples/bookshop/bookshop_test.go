package bookshop_test

import (
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/examples/bookshop"
	"github.com/mcptestkit/mcptestkit/gosdk/gosdktest"
	"github.com/mcptestkit/mcptestkit/guard"
	"github.com/mcptestkit/mcptestkit/logcapture"
	"github.com/mcptestkit/mcptestkit/mcptest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// A tool error: the request succeeds, and the result tells the model what
// went wrong so that it can try again with a better title. (This is the
// README's quick-start test, as written.)
func TestGetAuthorUnknownTitle(t *testing.T) {
	logs := logcapture.New(t)
	c := mcptest.Connect(t, gosdktest.Server(bookshop.New(logs.Logger())))

	res, err := c.CallTool(t.Context(), "get_author", map[string]any{"title": "Nothing"})
	require.NoError(t, err)                                // the request succeeded...
	mcptest.Assert(t).ToolError(res, "No book titled")     // ...and the tool failed: the model reads this
	logs.AssertNone(t, logcapture.AtLeast(slog.LevelWarn)) // an expected failure is not a warning
}

func TestGetAuthor(t *testing.T) {
	t.Parallel()
	c := mcptest.Connect(t, gosdktest.Server(bookshop.New(logcapture.New(t).Logger())))

	res, err := c.CallTool(t.Context(), "get_author", map[string]any{"title": "Dune"})
	require.NoError(t, err)
	mcptest.Assert(t).ToolSuccess(res)
	mcptest.Assert(t).Text(res, "Frank Herbert")
	mcptest.Assert(t).NoStructured(res) // get_author declares no output schema
}

// The whole tool error, as the model reads it, and the one INFO line the
// server logs for it: no stack, because nothing is broken.
func TestToolErrorInDetail(t *testing.T) {
	t.Parallel()
	logs := logcapture.New(t)
	c := mcptest.Connect(t, gosdktest.Server(bookshop.New(logs.Logger())))

	res, err := c.CallTool(t.Context(), "get_author", map[string]any{"title": "Nothing"})
	require.NoError(t, err)
	mcptest.Assert(t).ToolError(res) // and no structuredContent: a failed call has no value to structure
	mcptest.Assert(t).Text(res, `No book titled "Nothing" in the catalog.`)

	rec := logs.RequireLogged(t, logcapture.Message(guard.MsgToolError), logcapture.Attr(guard.ToolKey, "get_author"))
	assert.Equal(t, slog.LevelInfo, rec.Level)
	assert.Empty(t, rec.Stack())
}

// The same lookup as a protocol error: no result at all, and code, message
// and data arrive exactly as the handler built them.
func TestGetAuthorAsProtocolError(t *testing.T) {
	t.Parallel()
	logs := logcapture.New(t)
	c := mcptest.Connect(t, gosdktest.Server(bookshop.NewStrict(logs.Logger())))

	res, err := c.CallTool(t.Context(), "get_author", map[string]any{"title": "Nothing"})
	assert.Nil(t, res, "no content, no isError: nothing for the model to read")
	e := mcptest.Require(t).ProtocolError(err, client.CodeInvalidParams)
	assert.Equal(t, `No book titled "Nothing" in the catalog.`, e.Message)
	assert.JSONEq(t, `{"title":"Nothing"}`, string(e.Data))
	assert.Equal(t, "tools/call", e.Method)
	logs.AssertNone(t, logcapture.AtLeast(slog.LevelWarn))

	// A good title still works: the protocol error ended one request only.
	res, err = c.CallTool(t.Context(), "get_author", map[string]any{"title": "Neuromancer"})
	require.NoError(t, err)
	mcptest.Assert(t).Text(res, "William Gibson")
}

// A crash: the handler panics on an unknown title. The crash guard turns it
// into a bare error result, which tells the model only that the call failed,
// and an ERROR record whose stack names the function that panicked.
func TestGetAuthorCrash(t *testing.T) {
	t.Parallel()
	logs := logcapture.New(t)
	c := mcptest.Connect(t, gosdktest.Server(bookshop.NewUnchecked(logs.Logger())))

	res, err := c.CallTool(t.Context(), "get_author", map[string]any{"title": "Nothing"})
	require.NoError(t, err)
	mcptest.Assert(t).ToolError(res)
	mcptest.Assert(t).Text(res, "Error executing tool get_author") // the panic's text never leaves the server

	rec := logs.RequireLogged(t,
		logcapture.Level(slog.LevelError),
		logcapture.Message(guard.MsgToolPanic),
		logcapture.Attr(guard.ToolKey, "get_author"))
	assert.Contains(t, rec.Stack(), "bookshop.authorOf", "the stack names the panicking function")
	assert.Contains(t, rec.Value(guard.PanicKey), "nil pointer dereference")
	assert.Equal(t, 1, logs.Count(logcapture.AtLeast(slog.LevelWarn)), "exactly one record at WARN or above")

	// The server survived: the next call works.
	res, err = c.CallTool(t.Context(), "get_author", map[string]any{"title": "Dune"})
	require.NoError(t, err)
	mcptest.Assert(t).Text(res, "Frank Herbert")
}

// A resource that does not exist: the template matches any title, so the
// handler decides, and answers -32602 with the URI in data.
func TestReadUnknownBook(t *testing.T) {
	t.Parallel()
	logs := logcapture.New(t)
	c := mcptest.Connect(t, gosdktest.Server(bookshop.New(logs.Logger())))

	_, err := c.ReadResource(t.Context(), "books://Nothing")
	mcptest.Assert(t).ResourceNotFound(err, "books://Nothing")
	e := mcptest.Require(t).ProtocolError(err, client.CodeInvalidParams)
	assert.Equal(t, `No book titled "Nothing" in the catalog.`, e.Message)
	assert.JSONEq(t, `{"uri":"books://Nothing"}`, string(e.Data), "the 2026-07-28 form: data.uri says which read failed")
	logs.AssertNone(t, logcapture.AtLeast(slog.LevelWarn))
}

// A resource that exists but cannot be served: -32603 with the handler's
// message. Resources have no isError result; a read either returns content
// or fails.
func TestReadUnreadableBook(t *testing.T) {
	t.Parallel()
	logs := logcapture.New(t)
	c := mcptest.Connect(t, gosdktest.Server(bookshop.New(logs.Logger())))

	_, err := c.ReadResource(t.Context(), "books://The%20Library%20of%20Babel")
	e := mcptest.Require(t).ProtocolError(err, client.CodeInternalError)
	assert.Contains(t, e.Message, "infinitely many pages")
	logs.AssertLogged(t, logcapture.Level(slog.LevelInfo), logcapture.Message(guard.MsgRequestFailed), logcapture.Attr(guard.CodeKey, client.CodeInternalError))
	logs.AssertNone(t, logcapture.AtLeast(slog.LevelWarn))
}

func TestReadBook(t *testing.T) {
	t.Parallel()
	c := mcptest.Connect(t, gosdktest.Server(bookshop.New(logcapture.New(t).Logger())))

	res, err := c.ReadResource(t.Context(), "books://Neuromancer")
	require.NoError(t, err)
	require.Len(t, res.Contents, 1)
	assert.Equal(t, "Neuromancer by William Gibson", res.Contents[0].Text)
	assert.Equal(t, "text/plain", res.Contents[0].MIMEType)
}

// Arguments that do not match the input schema never reach the handler: the
// SDK rejects them with a tool error the model can read and correct.
func TestArgumentsRejectedByTheSchema(t *testing.T) {
	t.Parallel()
	c := mcptest.Connect(t, gosdktest.Server(bookshop.NewUnchecked(logcapture.New(t).Logger())))

	for name, args := range map[string]map[string]any{
		"wrong type": {"title": 42},
		"missing":    {},
		"extra":      {"title": "Dune", "edition": 2},
	} {
		res, err := c.CallTool(t.Context(), "get_author", args)
		require.NoError(t, err, name)
		// NewUnchecked would crash on a bad title; the schema stops it first.
		mcptest.Assert(t).ToolError(res, `validating "arguments"`)
	}
}

func TestUnknownTool(t *testing.T) {
	t.Parallel()
	c := mcptest.Connect(t, gosdktest.Server(bookshop.New(logcapture.New(t).Logger())))

	_, err := c.CallTool(t.Context(), "get_publisher", map[string]any{"title": "Dune"})
	e := mcptest.Require(t).ProtocolError(err, client.CodeInvalidParams)
	assert.Contains(t, e.Message, `unknown tool "get_publisher"`)
}

// Structured output: checked against a Go value and against the tool's own
// output schema.
func TestBooksByAuthor(t *testing.T) {
	t.Parallel()
	c := mcptest.Connect(t, gosdktest.Server(bookshop.New(logcapture.New(t).Logger())))

	res, err := c.CallTool(t.Context(), "books_by_author", map[string]any{"author": "Frank Herbert"})
	require.NoError(t, err)
	mcptest.Assert(t).ToolSuccess(res)
	mcptest.Assert(t).Structured(res, bookshop.BooksByAuthorOutput{Books: []bookshop.Book{{Title: "Dune", Author: "Frank Herbert"}}})

	list, err := c.ListTools(t.Context(), "")
	require.NoError(t, err)
	mcptest.Assert(t).OutputSchema(mcptest.Require(t).Tool(list.Tools, "books_by_author"), res)
}

func TestRecommendPrompt(t *testing.T) {
	t.Parallel()
	c := mcptest.Connect(t, gosdktest.Server(bookshop.New(logcapture.New(t).Logger())))

	p, err := c.GetPrompt(t.Context(), "recommend", map[string]string{"title": "Dune"})
	require.NoError(t, err)
	assert.Equal(t, "I enjoyed Dune by Frank Herbert. Suggest three books I might like next.", p.Text())

	_, err = c.GetPrompt(t.Context(), "recommend", map[string]string{"title": "Nothing"})
	mcptest.Assert(t).ProtocolError(err, client.CodeInvalidParams)
}

// The tools' contract, pinned: a schema change shows up in review as a diff
// of testdata/tools.json. Refresh with MCPTEST_UPDATE=1.
func TestToolsSnapshot(t *testing.T) {
	t.Parallel()
	c := mcptest.Connect(t, gosdktest.Server(bookshop.New(logcapture.New(t).Logger())))

	list, err := c.ListTools(t.Context(), "")
	require.NoError(t, err)
	mcptest.Assert(t).ValidSchemas(list.Tools...)
	mcptest.Assert(t).Golden("tools", list)
}

// The contract holds at every protocol version the client speaks.
func TestContractAtEveryVersion(t *testing.T) {
	t.Parallel()
	mcptest.EachVersion(t, func(t *testing.T, version string) {
		t.Parallel()
		logs := logcapture.New(t)
		c := mcptest.Connect(t, gosdktest.Server(bookshop.New(logs.Logger())))
		require.Equal(t, version, c.ProtocolVersion())

		res, err := c.CallTool(t.Context(), "get_author", map[string]any{"title": "Nothing"})
		require.NoError(t, err)
		mcptest.Assert(t).ToolError(res, "No book titled")

		_, err = c.ReadResource(t.Context(), "books://Nothing")
		mcptest.Assert(t).ResourceNotFound(err, "books://Nothing")

		logs.AssertNone(t, logcapture.AtLeast(slog.LevelWarn))
	})
}
