package client

import (
	"encoding/json"
	"fmt"
	"testing"
)

func TestResultStrings(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    fmt.Stringer
		want string
	}{
		{"tool success", &CallToolResult{
			Content:           []Content{&TextContent{Text: "3 words"}, &ImageContent{MIMEType: "image/png", Data: []byte("png")}},
			StructuredContent: json.RawMessage("{\n  \"words\": 3\n}"),
		}, `{isError:false content:["3 words" <image image/png, 3 bytes>] structuredContent:{"words":3}}`},
		{"tool error", &CallToolResult{IsError: true, Content: []Content{&TextContent{Text: `No book titled "Nothing"`}}},
			`{isError:true content:["No book titled \"Nothing\""]}`},
		{"tool, every other block", &CallToolResult{Content: []Content{
			&AudioContent{MIMEType: "audio/wav", Data: []byte("ab")},
			&ResourceLink{URI: "file:///a", Name: "a"},
			&EmbeddedResource{Resource: &ResourceContents{URI: "file:///b", Text: "bee"}},
			&EmbeddedResource{Resource: &ResourceContents{URI: "file:///c", MIMEType: "image/png", Blob: []byte("xyz")}},
			&ToolUseContent{ID: "u1", Name: "weather", Input: json.RawMessage(`{ "city": "Paris" }`)},
			&ToolResultContent{ToolUseID: "u1", Content: []Content{&TextContent{Text: "sunny"}}},
			&RawContent{Type: "hologram", JSON: json.RawMessage(`{"type":"hologram", "x":1}`)},
			nil,
		}}, `{isError:false content:[<audio audio/wav, 2 bytes> <resource_link file:///a> <resource file:///b "bee"> <resource file:///c (image/png) <3 bytes>> <tool_use weather {"city":"Paris"}> <tool_result u1 isError:false ["sunny"]> <hologram {"type":"hologram","x":1}> <nil>]}`},
		{"tool, empty", &CallToolResult{}, `{isError:false content:[]}`},
		{"tool, nil", (*CallToolResult)(nil), `<nil>`},
		{"prompt", &GetPromptResult{Description: "Greet someone", Messages: []*PromptMessage{
			{Role: "user", Content: &TextContent{Text: "Hello, Ada"}},
			{Role: "assistant", Content: &ImageContent{MIMEType: "image/gif", Data: []byte("g")}},
		}}, `{description:"Greet someone" messages:[user:"Hello, Ada" assistant:<image image/gif, 1 bytes>]}`},
		{"prompt, no description", &GetPromptResult{Messages: []*PromptMessage{{Role: "user", Content: &TextContent{Text: "hi"}}}}, `{messages:[user:"hi"]}`},
		{"prompt, nil", (*GetPromptResult)(nil), `<nil>`},
		{"resource", &ReadResourceResult{Contents: []*ResourceContents{
			{URI: "books://dune", MIMEType: "text/plain", Text: "Dune, by Frank Herbert"},
			{URI: "books://cover", MIMEType: "image/png", Blob: []byte("0123456789ab")},
			{URI: "books://empty"},
		}}, `{contents:[books://dune (text/plain) "Dune, by Frank Herbert" books://cover (image/png) <12 bytes> books://empty ""]}`},
		{"resource, nil", (*ReadResourceResult)(nil), `<nil>`},
	} {
		if got := tc.v.String(); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
		// %v reaches String, which is the point: no pointers printed.
		if got := fmt.Sprintf("%v", tc.v); got != tc.want {
			t.Errorf("%s with %%v: got %s", tc.name, got)
		}
	}
}

// A decoded result prints the same way as one built by hand.
func TestDecodedCallToolResultString(t *testing.T) {
	var r CallToolResult
	if err := json.Unmarshal([]byte(`{"content":[{"type":"text","text":"hi"}],"structuredContent":{"a": [1, 2]},"isError":false}`), &r); err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(&r), `{isError:false content:["hi"] structuredContent:{"a":[1,2]}}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
