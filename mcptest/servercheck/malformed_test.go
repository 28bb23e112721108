package servercheck_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/internal/jsonrpc"
	"github.com/mcptestkit/mcptestkit/mcptest/servercheck"
	"github.com/mcptestkit/mcptestkit/memtransport"
)

// dualDefects are the defects dualServer can be planted with.
type dualDefects struct {
	lenientMeta  bool // serves a 2026-07-28 request whose _meta lacks the client's capabilities
	lenientLevel bool // takes a log level that does not exist
	cancelBreaks bool // ends the connection on a cancellation of a request it does not know
	oldest       bool // answers a version it does not support with its oldest
	badMetaKey   bool // a _meta key that breaks the naming rules in tools/list
	needsFirst   bool // serves 2026-07-28 requests only on a connection that began with server/discover
	// The tool "ask" answers input_required at 2026-07-28 (and plainly
	// before): acceptsMalformed completes a call whose inputResponses is not
	// an object, strictExtra refuses one with a key it never asked for.
	acceptsMalformed, strictExtra bool
	noteBeforeAck                 bool // sends a list_changed on a subscription before acknowledging it
}

var dualLegacy = []string{"2025-11-25", "2025-06-18", "2025-03-26"}

// dualServer is a dual-era server written frame by frame: one tool, the
// logging capability, and the defects d.
func dualServer(t *testing.T, d dualDefects) servercheck.Dialer {
	var wg sync.WaitGroup
	t.Cleanup(wg.Wait)
	return func(ctx context.Context) (client.Transport, error) {
		cli, srv := memtransport.Pair()
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer srv.Close()
			send := func(id jsonrpc.ID, res any, err *jsonrpc.Error) {
				var b []byte
				if err != nil {
					b = jsonrpc.AppendError(nil, id, err)
				} else {
					r, _ := json.Marshal(res)
					b = jsonrpc.AppendResult(nil, id, r)
				}
				_ = srv.Send(context.Background(), b)
			}
			invalid := &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid params"}
			levels := []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}
			discovered := false
			for {
				data, err := srv.Receive(context.Background())
				if err != nil {
					return
				}
				m, err := jsonrpc.Decode(data)
				if err != nil {
					_ = srv.Send(context.Background(), jsonrpc.AppendError(nil, jsonrpc.ID{}, &jsonrpc.Error{Code: jsonrpc.CodeParseError, Message: "Parse error"}))
					continue
				}
				var p struct {
					ProtocolVersion string          `json:"protocolVersion"`
					Level           string          `json:"level"`
					Name            *string         `json:"name"`
					InputResponses  json.RawMessage `json:"inputResponses"`
					RequestState    string          `json:"requestState"`
					RequestID       any             `json:"requestId"`
					Meta            struct {
						Version  string          `json:"io.modelcontextprotocol/protocolVersion"`
						Caps     json.RawMessage `json:"io.modelcontextprotocol/clientCapabilities"`
						LogLevel *string         `json:"io.modelcontextprotocol/logLevel"`
					} `json:"_meta"`
				}
				_ = json.Unmarshal(m.Params, &p)
				if !m.IsRequest() {
					if id, ok := p.RequestID.(string); ok && d.cancelBreaks && m.Method == "notifications/cancelled" && strings.Contains(id, "never") {
						return
					}
					continue
				}
				modern := p.Meta.Version == client.Version20260728
				meta := map[string]any{"io.modelcontextprotocol/serverInfo": map[string]string{"name": "dual", "version": "1"}}
				result := func(r map[string]any) map[string]any {
					if modern {
						r["_meta"] = meta
						if r["resultType"] == nil {
							r["resultType"] = "complete"
						}
					}
					return r
				}
				if modern {
					if p.Meta.Caps == nil && !d.lenientMeta {
						send(m.ID, nil, invalid)
						continue
					}
					if p.Meta.LogLevel != nil && !slices.Contains(levels, *p.Meta.LogLevel) && !d.lenientLevel {
						send(m.ID, nil, invalid)
						continue
					}
					discovered = discovered || m.Method == "server/discover"
					if d.needsFirst && !discovered {
						send(m.ID, nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "call server/discover first"})
						continue
					}
				}
				caps := map[string]any{"tools": map[string]any{"listChanged": true}, "logging": map[string]any{}}
				switch m.Method {
				case "initialize":
					v := p.ProtocolVersion
					if !slices.Contains(dualLegacy, v) {
						v = dualLegacy[0]
						if d.oldest {
							v = dualLegacy[len(dualLegacy)-1]
						}
					}
					send(m.ID, map[string]any{"protocolVersion": v, "capabilities": caps, "serverInfo": map[string]string{"name": "dual", "version": "1"}}, nil)
				case "server/discover":
					send(m.ID, result(map[string]any{"supportedVersions": append([]string{client.Version20260728}, dualLegacy...),
						"capabilities": caps, "ttlMs": 0, "cacheScope": "public"}), nil)
				case "ping":
					send(m.ID, map[string]any{}, nil)
				case "subscriptions/listen":
					sub := map[string]any{"io.modelcontextprotocol/subscriptionId": json.RawMessage(m.ID.String())}
					note := func(method string, params map[string]any) {
						params["_meta"] = sub
						b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
						_ = srv.Send(context.Background(), b)
					}
					if d.noteBeforeAck {
						note("notifications/tools/list_changed", map[string]any{})
					}
					note("notifications/subscriptions/acknowledged", map[string]any{"notifications": map[string]any{"toolsListChanged": true}})
					// The stream stays open: no response until the client cancels it.
				case "logging/setLevel":
					if !slices.Contains(levels, p.Level) && !d.lenientLevel {
						send(m.ID, nil, invalid)
						continue
					}
					send(m.ID, map[string]any{}, nil)
				case "tools/list":
					tool := map[string]any{"name": "echo", "description": "Echo the text.",
						"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string", "description": "the text"}}}}
					if d.badMetaKey {
						tool["_meta"] = map[string]any{"example.com/-x": true}
					}
					ask := map[string]any{"name": "ask", "description": "Ask the user first.", "inputSchema": map[string]any{"type": "object"}}
					r := result(map[string]any{"tools": []any{tool, ask}})
					if modern {
						r["ttlMs"], r["cacheScope"] = 0, "public"
					}
					send(m.ID, r, nil)
				case "tools/call":
					if p.Name == nil {
						send(m.ID, nil, invalid)
						continue
					}
					if *p.Name == "ask" && modern {
						var answers map[string]json.RawMessage
						switch {
						case p.InputResponses == nil:
							send(m.ID, result(map[string]any{"resultType": "input_required", "requestState": "s1", "inputRequests": map[string]any{
								"q": map[string]any{"method": "elicitation/create", "params": map[string]any{"message": "sure?",
									"requestedSchema": map[string]any{"type": "object", "properties": map[string]any{"ok": map[string]any{"type": "boolean"}}}}}}}), nil)
						case json.Unmarshal(p.InputResponses, &answers) != nil && !d.acceptsMalformed,
							p.RequestState != "s1",
							answers["mcptestkit-never-asked"] != nil && d.strictExtra:
							send(m.ID, nil, invalid)
						case answers["q"] == nil && !d.acceptsMalformed:
							send(m.ID, result(map[string]any{"resultType": "input_required", "requestState": "s1", "inputRequests": map[string]any{
								"q": map[string]any{"method": "elicitation/create", "params": map[string]any{"message": "sure?",
									"requestedSchema": map[string]any{"type": "object", "properties": map[string]any{"ok": map[string]any{"type": "boolean"}}}}}}}), nil)
						default:
							send(m.ID, result(map[string]any{"content": []any{map[string]any{"type": "text", "text": "asked"}}}), nil)
						}
						continue
					}
					if *p.Name != "echo" && *p.Name != "ask" {
						send(m.ID, result(map[string]any{"isError": true, "content": []any{map[string]any{"type": "text", "text": "no such tool"}}}), nil)
						continue
					}
					send(m.ID, result(map[string]any{"content": []any{map[string]any{"type": "text", "text": "x"}}}), nil)
				default:
					send(m.ID, nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "no such method"})
				}
			}
		}()
		return cli, nil
	}
}

func runDual(t *testing.T, version string, d dualDefects) map[string]servercheck.Result {
	results := map[string]servercheck.Result{}
	_ = servercheck.Run(t.Context(), dualServer(t, d), &servercheck.Options{
		Version:  version,
		OnResult: func(r servercheck.Result) { results[r.Name] = r },
	})
	return results
}

// The checks of what a client sends by mistake pass the correct server at
// both eras and catch each planted defect.
func TestMalformedRequestChecks(t *testing.T) {
	for _, version := range []string{"", client.LatestLegacyVersion} {
		t.Run("era"+version, func(t *testing.T) {
			correct := runDual(t, version, dualDefects{})
			for _, name := range []string{"invalid-log-level", "invalid-cancellation", "version-negotiation", "monitor/meta-key"} {
				assert.Equal(t, servercheck.Pass, correct[name].Status, "%s", correct[name])
			}
			for name, r := range correct {
				if strings.HasPrefix(name, "monitor/") {
					assert.Contains(t, []servercheck.Status{servercheck.Pass, servercheck.Skip}, r.Status, "%s", r)
				}
			}
			r := runDual(t, version, dualDefects{lenientLevel: true})["invalid-log-level"]
			assert.Equal(t, servercheck.Warn, r.Status, "%s", r)
			assert.Contains(t, r.Detail, "mcptestkit-no-such-level")

			r = runDual(t, version, dualDefects{cancelBreaks: true})["invalid-cancellation"]
			assert.Equal(t, servercheck.Warn, r.Status, "%s", r)
			assert.Contains(t, r.Detail, "invalid cancellation notifications are ignored")

			r = runDual(t, version, dualDefects{badMetaKey: true})["monitor/meta-key"]
			assert.Equal(t, servercheck.Fail, r.Status, "%s", r)
			assert.Contains(t, r.Detail, `"example.com/-x"`)
		})
	}

	correct := runDual(t, "", dualDefects{})
	assert.Equal(t, servercheck.Pass, correct["required-meta"].Status, "%s", correct["required-meta"])
	assert.Equal(t, servercheck.Pass, correct["monitor/server-info"].Status, "%s", correct["monitor/server-info"])
	r := runDual(t, "", dualDefects{lenientMeta: true})["required-meta"]
	assert.Equal(t, servercheck.Pass, correct["monitor/input-capability"].Status, "%s", correct["monitor/input-capability"])
	assert.Equal(t, servercheck.Fail, r.Status, "%s", r)
	assert.Contains(t, r.Detail, "lacks io.modelcontextprotocol/clientCapabilities")
	r = runDual(t, client.LatestLegacyVersion, dualDefects{})["required-meta"]
	assert.Equal(t, servercheck.Skip, r.Status, "%s", r)

	assert.Equal(t, servercheck.Pass, correct["stateless"].Status, "%s", correct["stateless"])
	assert.Equal(t, servercheck.Pass, correct["subscriptions/listen"].Status, "%s", correct["subscriptions/listen"])
	assert.Equal(t, servercheck.Pass, correct["monitor/subscription"].Status, "%s", correct["monitor/subscription"])
	r = runDual(t, "", dualDefects{noteBeforeAck: true})["monitor/subscription"]
	assert.Equal(t, servercheck.Fail, r.Status, "%s", r)
	assert.Contains(t, r.Detail, "before notifications/subscriptions/acknowledged")
	assert.Equal(t, servercheck.Pass, correct["tools/malformed-input/ask"].Status, "%s", correct["tools/malformed-input/ask"])
	assert.Equal(t, "tools/malformed-input/ask", correct["tools/malformed-input/ask"].Name)
	r = runDual(t, "", dualDefects{acceptsMalformed: true})["tools/malformed-input/ask"]
	assert.Equal(t, servercheck.Warn, r.Status, "%s", r)
	assert.Contains(t, r.Detail, "not an InputResponses object")
	r = runDual(t, "", dualDefects{strictExtra: true})["tools/malformed-input/ask"]
	assert.Equal(t, servercheck.Warn, r.Status, "%s", r)
	assert.Contains(t, r.Detail, "SHOULD ignore information")
	r = runDual(t, "", dualDefects{needsFirst: true})["stateless"]
	assert.Equal(t, servercheck.Fail, r.Status, "%s", r)
	assert.Contains(t, r.Detail, "as the first message of a new connection; got JSON-RPC error -32600")

	r = runDual(t, "", dualDefects{oldest: true})["version-negotiation"]
	assert.Equal(t, servercheck.Warn, r.Status, "%s", r)
	assert.Contains(t, r.Detail, "asked for 2025-11-25, it agreed to it")
}
