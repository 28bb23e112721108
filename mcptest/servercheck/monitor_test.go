package servercheck_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/internal/jsonrpc"
	"github.com/mcptestkit/mcptestkit/mcptest/servercheck"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

// twiceServer is a legacy server written frame by frame with one tool,
// whose every call it answers twice when twice is set.
func twiceServer(t *testing.T, twice bool) servercheck.Dialer {
	var wg sync.WaitGroup
	t.Cleanup(wg.Wait)
	return func(ctx context.Context) (client.Transport, error) {
		cli, srv := memtransport.Pair()
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer srv.Close()
			send := func(s string) { _ = srv.Send(context.Background(), []byte(s)) }
			for {
				data, err := srv.Receive(context.Background())
				if err != nil {
					return
				}
				m, err := jsonrpc.Decode(data)
				if err != nil || !m.IsRequest() {
					continue
				}
				id := m.ID.String()
				switch m.Method {
				case "initialize":
					send(`{"jsonrpc":"2.0","id":` + id + `,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"twice","version":"1"}}}`)
				case "ping":
					send(`{"jsonrpc":"2.0","id":` + id + `,"result":{}}`)
				case "tools/list":
					send(`{"jsonrpc":"2.0","id":` + id + `,"result":{"tools":[{"name":"t","inputSchema":{"type":"object"}}]}}`)
				case "tools/call":
					res := `{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[{"type":"text","text":"x"}]}}`
					send(res)
					if twice {
						send(res)
					}
				default:
					send(`{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32601,"message":"no such method"}}`)
				}
			}
		}()
		return cli, nil
	}
}

// Each rule of the protocol monitor is a check: a broken MUST fails it,
// naming the rule's section and the messages; a rule nothing on the
// connections gave evidence for is skipped, saying so.
func TestMonitorRulesAreChecks(t *testing.T) {
	run := func(twice bool) map[string]servercheck.Result {
		results := map[string]servercheck.Result{}
		_ = servercheck.Run(t.Context(), twiceServer(t, twice), &servercheck.Options{
			Version:  client.LatestLegacyVersion,
			OnResult: func(r servercheck.Result) { results[r.Name] = r },
		})
		return results
	}
	broken := run(true)
	r := broken["monitor/one-response"]
	assert.Equal(t, servercheck.Fail, r.Status, "%s", r)
	assert.Contains(t, r.Detail, "https://modelcontextprotocol.io/specification/2025-11-25/basic#responses")
	assert.Contains(t, r.Detail, "a second response to the request")
	assert.Contains(t, r.Detail, `"method":"tools/call"`)

	correct := run(false)
	for name, r := range correct {
		if !strings.HasPrefix(name, "monitor/") {
			continue
		}
		assert.Contains(t, []servercheck.Status{servercheck.Pass, servercheck.Skip}, r.Status, "%s", r)
	}
	assert.Equal(t, servercheck.Pass, correct["monitor/one-response"].Status)
	assert.Equal(t, servercheck.Skip, correct["monitor/progress-increasing"].Status)
	assert.Contains(t, correct["monitor/progress-increasing"].Detail, "not judged")
}
