package servercheck

import (
	"context"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/client/transport"
)

// httpStreams reads the SSE streams two POSTed requests of one session get,
// each to its response: an event id is never used on both (ids are unique
// across the session's streams), and the first stream, resumed with GET
// and its first event id, replays its own response before anything of the
// second. At 2026-07-28 an SSE response carries X-Accel-Buffering: no.
func (c *state) httpStreams() {
	mc := c.main()
	if _, ok := mc.tap.inner.(*transport.StreamableHTTP); !ok {
		c.skipf("the server is not reached over streamable HTTP: these checks are of that transport")
	}
	// skip ends the check for want of a legacy session's streams: a note
	// once the 2026-07-28 stream was judged, so as not to hide its verdict.
	judged := false
	skip := func(format string, args ...any) {
		if judged {
			c.notef(format, args...)
			panic(errStop)
		}
		c.skipf(format, args...)
	}
	if mc.modern() {
		c.accelBuffering(mc)
		judged = true
		if newestLegacy(mc.cl.ServerVersions()) == "" {
			return // no legacy session to open
		}
	}
	if h := &c.s.http; !h.opened {
		h.opened = true
		h.cn, h.tr, h.skip = c.s.openHTTP()
	}
	if c.s.http.skip != "" {
		skip("%s", c.s.http.skip)
	}
	cn, tr := c.httpConn()
	if tr.SessionID() == "" {
		skip("the server gave out no Mcp-Session-Id at initialize (stateless): no session whose streams to compare")
	}
	a, aSSE := c.postEvents(tr, cn, "streamA")
	b, bSSE := c.postEvents(tr, cn, "streamB")
	if !aSSE || !bSSE {
		skip("the server answered a POSTed ping with JSON, not an SSE stream: no event ids to compare")
	}
	ids := func(evs []sseEvent) []string {
		var out []string
		for _, e := range evs {
			if e.id != "" {
				out = append(out, e.id)
			}
		}
		return out
	}
	aIDs, bIDs := ids(a), ids(b)
	if len(aIDs) == 0 || len(bIDs) == 0 {
		skip("the SSE streams of two POSTed pings carry no event ids: not resumable, nothing to compare")
	}
	for _, id := range aIDs {
		if slices.Contains(bIDs, id) {
			c.breakf("two POSTed pings in the session got SSE streams that both carry event id %q (first: %q, second: %q)\n"+
				"expected: event ids globally unique across the session's streams (basic/transports, \"Resumability and "+
				"Redelivery\": MUST), so that a Last-Event-ID names one stream", id, aIDs, bIDs)
			return
		}
	}
	// Resume the first stream from its first event: it holds the first
	// ping's response, and nothing of the second's.
	h := http.Header{"Accept": {"text/event-stream"}, "Last-Event-ID": {aIDs[0]}, "Content-Type": {""}}
	if v := cn.cl.ProtocolVersion(); v >= client.Version20250618 {
		h.Set("Mcp-Protocol-Version", v)
	}
	ctx, cancel := c.ctx()
	defer cancel()
	resp, err := tr.Do(ctx, http.MethodGet, h, nil)
	if err != nil {
		c.fatalf("sent GET with Last-Event-ID: %s to resume a stream; the request failed: %v", aIDs[0], err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		c.notef("GET with Last-Event-ID: %s got HTTP %d (%s): the server does not resume streams", aIDs[0], resp.StatusCode, resp.Header.Get("Content-Type"))
		return
	}
	markA, markB := `"`+rawPrefix+`streamA"`, `"`+rawPrefix+`streamB"`
	events, _ := readEvents(resp.Body, 64<<10, markA)
	for _, e := range events {
		switch {
		case strings.Contains(e.data, markB) || slices.Contains(bIDs, e.id):
			c.breakf("resumed the first of two streams (GET with Last-Event-ID: %s); before its own response came %s, of the "+
				"second stream\nexpected: only the first stream's messages after that event (basic/transports, \"Resumability and "+
				"Redelivery\": the server MUST NOT replay messages that would have been delivered on a different stream)", aIDs[0], e)
			return
		case strings.Contains(e.data, markA):
			return
		}
	}
	c.notef("the first stream, resumed with GET and Last-Event-ID: %s, ended without its response: the server keeps no replay of "+
		"a stream that ended", aIDs[0])
}

// postEvents POSTs a ping with id rawPrefix+name in cn's session and reads
// its SSE stream to the response; sse is false when the answer is not a
// stream.
func (c *state) postEvents(tr *transport.StreamableHTTP, cn *conn, name string) (events []sseEvent, sse bool) {
	h := http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"}}
	if v := cn.cl.ProtocolVersion(); v >= client.Version20250618 {
		h.Set("Mcp-Protocol-Version", v)
	}
	ctx, cancel := c.ctx()
	defer cancel()
	mark := `"` + rawPrefix + name + `"`
	resp, err := tr.Do(ctx, http.MethodPost, h, []byte(`{"jsonrpc":"2.0","id":`+mark+`,"method":"ping"}`))
	if err != nil {
		c.fatalf("sent ping in the session; the request failed: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		return nil, false
	}
	events, err = readEvents(resp.Body, 64<<10, mark)
	if err != nil && len(events) == 0 {
		c.fatalf("sent ping in the session; reading its SSE stream failed: %v", err)
	}
	if name == "streamA" {
		c.streamEnds(ctx, resp.Body, events, mark, "a POSTed ping in the session", "basic/transports, \"Sending Messages to the Server\"")
	}
	return events, true
}

// streamEnds reads on, after an SSE stream's response, to the stream's
// end: a stream still open when the request's time is up (the suite's
// timeout and half again, as long as any answer may take) is warned about.
func (c *state) streamEnds(ctx context.Context, body io.Reader, events []sseEvent, mark, what, spec string) {
	if !slices.ContainsFunc(events, func(e sseEvent) bool { return strings.Contains(e.data, mark) }) {
		return // ended before its response: http/priming's case
	}
	if _, err := io.Copy(io.Discard, io.LimitReader(body, 1<<20)); err == nil || ctx.Err() == nil {
		return // ended, or broke: not held open
	}
	c.warnf("the SSE stream answering %s carried its response and was still open %s later\nexpected: the stream ends "+
		"after its response (%s: the server SHOULD terminate the stream)", what, c.s.timeout+c.s.timeout/2, spec)
}

// accelBuffering POSTs server/discover at 2026-07-28: an SSE answer carries
// X-Accel-Buffering: no, which keeps a proxy from holding its events, and
// ends after its response.
func (c *state) accelBuffering(mc *conn) {
	tr := mc.tap.inner.(*transport.StreamableHTTP)
	mark := `"` + rawPrefix + `accel"`
	body := `{"jsonrpc":"2.0","id":` + mark + `,"method":"server/discover","params":` + annotationJSON(modernMeta()) + `}`
	h := http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"},
		"Mcp-Protocol-Version": {client.Version20260728}, "Mcp-Method": {"server/discover"}}
	ctx, cancel := c.ctx()
	defer cancel()
	resp, err := tr.Do(ctx, http.MethodPost, h, []byte(body))
	if err != nil {
		c.fatalf("sent server/discover; the request failed: %v", err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || !strings.HasPrefix(ct, "text/event-stream") {
		c.notef("the server answered server/discover at 2026-07-28 with HTTP %d (%s), not an SSE stream: no stream to read", resp.StatusCode, ct)
		return
	}
	if v := resp.Header.Get("X-Accel-Buffering"); !strings.EqualFold(v, "no") {
		c.warnf("the SSE stream answering server/discover has X-Accel-Buffering: %q\nexpected: X-Accel-Buffering: no, so that a "+
			"reverse proxy delivers each event at once (basic/transports at 2026-07-28, \"Receiving Messages\": SHOULD)", v)
	}
	events, err := readEvents(resp.Body, 64<<10, mark)
	if err != nil && len(events) == 0 {
		c.fatalf("sent server/discover; reading its SSE stream failed: %v", err)
	}
	c.streamEnds(ctx, resp.Body, events, mark, "server/discover", "basic/transports at 2026-07-28, \"Receiving Messages\"")
}
