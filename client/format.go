package client

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// The results' String methods make them readable where a test or a log
// prints them with %v: the fields a reader checks first, the text of each
// content block quoted, other blocks as a short <kind ...> summary (binary
// data by size only), structured content as compact JSON. The form is for
// people; do not parse it.

// String renders the result compactly, e.g.
//
//	{isError:false content:["3 words" <image image/png, 68 bytes>] structuredContent:{"words":3}}
func (r *CallToolResult) String() string {
	if r == nil {
		return "<nil>"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "{isError:%t content:", r.IsError)
	writeContents(&b, r.Content)
	if len(bytes.TrimSpace(r.StructuredContent)) > 0 {
		b.WriteString(" structuredContent:")
		b.WriteString(compactJSON(r.StructuredContent))
	}
	b.WriteByte('}')
	return b.String()
}

// String renders the prompt compactly, one role:content per message, e.g.
//
//	{description:"Greet someone" messages:[user:"Hello, Ada" assistant:"Hi!"]}
func (r *GetPromptResult) String() string {
	if r == nil {
		return "<nil>"
	}
	var b strings.Builder
	b.WriteByte('{')
	if r.Description != "" {
		fmt.Fprintf(&b, "description:%s ", strconv.Quote(r.Description))
	}
	b.WriteString("messages:[")
	for i, m := range r.Messages {
		if i > 0 {
			b.WriteByte(' ')
		}
		if m == nil {
			b.WriteString("<nil>")
			continue
		}
		b.WriteString(m.Role)
		b.WriteByte(':')
		writeContent(&b, m.Content)
	}
	b.WriteString("]}")
	return b.String()
}

// String renders the contents compactly, one per resource, e.g.
//
//	{contents:[books://dune (text/plain) "Dune, by Frank Herbert" books://cover (image/png) <12 bytes>]}
func (r *ReadResourceResult) String() string {
	if r == nil {
		return "<nil>"
	}
	var b strings.Builder
	b.WriteString("{contents:[")
	for i, c := range r.Contents {
		if i > 0 {
			b.WriteByte(' ')
		}
		writeResourceContents(&b, c)
	}
	b.WriteString("]}")
	return b.String()
}

func writeContents(b *strings.Builder, cs []Content) {
	b.WriteByte('[')
	for i, c := range cs {
		if i > 0 {
			b.WriteByte(' ')
		}
		writeContent(b, c)
	}
	b.WriteByte(']')
}

func writeContent(b *strings.Builder, c Content) {
	switch c := c.(type) {
	case nil:
		b.WriteString("<nil>")
	case *TextContent:
		b.WriteString(strconv.Quote(c.Text))
	case *ImageContent:
		fmt.Fprintf(b, "<image %s, %d bytes>", c.MIMEType, len(c.Data))
	case *AudioContent:
		fmt.Fprintf(b, "<audio %s, %d bytes>", c.MIMEType, len(c.Data))
	case *ResourceLink:
		fmt.Fprintf(b, "<resource_link %s>", c.URI)
	case *EmbeddedResource:
		b.WriteString("<resource ")
		writeResourceContents(b, c.Resource)
		b.WriteByte('>')
	case *ToolUseContent:
		fmt.Fprintf(b, "<tool_use %s %s>", c.Name, compactJSON(c.Input))
	case *ToolResultContent:
		fmt.Fprintf(b, "<tool_result %s isError:%t ", c.ToolUseID, c.IsError)
		writeContents(b, c.Content)
		b.WriteByte('>')
	case *RawContent:
		fmt.Fprintf(b, "<%s %s>", c.Type, compactJSON(c.JSON))
	default:
		fmt.Fprintf(b, "<%s>", c.ContentType())
	}
}

func writeResourceContents(b *strings.Builder, c *ResourceContents) {
	if c == nil {
		b.WriteString("<nil>")
		return
	}
	b.WriteString(c.URI)
	if c.MIMEType != "" {
		fmt.Fprintf(b, " (%s)", c.MIMEType)
	}
	if c.Blob != nil {
		fmt.Fprintf(b, " <%d bytes>", len(c.Blob))
		return
	}
	b.WriteByte(' ')
	b.WriteString(strconv.Quote(c.Text))
}

// compactJSON returns raw without insignificant space, or quoted when it is
// not JSON.
func compactJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return strconv.Quote(string(raw))
	}
	return b.String()
}
