package jsonrpc

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// decodeReference is Decode done by encoding/json alone, as it was before
// the scanner: the fast path must agree with it on every input, results
// and error texts alike.
func decodeReference(data []byte) (*Message, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, fmt.Errorf("jsonrpc: %w: empty input", ErrNotMessage)
	}
	if data[0] == '[' {
		return nil, fmt.Errorf("jsonrpc: %w: batches (JSON arrays) are not supported", ErrNotMessage)
	}
	var f fields
	if err := f.unmarshal(data); err != nil {
		return nil, fmt.Errorf("jsonrpc: %w: %v", ErrNotMessage, err)
	}
	return f.message()
}

func sameRaw(a, b []byte) bool { return (a == nil) == (b == nil) && bytes.Equal(a, b) }

func checkAgainstReference(t *testing.T, data []byte) {
	t.Helper()
	got, gotErr := Decode(data)
	want, wantErr := decodeReference(data)
	if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
		t.Fatalf("%q: error %v, encoding/json says %v", data, gotErr, wantErr)
	}
	if gotErr != nil {
		return
	}
	if got.ID != want.ID || got.Method != want.Method || !sameRaw(got.Params, want.Params) || !sameRaw(got.Result, want.Result) {
		t.Fatalf("%q: decoded %+v, encoding/json says %+v", data, got, want)
	}
	if (got.Error == nil) != (want.Error == nil) {
		t.Fatalf("%q: error member %+v, encoding/json says %+v", data, got.Error, want.Error)
	}
	if e, w := got.Error, want.Error; e != nil && (e.Code != w.Code || e.Message != w.Message || !sameRaw(e.Data, w.Data)) {
		t.Fatalf("%q: error member %+v, encoding/json says %+v", data, e, w)
	}
}

var scanSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"method":"a","params":{}}`,
	`{"jsonrpc":"2.0","id":"x","error":{"code":1,"message":"m"}}`,
	`{"jsonrpc":"2.0","method":"n"}`,
	` {"jsonrpc" : "2.0" , "id" : 7 , "result" : { "a" : [ 1 , -2.5e+3 , true , false , null , "s\"\\\/\b\f\n\r\t\u00e9" ] } } `,
	`{"jsonrpc":"2.0","id":2,"result":null}`,
	`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error","data":[1]}}`,
	`{"jsonrpc":"2.0","id":3,"error":{"code":1.5,"message":"m"}}`,
	`{"jsonrpc":"2.0","id":3,"error":{"code":99999999999999999999,"message":"m"}}`,
	`{"jsonrpc":"2.0","id":3,"error":{"code":null,"message":null,"data":null}}`,
	`{"jsonrpc":"2.0","id":3,"error":{"code":1,"message":"a"},"error":{"message":"b"}}`,
	`{"jsonrpc":"2.0","id":3,"error":null,"result":{}}`,
	`{"jsonrpc":"2.0","id":3,"error":"no"}`,
	`{"JSONRPC":"2.0","ID":3,"Result":{}}`,
	`{"jsonrpc":"2.0","i\u0064":3,"result":{}}`,
	"{\"jſonrpc\":\"2.0\",\"id\":3,\"result\":{}}",
	`{"jsonrpc":"2.0","id":3,"method":"m\u00e9","params":[]}`,
	"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"bad\xff\"}",
	`{"jsonrpc":"2.0","id":3,"method":"a","method":null}`,
	`{"jsonrpc":"2.0","jsonrpc":null,"id":3,"result":1}`,
	`{"jsonrpc":2,"id":3,"result":1}`,
	`{"jsonrpc":"2.0","id":3,"result":1} x`,
	`{"jsonrpc":"2.0","id":3,"result":01}`,
	`{"jsonrpc":"2.0","id":3,"result":[1,]}`,
	`{"jsonrpc":"2.0","id":3,"result":{"a":1,}}`,
	`{"jsonrpc":"2.0","id":3,"result":"\x"}`,
	`{"jsonrpc":"2.0","id":3,"result":"\u12"}`,
	`{"jsonrpc":"2.0","id":3,"result":tru}`,
	`{"jsonrpc":"2.0","id":3,"result":-}`,
	`{"jsonrpc":"2.0","id":3,"result":1.}`,
	`{"jsonrpc":"2.0","id":3,"result":1e}`,
	`{"jsonrpc":"2.0","id":3,"result":{"a" 1}}`,
	`{"jsonrpc":"2.0","id":3,"other":{"deep":[[[{}]]]},"result":{}}`,
	`{}`,
	`null`,
	`"s"`,
	`{"jsonrpc":"2.0","id":1.0,"result":{}}`,
	`{"jsonrpc":"2.0","id":"a\u0062","result":{}}`,
	"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":\"ctl\x01\"}",
	`{"jsonrpc":"2.0","id":1,"result":` + strings.Repeat("[", 70) + strings.Repeat("]", 70) + `}`,
	`{"jsonrpc":"2.0","id":1,"result":` + strings.Repeat("[", 63) + strings.Repeat("]", 63) + `}`,
	`{"jsonrpc":"2.0","id":1,"result":` + strings.Repeat(`{"a":`, 64) + `1` + strings.Repeat("}", 64) + `}`,
}

func TestDecodeAgreesWithEncodingJSON(t *testing.T) {
	for _, s := range scanSeeds {
		checkAgainstReference(t, []byte(s))
	}
}

func FuzzDecodeAgreesWithEncodingJSON(f *testing.F) {
	for _, s := range scanSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkAgainstReference(t, data)
	})
}

// The fast path allocates only the message itself.
func TestDecodeAllocations(t *testing.T) {
	data := []byte(`{"jsonrpc":"2.0","id":12,"result":{"content":[{"type":"text","text":"hello"}]}}`)
	if n := testing.AllocsPerRun(100, func() { _, _ = Decode(data) }); n > 1 {
		t.Errorf("Decode of a response: %v allocations, want 1", n)
	}
}
