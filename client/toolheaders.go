package client

import (
	"encoding/json"
	"slices"
)

// toolHeaderLearner is implemented by a transport that sends some tool
// arguments in HTTP headers as well (the 2026-07-28 streamable HTTP
// transport: the x-mcp-header annotations of a tool's inputSchema become
// Mcp-Param-* headers on its tools/call). LearnToolHeaders records one
// tool's annotations, or forgets the tool and returns an error when they
// are invalid.
type toolHeaderLearner interface {
	LearnToolHeaders(tool string, inputSchema json.RawMessage) error
}

// keepToolsWithValidHeaders hands each listed tool's annotations to a
// transport that uses them, and drops the tools whose annotations it
// refuses, as the 2026-07-28 spec requires of a client. The transport
// logs the warning the spec asks for, on its own logger.
func (c *Client) keepToolsWithValidHeaders(tools []*Tool) []*Tool {
	l := headerLearner(c.t)
	if l == nil || !c.IsModern() {
		return tools
	}
	return slices.DeleteFunc(tools, func(tool *Tool) bool {
		return l.LearnToolHeaders(tool.Name, tool.InputSchema) != nil
	})
}

// headerLearner finds the toolHeaderLearner in t, looking through
// transports that wrap another one and say so with Unwrap() Transport (a
// recorder, a logger), as http.ResponseController looks through
// ResponseWriters.
func headerLearner(t Transport) toolHeaderLearner {
	for t != nil {
		if l, ok := t.(toolHeaderLearner); ok {
			return l
		}
		w, ok := t.(interface{ Unwrap() Transport })
		if !ok {
			return nil
		}
		t = w.Unwrap()
	}
	return nil
}
