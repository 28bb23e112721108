package mcptest

import (
	"context"
	"strings"
	"testing"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/internal/jsonrpc"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

// brokenRuleServer is a legacy server written frame by frame, with one defect
// the monitor must catch: "twice" answers tools/call twice, "log" sends a
// log message without the logging capability, "" has none.
func brokenRuleServer(defect string) ServerFunc {
	return func(ctx context.Context, conn *memtransport.Conn) error {
		send := func(s string) { _ = conn.Send(ctx, []byte(s)) }
		for {
			data, err := conn.Receive(ctx)
			if err != nil {
				return nil
			}
			m, err := jsonrpc.Decode(data)
			if err != nil {
				continue
			}
			id := m.ID.String()
			switch m.Method {
			case "initialize":
				send(`{"jsonrpc":"2.0","id":` + id + `,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"planted","version":"1"}}}`)
			case "notifications/initialized":
				if defect == "log" {
					send(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hello"}}`)
				}
			case "tools/call":
				res := `{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[{"type":"text","text":"x"}]}}`
				send(res)
				if defect == "twice" {
					send(res)
				}
			default:
				if m.IsRequest() {
					send(`{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32601,"message":"no"}}`)
				}
			}
		}
	}
}

func connectPlanted(defect string, opts ...Option) func(tb testing.TB) {
	return func(tb testing.TB) {
		c := Connect(tb, brokenRuleServer(defect), append([]Option{WithProtocolVersion(client.LatestLegacyVersion)}, opts...)...)
		if _, err := c.CallTool(tb.Context(), "t", nil); err != nil {
			tb.Errorf("CallTool: %v", err)
		}
	}
}

func TestMonitorFailsTheTestWithRuleCitationAndMessages(t *testing.T) {
	f := runFake(t, connectPlanted("twice"))
	f.expectFailure(t, "mcptest: protocol monitor: monitor/one-response (MUST, https://modelcontextprotocol.io/specification/2025-11-25/basic#responses)",
		"a second response to the request with id 2", `→ #4 {"jsonrpc":"2.0","id":2,"method":"tools/call"`,
		`← #6 {"jsonrpc":"2.0","id":2,"result"`, "mcptest.Monitor(mcptest.MonitorLog)", "transcript of the connection")

	f = runFake(t, connectPlanted("log"))
	f.expectFailure(t, "monitor/log-level (MUST", "did not declare the logging capability", `"method":"notifications/message"`)
}

func TestMonitorPassesACorrectServer(t *testing.T) {
	f := runFake(t, connectPlanted(""))
	f.expectPass(t)
	if strings.Contains(f.output(), "protocol monitor") {
		t.Errorf("a correct server got monitor findings:\n%s", f.output())
	}
	// The package's fake server, in both eras, with progress and logs.
	for _, v := range []string{client.LatestLegacyVersion, client.LatestVersion} {
		f = runFake(t, func(tb testing.TB) {
			c := Connect(tb, probeServer(), WithProtocolVersion(v))
			if _, err := c.CallTool(tb.Context(), "echo", map[string]any{"text": "x"}); err != nil {
				tb.Errorf("%v", err)
			}
			drain(c.Tools(tb.Context()))
		})
		f.expectPass(t)
		if strings.Contains(f.output(), "protocol monitor") {
			t.Errorf("%s: the fake server got monitor findings:\n%s", v, f.output())
		}
	}
}

func TestMonitorModes(t *testing.T) {
	f := runFake(t, connectPlanted("twice", Monitor(MonitorLog)))
	f.expectPass(t)
	if !strings.Contains(f.output(), "monitor/one-response") {
		t.Errorf("MonitorLog logged nothing:\n%s", f.output())
	}
	f = runFake(t, connectPlanted("twice", Monitor(MonitorOff)))
	f.expectPass(t)
	if strings.Contains(f.output(), "protocol monitor") {
		t.Errorf("MonitorOff reported:\n%s", f.output())
	}
	f = runFake(t, func(tb testing.TB) { CheckServer(tb, brokenRuleServer(""), Monitor(MonitorOff)) })
	f.expectFailure(t, "mcptest.Monitor applies to Connect, not CheckServer")
}

// A fault hook may change what the server sent: the monitor then logs.
func TestMonitorLogsUnderTransportFaults(t *testing.T) {
	f := runFake(t, connectPlanted("twice", WithTransportOptions(memtransport.WithBufferSize(8))))
	f.expectPass(t)
	if !strings.Contains(f.output(), "monitor/one-response") || !strings.Contains(f.output(), "logged, not failed") {
		t.Errorf("the finding was not logged:\n%s", f.output())
	}
}
