package client

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Content is one content block of a tool result, prompt message or sampling
// message. The concrete types are [*TextContent], [*ImageContent],
// [*AudioContent], [*ResourceLink], [*EmbeddedResource], [*ToolUseContent],
// [*ToolResultContent], and [*RawContent] for a type this client does not
// know (kept as it came). Use a type switch.
type Content interface {
	// ContentType returns the block's "type" member ("text", "image", ...).
	ContentType() string
}

// TextContent is a block of text.
type TextContent struct {
	// Text is the block's text.
	Text string
	// Annotations say who the block is for and how important it is.
	Annotations *Annotations
	// Meta is the block's "_meta".
	Meta Meta
}

// ImageContent is an image; Data holds the decoded bytes (base64 on the wire).
type ImageContent struct {
	// Data is the image, decoded.
	Data []byte
	// MIMEType ("mimeType") is the image's media type, such as "image/png";
	// required.
	MIMEType string
	// Annotations say who the block is for and how important it is.
	Annotations *Annotations
	// Meta is the block's "_meta".
	Meta Meta
}

// AudioContent is audio; Data holds the decoded bytes (base64 on the wire).
type AudioContent struct {
	// Data is the audio, decoded.
	Data []byte
	// MIMEType ("mimeType") is the audio's media type, such as "audio/wav";
	// required.
	MIMEType string
	// Annotations say who the block is for and how important it is.
	Annotations *Annotations
	// Meta is the block's "_meta".
	Meta Meta
}

// ResourceLink points at a resource the client may read (2025-06-18+).
type ResourceLink struct {
	// URI identifies the resource; resources/read takes it. It need not appear
	// in resources/list.
	URI string
	// Name is the resource's programmatic name.
	Name string
	// Title is a display name.
	Title string
	// Description says what the resource holds.
	Description string
	// MIMEType ("mimeType") is the media type of the contents, if known.
	MIMEType string
	// Size is the raw content size in bytes; nil when the server does not say.
	Size *int64
	// Annotations say who the resource is for and how important it is.
	Annotations *Annotations
	// Icons represent the resource in a user interface (2025-11-25+).
	Icons []Icon
	// Meta is the block's "_meta".
	Meta Meta
}

// EmbeddedResource carries a resource's contents inline.
type EmbeddedResource struct {
	// Resource is the embedded contents, text or blob.
	Resource *ResourceContents
	// Annotations say who the block is for and how important it is.
	Annotations *Annotations
	// Meta is the block's "_meta".
	Meta Meta
}

// ToolUseContent is a model's request to use a tool, in sampling (2025-11-25+).
type ToolUseContent struct {
	// ID identifies this tool use; the answering [ToolResultContent] repeats
	// it.
	ID string
	// Name is the tool the model wants to call.
	Name string
	// Input is the call's arguments, a JSON object as sent.
	Input json.RawMessage
	// Meta is the block's "_meta".
	Meta Meta
}

// ToolResultContent answers a [ToolUseContent] in sampling (2025-11-25+).
type ToolResultContent struct {
	// ToolUseID ("toolUseId") is the [ToolUseContent.ID] this result answers.
	ToolUseID string
	// Content is the tool's output as content blocks.
	Content []Content
	// StructuredContent is the tool's structured output, as sent; nil when
	// absent.
	StructuredContent json.RawMessage
	// IsError ("isError"): the tool call failed. Absent = false.
	IsError bool
	// Meta is the block's "_meta".
	Meta Meta
}

// RawContent is a block of a type this client does not model; JSON is the
// whole block as it came.
type RawContent struct {
	// Type is the block's "type" member.
	Type string
	// JSON is the whole block, exactly as received.
	JSON json.RawMessage
}

// ContentType implements Content.
func (*TextContent) ContentType() string { return "text" }

// ContentType implements Content.
func (*ImageContent) ContentType() string { return "image" }

// ContentType implements Content.
func (*AudioContent) ContentType() string { return "audio" }

// ContentType implements Content.
func (*ResourceLink) ContentType() string { return "resource_link" }

// ContentType implements Content.
func (*EmbeddedResource) ContentType() string { return "resource" }

// ContentType implements Content.
func (*ToolUseContent) ContentType() string { return "tool_use" }

// ContentType implements Content.
func (*ToolResultContent) ContentType() string { return "tool_result" }

// ContentType implements Content.
func (c *RawContent) ContentType() string { return c.Type }

// contentFields is the union of every known block's members, so that a block
// is decoded in one pass whatever its type.
type contentFields struct {
	Type              string            `json:"type"`
	Text              string            `json:"text,omitempty"`
	Data              []byte            `json:"data,omitempty"`
	MIMEType          string            `json:"mimeType,omitempty"`
	URI               string            `json:"uri,omitempty"`
	Name              string            `json:"name,omitempty"`
	Title             string            `json:"title,omitempty"`
	Description       string            `json:"description,omitempty"`
	Size              *int64            `json:"size,omitempty"`
	Icons             []Icon            `json:"icons,omitempty"`
	Resource          *ResourceContents `json:"resource,omitempty"`
	ID                string            `json:"id,omitempty"`
	Input             json.RawMessage   `json:"input,omitempty"`
	ToolUseID         string            `json:"toolUseId,omitempty"`
	Content           contentList       `json:"content,omitempty"`
	StructuredContent json.RawMessage   `json:"structuredContent,omitempty"`
	IsError           bool              `json:"isError,omitempty"`
	Annotations       *Annotations      `json:"annotations,omitempty"`
	Meta              Meta              `json:"_meta,omitempty"`
}

var knownContent = map[string]bool{
	"text": true, "image": true, "audio": true, "resource_link": true,
	"resource": true, "tool_use": true, "tool_result": true,
}

// contentBlock decodes one block into its typed form.
type contentBlock struct{ c Content }

// UnmarshalJSON decodes one block, keeping unknown types raw.
func (b *contentBlock) UnmarshalJSON(data []byte) error {
	var f contentFields
	if err := json.Unmarshal(data, &f); err != nil {
		// A type we do not know may use our member names differently;
		// keep it raw rather than fail the whole result.
		var t struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(data, &t) == nil && !knownContent[t.Type] {
			b.c = &RawContent{Type: t.Type, JSON: append(json.RawMessage(nil), data...)}
			return nil
		}
		return fmt.Errorf("decoding content block: %w", err)
	}
	switch f.Type {
	case "text":
		b.c = &TextContent{Text: f.Text, Annotations: f.Annotations, Meta: f.Meta}
	case "image":
		b.c = &ImageContent{Data: f.Data, MIMEType: f.MIMEType, Annotations: f.Annotations, Meta: f.Meta}
	case "audio":
		b.c = &AudioContent{Data: f.Data, MIMEType: f.MIMEType, Annotations: f.Annotations, Meta: f.Meta}
	case "resource_link":
		b.c = &ResourceLink{URI: f.URI, Name: f.Name, Title: f.Title, Description: f.Description,
			MIMEType: f.MIMEType, Size: f.Size, Annotations: f.Annotations, Icons: f.Icons, Meta: f.Meta}
	case "resource":
		if f.Resource == nil {
			return errors.New("decoding content block: embedded resource without \"resource\"")
		}
		b.c = &EmbeddedResource{Resource: f.Resource, Annotations: f.Annotations, Meta: f.Meta}
	case "tool_use":
		b.c = &ToolUseContent{ID: f.ID, Name: f.Name, Input: f.Input, Meta: f.Meta}
	case "tool_result":
		b.c = &ToolResultContent{ToolUseID: f.ToolUseID, Content: f.Content,
			StructuredContent: f.StructuredContent, IsError: f.IsError, Meta: f.Meta}
	case "":
		return errors.New("decoding content block: missing \"type\"")
	default:
		b.c = &RawContent{Type: f.Type, JSON: append(json.RawMessage(nil), data...)}
	}
	return nil
}

// contentList decodes an array of blocks, or a single block as a list of one
// (sampling messages before 2025-11-25).
type contentList []Content

// UnmarshalJSON decodes an array of blocks or a single block.
func (l *contentList) UnmarshalJSON(data []byte) error {
	switch firstByte(data) {
	case '{':
		var b contentBlock
		if err := b.UnmarshalJSON(data); err != nil {
			return err
		}
		*l = contentList{b.c}
		return nil
	case 'n': // null
		*l = nil
		return nil
	}
	var blocks []contentBlock
	if err := json.Unmarshal(data, &blocks); err != nil {
		return err
	}
	out := make(contentList, len(blocks))
	for i := range blocks {
		out[i] = blocks[i].c
	}
	*l = out
	return nil
}

// MarshalJSON writes the blocks as an array, each with its "type".
func (l contentList) MarshalJSON() ([]byte, error) {
	if l == nil {
		return []byte("[]"), nil
	}
	b := []byte{'['}
	for i, c := range l {
		if i > 0 {
			b = append(b, ',')
		}
		one, err := marshalContent(c)
		if err != nil {
			return nil, err
		}
		b = append(b, one...)
	}
	return append(b, ']'), nil
}

// marshalContent writes one block in its wire form, with its "type".
func marshalContent(c Content) ([]byte, error) {
	switch c := c.(type) {
	case *RawContent:
		return c.JSON, nil
	case *TextContent:
		return json.Marshal(struct {
			Type        string       `json:"type"`
			Text        string       `json:"text"`
			Annotations *Annotations `json:"annotations,omitempty"`
			Meta        Meta         `json:"_meta,omitempty"`
		}{"text", c.Text, c.Annotations, c.Meta})
	case *ImageContent:
		return json.Marshal(mediaWire{"image", c.Data, c.MIMEType, c.Annotations, c.Meta})
	case *AudioContent:
		return json.Marshal(mediaWire{"audio", c.Data, c.MIMEType, c.Annotations, c.Meta})
	case *ResourceLink:
		return json.Marshal(struct {
			Type string `json:"type"`
			Resource
		}{"resource_link", Resource{URI: c.URI, Name: c.Name, Title: c.Title, Description: c.Description,
			MIMEType: c.MIMEType, Size: c.Size, Annotations: c.Annotations, Icons: c.Icons, Meta: c.Meta}})
	case *EmbeddedResource:
		return json.Marshal(contentFields{Type: "resource", Resource: c.Resource, Annotations: c.Annotations, Meta: c.Meta})
	case *ToolUseContent:
		input := c.Input
		if input == nil {
			input = json.RawMessage("{}")
		}
		return json.Marshal(contentFields{Type: "tool_use", ID: c.ID, Name: c.Name, Input: input, Meta: c.Meta})
	case *ToolResultContent:
		content := c.Content
		if content == nil {
			content = []Content{}
		}
		return json.Marshal(struct {
			Type              string          `json:"type"`
			ToolUseID         string          `json:"toolUseId"`
			Content           contentList     `json:"content"`
			StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
			IsError           bool            `json:"isError,omitempty"`
			Meta              Meta            `json:"_meta,omitempty"`
		}{"tool_result", c.ToolUseID, content, c.StructuredContent, c.IsError, c.Meta})
	case nil:
		return nil, errors.New("encoding content: nil block")
	default:
		return json.Marshal(c) // a caller's own Content type marshals itself
	}
}

// mediaWire is the wire form of image and audio blocks ("data" is required,
// even when empty).
type mediaWire struct {
	Type        string       `json:"type"`
	Data        []byte       `json:"data"`
	MIMEType    string       `json:"mimeType"`
	Annotations *Annotations `json:"annotations,omitempty"`
	Meta        Meta         `json:"_meta,omitempty"`
}

// oneOrMany writes a single block as an object and any other count as an
// array; encoding errors are left for json.Marshal of the result to report.
func oneOrMany(cs []Content) json.RawMessage {
	if len(cs) == 1 {
		b, err := marshalContent(cs[0])
		if err == nil {
			return b
		}
	}
	b, err := contentList(cs).MarshalJSON()
	if err != nil {
		return json.RawMessage("[]")
	}
	return b
}

// firstByte returns the first non-space byte of data, or 0.
func firstByte(data []byte) byte {
	for _, c := range data {
		switch c {
		case ' ', '\t', '\r', '\n':
		default:
			return c
		}
	}
	return 0
}
