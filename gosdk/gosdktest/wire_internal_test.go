package gosdktest

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Frames decodeRequest reads itself.
var plainFrames = []string{
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`,
	`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`,
	`{"method":"ping","id":"abc-1","jsonrpc":"2.0"}`,
	`{"params":[1,2,{"a":null}],"method":"m","jsonrpc":"2.0","id":-7}`,
	` {"jsonrpc" : "2.0" ,	"id" :0,
"method":"m" , "params" : {"x" : "y\"}\\"}  } ` + "\r\n",
	`{"jsonrpc":"2.0","id":9007199254740992,"method":"m"}`,
	`{"jsonrpc":"2.0","id":-9007199254740992,"method":"m"}`,
	`{"jsonrpc":"2.0","id":-0,"method":"m"}`,
	`{"jsonrpc":"2.0","id":"","method":"m"}`,
	`{"jsonrpc":"2.0","id":1,"method":"m","params":null}`,
	`{"jsonrpc":"2.0","id":1,"method":"m","params":3.5e2}`,
	`{"jsonrpc":"2.0","id":1,"method":"m","params":"text"}`,
	`{"jsonrpc":"2.0","id":1,"method":"m","params":true}`,
	`{"jsonrpc":"2.0","id":1,"method":"m","params":{"s":"\u00e9\n","n":[1e400,-0.5]}}`,
	`{"jsonrpc":"2.0","id":1,"method":"m","params":{"name":"héllo ☃"}}`,
	`{"jsonrpc":"2.0","id":1,"method":"m","params":` + deep(64) + `}`,
	// what mcptest's client sends, in each era
	`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"mcptestkit","version":"v0"}}}}`,
	`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"mcptestkit","version":"v0"}}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"mcptestkit","version":"v0"}}}`,
	`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3,"reason":"gone"}}`,
}

// Frames decodeRequest leaves to DecodeMessage, valid or not.
var otherFrames = []string{
	// responses
	`{"jsonrpc":"2.0","id":1,"result":{}}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no"}}`,
	// ids the SDK reads its own way
	`{"jsonrpc":"2.0","id":9007199254740993,"method":"m"}`,
	`{"jsonrpc":"2.0","id":1.0,"method":"m"}`,
	`{"jsonrpc":"2.0","id":1e3,"method":"m"}`,
	`{"jsonrpc":"2.0","id":1.5,"method":"m"}`,
	`{"jsonrpc":"2.0","id":01,"method":"m"}`,
	`{"jsonrpc":"2.0","id":null,"method":"m"}`,
	`{"jsonrpc":"2.0","id":true,"method":"m"}`,
	`{"jsonrpc":"2.0","id":{},"method":"m"}`,
	`{"jsonrpc":"2.0","id":"a\"b","method":"m"}`,
	`{"jsonrpc":"2.0","id":"é","method":"m"}`,
	// escapes, case, duplicates, extra members
	`{"jsonrpc":"2.0","id":1,"method":"tools\/call"}`,
	`{"jsonrpc":"2\u002e0","id":1,"method":"m"}`,
	`{"jsonrp\u0063":"2.0","id":1,"method":"m"}`,
	`{"JSONRPC":"2.0","id":1,"method":"m"}`,
	`{"jsonrpc":"2.0","ID":1,"method":"m"}`,
	`{"jsonrpc":"2.0","id":1,"Method":"m"}`,
	`{"jsonrpc":"2.0","id":1,"method":"m","Params":{}}`,
	`{"jsonrpc":"2.0","id":1,"id":2,"method":"m"}`,
	`{"jsonrpc":"2.0","id":1,"method":"m","method":"n"}`,
	`{"jsonrpc":"2.0","id":1,"method":"m","params":{},"params":[]}`,
	`{"jsonrpc":"2.0","id":1,"method":"m","result":{}}`,
	`{"jsonrpc":"2.0","id":1,"method":"m","extra":0}`,
	// wrong or missing version, missing method
	`{"jsonrpc":"1.0","id":1,"method":"m"}`,
	`{"jsonrpc":2.0,"id":1,"method":"m"}`,
	`{"id":1,"method":"m"}`,
	`{"jsonrpc":"2.0","id":1}`,
	`{"jsonrpc":"2.0","id":1,"method":7}`,
	// an empty method: a request from go-sdk v1.7.0, a response before
	`{"jsonrpc":"2.0","id":"","method":""}`,
	`{"jsonrpc":"2.0","id":1,"method":""}`,
	// malformed
	``,
	`   `,
	`[]`,
	`[{"jsonrpc":"2.0","id":1,"method":"m"}]`,
	`null`,
	`{`,
	`{}`,
	`{"jsonrpc":"2.0","id":1,"method":"m",}`,
	`{"jsonrpc":"2.0","id":1,"method":"m"} {}`,
	`{"jsonrpc":"2.0","id":1,"method":"m"}x`,
	`{"jsonrpc":"2.0","id":1,"method":"m","params":}`,
	`{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":}}`,
	`{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":1]}`,
	`{"jsonrpc":"2.0","id":1,"method":"m","params":[1 2]}`,
	`{"jsonrpc":"2.0","id":1,"method":"m","params":tru}`,
	`{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":"\x"}}`,
	`{"jsonrpc":"2.0","id":1,"method":"m","params":"` + "\x01" + `"}`,
	`{"jsonrpc":"2.0","id":1,"method":"m","params":"` + "\xff" + `"}`,
	`{"jsonrpc":"2.0","id":1,"method":"m","params":` + deep(100) + `}`,
	`{"jsonrpc":"2.0","id":1,"method":"m","params":` + deep(1000) + `}`,
}

// deep returns n nested arrays.
func deep(n int) string {
	return string(bytes.Repeat([]byte("["), n)) + string(bytes.Repeat([]byte("]"), n))
}

func TestDecodeRequestReadsPlainFrames(t *testing.T) {
	for _, frame := range plainFrames {
		t.Run(frame, func(t *testing.T) {
			data := []byte(frame)
			got := decodeRequest(data)
			require.NotNil(t, got, "decodeRequest declined a plain frame")
			assertSameAsSDK(t, data, got)
			if got.Params != nil {
				clear(data) // the frame is shared with the transcript: Params must not be
				want, _ := jsonrpc.DecodeMessage([]byte(frame))
				assert.Equal(t, string(want.(*jsonrpc.Request).Params), string(got.Params), "params share the frame")
			}
		})
	}
}

func TestDecodeRequestLeavesOtherFramesToSDK(t *testing.T) {
	for _, frame := range otherFrames {
		t.Run(frame, func(t *testing.T) {
			assert.Nil(t, decodeRequest([]byte(frame)))
			got, gotErr := decode([]byte(frame))
			want, wantErr := jsonrpc.DecodeMessage([]byte(frame))
			assert.Equal(t, want, got)
			assert.Equal(t, wantErr, gotErr)
		})
	}
}

// FuzzReadDecode holds decodeRequest to jsonrpc.DecodeMessage: for any frame
// it either declines or returns what DecodeMessage returns.
func FuzzReadDecode(f *testing.F) {
	for _, frame := range plainFrames {
		f.Add([]byte(frame))
	}
	for _, frame := range otherFrames {
		f.Add([]byte(frame))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if got := decodeRequest(data); got != nil {
			assertSameAsSDK(t, data, got)
		}
	})
}

// FuzzReadDecodeMembers is FuzzReadDecode with frames built from members,
// so that more of them pass for plain: id, method and params are raw JSON
// text (an empty one is left out), order picks the members' order and sep
// is the white space around them.
func FuzzReadDecodeMembers(f *testing.F) {
	f.Add([]byte(`1`), []byte(`"tools/call"`), []byte(`{"name":"echo","arguments":{"text":"hi"}}`), uint8(0), "")
	f.Add([]byte(`"x"`), []byte(`"ping"`), []byte(``), uint8(5), " ")
	f.Add([]byte(``), []byte(`"notifications/initialized"`), []byte(`{}`), uint8(2), "\n")
	f.Add([]byte(`-9007199254740992`), []byte(`"m"`), []byte(`[1,"\u0000",{"a":[true,null]}]`), uint8(3), "\t")
	f.Add([]byte(`12.0`), []byte(`"m"`), []byte(`null`), uint8(1), "")
	f.Fuzz(func(t *testing.T, id, method, params []byte, order uint8, sep string) {
		members := []string{`"jsonrpc":"2.0"`, `"method":` + string(method)}
		if len(id) > 0 {
			members = append(members, `"id":`+string(id))
		}
		if len(params) > 0 {
			members = append(members, `"params":`+string(params))
		}
		for i := range members { // a permutation picked by order
			j := i + int(order)%(len(members)-i)
			members[i], members[j] = members[j], members[i]
			order /= 3
		}
		var frame bytes.Buffer
		frame.WriteString(sep + "{")
		for i, m := range members {
			if i > 0 {
				frame.WriteString(sep + "," + sep)
			}
			frame.WriteString(m)
		}
		frame.WriteString(sep + "}" + sep)
		data := frame.Bytes()
		if got := decodeRequest(data); got != nil {
			assertSameAsSDK(t, data, got)
		}
	})
}

// assertSameAsSDK checks that got is what jsonrpc.DecodeMessage makes of
// data.
func assertSameAsSDK(t *testing.T, data []byte, got *jsonrpc.Request) {
	t.Helper()
	msg, err := jsonrpc.DecodeMessage(data)
	if err != nil {
		t.Fatalf("decodeRequest read %q, which DecodeMessage rejects: %v", data, err)
	}
	want, ok := msg.(*jsonrpc.Request)
	if !ok {
		t.Fatalf("decodeRequest read %q as a request; DecodeMessage as %T", data, msg)
	}
	if got.ID != want.ID || got.Method != want.Method || !bytes.Equal(got.Params, want.Params) ||
		(got.Params == nil) != (want.Params == nil) || got.Extra != nil {
		t.Fatalf("decodeRequest(%q) = {ID: %#v, Method: %q, Params: %q}; DecodeMessage: {ID: %#v, Method: %q, Params: %q}",
			data, got.ID.Raw(), got.Method, got.Params, want.ID.Raw(), want.Method, want.Params)
	}
}

// Messages encodePlain writes itself.
var plainMessages = []jsonrpc.Message{
	&jsonrpc.Response{ID: mustID(1), Result: json.RawMessage(`{"content":[{"type":"text","text":"hi <&> \u2028"}],"isError":false}`)},
	&jsonrpc.Response{ID: mustID(-9007199254740992), Result: json.RawMessage(" {\n \"a\" : [ 1 , 2 ] }\n")},
	&jsonrpc.Response{ID: mustID(0), Result: json.RawMessage(`{}`)},
	&jsonrpc.Response{Result: json.RawMessage(`"no id"`)},
	&jsonrpc.Request{Method: "notifications/progress", Params: json.RawMessage(`{"progressToken":1,"progress":1,"message":"é ☃"}`)},
	&jsonrpc.Request{Method: "notifications/tools/list_changed"},
	&jsonrpc.Request{ID: mustID(7), Method: "sampling/createMessage", Params: json.RawMessage(`{"messages":[]}`)},
	&jsonrpc.Request{ID: mustID(8), Method: ""},
}

// Messages encodePlain leaves to EncodeMessage, encodable or not.
var otherMessages = []jsonrpc.Message{
	&jsonrpc.Response{ID: mustID(1), Error: &jsonrpc.Error{Code: -32601, Message: "no such method"}},
	&jsonrpc.Response{ID: mustID(1), Result: json.RawMessage(`{}`), Error: errors.New("both")},
	&jsonrpc.Response{ID: mustID(1)},
	&jsonrpc.Response{ID: mustID("s"), Result: json.RawMessage(`{}`)},
	&jsonrpc.Response{ID: mustID(1), Result: json.RawMessage(`{"a":}`)},
	&jsonrpc.Response{ID: mustID(1), Result: json.RawMessage(`{} {}`)},
	&jsonrpc.Request{ID: mustID("s"), Method: "ping"},
	&jsonrpc.Request{Method: `quote"d`},
	&jsonrpc.Request{Method: "tab\tbed"},
	&jsonrpc.Request{Method: "é"},
	&jsonrpc.Request{Method: "m", Params: json.RawMessage(`[1,`)},
}

func mustID(v any) jsonrpc.ID {
	if n, ok := v.(int); ok {
		v = float64(n)
	}
	id, err := jsonrpc.MakeID(v)
	if err != nil {
		panic(err)
	}
	return id
}

func TestEncodePlainWritesWhatEncodeMessageWrites(t *testing.T) {
	for _, msg := range plainMessages {
		got := encodePlain(msg)
		require.NotNil(t, got, "encodePlain declined %#v", msg)
		want, err := jsonrpc.EncodeMessage(msg)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got))
	}
}

// Before go-sdk v1.4.0 EncodeMessage escapes '<', '>', '&', U+2028 and
// U+2029 (as json.Marshal does); encodePlain writes what the linked release
// writes, and leaves it a method it would escape.
func TestEncodePlainEscapesAsTheSDKDoes(t *testing.T) {
	raw := json.RawMessage("{\"s\":\"<a & b> \u2028 \u2029\"}")
	for _, msg := range []jsonrpc.Message{
		&jsonrpc.Response{ID: mustID(1), Result: raw},
		&jsonrpc.Request{Method: "notifications/message", Params: raw},
		&jsonrpc.Request{ID: mustID(2), Method: "a<b&c>d"},
	} {
		want, err := jsonrpc.EncodeMessage(msg)
		require.NoError(t, err)
		got, err := encode(msg)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got))
	}
	escapes := bytes.Contains(encodePlain(&jsonrpc.Response{ID: mustID(1), Result: raw}), []byte(`\u003c`))
	assert.Equal(t, escapesHTML(), escapes)
	assert.Equal(t, escapesHTML(), encodePlain(&jsonrpc.Request{Method: "a<b"}) == nil, "a method with '<'")
	t.Logf("EncodeMessage escapes HTML: %v", escapesHTML())
}

func TestEncodePlainLeavesOtherMessagesToSDK(t *testing.T) {
	for _, msg := range otherMessages {
		assert.Nil(t, encodePlain(msg), "%#v", msg)
		got, gotErr := encode(msg)
		want, wantErr := jsonrpc.EncodeMessage(msg)
		assert.Equal(t, want, got)
		assert.Equal(t, wantErr, gotErr)
	}
}

// FuzzWriteEncode holds encodePlain to jsonrpc.EncodeMessage: for any
// message it either declines or writes what EncodeMessage writes.
func FuzzWriteEncode(f *testing.F) {
	f.Add(true, int64(1), uint8(0), "", []byte(`{"content":[]}`))
	f.Add(false, int64(0), uint8(1), "notifications/progress", []byte(` {"a" : "<\u2028>"} `))
	f.Add(false, int64(-5), uint8(0), "ping", []byte(``))
	f.Add(true, int64(2), uint8(2), "", []byte("\"\xff\""))
	f.Add(false, int64(3), uint8(0), "m\u2028", []byte(`[1,`))
	f.Fuzz(func(t *testing.T, response bool, n int64, idKind uint8, method string, raw []byte) {
		var id jsonrpc.ID
		switch idKind % 3 {
		case 0:
			id, _ = jsonrpc.MakeID(float64(n))
		case 2:
			id, _ = jsonrpc.MakeID(method)
		}
		var msg jsonrpc.Message = &jsonrpc.Request{ID: id, Method: method, Params: raw}
		if response {
			msg = &jsonrpc.Response{ID: id, Result: raw}
		}
		got := encodePlain(msg)
		if got == nil {
			return
		}
		want, err := jsonrpc.EncodeMessage(msg)
		if err != nil {
			t.Fatalf("encodePlain wrote %q for %#v, which EncodeMessage refuses: %v", got, msg, err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("encodePlain(%#v) = %q; EncodeMessage: %q", msg, got, want)
		}
	})
}
