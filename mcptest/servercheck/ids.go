package servercheck

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// A response must carry its request's id exactly, type included (JSON-RPC
// 2.0: the id "MUST be the same as the value of the id member in the
// Request Object"). The client matches responses by id, so a server that
// answers request id "1" (a string) with id 1 (a number) looks as if it
// never answered: the tap says what it did instead.

// idMismatch is a response whose id no request carried, but one did with the
// same value as another JSON type.
type idMismatch struct {
	at   int    // the response's position in the transcript
	text string // what the server did, for a check's detail
}

// looseID is an id's value whatever its JSON type: the text of a string,
// the decimal of a number; "" for neither.
func looseID(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		if i, err := strconv.ParseInt(n.String(), 10, 64); err == nil {
			return strconv.FormatInt(i, 10)
		}
		return n.String()
	}
	return ""
}

// idType names raw's JSON type.
func idType(raw json.RawMessage) string {
	switch s := strings.TrimSpace(string(raw)); {
	case strings.HasPrefix(s, `"`):
		return "string"
	case s == "null":
		return "null"
	default:
		return "number"
	}
}

// seeIDMismatch records a response whose id matches no request sent but a
// request's id in value; t.mu is held.
func (t *tap) seeIDMismatch(env envelope) {
	if env.Method != "" || len(env.ID) == 0 || string(env.ID) == "null" || len(t.mismatches) >= 100 {
		return
	}
	if _, ok := t.requests[string(env.ID)]; ok {
		return
	}
	var s string
	if json.Unmarshal(env.ID, &s) == nil && t.waiters[s] != nil {
		return
	}
	got := looseID(env.ID)
	if got == "" {
		return
	}
	for sent := range t.requests {
		if looseID(json.RawMessage(sent)) == got {
			t.mismatches = append(t.mismatches, idMismatch{at: t.dropped + len(t.frames),
				text: fmt.Sprintf("answered with id %s (%s) to request id %s (%s)", env.ID, idType(env.ID), sent, idType(json.RawMessage(sent)))})
			return
		}
	}
}

// mismatchesSince returns what seeIDMismatch saw from mark on.
func (t *tap) mismatchesSince(mark int) []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []string
	for _, m := range t.mismatches {
		if m.at >= mark {
			out = append(out, m.text)
		}
	}
	return out
}

// claimIDMismatches fails the check for every response on its connections,
// since it began using them, whose id had its request's value as another
// type: a request that seemed to get no answer got one the client could not
// match.
func (c *state) claimIDMismatches() {
	var all []string
	for _, m := range c.marks {
		if m.end < 0 {
			all = append(all, m.c.tap.mismatchesSince(m.mark)...)
		}
	}
	if len(all) == 0 {
		return
	}
	c.status = Fail
	c.fails = append([]string{fmt.Sprintf("the server %s\n"+
		"expected: a response carries its request's id exactly, type included (JSON-RPC 2.0: it MUST be the same as the "+
		"value of the id member in the Request Object); the client cannot match a response with another id, so the "+
		"request seems to get no answer", strings.Join(all, "; "))}, c.fails...)
}
