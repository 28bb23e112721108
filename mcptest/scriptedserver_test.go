package mcptest

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcptestkit/mcptestkit/memtransport"
)

// scriptedServer is a small legacy MCP server with no SDK behind it, for
// the tests that must not import one. It answers initialize at the version
// asked for if it speaks it (else at its newest), server/discover with
// -32601 as a legacy server does, ping, tools/list and tools/call:
//
//   - "sleep" waits an hour on a timer (on the bubble's clock inside
//     synctest.Test) and answers "slept 1h0m0s";
//   - "hang" never answers; it returns once the connection ends.
//
// Each call runs on a goroutine of its own, and Serve returns only once
// they all have.
type scriptedServer struct {
	// versions are the versions it speaks, newest first; nil: every legacy
	// version.
	versions []string
	// discovered counts the server/discover requests it got; each is also
	// logged at ERROR on logger, as go-sdk v1.4.0 does.
	discovered *atomic.Int32
	logger     *slog.Logger
}

func newScriptedServer(versions ...string) *scriptedServer {
	if versions == nil {
		versions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}
	}
	return &scriptedServer{versions: versions, discovered: new(atomic.Int32), logger: slog.New(slog.DiscardHandler)}
}

// listingServer is a scriptedServer that lists versions through the
// optional method the harness looks for.
type listingServer struct {
	*scriptedServer
	list []string
}

func (s listingServer) ProtocolVersions() []string { return s.list }

func (s *scriptedServer) Serve(ctx context.Context, conn *memtransport.Conn) error {
	var wg sync.WaitGroup
	defer wg.Wait()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for {
		data, err := conn.Receive(ctx)
		if err != nil {
			return nil
		}
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				ProtocolVersion string `json:"protocolVersion"`
				Name            string `json:"name"`
			} `json:"params"`
		}
		if json.Unmarshal(data, &req) != nil {
			_ = conn.Send(ctx, []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`))
			continue
		}
		if req.ID == nil {
			continue // a notification
		}
		answer := func(body string) { _ = conn.Send(ctx, []byte(`{"jsonrpc":"2.0","id":`+string(req.ID)+`,`+body+`}`)) }
		switch req.Method {
		case "initialize":
			v := s.versions[0]
			if slices.Contains(s.versions, req.Params.ProtocolVersion) {
				v = req.Params.ProtocolVersion
			}
			answer(`"result":{"protocolVersion":"` + v + `","capabilities":{"tools":{}},"serverInfo":{"name":"scripted","version":"v0"}}`)
		case "ping":
			answer(`"result":{}`)
		case "tools/list":
			answer(`"result":{"tools":[{"name":"sleep","description":"Sleep an hour.","inputSchema":{"type":"object"}},{"name":"hang","description":"Never answer.","inputSchema":{"type":"object"}}]}`)
		case "tools/call":
			wg.Go(func() {
				switch req.Params.Name {
				case "sleep":
					timer := time.NewTimer(time.Hour)
					defer timer.Stop()
					select {
					case <-timer.C:
						answer(`"result":{"content":[{"type":"text","text":"slept 1h0m0s"}]}`)
					case <-ctx.Done():
					}
				case "hang":
					<-ctx.Done()
				default:
					answer(`"error":{"code":-32602,"message":"no such tool"}`)
				}
			})
		case "server/discover":
			s.discovered.Add(1)
			s.logger.Error("method invalid during initialization", "method", req.Method)
			fallthrough
		default:
			answer(`"error":{"code":-32601,"message":"Method not found"}`)
		}
	}
}
