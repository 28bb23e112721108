package client

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/internal/jsonrpc"
)

// listCase drives one list method's iterator against the scripted server.
type listCase struct {
	method string // the request
	member string // the result member holding the items
	item   string // one item, as JSON, named by %s
	names  func(c *Client, ctx context.Context) ([]string, error)
}

func collectNames[T any](seq iter.Seq2[T, error], name func(T) string) ([]string, error) {
	var names []string
	for it, err := range seq {
		if err != nil {
			return names, err
		}
		names = append(names, name(it))
	}
	return names, nil
}

var listCases = []listCase{
	{"tools/list", "tools", `{"name":%q,"inputSchema":{"type":"object"}}`, func(c *Client, ctx context.Context) ([]string, error) {
		return collectNames(c.Tools(ctx), func(t *Tool) string { return t.Name })
	}},
	{"prompts/list", "prompts", `{"name":%q}`, func(c *Client, ctx context.Context) ([]string, error) {
		return collectNames(c.Prompts(ctx), func(p *Prompt) string { return p.Name })
	}},
	{"resources/list", "resources", `{"uri":%q,"name":"r"}`, func(c *Client, ctx context.Context) ([]string, error) {
		return collectNames(c.Resources(ctx), func(r *Resource) string { return r.URI })
	}},
	{"resources/templates/list", "resourceTemplates", `{"uriTemplate":%q,"name":"t"}`, func(c *Client, ctx context.Context) ([]string, error) {
		return collectNames(c.ResourceTemplates(ctx), func(r *ResourceTemplate) string { return r.URITemplate })
	}},
}

type namesOutcome struct {
	names []string
	err   error
}

// An empty nextCursor is a cursor like any other: the iterators ask for the
// page it names (sending "cursor":"", which is not the same request as the
// first page's, which has no cursor) and stop only when nextCursor is absent.
func TestIteratorsFollowAnEmptyCursor(t *testing.T) {
	for _, era := range []string{Version20260728, Version20251125} {
		for _, lc := range listCases {
			t.Run(era+"/"+lc.method, func(t *testing.T) {
				var c *Client
				var f *fake
				if era == Version20260728 {
					c, f = modernFake(t, nil)
				} else {
					c, f = legacyFake(t, era, nil)
				}
				oc := make(chan namesOutcome, 1)
				go func() {
					names, err := lc.names(c, t.Context())
					oc <- namesOutcome{names, err}
				}()
				m := f.expect(lc.method)
				assert.NotContains(t, string(m.Params), "cursor", "the first page is asked for with no cursor")
				f.reply(m.ID, fmt.Sprintf(`{%q:[`+lc.item+`],"nextCursor":""}`, lc.member, "a"))
				m = f.expect(lc.method)
				assert.JSONEq(t, `""`, string(params(t, m)["cursor"]), "the empty cursor is sent")
				f.reply(m.ID, fmt.Sprintf(`{%q:[`+lc.item+`],"nextCursor":"b-next"}`, lc.member, "b"))
				m = f.expect(lc.method)
				assert.JSONEq(t, `"b-next"`, string(params(t, m)["cursor"]))
				f.reply(m.ID, fmt.Sprintf(`{%q:[`+lc.item+`]}`, lc.member, "c"))
				o := <-oc
				require.NoError(t, o.err)
				assert.Equal(t, []string{"a", "b", "c"}, o.names)
			})
		}
	}
}

// A server that hands out the same cursor again, the empty one included,
// would make the list endless: the iterator stops with an error naming it.
func TestIteratorsStopOnARepeatedCursor(t *testing.T) {
	for _, cursor := range []string{"", "again"} {
		for _, lc := range listCases {
			t.Run(fmt.Sprintf("%q/%s", cursor, lc.method), func(t *testing.T) {
				c, f := modernFake(t, nil)
				oc := make(chan namesOutcome, 1)
				go func() {
					names, err := lc.names(c, t.Context())
					oc <- namesOutcome{names, err}
				}()
				for _, name := range []string{"a", "b"} {
					m := f.expect(lc.method)
					f.reply(m.ID, fmt.Sprintf(`{%q:[`+lc.item+`],"nextCursor":%q}`, lc.member, name, cursor))
				}
				o := <-oc
				assert.Equal(t, []string{"a", "b"}, o.names, "every item before the repetition")
				require.EqualError(t, o.err, fmt.Sprintf("%s: the server handed out cursor %q a second time; stopping, as the list would never end", lc.method, cursor))
			})
		}
	}
}

func TestHasNextPage(t *testing.T) {
	c, f := modernFake(t, nil)
	for _, tc := range []struct {
		next string // the nextCursor member, or "" for none
		want bool
	}{
		{`,"nextCursor":""`, true},
		{`,"nextCursor":"abc"`, true},
		{``, false},
		{`,"nextCursor":null`, false},
	} {
		oc := make(chan *ListToolsResult, 1)
		go func() {
			page, err := c.ListTools(t.Context(), "")
			assert.NoError(t, err)
			oc <- page
		}()
		m := f.expect("tools/list")
		f.reply(m.ID, `{"tools":[]`+tc.next+`}`)
		page := <-oc
		require.NotNil(t, page, tc.next)
		assert.Equal(t, tc.want, page.HasNextPage(), tc.next)
		var want struct {
			NextCursor *string `json:"nextCursor"`
		}
		require.NoError(t, json.Unmarshal([]byte(`{"x":0`+tc.next+`}`), &want))
		if want.NextCursor != nil {
			assert.Equal(t, *want.NextCursor, page.NextCursor)
		}
	}
	// A page built by hand has a next page exactly when it names one.
	assert.True(t, (&ListToolsResult{NextCursor: "x"}).HasNextPage())
	assert.False(t, (&ListToolsResult{}).HasNextPage())
	assert.True(t, (&ListPromptsResult{NextCursor: "x"}).HasNextPage())
	assert.True(t, (&ListResourcesResult{NextCursor: "x"}).HasNextPage())
	assert.True(t, (&ListResourceTemplatesResult{NextCursor: "x"}).HasNextPage())
}

// A server whose every page hands out a new cursor, answering at once, is
// never stopped by the request timeout: the iterators stop after maxPages
// pages with an error naming the method and the bound. The fake ends its
// list after 1500 pages, so that an iterator without the bound ends too
// (without the error) instead of hanging the test.
func TestIteratorsStopOnEndlessPaging(t *testing.T) {
	for _, lc := range listCases {
		t.Run(lc.method, func(t *testing.T) {
			c, f := modernFake(t, nil)
			ctx, done := context.WithCancel(t.Context())
			oc := make(chan namesOutcome, 1)
			go func() {
				names, err := lc.names(c, t.Context())
				oc <- namesOutcome{names, err}
				done()
			}()
			pages := 0
			for ; pages < 1500; pages++ {
				data, err := f.conn.Receive(ctx)
				if err != nil {
					break // the iterator stopped asking
				}
				m, err := jsonrpc.Decode(data)
				require.NoError(t, err)
				require.Equal(t, lc.method, m.Method)
				next := fmt.Sprintf(`,"nextCursor":"p%d"`, pages+1)
				if pages == 1499 {
					next = ""
				}
				f.reply(m.ID, fmt.Sprintf(`{%q:[`+lc.item+`]%s}`, lc.member, fmt.Sprint("item", pages), next))
			}
			o := <-oc
			assert.Equal(t, 1000, len(o.names), "every item of the pages read")
			assert.Equal(t, 1000, pages, "pages served")
			require.EqualError(t, o.err, lc.method+": more than 1000 pages, each with a new nextCursor; stopping, as the server's paging does not end "+
				"(Client."+pagerOf[lc.method]+" reads one page at a time, for a caller that wants more)")
		})
	}
}

var pagerOf = map[string]string{
	"tools/list": "ListTools", "prompts/list": "ListPrompts", "resources/list": "ListResources", "resources/templates/list": "ListResourceTemplates",
}
