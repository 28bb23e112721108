package bookshop

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/url"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptestkit/mcptestkit/gosdk"
)

// Book is one entry of the catalog.
type Book struct {
	// Title is the book's title, the catalog's key.
	Title string `json:"title" jsonschema:"the book's title"`
	// Author is who wrote the book.
	Author string `json:"author" jsonschema:"who wrote it"`
}

// catalog is the shop's stock. Each server gets its own copy, so tests that
// run in parallel never share it.
func catalog() map[string]*Book {
	books := []*Book{
		{Title: "Dune", Author: "Frank Herbert"},
		{Title: "Neuromancer", Author: "William Gibson"},
		{Title: "The Library of Babel", Author: "Jorge Luis Borges"},
	}
	m := make(map[string]*Book, len(books))
	for _, b := range books {
		m[b.Title] = b
	}
	return m
}

// unreadable is the one book in stock whose text cannot be served: the
// resource failure that is not "not found".
const unreadable = "The Library of Babel"

// GetAuthorInput is the argument of get_author.
type GetAuthorInput struct {
	// Title is the exact title to look up.
	Title string `json:"title" jsonschema:"the exact title of the book"`
}

// New returns the Bookshop server the way the error guide recommends: an
// unknown title is a tool error, a result with isError set that the model
// reads and can act on ("No book titled ... in the catalog.").
func New(logger *slog.Logger) *mcp.Server {
	books := catalog()
	s := newServer(logger, books)
	mcp.AddTool(s, getAuthorTool(), func(ctx context.Context, _ *mcp.CallToolRequest, in GetAuthorInput) (*mcp.CallToolResult, any, error) {
		b, ok := books[in.Title]
		if !ok {
			// A plain error from a typed go-sdk handler becomes the tool
			// error result; the guard logs it at INFO, without a stack.
			//lint:ignore ST1005 a tool's error text is a sentence for the model, not for wrapping
			return nil, nil, fmt.Errorf("No book titled %q in the catalog.", in.Title)
		}
		return text(b.Author), nil, nil
	})
	return s
}

// NewStrict returns the Bookshop with the same lookup failing as a protocol
// error instead: a *jsonrpc.Error from a typed go-sdk handler is sent as the
// JSON-RPC error response, with its code, message and data intact. The model
// sees nothing, so for this tool it is the wrong choice; it is here to show
// the mechanism.
func NewStrict(logger *slog.Logger) *mcp.Server {
	books := catalog()
	s := newServer(logger, books)
	mcp.AddTool(s, getAuthorTool(), func(ctx context.Context, _ *mcp.CallToolRequest, in GetAuthorInput) (*mcp.CallToolResult, any, error) {
		b, ok := books[in.Title]
		if !ok {
			data, _ := json.Marshal(map[string]string{"title": in.Title})
			return nil, nil, &jsonrpc.Error{
				Code:    jsonrpc.CodeInvalidParams,
				Message: fmt.Sprintf("No book titled %q in the catalog.", in.Title),
				Data:    data,
			}
		}
		return text(b.Author), nil, nil
	})
	return s
}

// NewUnchecked returns the Bookshop with the check left out, so an unknown
// title crashes the handler (a nil pointer dereference in authorOf). The
// crash guard that every constructor installs turns the panic into the bare
// result "Error executing tool get_author" for the model, and an ERROR log
// record with the stack for you.
func NewUnchecked(logger *slog.Logger) *mcp.Server {
	books := catalog()
	s := newServer(logger, books)
	mcp.AddTool(s, getAuthorTool(), func(ctx context.Context, _ *mcp.CallToolRequest, in GetAuthorInput) (*mcp.CallToolResult, any, error) {
		return text(authorOf(books, in.Title)), nil, nil
	})
	return s
}

// authorOf trusts its caller: an unknown title is a nil *Book.
func authorOf(books map[string]*Book, title string) string {
	return books[title].Author
}

// getAuthorTool describes get_author; a fresh value each time, because
// mcp.AddTool fills in the schemas it infers.
func getAuthorTool() *mcp.Tool {
	return &mcp.Tool{Name: "get_author", Description: "Look up the author of a book in the catalog."}
}

// BooksByAuthorInput is the argument of books_by_author.
type BooksByAuthorInput struct {
	// Author is the author's full name, matched exactly.
	Author string `json:"author" jsonschema:"the author's full name"`
}

// BooksByAuthorOutput is the structured result of books_by_author.
type BooksByAuthorOutput struct {
	// Books are the author's books in the catalog, by title.
	Books []Book `json:"books" jsonschema:"the author's books in the catalog, by title"`
}

// newServer builds what every variant shares: the server with its logger
// and crash guard, the books_by_author tool, the books://{title} resource
// template and the recommend prompt.
func newServer(logger *slog.Logger, books map[string]*Book) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "Bookshop", Version: "v1.0.0"}, &mcp.ServerOptions{Logger: logger})
	// The crash guard: a panicking handler becomes an error the client can
	// read, and an ERROR record with the stack, instead of a dead process.
	s.AddReceivingMiddleware(gosdk.Guard(logger))

	mcp.AddTool(s, &mcp.Tool{
		Name:        "books_by_author",
		Description: "List the books in the catalog by one author.",
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in BooksByAuthorInput) (*mcp.CallToolResult, BooksByAuthorOutput, error) {
		out := BooksByAuthorOutput{Books: []Book{}}
		for _, b := range books {
			if b.Author == in.Author {
				out.Books = append(out.Books, *b)
			}
		}
		slices.SortFunc(out.Books, func(a, b Book) int { return strings.Compare(a.Title, b.Title) })
		return nil, out, nil // go-sdk fills structuredContent (and a JSON text block) from out
	})

	s.AddResourceTemplate(&mcp.ResourceTemplate{
		Name:        "book",
		URITemplate: "books://{title}",
		Description: "The catalog entry for one book.",
		MIMEType:    "text/plain",
	}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		uri := req.Params.URI
		title, err := url.PathUnescape(strings.TrimPrefix(uri, "books://"))
		if err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("malformed book URI %q: %v", uri, err)}
		}
		b, ok := books[title]
		if !ok {
			// The template matches any title, so only this handler knows the
			// book is missing: resource not found, -32602 with the URI in data.
			data, _ := json.Marshal(map[string]string{"uri": uri})
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("No book titled %q in the catalog.", title), Data: data}
		}
		if b.Title == unreadable {
			// Found, but it cannot be served: an internal error, -32603. A
			// plain Go error here would go out with code 0.
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("The catalog entry for %q cannot be read: it has infinitely many pages.", title)}
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{
			URI:      uri,
			MIMEType: "text/plain",
			Text:     fmt.Sprintf("%s by %s", b.Title, b.Author),
		}}}, nil
	})

	s.AddPrompt(&mcp.Prompt{
		Name:        "recommend",
		Description: "Ask for books like one you enjoyed.",
		Arguments:   []*mcp.PromptArgument{{Name: "title", Description: "a book from the catalog", Required: true}},
	}, func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		title := req.Params.Arguments["title"]
		b, ok := books[title]
		if !ok {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("No book titled %q in the catalog.", title)}
		}
		return &mcp.GetPromptResult{
			Description: "Recommendations like " + b.Title,
			Messages: []*mcp.PromptMessage{{
				Role:    "user",
				Content: &mcp.TextContent{Text: fmt.Sprintf("I enjoyed %s by %s. Suggest three books I might like next.", b.Title, b.Author)},
			}},
		}, nil
	})
	return s
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}
