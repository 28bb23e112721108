// Command stdioserver is the smallest MCP server over stdio the shutdown
// and transport checks need: it answers the legacy handshake, ping and
// empty lists, and -32601 to the rest. With STDIOSERVER_IGNORE_EOF=1 it does
// not exit when its stdin closes, as some servers do not.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"time"
)

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	for in.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"params"`
		}
		if json.Unmarshal(in.Bytes(), &req) != nil {
			fmt.Println(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`)
			continue
		}
		if req.ID == nil {
			continue
		}
		var body string
		switch req.Method {
		case "initialize":
			v := req.Params.ProtocolVersion
			if v >= "2026" || v == "" {
				v = "2025-11-25"
			}
			body = `"result":{"protocolVersion":"` + v + `","capabilities":{},"serverInfo":{"name":"stdioserver","version":"v0"}}`
		case "ping":
			body = `"result":{}`
		default:
			body = `"error":{"code":-32601,"message":"Method not found"}`
		}
		fmt.Printf(`{"jsonrpc":"2.0","id":%s,%s}`+"\n", req.ID, body)
	}
	if os.Getenv("STDIOSERVER_IGNORE_EOF") == "1" {
		// Wait to be stopped by a signal, as a server that ignores its
		// stdin closing does.
		time.Sleep(time.Hour)
	}
}
