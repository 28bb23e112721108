package notes

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// AddInput is the arguments of add_note.
type AddInput struct {
	Text string `json:"text" jsonschema:"the note"`
	Tag  string `json:"tag,omitempty" jsonschema:"where the note belongs"`
}

// DeleteInput is the argument of delete_note.
type DeleteInput struct {
	ID int `json:"id" jsonschema:"the note's number, as add_note gave it"`
}

// New returns the server: add_note keeps a note and says its number,
// delete_note forgets one.
func New() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "notes", Version: "v1.0.0"}, nil)
	var mu sync.Mutex
	notes := map[int]string{}
	next := 1

	// The tag is one of two values: the schema inferred from AddInput, with
	// the enum added.
	in, err := jsonschema.For[AddInput](nil)
	if err != nil {
		panic(err) // AddInput is fixed: a failure here is a bug
	}
	in.Properties["tag"].Enum = []any{"home", "work"}
	add := &mcp.Tool{Name: "add_note", Description: "Keep a note.", InputSchema: in}
	mcp.AddTool(s, add, func(_ context.Context, _ *mcp.CallToolRequest, in AddInput) (*mcp.CallToolResult, any, error) {
		if strings.TrimSpace(in.Text) == "" {
			return nil, nil, fmt.Errorf("a note needs some text")
		}
		mu.Lock()
		defer mu.Unlock()
		id := next
		next++
		notes[id] = in.Text
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("note %d kept", id)}}}, nil, nil
	})

	mcp.AddTool(s, &mcp.Tool{Name: "delete_note", Description: "Forget a note."}, func(_ context.Context, _ *mcp.CallToolRequest, in DeleteInput) (*mcp.CallToolResult, any, error) {
		mu.Lock()
		defer mu.Unlock()
		if _, ok := notes[in.ID]; !ok {
			return nil, nil, fmt.Errorf("no note %d", in.ID)
		}
		delete(notes, in.ID)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("note %d forgotten", in.ID)}}}, nil, nil
	})
	return s
}
