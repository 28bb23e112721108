package servercheck

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/client/transport"
)

// httpGetStream opens a legacy session of its own, by hand, so that no
// client holds its GET stream: it opens the GET stream, POSTs a ping and
// reads its response, then ends the session with DELETE, which ends the
// GET stream, and reads that stream to its end. The ping's response must
// not be on it: a response goes on the stream of its request only, and
// no message is sent on two streams.
func (c *state) httpGetStream() {
	cn, _ := c.httpConn() // skips the check where there is no legacy HTTP session
	version := cn.cl.ProtocolVersion()
	raw, err := c.s.dial(c.s.ctx)
	if err != nil {
		c.fatalf("could not dial the server for a session of the check's own: %v", err)
	}
	defer raw.Close()
	tr, ok := raw.(*transport.StreamableHTTP)
	if !ok {
		c.skipf("the dialer's transport is not the kit's streamable HTTP transport: no raw session to open")
	}
	hdr := func(sid string, accept string) map[string]string {
		return map[string]string{"Accept": accept, "Mcp-Session-Id": sid}
	}
	post := func(sid, body string) httpReplyStream {
		return c.sendStream(tr, cn, body, hdr(sid, "application/json, text/event-stream"))
	}
	init := post("", `{"jsonrpc":"2.0","id":"`+rawPrefix+`get-init","method":"initialize","params":{"protocolVersion":"`+version+
		`","capabilities":{},"clientInfo":{"name":"mcptestkit-check","version":"0"}}}`)
	sid := init.session
	if init.status != http.StatusOK || sid == "" {
		c.skipf("initialize, sent by hand at %s, got HTTP %d with no Mcp-Session-Id: no session of the check's own", version, init.status)
	}
	ended := false
	defer func() {
		if !ended { // the session is the check's to end, however it stops
			if resp, err := tr.Do(c.s.ctx, http.MethodDelete, http.Header{"Mcp-Session-Id": {sid}}, nil); err == nil {
				resp.Body.Close()
			}
		}
	}()
	post(sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	ctx, cancel := c.ctx()
	defer cancel()
	h := http.Header{}
	for k, v := range hdr(sid, "text/event-stream") {
		h.Set(k, v)
	}
	if version >= client.Version20250618 {
		h.Set("Mcp-Protocol-Version", version)
	}
	resp, err := tr.Do(ctx, http.MethodGet, h, nil)
	if err != nil {
		c.fatalf("sent GET in the check's own session; the request failed: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		c.skipf("GET in a session of the check's own got HTTP %d (%s): no GET stream to read", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	var (
		wg     sync.WaitGroup
		events []sseEvent
		rerr   error
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		events, rerr = readEvents(resp.Body, 1<<20, "\x00never")
	}()
	const mark = `"` + rawPrefix + `get-ping"`
	ping := post(sid, `{"jsonrpc":"2.0","id":`+mark+`,"method":"ping"}`)
	onPost := strings.Contains(ping.body, mark)
	del := c.send(tr, cn, http.MethodDelete, "", hdr(sid, ""))
	ended = del.status/100 == 2
	if del.status/100 != 2 {
		resp.Body.Close()
		wg.Wait()
		c.skipf("DELETE of the check's own session got %s: the GET stream cannot be made to end, so what it carries cannot "+
			"be read to its end", del)
	}
	wg.Wait()
	if ctx.Err() != nil {
		c.skipf("the GET stream did not end when its session ended with DELETE (%s): what it carries cannot be read to its end", del)
	}
	_ = rerr // a stream that ended with no event carried nothing
	for _, e := range events {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal([]byte(e.data), &m) != nil || string(m.ID) != mark || m.Method != "" {
			continue
		}
		also := "the ping's own stream did not carry it"
		if onPost {
			also = "the ping's own answer carried it too: the message went on two streams"
		}
		c.breakf("in a session of the check's own, with its GET stream open, POSTed ping; the GET stream carried its response "+
			"(%s; %s)\nexpected: no JSON-RPC response on the GET stream unless resuming a request's stream, and each message "+
			"on one stream only (basic/transports, \"Listening for Messages from the Server\" and \"Multiple Connections\": "+
			"MUST NOT)", e, also)
		return
	}
}

// httpReplyStream is the answer to a POST read to its end: a JSON body, or
// an SSE stream's data joined.
type httpReplyStream struct {
	status  int
	session string
	body    string
}

// sendStream POSTs body and reads the whole answer.
func (c *state) sendStream(tr *transport.StreamableHTTP, cn *conn, body string, set map[string]string) httpReplyStream {
	h := http.Header{"Content-Type": {"application/json"}}
	for k, v := range set {
		h.Set(k, v)
	}
	if v := cn.cl.ProtocolVersion(); v >= client.Version20250618 && !strings.Contains(body, `"initialize"`) {
		h.Set("Mcp-Protocol-Version", v)
	}
	ctx, cancel := c.ctx()
	defer cancel()
	resp, err := tr.Do(ctx, http.MethodPost, h, []byte(body))
	if err != nil {
		c.fatalf("sent %s; the request failed: %v", cut(body, 200), err)
	}
	defer resp.Body.Close()
	r := httpReplyStream{status: resp.StatusCode, session: resp.Header.Get("Mcp-Session-Id")}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		var id struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.Unmarshal([]byte(body), &id)
		events, _ := readEvents(resp.Body, 1<<20, string(id.ID))
		for _, e := range events {
			r.body += e.data + "\n"
		}
		return r
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	r.body = string(b)
	return r
}
