package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestIDForms(t *testing.T) {
	cases := []struct {
		in    string
		str   string
		value any
		valid bool
	}{
		{`7`, `7`, int64(7), true},
		{`-3`, `-3`, int64(-3), true},
		{`"abc"`, `"abc"`, "abc", true},
		{`"a\u0062c"`, `"abc"`, "abc", true}, // re-encoded: equal ids, equal text
		{`""`, `""`, "", true},
		{`null`, `null`, nil, false},
	}
	for _, c := range cases {
		var id ID
		if err := json.Unmarshal([]byte(c.in), &id); err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		if id.String() != c.str || id.IsValid() != c.valid || id.Value() != c.value {
			t.Errorf("%s: got String %q Valid %v Value %#v", c.in, id.String(), id.IsValid(), id.Value())
		}
		out, err := json.Marshal(id)
		if err != nil || string(out) != c.str {
			t.Errorf("%s: marshal = %s, %v", c.in, out, err)
		}
	}
	for _, bad := range []string{`1.5`, `true`, `{}`, `[1]`, `1e3`} {
		var id ID
		if err := json.Unmarshal([]byte(bad), &id); err == nil {
			t.Errorf("%s: accepted as an id", bad)
		}
	}
	var zero ID
	if !zero.IsZero() || zero.IsValid() || zero.Value() != nil {
		t.Error("zero ID")
	}
	if b, _ := zero.MarshalJSON(); string(b) != "null" {
		t.Errorf("zero ID marshals to %s", b)
	}
	if Int64ID(42).String() != "42" || StringID(`q"`).String() != `"q\""` {
		t.Error("constructors")
	}
}

func TestDecodeKinds(t *testing.T) {
	req, err := Decode([]byte(` {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}} `))
	if err != nil || !req.IsRequest() || req.IsNotification() || req.IsResponse() {
		t.Fatalf("request: %+v %v", req, err)
	}
	if req.ID.String() != "1" || req.Method != "tools/call" || string(req.Params) != `{"name":"x"}` {
		t.Errorf("request fields: %+v", req)
	}
	n, err := Decode([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	if err != nil || !n.IsNotification() || n.Params != nil {
		t.Errorf("notification: %+v %v", n, err)
	}
	res, err := Decode([]byte(`{"jsonrpc":"2.0","id":"a","result":{}}`))
	if err != nil || !res.IsResponse() || string(res.Result) != `{}` || res.Error != nil {
		t.Errorf("response: %+v %v", res, err)
	}
	e, err := Decode([]byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error","data":[1]}}`))
	if err != nil || e.Error == nil || e.Error.Code != CodeParseError || string(e.Error.Data) != `[1]` || e.ID.IsValid() {
		t.Errorf("error response: %+v %v", e, err)
	}
	// A null result is still a result.
	if m, err := Decode([]byte(`{"jsonrpc":"2.0","id":2,"result":null}`)); err != nil || string(m.Result) != "null" {
		t.Errorf("null result: %+v %v", m, err)
	}
}

func TestDecodeRejects(t *testing.T) {
	cases := map[string]string{
		``:                                      "empty input",
		`   `:                                   "empty input",
		`[{"jsonrpc":"2.0","method":"a"}]`:      "batches",
		`{"id":1,"method":"a"}`:                 `"jsonrpc" member`,
		`{"jsonrpc":"1.0","id":1,"method":"a"}`: `"jsonrpc" member`,
		`{"jsonrpc":"2.0","id":1,"method":""}`:  `empty "method"`,
		`{"jsonrpc":"2.0","id":null,"method":"a"}`: "null id",
		`{"jsonrpc":"2.0","id":1.5,"method":"a"}`:  "neither a string nor an integer",
		`{"jsonrpc":"2.0","id":true,"result":{}}`:  "neither a string nor an integer",
		`{"jsonrpc":"2.0","id":1}`:                 `"result" or "error"`,
		`{"jsonrpc":"2.0","result":{}}`:            `needs an "id"`,
		`{"jsonrpc":"2.0","id":1,"method":5}`:      "",
		`not json`:                                 "",
		`{"jsonrpc":"2.0","id":1,"result":{}`:      "",
	}
	for in, want := range cases {
		_, err := Decode([]byte(in))
		if err == nil {
			t.Errorf("%q: accepted", in)
			continue
		}
		if !errors.Is(err, ErrNotMessage) {
			t.Errorf("%q: %v does not wrap ErrNotMessage", in, err)
		}
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %q does not say %q", in, err, want)
		}
	}
}

func TestEncode(t *testing.T) {
	cases := []struct {
		m    Message
		want string
	}{
		{Message{ID: Int64ID(1), Method: "ping"}, `{"jsonrpc":"2.0","id":1,"method":"ping"}`},
		{Message{Method: "notifications/x", Params: json.RawMessage(`{"a":"<b>"}`)}, `{"jsonrpc":"2.0","method":"notifications/x","params":{"a":"<b>"}}`},
		{Message{ID: StringID("s")}, `{"jsonrpc":"2.0","id":"s","result":{}}`},
		{Message{ID: Int64ID(2), Result: json.RawMessage(`{ "x" : 1 }`)}, `{"jsonrpc":"2.0","id":2,"result":{"x":1}}`},
		{Message{ID: Int64ID(3), Result: json.RawMessage(`{}`), Error: &Error{Code: -32601, Message: "nope"}}, `{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"nope"}}`},
		{Message{Error: &Error{Code: -32700, Message: "Parse error"}}, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`},
	}
	for _, c := range cases {
		got, err := Encode(&c.m)
		if err != nil || string(got) != c.want {
			t.Errorf("Encode(%+v) = %s, %v; want %s", c.m, got, err, c.want)
		}
	}
	if _, err := Encode(&Message{ID: Int64ID(1), Method: "x", Params: json.RawMessage(`{bad`)}); err == nil || !strings.Contains(err.Error(), `request 1 "x"`) {
		t.Errorf("invalid params: %v", err)
	}
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	msgs := []*Message{
		{ID: Int64ID(9), Method: "tools/call", Params: json.RawMessage(`{"name":"a"}`)},
		{Method: "notifications/progress", Params: json.RawMessage(`{"progress":1}`)},
		{ID: StringID("x"), Result: json.RawMessage(`{"ok":true}`)},
		{ID: Int64ID(4), Error: &Error{Code: 0, Message: "code zero", Data: json.RawMessage(`{"k":1}`)}},
	}
	for _, m := range msgs {
		b, err := Encode(m)
		if err != nil {
			t.Fatal(err)
		}
		back, err := Decode(b)
		if err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if diff := cmp.Diff(m, back, cmp.AllowUnexported(ID{})); diff != "" {
			t.Errorf("round trip of %s (-want +got):\n%s", b, diff)
		}
	}
}

// The Append functions write what Encode writes for the same message.
func TestAppendMatchesEncode(t *testing.T) {
	params := json.RawMessage(`{"name":"x","arguments":{"s":"a<b>&\u2028"}}`)
	check := func(name string, got []byte, m *Message) {
		t.Helper()
		want, err := Encode(m)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s:\n got %s\nwant %s", name, got, want)
		}
	}
	check("request", AppendRequest(nil, Int64ID(5), "tools/call", params), &Message{ID: Int64ID(5), Method: "tools/call", Params: params})
	check("string id", AppendRequest(nil, StringID("r-1"), "ping", nil), &Message{ID: StringID("r-1"), Method: "ping"})
	check("notification", AppendRequest(nil, ID{}, "notifications/cancelled", json.RawMessage(`{"requestId":5}`)), &Message{Method: "notifications/cancelled", Params: json.RawMessage(`{"requestId":5}`)})
	check("odd method", AppendRequest(nil, Int64ID(1), "x/\"é\"\n", nil), &Message{ID: Int64ID(1), Method: "x/\"é\"\n"})
	check("result", AppendResult(nil, StringID("a"), json.RawMessage(`{"roots":[]}`)), &Message{ID: StringID("a"), Result: json.RawMessage(`{"roots":[]}`)})
	check("empty result", AppendResult(nil, Int64ID(2), nil), &Message{ID: Int64ID(2)})
	e := &Error{Code: -32601, Message: "method \"x\" not found\t<>", Data: json.RawMessage(`{"m":"x"}`)}
	check("error", AppendError(nil, Int64ID(3), e), &Message{ID: Int64ID(3), Error: e})
	check("error null id", AppendError(nil, ID{}, &Error{Code: -32700, Message: "Parse error"}), &Message{Error: &Error{Code: -32700, Message: "Parse error"}})
	// Appending keeps what was in dst.
	if got := AppendRequest([]byte("prefix"), Int64ID(1), "ping", nil); !bytes.HasPrefix(got, []byte("prefix{")) {
		t.Errorf("dst not kept: %s", got)
	}
}

func marshalString(t testing.TB, s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func TestAppendString(t *testing.T) {
	for _, s := range []string{
		"", "plain", `quote " backslash \`, "ctl \x00\x01\x1f\x7f", "\n\r\t\b\f",
		"html <&>", "ünïcödé ✓ 🎉", "\u2028\u2029", "bad \xff utf8 \xc3", "\xed\xa0\x80",
	} {
		got := string(AppendString(nil, s))
		if want := marshalString(t, s); got != want {
			t.Errorf("AppendString(%q) = %s, want %s", s, got, want)
		}
	}
}

func FuzzAppendString(f *testing.F) {
	f.Add("hello")
	f.Add("a\"b\\c\x00\u2028\xff")
	f.Fuzz(func(t *testing.T, s string) {
		got := AppendString(nil, s)
		if want := marshalString(t, s); string(got) != want {
			t.Fatalf("AppendString(%q) = %s, want %s", s, got, want)
		}
		if !utf8.Valid(got) {
			t.Fatalf("invalid UTF-8 out: %q", got)
		}
	})
}

func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"a","params":{}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":"x","error":{"code":1,"message":"m"}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","method":"n"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Decode(data)
		if err != nil {
			return
		}
		// Whatever decodes re-encodes and decodes to the same message.
		b, err := Encode(m)
		if err != nil {
			t.Fatalf("re-encoding %q: %v", data, err)
		}
		back, err := Decode(b)
		if err != nil {
			t.Fatalf("decoding the re-encoding %s: %v", b, err)
		}
		if back.Method != m.Method || back.ID != m.ID || (back.Error == nil) != (m.Error == nil) {
			t.Fatalf("round trip changed %q into %s", data, b)
		}
	})
}

func TestErrorText(t *testing.T) {
	if got := (&Error{Code: -32602, Message: "bad"}).Error(); got != "jsonrpc error -32602: bad" {
		t.Errorf("got %q", got)
	}
	if got := (&Error{Code: 0, Message: "m", Data: json.RawMessage(`{"a":1}`)}).Error(); got != `jsonrpc error 0: m (data: {"a":1})` {
		t.Errorf("got %q", got)
	}
}

func BenchmarkDecodeResponse(b *testing.B) {
	data := []byte(`{"jsonrpc":"2.0","id":12345,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}},"content":[{"type":"text","text":"hello world"}],"resultType":"complete"}}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode(data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendRequest(b *testing.B) {
	params := json.RawMessage(`{"name":"echo","arguments":{"text":"hello"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`)
	buf := make([]byte, 0, 256)
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendRequest(buf[:0], Int64ID(12345), "tools/call", params)
	}
}

func BenchmarkEncodeRequest(b *testing.B) {
	m := &Message{ID: Int64ID(12345), Method: "tools/call", Params: json.RawMessage(`{"name":"echo","arguments":{"text":"hello"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`)}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Encode(m); err != nil {
			b.Fatal(err)
		}
	}
}
