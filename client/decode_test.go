package client

import (
	"encoding/json"
	"reflect"
	"testing"
)

var callToolSeeds = []string{
	`{"content":[{"type":"text","text":"hello"}]}`,
	`{"content":[{"type":"text","text":"a\nb\u00e9"},{"type":"text","text":"c"}],"isError":true,"resultType":"complete"}`,
	`{"content":[],"structuredContent":{"n":1},"_meta":{"k":"v"}}`,
	`{"content":[{"type":"image","data":"aGk=","mimeType":"image/png"},{"type":"text","text":"x","annotations":{"priority":1}}]}`,
	`{"content":[{"type":"weird","stuff":[1]}]}`,
	`{"content":[{"text":"no type"}]}`,
	`{"content":[null]}`,
	`{"content":{"type":"text","text":"single"}}`,
	`{"content":null,"isError":null,"resultType":null,"_meta":null}`,
	`{"content":"no"}`,
	`{"Content":[{"type":"text","text":"case"}]}`,
	`{"content":[{"type":"text","text":"dup"}],"content":[]}`,
	`{"content":[{"type":"text","text":"a","text":"b"}]}`,
	`{"content":[{"type":"text","text":null}]}`,
	`{"content":[],"isError":"yes"}`,
	`{"content":[],"resultType":"input_required","inputRequests":{"a":{"method":"roots/list"}},"requestState":"s"}`,
	`{"content":[],"other":{"ignored":true}}`,
	`{"content":[{"type":"image","data":"not base64!"}]}`,
	`{"content":[],"structuredContent":null}`,
	`[]`,
	`{"content":[1,]}`,
	`{"c\u006fntent":[]}`,
}

// FuzzCallToolDecode holds the tools/call fast path to encoding/json.
func FuzzCallToolDecode(f *testing.F) {
	for _, s := range callToolSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var got, want callToolEnvelope
		gotErr := got.decode(data)
		wantErr := json.Unmarshal(data, &want)
		if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
			t.Fatalf("%q: error %v, encoding/json %v", data, gotErr, wantErr)
		}
		if gotErr == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\n got %#v\nwant %#v", data, got, want)
		}
	})
}

func TestCallToolDecodeAgrees(t *testing.T) {
	for _, s := range callToolSeeds {
		var got, want callToolEnvelope
		gotErr, wantErr := got.decode([]byte(s)), json.Unmarshal([]byte(s), &want)
		if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() || !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %#v %v\nwant %#v %v", s, got, gotErr, want, wantErr)
		}
	}
}
