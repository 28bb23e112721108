package servercheck

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/client/transport"
)

// progress checks that the progress notifications the server sent during
// the tool calls carried the tokens the client gave.
func (c *state) progress() {
	cn := c.main()
	notes := cn.tap.progressNotes()
	if len(notes) == 0 {
		c.skipf("no tool reported progress during the calls (every call carried a progressToken)")
	}
	var bad []string
	for _, n := range notes {
		if !n.known {
			bad = append(bad, n.token)
		}
	}
	if bad = slices.Compact(bad); len(bad) > 0 {
		shown := bad[:min(len(bad), 10)]
		if len(bad) > len(shown) {
			shown = append(shown[:len(shown):len(shown)], fmt.Sprintf("and %d more", len(bad)-len(shown)))
		}
		c.breakf("the server sent notifications/progress with tokens no request carried: %s\n"+
			"expected: progressToken echoes the _meta.progressToken of the request it reports on", cut(strings.Join(shown, ", "), 800))
	}
	c.notef("%d progress notification(s), each with its request's token", len(notes))
}

// cancellation cancels a tool call in flight and checks that the server
// keeps serving; and for every call cancelled so far (this one, and calls
// that ran out of time) whose progress the server reported, that the
// progress stopped once the server had read the cancellation.
func (c *state) cancellation(tools []*client.Tool) {
	if len(tools) == 0 {
		c.skipf("the server lists no tools")
	}
	cn := c.main()
	// A tool that reported progress in tools/calls takes a while: cancel
	// it while it works, once its first progress shows it has started.
	t, reports := tools[0], false
	for _, name := range cn.tap.progressTools() {
		if i := slices.IndexFunc(tools, func(t *client.Tool) bool { return t.Name == name }); i >= 0 {
			t, reports = tools[i], true
			break
		}
	}
	args := c.conformingArgs(t)
	if sc, ok := c.s.inv.slow[t.Name]; ok {
		args = sc.args
	}
	if tr, ok := cn.tap.inner.(*transport.StreamableHTTP); ok && !cn.modern() && reports {
		c.cancelOverHTTP(cn, tr, t, args)
		return
	}
	ctx, cancel := context.WithCancel(c.s.ctx)
	started := make(chan struct{})
	var once sync.Once
	done := make(chan error, 1)
	go func() {
		_, err := cn.cl.CallTool(ctx, t.Name, args, client.WithProgress(func(client.Progress) { once.Do(func() { close(started) }) }))
		done <- err
	}()
	// Whether the call was seen at work when it was cancelled: without
	// that, nothing the server does afterwards says whether it stopped, so
	// the check skips once the server has shown it kept serving (a verdict
	// that does not depend on how fast the machine is).
	finished, unseen := false, ""
	if reports {
		select {
		case <-started:
		case <-done: // it finished first: nothing to cancel
			finished = true
			unseen = fmt.Sprintf("the call of tool %q ended before its first progress notification, so it was not cancelled at work", t.Name)
		case <-time.After(c.s.timeout):
			unseen = fmt.Sprintf("no progress of the call of tool %q came within %v, so nothing showed it at work when it was cancelled", t.Name, c.s.timeout)
		}
	} else {
		unseen = fmt.Sprintf("no tool reported progress in tools/calls (where a tool left out by Options.Skip makes no call), "+
			"so the call cancelled (tool %q) was not seen at work", t.Name)
	}
	cancel()
	if !finished {
		<-done
	}
	// Two round trips: the server has read the cancellations before the
	// first, and sent what it had in flight before the second's answer.
	for range 2 {
		ctx2, cancel2 := c.ctx()
		_, err := cn.cl.ListTools(ctx2, "")
		cancel2()
		if err != nil {
			c.fatalf("called tool %q and cancelled the call (notifications/cancelled); tools/list afterwards got %s\n"+
				"expected: the server stops or finishes the cancelled request and keeps serving", t.Name, describe(nil, err))
		}
	}
	if _, ok := cn.tap.inner.(*transport.StreamableHTTP); ok && !cn.modern() {
		c.skipf("called tool %q, cancelled it, and the server kept serving; whether it stopped the cancelled call cannot be "+
			"seen over streamable HTTP, where the client stops reading a cancelled request's stream (run the checks over stdio "+
			"or in memory to see it)", t.Name)
	}
	// A server that goes on sends its next progress within the longest gap
	// seen between two of the tool's notifications: wait twice that for
	// progress after the cancellation, and as long as it keeps coming (at
	// most the timeout) for the result.
	if wait := min(2*cn.tap.progressGap(t.Name), c.s.timeout); wait > 0 {
		start := time.Now()
		deadline, seen := start.Add(wait), 0
		for time.Now().Before(deadline) {
			notes := cn.tap.cancellations()
			if slices.ContainsFunc(notes, func(n cancelNote) bool { return n.answered }) {
				break
			}
			if n := len(notes); n > 0 && notes[n-1].after > seen {
				seen = notes[n-1].after
				deadline = time.Now().Add(wait)
				if limit := start.Add(c.s.timeout); deadline.After(limit) {
					deadline = limit
				}
			}
			time.Sleep(min(wait/10, time.Until(deadline)))
			ctx2, cancel2 := c.ctx()
			_, _ = cn.cl.ListTools(ctx2, "") // answered: what comes after it is after the cancellation
			cancel2()
		}
	}
	notes := cn.tap.cancellations()
	ignored := false
	for _, n := range notes {
		var what []string
		if n.after > 1 {
			what = append(what, fmt.Sprintf("%d more progress notification(s)", n.after))
		}
		if n.answered {
			what = append(what, "the call's result")
		}
		if len(what) == 0 {
			continue
		}
		cn.abandoned = true // still at work on it: its shutdown says nothing
		c.cancelIgnored(n.tool, n.id, n.token, what)
		ignored = true
	}
	switch {
	case ignored:
	case unseen != "":
		c.skipf("cancelled a call of tool %q and the server kept serving; %s: whether a server stops a cancelled "+
			"request cannot be seen without it", t.Name, unseen)
	default:
		c.skipf("cancelled a call of tool %q once it reported progress, and the server kept serving; no progress nor "+
			"result for it came after the server had read the cancellation, within twice the longest gap between its "+
			"progress notifications (%v): no evidence either way that it stopped", t.Name, min(2*cn.tap.progressGap(t.Name), c.s.timeout))
	}
}

func (c *state) cancelIgnored(tool, id, token string, what []string) {
	c.warnf("the client cancelled its tools/call %q (request id %s, progressToken %s) with notifications/cancelled; "+
		"after the server had answered a later request it sent %s for the cancelled call\n"+
		"expected: a cancelled request stops: the receiver of a cancellation SHOULD stop processing the request and "+
		"SHOULD NOT send a response for it (specification, basic/utilities/cancellation)", tool, id, token, strings.Join(what, " and "))
}

// cancelOverHTTP cancels a call whose stream it reads itself: the client's
// transport stops reading a cancelled request's stream, so what the server
// sends on it after the cancellation is seen only this way. It calls t with
// args on its own POST, waits for the first progress, sends
// notifications/cancelled, makes sure the server has read it (a ping
// answered after it), and counts what still comes on the stream.
func (c *state) cancelOverHTTP(cn *conn, tr *transport.StreamableHTTP, t *client.Tool, args map[string]any) {
	const id, token = rawPrefix + "cancel", rawPrefix + "cancel-token"
	params, _ := json.Marshal(map[string]any{"name": t.Name, "arguments": args, "_meta": map[string]any{"progressToken": token}})
	call := `{"jsonrpc":"2.0","id":"` + id + `","method":"tools/call","params":` + string(params) + `}`
	sent := fmt.Sprintf("called tool %q with arguments %s on a POST of its own (progressToken %q)", t.Name, compactJSON(args), token)
	h := http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"},
		"Mcp-Protocol-Version": {cn.cl.ProtocolVersion()}}
	ctx, cancel := context.WithTimeout(c.s.ctx, c.s.timeout*maxProgressTimeouts)
	defer cancel()
	resp, err := tr.Do(ctx, http.MethodPost, h, []byte(call))
	if err != nil {
		c.fatalf("%s; the request failed: %v", sent, err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || !strings.HasPrefix(ct, "text/event-stream") {
		c.skipf("%s; the server answered HTTP %d (%s), not a stream: the call ended before it could be cancelled", sent, resp.StatusCode, ct)
	}
	type event struct {
		progress, result bool
		at               time.Time
	}
	events := make(chan event, 64)
	go func() {
		defer close(events)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			data, ok := strings.CutPrefix(sc.Text(), "data:")
			if !ok {
				continue
			}
			var m struct {
				ID     string `json:"id"`
				Method string `json:"method"`
			}
			_ = json.Unmarshal([]byte(strings.TrimSpace(data)), &m)
			e := event{progress: m.Method == "notifications/progress", result: m.ID == id, at: time.Now()}
			select {
			case events <- e:
			default: // a flood: what counts was seen
			}
		}
	}()
	// The first progress says the call is at work.
	for started := false; !started; {
		select {
		case e, ok := <-events:
			if !ok || e.result {
				c.skipf("%s; the call ended before its first progress notification: nothing to cancel", sent)
			}
			started = e.progress
		case <-time.After(c.s.timeout):
			c.skipf("%s; no progress came within %v: nothing shows the call at work, so nothing to cancel", sent, c.s.timeout)
		}
	}
	note := `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"` + id + `","reason":"mcptestkit: cancellation check"}}`
	if got := c.send(tr, cn, http.MethodPost, note, nil); got.status/100 != 2 {
		c.breakf("%s, then POSTed notifications/cancelled for it; got %s\nexpected: 202 Accepted", sent, got)
	}
	acked := time.Now()
	// Two round trips: the server has read the cancellation before the
	// first, and sent what it had in flight before the second's answer.
	for range 2 {
		if got := c.send(tr, cn, http.MethodPost, httpPing, nil); got.status != http.StatusOK {
			c.fatalf("%s and cancelled it; a ping afterwards got %s\nexpected: the server keeps serving", sent, got)
		}
	}
	wait := min(2*max(cn.tap.progressGap(t.Name), 100*time.Millisecond), c.s.timeout)
	var after int
	var result bool
	deadline := time.After(wait)
	for done := false; !done; {
		select {
		case e, ok := <-events:
			if !ok {
				done = true
				break
			}
			if e.at.Before(acked) {
				continue
			}
			if e.progress {
				after++
				deadline = time.After(wait) // it goes on: wait for the result as long as it does
			}
			if e.result {
				result, done = true, true
			}
		case <-deadline:
			done = true
		}
	}
	var what []string
	if after > 1 {
		what = append(what, fmt.Sprintf("%d more progress notification(s)", after))
	}
	if result {
		what = append(what, "the call's result")
	}
	if len(what) > 0 {
		c.cancelIgnored(t.Name, strconv.Quote(id), strconv.Quote(token), what)
		return
	}
	c.skipf("%s, cancelled it once it reported progress, and the server kept serving; no more progress nor the result "+
		"came after the server had read the cancellation, within %v: no evidence either way that it stopped", sent, wait)
}
