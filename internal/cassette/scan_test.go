package cassette

import (
	"bytes"
	"encoding/json"
	"testing"
)

// The one-pass reading of a message line agrees with encoding/json's
// wherever it answers: the same frame, the same verdict on the message.
func FuzzScanFrame(f *testing.F) {
	for _, s := range []string{
		`{"dir":"c2s","ms":0,"msg":{"jsonrpc":"2.0","id":1,"method":"ping"}}`,
		`{"dir":"s2c","ms":12,"session":2,"msg":{"jsonrpc":"2.0","id":"a","result":{}}}`,
		`{"dir":"s2c","ms":1e2,"msg":{"jsonrpc":"2.0","id":1,"result":{}}}`,
		`{"DIR":"c2s","ms":0,"msg":{"jsonrpc":"2.0","method":"x"}}`,
		`{"dir":"c2s","ms":0,"session":null,"msg":{"JSONRPC":"2.0","method":"x"}}`,
		`{"dir":"c\u0032s","ms":0,"msg":{"jsonrpc":"2.0","method":null,"id":1,"error":{}}}`,
		`{"dir":"c2s","ms":0,"msg":{"jsonrpc":"2.0","method":"","id":1}}`,
		`{"dir":"c2s","ms":-0,"msg":{"jsonrp\u0063":"2.0","method":"m"}}`,
		`{"dir":"c2s","ms":0,"msg":{"jsonrpc":"2.0","id":null,"result":null}}`,
		`{"dir":"c2s","ms":0,"dir":"s2c","msg":[1]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var fast Frame
		if !scanFrame(line, &fast) {
			return // encoding/json reads it
		}
		var slow Frame
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&slow); err != nil {
			t.Fatalf("scanFrame read %q, encoding/json refuses it: %v", line, err)
		}
		if fast.Dir != slow.Dir || fast.Ms != slow.Ms || fast.Session != slow.Session || !bytes.Equal(fast.Msg, slow.Msg) {
			t.Fatalf("%q: scanFrame read %+v, encoding/json %+v", line, fast, slow)
		}
		if a, b := isMessage(fast.Msg), isMessageSlow(fast.Msg); a != b {
			t.Fatalf("%q: isMessage %v, encoding/json's %v", fast.Msg, a, b)
		}
	})
}
