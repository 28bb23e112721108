package cassette_test

import (
	"encoding/json"
	"testing"

	"github.com/mcptestkit/mcptestkit/internal/cassette"
)

// The redactor's cost per message: a tool call's answer holding each kind
// of secret, and one holding none.
func BenchmarkRedact(b *testing.B) {
	r, err := cassette.NewRedactor(nil)
	if err != nil {
		b.Fatal(err)
	}
	var msgs [][]byte
	for _, s := range formats() {
		m, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "result": map[string]any{
			"content": []any{map[string]any{"type": "text", "text": "here it is: " + s}}}})
		msgs = append(msgs, m)
	}
	plain := []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"Frank Herbert wrote Dune in 1965; it is a novel about a desert planet."}]}}`)
	b.Run("secrets", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			r.Message(msgs[i%len(msgs)])
		}
	})
	b.Run("plain", func(b *testing.B) {
		for b.Loop() {
			r.Message(plain)
		}
	})
}

// A 10 MB answer, in lines of every printable ASCII character, and in hex.
func BenchmarkRedactBig(b *testing.B) {
	r, err := cassette.NewRedactor(nil)
	if err != nil {
		b.Fatal(err)
	}
	var sb []byte
	for len(sb) < 10<<20 {
		for c := byte(' '); c <= '~'; c++ {
			sb = append(sb, c)
		}
		sb = append(sb, '\n')
	}
	hex := make([]byte, 0, 10<<20)
	for len(hex) < 10<<20 {
		hex = append(hex, "0123456789abcdef"...)
	}
	for name, text := range map[string][]byte{"ascii": sb, "hex": hex} {
		msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "result": map[string]any{
			"content": []any{map[string]any{"type": "text", "text": string(text)}}}})
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				r.Message(msg)
			}
		})
	}
}
