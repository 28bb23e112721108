package servercheck

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"

	"github.com/mcptestkit/mcptestkit/client"
)

// inventory is what the server lists, gathered once for the checks that
// need it.
type inventory struct {
	toolsListed span // the messages of the listing, for the checks on it
	tools       []*client.Tool
	resources   []*client.Resource
	templates   []*client.ResourceTemplate
	prompts     []*client.Prompt
	// slow holds, per tool, the arguments of the call that reported the
	// most progress in tools/calls and still ended with an answer: the
	// call to cancel while it works.
	slow map[string]slowCall
}

type slowCall struct {
	args     map[string]any
	progress int
}

// emptyList reports whether raw is a list result with no items under key.
func emptyList(raw json.RawMessage, key string) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return false
	}
	var items []json.RawMessage
	return json.Unmarshal(m[key], &items) == nil && len(items) == 0
}

// maxItems bounds the per-item checks of one kind (a server listing
// thousands of resources gets the first ones read).
const maxItems = 50

// needs skips the check unless the server declares the capability.
func (c *state) needs(declared bool, capability string) {
	if !declared {
		c.skipf("the server does not declare the %s capability", capability)
	}
}

// quietList lists items for the per-item checks when the list check itself
// was not selected.
func quietList[T any](s *suite, seq func(*client.Client, context.Context, ...client.CallOption) iter.Seq2[T, error]) []T {
	cn, err := s.mainConn()
	if err != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(s.ctx, 4*s.timeout)
	defer cancel()
	var out []T
	for v, err := range seq(cn.cl, ctx) {
		if err != nil || len(out) > 10000 {
			break
		}
		out = append(out, v)
	}
	return out
}

// listAll reads every page of a list and checks the paging: no cursor
// repeats, no item twice.
func listAll[R, T any](c *state, method string, fetch func(context.Context, string, ...client.CallOption) (R, error), page func(R) ([]T, string, bool), key func(T) string) []T {
	var items []T
	seen := map[string]int{}
	cursors := map[string]bool{}
	cursor := ""
	for n := 1; ; n++ {
		ctx, cancel := c.ctx()
		r, err := fetch(ctx, cursor)
		cancel()
		if err != nil {
			what := "the first page"
			if cursor != "" {
				what = fmt.Sprintf("page %d (cursor %q, the nextCursor of the page before)", n, cursor)
			}
			c.fatalf("%s of %s failed: %s\nexpected: a page of results", what, method, describe(nil, err))
		}
		got, next, more := page(r)
		for _, it := range got {
			k := key(it)
			if p, dup := seen[k]; dup {
				c.breakf("%s lists %q twice (pages %d and %d)\nexpected: every item once", method, k, p, n)
				continue
			}
			seen[k] = n
			items = append(items, it)
		}
		if !more {
			return items
		}
		if cursors[next] {
			c.fatalf("%s page %d gives nextCursor %q, which an earlier page gave too: paging would never end\nexpected: each page's cursor leads on, and the last page has no nextCursor", method, n, next)
		}
		if n >= 1000 {
			c.fatalf("%s has more than 1000 pages; the check stopped reading", method)
		}
		cursors[next] = true
		cursor = next
	}
}

// legacyCalls is how many of a tool's argument sets tools/calls sends again
// in the legacy era of a dual-era server.
const legacyCalls = 4

// legacyEra returns the newest legacy version a dual-era server offers when
// the main connection speaks 2026-07-28, or "".
func (s *suite) legacyEra() string {
	if s.main == nil || !s.main.alive() || !s.main.modern() {
		return ""
	}
	return newestLegacy(s.main.cl.ServerVersions())
}

// legacyConn returns the connection of the legacy era's tool calls, opened
// once (again if it broke), or nil when the handshake fails.
func (s *suite) legacyConn() *conn {
	if s.legacy != nil && s.legacy.alive() {
		return s.legacy
	}
	if s.legacy != nil {
		s.legacy.close()
		s.legacy = nil
	}
	v := s.legacyEra()
	if v == "" {
		return nil
	}
	cn, err := s.open(v)
	if err != nil || !client.IsLegacy(cn.cl.ProtocolVersion()) {
		if err == nil {
			cn.close()
		}
		return nil
	}
	s.legacy = cn
	return cn
}
