package mcpgotest

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Frames readEnvelope reads with the scanner.
var plainEnvelopes = []string{
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`,
	`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	`{"jsonrpc":"2.0","id":"abc","result":{"content":[]}}`,
	`{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"no"}}`,
	` {"method" : "tools\/call" , "id" : 1.5e3 , "params" : [ 1 , { } ] } ` + "\n",
	`{"method":"caf\u00e9","id":{"odd":true}}`,
	`{"method":"` + "\xff" + `"}`,
	`{"result":{ "a" :  1 },"other":null,"Other":null}`,
	`{}`,
}

// Frames readEnvelope leaves to json.Unmarshal, valid or not.
var otherEnvelopes = []string{
	`{"ID":1,"method":"m"}`,
	`{"id":1,"Method":"m"}`,
	`{"id":1,"method":"m","RESULT":{}}`,
	`{"id":1,"method":"m","erroR":{}}`,
	`{"\u0069d":1,"method":"m"}`,
	`{"id":1,"id":2,"method":"m"}`,
	`{"id":null,"method":"m"}`,
	`{"id":1,"result":null}`,
	`{"id":1,"method":7}`,
	`{"id":1,"method":null}`,
	`{"ſd":1}`,
	`[]`,
	`"text"`,
	`{`,
	`{"id":1} {}`,
	`{"id":1,}`,
	`not json`,
	``,
	`{"id":1,"params":` + string(bytes.Repeat([]byte("["), 100)) + string(bytes.Repeat([]byte("]"), 100)) + `}`,
}

func TestReadEnvelopeReadsPlainFrames(t *testing.T) {
	for _, frame := range plainEnvelopes {
		t.Run(frame, func(t *testing.T) {
			assertEnvelopeAsJSON(t, []byte(frame), true)
		})
	}
}

func TestReadEnvelopeLeavesOtherFramesToJSON(t *testing.T) {
	for _, frame := range otherEnvelopes {
		t.Run(frame, func(t *testing.T) {
			assertEnvelopeAsJSON(t, []byte(frame), false)
		})
	}
}

// FuzzReadEnvelope holds scanEnvelope to json.Unmarshal: for any frame it
// either declines or reads what json.Unmarshal reads.
func FuzzReadEnvelope(f *testing.F) {
	for _, frame := range plainEnvelopes {
		f.Add([]byte(frame))
	}
	for _, frame := range otherEnvelopes {
		f.Add([]byte(frame))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, ok := scanEnvelope(data)
		if !ok {
			return
		}
		var want envelope
		if err := json.Unmarshal(data, &want); err != nil {
			t.Fatalf("scanEnvelope read %q, which json.Unmarshal refuses: %v", data, err)
		}
		if !sameEnvelope(got, want) {
			t.Fatalf("scanEnvelope(%q) = %+v; json.Unmarshal: %+v", data, got, want)
		}
	})
}

// assertEnvelopeAsJSON checks that readEnvelope reads frame as json.Unmarshal
// does, by the scanner when plain says so, and that the raw members do not
// share the frame.
func assertEnvelopeAsJSON(t *testing.T, frame []byte, plain bool) {
	t.Helper()
	_, scanned := scanEnvelope(frame)
	assert.Equal(t, plain, scanned, "read by the scanner")
	var want envelope
	wantErr := json.Unmarshal(frame, &want)
	got, gotErr := readEnvelope(frame)
	assert.Equal(t, wantErr, gotErr)
	assert.True(t, sameEnvelope(got, want), "readEnvelope: %+v\njson.Unmarshal: %+v", got, want)
	if plain {
		require.NoError(t, gotErr)
		clear(frame)
		assert.True(t, sameEnvelope(got, want), "the envelope shares the frame")
	}
}

func sameEnvelope(a, b envelope) bool {
	return a.Method == b.Method && bytes.Equal(a.ID, b.ID) && bytes.Equal(a.Result, b.Result) && bytes.Equal(a.Error, b.Error) &&
		(a.ID == nil) == (b.ID == nil) && (a.Result == nil) == (b.Result == nil) && (a.Error == nil) == (b.Error == nil)
}
