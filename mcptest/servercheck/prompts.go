package servercheck

import (
	"encoding/json"
	"fmt"

	"github.com/mcptestkit/mcptestkit/client"
)

func (c *state) getPrompt(p *client.Prompt) {
	cn := c.main()
	e := newSeeded(c.s.opts.Seed, p.Name)
	rejected := 0
	const tries = 4
	for i := range tries {
		args := map[string]string{}
		for _, a := range p.Arguments {
			if a.Required || e.intn(2) == 0 {
				args[a.Name] = newGen(e, nil).str(nil)
				if i == 0 {
					args[a.Name] = c.suggest(cn, client.PromptReference(p.Name), a.Name, "mcptestkit")
				}
			}
		}
		ctx, cancel := c.ctx()
		res, err := cn.cl.GetPrompt(ctx, p.Name, args)
		cancel()
		c.noLeak(fmt.Sprintf("prompts/get %q", p.Name), res, err)
		if brokeConnection(cn, err) {
			c.fatalf("prompts/get %q with arguments %s; the connection broke: %v", p.Name, compactJSON(args), err)
		}
		if err != nil {
			if e, ok := errorCode(err); ok && e.Code == client.CodeInvalidParams {
				rejected++
				continue
			}
			if w := needsClient(err); w != "" {
				c.skipf("prompt %q: %s; give Options.Client the callbacks (Elicit, CreateMessage, ListRoots) and capabilities it needs to check it", p.Name, w)
			}
			c.warnf("prompts/get %q with arguments %s; got %s\n"+
				"expected: the rendered prompt, or -32602 if the server rejects an argument's value (servers "+
				"SHOULD answer invalid arguments with -32602: specification, server/prompts, \"Error Handling\")", p.Name, compactJSON(args), describe(nil, err))
			return
		}
		if len(res.Messages) == 0 {
			c.notef("prompts/get %q rendered no messages", p.Name)
		}
	}
	if rejected == tries {
		c.notef("every generated value was rejected with -32602 (the prompt wants values the generator cannot guess)")
	}
}

func (c *state) promptMissingArgument(p *client.Prompt) {
	var req *client.PromptArgument
	for _, a := range p.Arguments {
		if a.Required {
			req = a
			break
		}
	}
	if req == nil {
		c.skipf("prompt %q has no required argument", p.Name)
	}
	cn := c.main()
	args := map[string]string{}
	for _, a := range p.Arguments {
		if a.Required && a != req {
			args[a.Name] = "mcptestkit"
		}
	}
	ctx, cancel := c.ctx()
	defer cancel()
	res, err := cn.cl.GetPrompt(ctx, p.Name, args)
	c.noLeak(fmt.Sprintf("prompts/get %q", p.Name), res, err)
	if e, ok := errorCode(err); !ok || e.Code != client.CodeInvalidParams {
		c.breakf("prompts/get %q without its required argument %q (arguments %s); got %s\n"+
			"expected: JSON-RPC error -32602 (Invalid params) (servers SHOULD answer missing required "+
			"arguments with -32602: specification, server/prompts, \"Error Handling\")", p.Name, req.Name, compactJSON(args), describe(res, err))
	}
}

func (c *state) unknownPrompt() {
	cn := c.main()
	ctx, cancel := c.ctx()
	defer cancel()
	res, err := cn.cl.GetPrompt(ctx, unknownName, nil)
	if e, ok := errorCode(err); !ok || e.Code != client.CodeInvalidParams {
		c.breakf("prompts/get %q, a prompt the server does not list; got %s\n"+
			"expected: JSON-RPC error -32602 (Invalid params) (servers SHOULD answer an invalid prompt name "+
			"with -32602: specification, server/prompts, \"Error Handling\")", unknownName, describe(res, err))
	}
}

// noLeak fails the check if an answer shows crash text to the client.
func (c *state) noLeak(what string, res any, err error) {
	var s string
	if e, ok := errorCode(err); ok {
		s = e.Message + " " + string(e.Data)
	} else if res != nil && err == nil {
		if tr, ok := res.(*client.CallToolResult); ok && !tr.IsError {
			return // a tool's own output may mention anything
		}
		b, _ := json.Marshal(res)
		s = string(b)
	}
	if l := leak(s); l != "" {
		c.failf("%s: the answer shows the client what looks like crash text: %q\n"+
			"expected: a panic's value, the words \"panic\" or \"goroutine\", stack traces and source file "+
			"paths stay in the server's log; the client gets a bare error (\"Error executing tool <name>\", or -32603)", what, l)
	}
}
