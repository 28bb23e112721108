package bookshopmcpgo

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcptestkit/mcptestkit/mcpgo"
)

// Book is one entry of the catalog.
type Book struct {
	// Title is the book's title, the catalog's key.
	Title string `json:"title" jsonschema:"required" jsonschema_description:"the book's title"`
	// Author is who wrote the book.
	Author string `json:"author" jsonschema:"required" jsonschema_description:"who wrote it"`
}

// catalog is the shop's stock, a fresh copy for each server.
func catalog() map[string]*Book {
	m := map[string]*Book{}
	for _, b := range []*Book{
		{Title: "Dune", Author: "Frank Herbert"},
		{Title: "Neuromancer", Author: "William Gibson"},
		{Title: "The Library of Babel", Author: "Jorge Luis Borges"},
	} {
		m[b.Title] = b
	}
	return m
}

// unreadable is the one book whose text cannot be served.
const unreadable = "The Library of Babel"

// BooksByAuthorInput is the argument of books_by_author.
type BooksByAuthorInput struct {
	// Author is the author's full name, matched exactly.
	Author string `json:"author" jsonschema:"required" jsonschema_description:"the author's full name"`
}

// BooksByAuthorOutput is the structured result of books_by_author.
type BooksByAuthorOutput struct {
	// Books are the author's books in the catalog, by title.
	Books []Book `json:"books" jsonschema:"required" jsonschema_description:"the author's books in the catalog, by title"`
}

// New returns the Bookshop with the error contract of the guide, which in
// mcp-go takes three deliberate choices:
//
//   - a tool reports an expected failure by returning
//     mcp.NewToolResultError(msg), nil: an error result the model reads. (A Go
//     error from a tool handler becomes a JSON-RPC -32603 error instead; see
//     [NewNaive].)
//   - server.WithInputSchemaValidation, so arguments that do not match the
//     input schema are rejected before the handler runs (mcp-go calls the
//     handler with them otherwise);
//   - each book is its own resource rather than one books://{title}
//     template, because a template handler can only fail with -32603: the
//     SDK answers "resource not found" only for a URI that matches nothing.
//
// It also installs the crash guard, mcpgo.Guard.
func New(logger *slog.Logger) *server.MCPServer {
	books := catalog()
	s := newServer(logger, books, server.WithInputSchemaValidation())
	s.AddTool(getAuthorTool(), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		title := req.GetString("title", "")
		b, ok := books[title]
		if !ok {
			return mcp.NewToolResultError(fmt.Sprintf("No book titled %q in the catalog.", title)), nil
		}
		return mcp.NewToolResultText(b.Author), nil
	})
	for _, b := range books {
		s.AddResource(mcp.NewResource(bookURI(b.Title), b.Title, mcp.WithMIMEType("text/plain"), mcp.WithResourceDescription("The catalog entry for "+b.Title)),
			func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
				return readBook(req.Params.URI, b)
			})
	}
	return s
}

// NewNaive returns the Bookshop written the way a Go programmer writes it
// first: get_author returns a Go error for an unknown title, there is no
// input validation, and the books are one resource template. Each choice
// gives a different answer from the guide's contract, and the tests show
// which.
func NewNaive(logger *slog.Logger) *server.MCPServer {
	books := catalog()
	s := newServer(logger, books)
	s.AddTool(getAuthorTool(), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		title, err := req.RequireString("title")
		if err != nil {
			return nil, err
		}
		b, ok := books[title]
		if !ok {
			//lint:ignore ST1005 a tool's error text is a sentence for the model, not for wrapping
			return nil, fmt.Errorf("No book titled %q in the catalog.", title) // becomes -32603: the model never sees it
		}
		return mcp.NewToolResultText(b.Author), nil
	})
	s.AddResourceTemplate(mcp.NewResourceTemplate("books://{title}", "book", mcp.WithTemplateMIMEType("text/plain"), mcp.WithTemplateDescription("The catalog entry for one book.")),
		func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			title, _ := url.PathUnescape(strings.TrimPrefix(req.Params.URI, "books://"))
			b, ok := books[title]
			if !ok {
				//lint:ignore ST1005 a tool's error text is a sentence for the model, not for wrapping
				return nil, fmt.Errorf("No book titled %q in the catalog.", title) // becomes -32603, not "not found"
			}
			return readBook(req.Params.URI, b)
		})
	return s
}

// NewUnchecked returns [New] with the check in get_author left out, so an
// unknown title crashes the handler (a nil pointer dereference in authorOf),
// for the crash guard to catch.
func NewUnchecked(logger *slog.Logger) *server.MCPServer {
	books := catalog()
	s := newServer(logger, books, server.WithInputSchemaValidation())
	s.AddTool(getAuthorTool(), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(authorOf(books, req.GetString("title", ""))), nil
	})
	return s
}

// authorOf trusts its caller: an unknown title is a nil *Book.
func authorOf(books map[string]*Book, title string) string {
	return books[title].Author
}

func getAuthorTool() mcp.Tool {
	return mcp.NewTool("get_author",
		mcp.WithDescription("Look up the author of a book in the catalog."),
		mcp.WithString("title", mcp.Required(), mcp.Description("the exact title of the book")),
	)
}

func bookURI(title string) string { return "books://" + url.PathEscape(title) }

func readBook(uri string, b *Book) ([]mcp.ResourceContents, error) {
	if b.Title == unreadable {
		// A resource handler's error is always -32603 in mcp-go.
		//lint:ignore ST1005 a tool's error text is a sentence for the model, not for wrapping
		return nil, fmt.Errorf("The catalog entry for %q cannot be read: it has infinitely many pages.", b.Title)
	}
	return []mcp.ResourceContents{mcp.TextResourceContents{URI: uri, MIMEType: "text/plain", Text: fmt.Sprintf("%s by %s", b.Title, b.Author)}}, nil
}

// newServer builds what every variant shares: the server with its logger and
// crash guard, the books_by_author tool and the recommend prompt.
func newServer(logger *slog.Logger, books map[string]*Book, opts ...server.ServerOption) *server.MCPServer {
	// Guard first: mcp-go runs the first middleware outermost, so it also
	// covers the logging middleware WithLogger adds.
	opts = append([]server.ServerOption{mcpgo.Guard(logger), server.WithLogger(logger)}, opts...)
	s := server.NewMCPServer("Bookshop", "v1.0.0", opts...)

	s.AddTool(mcp.NewTool("books_by_author",
		mcp.WithDescription("List the books in the catalog by one author."),
		mcp.WithInputSchema[BooksByAuthorInput](),
		mcp.WithOutputSchema[BooksByAuthorOutput](),
	), mcp.NewStructuredToolHandler(func(ctx context.Context, _ mcp.CallToolRequest, in BooksByAuthorInput) (BooksByAuthorOutput, error) {
		out := BooksByAuthorOutput{Books: []Book{}}
		for _, b := range books {
			if b.Author == in.Author {
				out.Books = append(out.Books, *b)
			}
		}
		slices.SortFunc(out.Books, func(a, b Book) int { return strings.Compare(a.Title, b.Title) })
		return out, nil
	}))

	s.AddPrompt(mcp.NewPrompt("recommend",
		mcp.WithPromptDescription("Ask for books like one you enjoyed."),
		mcp.WithArgument("title", mcp.RequiredArgument(), mcp.ArgumentDescription("a book from the catalog")),
	), func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		title := req.Params.Arguments["title"]
		b, ok := books[title]
		if !ok {
			//lint:ignore ST1005 a tool's error text is a sentence for the model, not for wrapping
			return nil, fmt.Errorf("No book titled %q in the catalog.", title) // -32603: mcp-go prompts cannot pick a code
		}
		return mcp.NewGetPromptResult("Recommendations like "+b.Title, []mcp.PromptMessage{
			mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent(fmt.Sprintf("I enjoyed %s by %s. Suggest three books I might like next.", b.Title, b.Author))),
		}), nil
	})
	return s
}
