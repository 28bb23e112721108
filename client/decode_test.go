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
	`{"content":[],"_meta":{"a":[1,-2.5e3,true,null,"s",{"b":{}}],"c":{},"d":[]}}`,
	`{"content":[],"_meta":{"a":1e400}}`,
	`{"content":[],"_meta":{"a":1,"a":2}}`,
	`{"content":[],"_meta":{"\u0061":1}}`,
	`{"content":[],"_meta":[]}`,
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

var startSeeds = []string{
	`{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"bench","version":"1"}},"ttlMs":0,"cacheScope":"public","supportedVersions":["2026-07-28","2025-11-25"],"capabilities":{"logging":{},"tools":{"listChanged":true}}}`,
	`{"capabilities":{"logging":{},"tools":{"listChanged":true}},"protocolVersion":"2025-11-25","serverInfo":{"name":"bench","version":"1"}}`,
	`{"capabilities":{"prompts":{"listChanged":false},"resources":{"subscribe":true,"listChanged":null,"other":1},"completions":{"x":1},"experimental":{"a":{"b":2}},"tasks":{"list":{}},"extensions":{"e":{}}},"instructions":"use \"me\""}`,
	`{"capabilities":null,"serverInfo":null,"_meta":null,"supportedVersions":null}`,
	`{"capabilities":{"tools":{"ListChanged":true}}}`,
	`{"capabilities":{"tools":{"listChanged":"yes"}}}`,
	`{"capabilities":{"logging":[]}}`,
	`{"capabilities":{"tools":{},"tools":null}}`,
	`{"serverInfo":{"name":"n","version":"v","title":"t","description":"d","websiteUrl":"u","icons":[{"src":"s"}]}}`,
	`{"_meta":{"io.modelcontextprotocol/serverInfo":null,"other":1}}`,
	`{"_meta":{"IO.modelcontextprotocol/serverInfo":{"name":"x"}}}`,
	`{"supportedVersions":["a",null]}`,
	`{"supportedVersions":[]}`,
	`{"Instructions":"x"}`,
	`{"protocolVersion":1}`,
	`[]`,
}

// FuzzStartDecode holds the server/discover and initialize fast paths to
// encoding/json.
func FuzzStartDecode(f *testing.F) {
	for _, s := range startSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkStartDecode(t, data)
	})
}

func TestStartDecodeAgrees(t *testing.T) {
	for _, s := range startSeeds {
		checkStartDecode(t, []byte(s))
	}
}

func checkStartDecode(t *testing.T, data []byte) {
	t.Helper()
	var gotD, wantD discoverResult
	gotErr, wantErr := gotD.decode(data), json.Unmarshal(data, &wantD)
	if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() || gotErr == nil && !reflect.DeepEqual(gotD, wantD) {
		t.Fatalf("discover %q:\n got %#v %v\nwant %#v %v", data, gotD, gotErr, wantD, wantErr)
	}
	var gotI, wantI initializeResult
	gotErr, wantErr = gotI.decode(data), json.Unmarshal(data, &wantI)
	if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() || gotErr == nil && !reflect.DeepEqual(gotI, wantI) {
		t.Fatalf("initialize %q:\n got %#v %v\nwant %#v %v", data, gotI, gotErr, wantI, wantErr)
	}
}

// The hand-written encodings of the start's params are json.Marshal's.
func TestStartParamsMatchEncodingJSON(t *testing.T) {
	infos := []Implementation{
		{Name: "mcptestkit", Version: "v0"},
		{Name: "a\"b\\c\nd\u2028é\x01", Version: ""},
		{Name: "<html> & co", Version: "1"},
		{Name: "n", Version: "v", Title: "t", Icons: []Icon{{Src: "s"}}},
		{Name: "bad\xffutf8", Version: "v"},
	}
	capsList := []Capabilities{
		{},
		{Roots: &RootsCapability{ListChanged: true}, Sampling: &SamplingCapability{Tools: true}},
		{Experimental: map[string]json.RawMessage{"x": json.RawMessage(`{}`)}, Tasks: json.RawMessage(`{"a":1}`)},
	}
	for _, info := range infos {
		got, err := marshalImplementation(&info)
		want, wantErr := json.Marshal(&info)
		if err != nil || wantErr != nil || string(got) != string(want) {
			t.Errorf("implementation %+v: %s %v, json.Marshal %s %v", info, got, err, want, wantErr)
		}
		for _, caps := range capsList {
			got, err := initializeParams(Version20251125, caps, &info)
			want, wantErr := initializeParamsJSON(Version20251125, caps, &info)
			if err != nil || wantErr != nil || string(got) != string(want) {
				t.Errorf("initialize params %+v %+v: %s %v, json.Marshal %s %v", caps, info, got, err, want, wantErr)
			}
		}
	}
	bad := Capabilities{Tasks: json.RawMessage(`{`)}
	_, err := initializeParams(Version20251125, bad, &infos[0])
	_, wantErr := initializeParamsJSON(Version20251125, bad, &infos[0])
	if err == nil || wantErr == nil || err.Error() != wantErr.Error() {
		t.Errorf("bad capabilities: %v, json.Marshal %v", err, wantErr)
	}
}
