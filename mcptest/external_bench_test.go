package mcptest

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/mcptest/internal/leak"
)

// BenchmarkConnectExternal measures one whole test's worth of harness work
// against servers outside the test's Go values: connect (handshake
// included), one tool call, and the cleanup (close, process exit, leak
// check), with the fake server (the SDKs' are in the integration module).
func BenchmarkConnectExternal(b *testing.B) {
	cmdServer(b, "") // link the server program outside the timed loop
	h := probeServer().handler()
	hs := httptest.NewServer(h)
	b.Cleanup(hs.Close)
	cases := []struct {
		name    string
		connect func(tb testing.TB) *client.Client
	}{
		{"command/fake", func(tb testing.TB) *client.Client { return Connect(tb, Command(cmdServer(tb, ""))) }},
		{"http/fake", func(tb testing.TB) *client.Client { return Connect(tb, Handler(h)) }},
		{"http/fake-legacy", func(tb testing.TB) *client.Client {
			return Connect(tb, Handler(h), WithProtocolVersion(client.LatestLegacyVersion))
		}},
		{"url/fake", func(tb testing.TB) *client.Client { return Connect(tb, URL(hs.URL)) }},
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
		{"recorded+labelled", transcriptFrames, leak.NewLabel()},
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
