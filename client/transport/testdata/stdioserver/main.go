// Command stdioserver is the server ExampleCommand starts: a small MCP
// server on stdin and stdout, written without an SDK, that speaks the
// legacy protocol versions and has one tool, echo. It exits when stdin
// closes.
package main

import (
	"bufio"
	"encoding/json"
	"os"
)

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 1<<20)
	out := json.NewEncoder(os.Stdout) // one message a line
	for in.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				ProtocolVersion string         `json:"protocolVersion"`
				Arguments       map[string]any `json:"arguments"`
			} `json:"params"`
		}
		if json.Unmarshal(in.Bytes(), &req) != nil || req.ID == nil {
			continue // a notification
		}
		answer := map[string]any{"jsonrpc": "2.0", "id": req.ID}
		switch req.Method {
		case "initialize":
			answer["result"] = map[string]any{"protocolVersion": req.Params.ProtocolVersion,
				"capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo":   map[string]any{"name": "stdioserver", "version": "v1"}}
		case "ping":
			answer["result"] = map[string]any{}
		case "tools/call":
			text, _ := req.Params.Arguments["text"].(string)
			answer["result"] = map[string]any{"content": []any{map[string]any{"type": "text", "text": text}},
				"structuredContent": map[string]any{"text": text}}
		default:
			answer["error"] = map[string]any{"code": -32601, "message": "Method not found"}
		}
		if out.Encode(answer) != nil {
			return
		}
	}
}
