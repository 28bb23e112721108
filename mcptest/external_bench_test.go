package mcptest

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/mcptestkit/mcptestkit/client"
)

// BenchmarkConnectExternal measures one whole test's worth of harness work
// against servers outside the test's Go values: connect (handshake
// included), one tool call, and the cleanup (close, process exit or session
// DELETE, leak check).
func BenchmarkConnectExternal(b *testing.B) {
	cmdServer(b, "") // build the server program outside the timed loop
	stateless := gosdkStateless(probeServer(nil))
	hs := httptest.NewServer(stateless)
	b.Cleanup(hs.Close)
	cases := []struct {
		name    string
		connect func(tb testing.TB) *client.Client
	}{
		{"command/gosdk", func(tb testing.TB) *client.Client { return ConnectCommand(tb, cmdServer(tb, "")) }},
		{"http/gosdk-stateless", func(tb testing.TB) *client.Client { return ConnectHTTP(tb, stateless) }},
		{"http/gosdk-stateful-legacy", func(tb testing.TB) *client.Client {
			return ConnectHTTP(tb, gosdkHTTP(probeServer(nil)), WithProtocolVersion(client.LatestLegacyVersion))
		}},
		{"http/mcpgo", func(tb testing.TB) *client.Client { return ConnectHTTP(tb, mcpgoHTTP(mcpgoServer())) }},
		{"url/gosdk-stateless", func(tb testing.TB) *client.Client { return ConnectURL(tb, hs.URL) }},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				f := runFake(b, func(tb testing.TB) {
					c := tc.connect(tb)
					if _, err := c.CallTool(tb.Context(), "echo", map[string]any{"text": "x"}); err != nil {
						tb.Errorf("%v", err)
					}
				})
				if f.Failed() {
					b.Fatal(f.output())
				}
			}
		})
	}
}

// BenchmarkRecorderSend is what the recording transport adds to one Send:
// the copy for the transcript, and with the leak check on, the label set on
// the sending goroutine.
func BenchmarkRecorderSend(b *testing.B) {
	msg := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}`)
	for _, tc := range []struct {
		name  string
		keep  int
		label string
	}{
		{"plain", 0, ""},
		{"recorded", transcriptFrames, ""},
		{"recorded+labelled", transcriptFrames, newLeakLabel()},
	} {
		b.Run(tc.name, func(b *testing.B) {
			r := newRecorder(newScriptTransport(nil), tc.keep, tc.label)
			b.Cleanup(func() { r.Close() })
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if err := r.Send(ctx, msg); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
