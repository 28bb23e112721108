package client

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCallToolResultDecodesEveryBlock(t *testing.T) {
	in := `{"content":[
		{"type":"text","text":"hello","annotations":{"audience":["user"],"priority":0.5}},
		{"type":"image","data":"aGk=","mimeType":"image/png"},
		{"type":"audio","data":"aGk=","mimeType":"audio/wav"},
		{"type":"resource_link","uri":"file:///a","name":"a","size":3},
		{"type":"resource","resource":{"uri":"file:///b","text":"bee"}},
		{"type":"resource","resource":{"uri":"file:///c","blob":"aGk="}},
		{"type":"hologram","data":{"x":1}},
		{"type":"text","text":"world"}
	],"structuredContent":{"n":1},"isError":true,"_meta":{"k":"v"}}`
	var r CallToolResult
	if err := json.Unmarshal([]byte(in), &r); err != nil {
		t.Fatal(err)
	}
	size := int64(3)
	prio := 0.5
	want := []Content{
		&TextContent{Text: "hello", Annotations: &Annotations{Audience: []string{"user"}, Priority: &prio}},
		&ImageContent{Data: []byte("hi"), MIMEType: "image/png"},
		&AudioContent{Data: []byte("hi"), MIMEType: "audio/wav"},
		&ResourceLink{URI: "file:///a", Name: "a", Size: &size},
		&EmbeddedResource{Resource: &ResourceContents{URI: "file:///b", Text: "bee"}},
		&EmbeddedResource{Resource: &ResourceContents{URI: "file:///c", Blob: []byte("hi")}},
		&RawContent{Type: "hologram", JSON: json.RawMessage(`{"type":"hologram","data":{"x":1}}`)},
		&TextContent{Text: "world"},
	}
	if diff := cmp.Diff(want, r.Content); diff != "" {
		t.Errorf("content (-want +got):\n%s", diff)
	}
	if got := r.Text(); got != "hello\nworld" {
		t.Errorf("Text() = %q", got)
	}
	if !r.IsError || string(r.StructuredContent) != `{"n":1}` || r.Meta["k"] != "v" {
		t.Errorf("fields: %+v", r)
	}
	var te *ToolError
	if err := r.ToolError(); !errors.As(err, &te) || te.Text != "hello\nworld" {
		t.Errorf("ToolError() = %v", err)
	}
	out, err := json.Marshal(&r)
	if err != nil {
		t.Fatal(err)
	}
	var back CallToolResult
	if err := json.Unmarshal(out, &back); err != nil {
		t.Fatal(err)
	}
	// RawContent keeps its bytes (whitespace included), so compare after a round trip.
	if diff := cmp.Diff(r.Content[:6], back.Content[:6]); diff != "" {
		t.Errorf("round trip (-want +got):\n%s\n%s", diff, out)
	}
}
