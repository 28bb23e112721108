package client

import (
	"context"
	"fmt"
	"iter"

	"github.com/mcptestkit/mcptestkit/internal/jsonrpc"
)

// Pagination. A list comes a page at a time; a page that has a successor
// carries nextCursor, and only the absence of nextCursor ends the list: the
// empty string is a valid cursor. The result types keep NextCursor a plain
// string and record whether the server sent it, which HasNextPage reports.

// ListToolsResult is one page of tools/list.
type ListToolsResult struct {
	// Tools are this page's tools.
	Tools []*Tool `json:"tools"`
	// NextCursor names the next page when [ListToolsResult.HasNextPage]
	// reports one. It may be empty.
	NextCursor string `json:"nextCursor,omitempty"`
	// TTLMs ("ttlMs", 2026-07-28) is how many milliseconds the page stays fresh
	// for caching. 0, also when absent (older servers), means stale at once;
	// treat a negative value as 0.
	TTLMs int64 `json:"ttlMs,omitempty"`
	// CacheScope ("cacheScope", 2026-07-28) is "public" (shareable across
	// users) or "private" (only within one authorization context); empty from
	// older servers.
	CacheScope string `json:"cacheScope,omitempty"`
	// Meta is the page's "_meta".
	Meta Meta `json:"_meta,omitempty"`

	nextSent bool // the server sent nextCursor, perhaps empty
}

// HasNextPage reports whether the list goes on after this page: the server
// sent nextCursor, even an empty one.
func (r *ListToolsResult) HasNextPage() bool { return r.nextSent || r.NextCursor != "" }

// ListResourcesResult is one page of resources/list.
type ListResourcesResult struct {
	// Resources are this page's resources.
	Resources []*Resource `json:"resources"`
	// NextCursor names the next page when [ListResourcesResult.HasNextPage]
	// reports one. It may be empty.
	NextCursor string `json:"nextCursor,omitempty"`
	// TTLMs ("ttlMs", 2026-07-28) is how many milliseconds the page stays fresh
	// for caching. 0, also when absent (older servers), means stale at once;
	// treat a negative value as 0.
	TTLMs int64 `json:"ttlMs,omitempty"`
	// CacheScope ("cacheScope", 2026-07-28) is "public" (shareable across
	// users) or "private" (only within one authorization context); empty from
	// older servers.
	CacheScope string `json:"cacheScope,omitempty"`
	// Meta is the page's "_meta".
	Meta Meta `json:"_meta,omitempty"`

	nextSent bool
}

// HasNextPage reports whether the list goes on after this page: the server
// sent nextCursor, even an empty one.
func (r *ListResourcesResult) HasNextPage() bool { return r.nextSent || r.NextCursor != "" }

// ListResourceTemplatesResult is one page of resources/templates/list.
type ListResourceTemplatesResult struct {
	// ResourceTemplates are this page's templates.
	ResourceTemplates []*ResourceTemplate `json:"resourceTemplates"`
	// NextCursor names the next page when
	// [ListResourceTemplatesResult.HasNextPage] reports one. It may be empty.
	NextCursor string `json:"nextCursor,omitempty"`
	// TTLMs ("ttlMs", 2026-07-28) is how many milliseconds the page stays fresh
	// for caching. 0, also when absent (older servers), means stale at once;
	// treat a negative value as 0.
	TTLMs int64 `json:"ttlMs,omitempty"`
	// CacheScope ("cacheScope", 2026-07-28) is "public" (shareable across
	// users) or "private" (only within one authorization context); empty from
	// older servers.
	CacheScope string `json:"cacheScope,omitempty"`
	// Meta is the page's "_meta".
	Meta Meta `json:"_meta,omitempty"`

	nextSent bool
}

// HasNextPage reports whether the list goes on after this page: the server
// sent nextCursor, even an empty one.
func (r *ListResourceTemplatesResult) HasNextPage() bool { return r.nextSent || r.NextCursor != "" }

// ListPromptsResult is one page of prompts/list.
type ListPromptsResult struct {
	// Prompts are this page's prompts.
	Prompts []*Prompt `json:"prompts"`
	// NextCursor names the next page when [ListPromptsResult.HasNextPage]
	// reports one. It may be empty.
	NextCursor string `json:"nextCursor,omitempty"`
	// TTLMs ("ttlMs", 2026-07-28) is how many milliseconds the page stays fresh
	// for caching. 0, also when absent (older servers), means stale at once;
	// treat a negative value as 0.
	TTLMs int64 `json:"ttlMs,omitempty"`
	// CacheScope ("cacheScope", 2026-07-28) is "public" (shareable across
	// users) or "private" (only within one authorization context); empty from
	// older servers.
	CacheScope string `json:"cacheScope,omitempty"`
	// Meta is the page's "_meta".
	Meta Meta `json:"_meta,omitempty"`

	nextSent bool
}

// HasNextPage reports whether the list goes on after this page: the server
// sent nextCursor, even an empty one.
func (r *ListPromptsResult) HasNextPage() bool { return r.nextSent || r.NextCursor != "" }

// ListTools returns one page of the server's tools: the first for cursor "",
// else the page a previous page's NextCursor names. [Client.Tools] follows
// the pages for you, including the page an empty cursor names, which
// ListTools cannot ask for ("" asks for the first page).
func (c *Client) ListTools(ctx context.Context, cursor string, opts ...CallOption) (*ListToolsResult, error) {
	co := collect(opts)
	return c.listTools(ctx, pageAt(cursor), &co)
}

// ListResources returns one page of the server's resources, as
// [Client.ListTools] does for tools.
func (c *Client) ListResources(ctx context.Context, cursor string, opts ...CallOption) (*ListResourcesResult, error) {
	co := collect(opts)
	return c.listResources(ctx, pageAt(cursor), &co)
}

// ListResourceTemplates returns one page of the server's resource templates,
// as [Client.ListTools] does for tools.
func (c *Client) ListResourceTemplates(ctx context.Context, cursor string, opts ...CallOption) (*ListResourceTemplatesResult, error) {
	co := collect(opts)
	return c.listResourceTemplates(ctx, pageAt(cursor), &co)
}

// ListPrompts returns one page of the server's prompts, as [Client.ListTools]
// does for tools.
func (c *Client) ListPrompts(ctx context.Context, cursor string, opts ...CallOption) (*ListPromptsResult, error) {
	co := collect(opts)
	return c.listPrompts(ctx, pageAt(cursor), &co)
}

// Tools iterates over all the server's tools, following the cursors from page
// to page. An error ends the iteration; it is yielded with a nil tool.
func (c *Client) Tools(ctx context.Context, opts ...CallOption) iter.Seq2[*Tool, error] {
	co := collect(opts)
	return paginate(methodListTools, "ListTools", func(cursor *string) (*ListToolsResult, error) { return c.listTools(ctx, cursor, &co) })
}

// Resources iterates over all the server's resources, following the cursors
// from page to page. An error ends the iteration; it is yielded with a nil
// resource.
func (c *Client) Resources(ctx context.Context, opts ...CallOption) iter.Seq2[*Resource, error] {
	co := collect(opts)
	return paginate(methodListResources, "ListResources", func(cursor *string) (*ListResourcesResult, error) { return c.listResources(ctx, cursor, &co) })
}

// ResourceTemplates iterates over all the server's resource templates,
// following the cursors from page to page. An error ends the iteration; it is
// yielded with a nil template.
func (c *Client) ResourceTemplates(ctx context.Context, opts ...CallOption) iter.Seq2[*ResourceTemplate, error] {
	co := collect(opts)
	return paginate(methodListTemplates, "ListResourceTemplates", func(cursor *string) (*ListResourceTemplatesResult, error) {
		return c.listResourceTemplates(ctx, cursor, &co)
	})
}

// Prompts iterates over all the server's prompts, following the cursors from
// page to page. An error ends the iteration; it is yielded with a nil prompt.
func (c *Client) Prompts(ctx context.Context, opts ...CallOption) iter.Seq2[*Prompt, error] {
	co := collect(opts)
	return paginate(methodListPrompts, "ListPrompts", func(cursor *string) (*ListPromptsResult, error) { return c.listPrompts(ctx, cursor, &co) })
}

// The list requests proper. cursor is nil for the first page. Each decodes
// into a wrapper whose own NextCursor, a pointer, shadows the result's (the
// shallower field wins in encoding/json), so that an empty cursor is told
// from none in the one decoding pass.

func (c *Client) listTools(ctx context.Context, cursor *string, co *callOptions) (*ListToolsResult, error) {
	var w struct {
		ListToolsResult
		envelope
		NextCursor *string `json:"nextCursor"`
	}
	if err := c.callInto(ctx, op{method: methodListTools}, cursorParams(cursor), co, &w, &w.envelope); err != nil {
		return nil, err
	}
	w.ListToolsResult.NextCursor, w.nextSent = nextCursor(w.NextCursor)
	w.Tools = c.keepToolsWithValidHeaders(w.Tools)
	return &w.ListToolsResult, nil
}

func (c *Client) listResources(ctx context.Context, cursor *string, co *callOptions) (*ListResourcesResult, error) {
	var w struct {
		ListResourcesResult
		envelope
		NextCursor *string `json:"nextCursor"`
	}
	if err := c.callInto(ctx, op{method: methodListResources}, cursorParams(cursor), co, &w, &w.envelope); err != nil {
		return nil, err
	}
	w.ListResourcesResult.NextCursor, w.nextSent = nextCursor(w.NextCursor)
	return &w.ListResourcesResult, nil
}

func (c *Client) listResourceTemplates(ctx context.Context, cursor *string, co *callOptions) (*ListResourceTemplatesResult, error) {
	var w struct {
		ListResourceTemplatesResult
		envelope
		NextCursor *string `json:"nextCursor"`
	}
	if err := c.callInto(ctx, op{method: methodListTemplates}, cursorParams(cursor), co, &w, &w.envelope); err != nil {
		return nil, err
	}
	w.ListResourceTemplatesResult.NextCursor, w.nextSent = nextCursor(w.NextCursor)
	return &w.ListResourceTemplatesResult, nil
}

func (c *Client) listPrompts(ctx context.Context, cursor *string, co *callOptions) (*ListPromptsResult, error) {
	var w struct {
		ListPromptsResult
		envelope
		NextCursor *string `json:"nextCursor"`
	}
	if err := c.callInto(ctx, op{method: methodListPrompts}, cursorParams(cursor), co, &w, &w.envelope); err != nil {
		return nil, err
	}
	w.ListPromptsResult.NextCursor, w.nextSent = nextCursor(w.NextCursor)
	return &w.ListPromptsResult, nil
}

// pageAt turns the public cursor argument into the internal one: "" is the
// first page.
func pageAt(cursor string) *string {
	if cursor == "" {
		return nil
	}
	return &cursor
}

// cursorParams is the params object of a list request: none for the first
// page, else {"cursor": ...}, the empty cursor included.
func cursorParams(cursor *string) []byte {
	if cursor == nil {
		return nil
	}
	return append(jsonrpc.AppendString([]byte(`{"cursor":`), *cursor), '}')
}

func nextCursor(p *string) (cursor string, sent bool) {
	if p == nil {
		return "", false
	}
	return *p, true
}

// page is a list result as paginate sees it.
type page[T any] interface {
	items() []T
	next() (cursor string, ok bool)
}

func (r *ListToolsResult) items() []*Tool                         { return r.Tools }
func (r *ListResourcesResult) items() []*Resource                 { return r.Resources }
func (r *ListResourceTemplatesResult) items() []*ResourceTemplate { return r.ResourceTemplates }
func (r *ListPromptsResult) items() []*Prompt                     { return r.Prompts }

func (r *ListToolsResult) next() (string, bool)             { return r.NextCursor, r.HasNextPage() }
func (r *ListResourcesResult) next() (string, bool)         { return r.NextCursor, r.HasNextPage() }
func (r *ListResourceTemplatesResult) next() (string, bool) { return r.NextCursor, r.HasNextPage() }
func (r *ListPromptsResult) next() (string, bool)           { return r.NextCursor, r.HasNextPage() }

// maxPages bounds the pages one iteration reads. Each page is bounded by
// the request timeout, but a server that answers every page at once with a
// new cursor would keep a lister reading for ever; a real list of more than
// a thousand pages is better read a page at a time with ListTools and its
// kin, whose caller decides when to stop.
const maxPages = 1000

// paginate turns a page fetcher into an iterator over the items of every
// page. A server that hands out a cursor for the second time, or more than
// maxPages pages, would make the list endless; that ends the iteration with
// an error.
func paginate[T any, P page[T]](method, pager string, fetch func(cursor *string) (P, error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		var cursor *string
		var seen map[string]bool
		for n := 1; ; n++ {
			p, err := fetch(cursor)
			if err != nil {
				yield(zero, err)
				return
			}
			for _, it := range p.items() {
				if !yield(it, nil) {
					return
				}
			}
			next, ok := p.next()
			if !ok {
				return
			}
			if seen[next] {
				yield(zero, fmt.Errorf("%s: the server handed out cursor %q a second time; stopping, as the list would never end", method, next))
				return
			}
			if n == maxPages {
				yield(zero, fmt.Errorf("%s: more than %d pages, each with a new nextCursor; stopping, as the server's paging does not end "+
					"(Client.%s reads one page at a time, for a caller that wants more)", method, maxPages, pager))
				return
			}
			if seen == nil {
				seen = map[string]bool{}
			}
			seen[next] = true
			cursor = &next
		}
	}
}
