package client

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/mcptestkit/mcptestkit/internal/jsonrpc"
)

// unusable counts what the server sent that the client could not use:
// frames that are not JSON-RPC, and responses to requests it never sent.
// Connect names them when the start fails, because a server that writes
// only garbage would otherwise look like one that said nothing.
type unusable struct {
	garbage, strays int
	examples        []string // the first few, described
}

// maxUnusableExamples bounds the frames an error describes.
const maxUnusableExamples = 3

// noteUnusable records a frame that is not JSON-RPC (reader goroutine).
func (c *Client) noteUnusable(data []byte, err error) {
	why := strings.TrimPrefix(err.Error(), "jsonrpc: "+jsonrpc.ErrNotMessage.Error()+": ")
	c.mu.Lock()
	defer c.mu.Unlock()
	c.junk.garbage++
	if len(c.junk.examples) < maxUnusableExamples {
		c.junk.examples = append(c.junk.examples, fmt.Sprintf("%s (%s)", excerpt(data), why))
	}
}

// noteStray records a response to no request of this client's.
func (c *Client) noteStray(msg *jsonrpc.Message) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.junk.strays++
	if len(c.junk.examples) < maxUnusableExamples {
		c.junk.examples = append(c.junk.examples, fmt.Sprintf("a response with id %s, which no request had (%s)", msg.ID.String(), excerpt([]byte(describeResponse(msg)))))
	}
}

// unusableNote describes the unusable frames received so far, or returns
// "" when there were none:
// `received 3 frames that are not JSON-RPC: "hello" (invalid character ...), ...`.
func (c *Client) unusableNote() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	j := &c.junk
	var parts []string
	if j.garbage > 0 {
		parts = append(parts, plural(j.garbage, "frame that is", "frames that are")+" not JSON-RPC")
	}
	if j.strays > 0 {
		parts = append(parts, plural(j.strays, "response", "responses")+" to no request of this client's")
	}
	if len(parts) == 0 {
		return ""
	}
	s := "received " + strings.Join(parts, " and ") + ": " + strings.Join(j.examples, "; ")
	if n := j.garbage + j.strays; n > len(j.examples) {
		s += fmt.Sprintf("; and %d more", n-len(j.examples))
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// excerpt quotes the start of a frame, short enough for an error message.
func excerpt(b []byte) string {
	const max = 60
	b = bytes.TrimSpace(b)
	if len(b) > max {
		return fmt.Sprintf("%q...", b[:max])
	}
	return fmt.Sprintf("%q", b)
}
