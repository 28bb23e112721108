package servercheck

import (
	"github.com/mcptestkit/mcptestkit/client"
)

// listen opens a 2026-07-28 subscriptions/listen stream asking for every
// change notification the server declares, on a connection of its own, and
// closes it once acknowledged. What the server sends on it is judged by the
// protocol monitor (monitor/subscription, monitor/list-changed): the
// acknowledgement first, every notification naming the subscription, none
// of a type not asked for.
func (c *state) listen() {
	if !c.main().modern() {
		c.skipf("the checks' connection speaks %s: subscriptions/listen is 2026-07-28's", c.main().cl.ProtocolVersion())
	}
	caps := c.s.caps
	var f client.ListenFilter
	f.ToolsListChanged = caps.Tools != nil && caps.Tools.ListChanged
	f.PromptsListChanged = caps.Prompts != nil && caps.Prompts.ListChanged
	f.ResourcesListChanged = caps.Resources != nil && caps.Resources.ListChanged
	if caps.Resources != nil && caps.Resources.Subscribe && len(c.s.inv.resources) > 0 {
		f.ResourceSubscriptions = []string{c.s.inv.resources[0].URI}
	}
	if !f.ToolsListChanged && !f.PromptsListChanged && !f.ResourcesListChanged && len(f.ResourceSubscriptions) == 0 {
		c.skipf("the server declares no listChanged and no resources.subscribe: it has no notification to subscribe to")
	}
	cn := c.fresh()
	defer cn.close()
	ctx, cancel := c.ctx()
	defer cancel()
	sub, err := cn.cl.Listen(ctx, f)
	if err != nil {
		c.breakf("opened subscriptions/listen asking for %s; got %s\n"+
			"expected: notifications/subscriptions/acknowledged, the first message of the subscription (basic/patterns/subscriptions, 2026-07-28)",
			compactJSON(f), describe(nil, err))
		return
	}
	c.notef("acknowledged: %s", compactJSON(sub.Accepted()))
	_ = sub.Close()
	// A round trip after the close: what the server sent on the stream
	// before reading the cancellation is in, for the monitor.
	ctx2, cancel2 := c.ctx()
	defer cancel2()
	if _, err := cn.cl.Call(ctx2, "server/discover", map[string]any{}); err != nil {
		if _, ok := errorCode(err); !ok {
			c.breakf("closed the subscription (notifications/cancelled for its request); server/discover then got %s\n"+
				"expected: the server keeps serving", describe(nil, err))
		}
	}
}
