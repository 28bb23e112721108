package client

import (
	"encoding/json"
	"errors"
	"strings"
)

// Tool is one tool a server offers.
type Tool struct {
	// Name is what tools/call asks for: unique per server, case-sensitive, and
	// ideally 1-128 characters of [A-Za-z0-9_.-].
	Name string `json:"name"`
	// Title is a display name (2025-06-18+); see [Tool.DisplayName].
	Title string `json:"title,omitempty"`
	// Description tells the model what the tool does and when to use it.
	Description string `json:"description,omitempty"`
	// InputSchema is the JSON Schema of the arguments, as the server sent it.
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
	// OutputSchema is the JSON Schema of StructuredContent, if declared.
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	// Annotations are behaviour hints (2025-03-26+); nil means every default.
	Annotations *ToolAnnotations `json:"annotations,omitempty"`
	// Icons represent the tool in a user interface (2025-11-25+).
	Icons []Icon `json:"icons,omitempty"`
	// Execution is the 2025-11-25 execution object (taskSupport), kept raw.
	Execution json.RawMessage `json:"execution,omitempty"`
	// Meta is the tool's "_meta".
	Meta Meta `json:"_meta,omitempty"`
}

// DisplayName returns the tool's title, else its annotations' title, else its
// name: the order the protocol prescribes for showing a tool to a person.
func (t *Tool) DisplayName() string {
	switch {
	case t.Title != "":
		return t.Title
	case t.Annotations != nil && t.Annotations.Title != "":
		return t.Annotations.Title
	}
	return t.Name
}

// ToolAnnotations are hints about a tool's behaviour. They are untrusted
// unless the server is. A nil hint means the protocol default (readOnly
// false, destructive true, idempotent false, openWorld true).
type ToolAnnotations struct {
	// Title is a display name, used when the tool has no Title of its own.
	Title string `json:"title,omitempty"`
	// ReadOnlyHint: the tool changes nothing in its environment. Nil = false.
	ReadOnlyHint *bool `json:"readOnlyHint,omitempty"`
	// DestructiveHint: the tool's changes may destroy or overwrite, not only
	// add; meaningful when not read-only. Nil = true.
	DestructiveHint *bool `json:"destructiveHint,omitempty"`
	// IdempotentHint: repeating a call with the same arguments has no further
	// effect; meaningful when not read-only. Nil = false.
	IdempotentHint *bool `json:"idempotentHint,omitempty"`
	// OpenWorldHint: the tool reaches an open world of outside entities (such
	// as the web), not a closed domain. Nil = true.
	OpenWorldHint *bool `json:"openWorldHint,omitempty"`
}

// Annotations tell a client how to use an object: who it is for and how
// important it is.
type Annotations struct {
	// Audience is who the object is for: "user", "assistant", or both; empty
	// when unspecified.
	Audience []string `json:"audience,omitempty"`
	// Priority is the importance from 0 (entirely optional) to 1 (most
	// important); nil when unspecified.
	Priority *float64 `json:"priority,omitempty"`
	// LastModified ("lastModified") is when the object last changed, an
	// ISO 8601 timestamp (2025-06-18+).
	LastModified string `json:"lastModified,omitempty"`
}

// Resource is one resource a server lists.
type Resource struct {
	// URI identifies the resource; resources/read takes it.
	URI string `json:"uri"`
	// Name is the resource's programmatic name; required.
	Name string `json:"name"`
	// Title is a display name (2025-06-18+).
	Title string `json:"title,omitempty"`
	// Description says what the resource holds; a hint for the model.
	Description string `json:"description,omitempty"`
	// MIMEType ("mimeType") is the media type of the contents, if known.
	MIMEType string `json:"mimeType,omitempty"`
	// Size is the raw content size in bytes (before any base64); nil when the
	// server does not say.
	Size *int64 `json:"size,omitempty"`
	// Annotations say who the resource is for and how important it is.
	Annotations *Annotations `json:"annotations,omitempty"`
	// Icons represent the resource in a user interface (2025-11-25+).
	Icons []Icon `json:"icons,omitempty"`
	// Meta is the resource's "_meta".
	Meta Meta `json:"_meta,omitempty"`
}

// ResourceTemplate describes a family of resources by an RFC 6570 URI
// template.
type ResourceTemplate struct {
	// URITemplate ("uriTemplate") is the RFC 6570 template; expanded, it is a
	// URI for resources/read.
	URITemplate string `json:"uriTemplate"`
	// Name is the template's programmatic name; required.
	Name string `json:"name"`
	// Title is a display name (2025-06-18+).
	Title string `json:"title,omitempty"`
	// Description says what the matching resources hold.
	Description string `json:"description,omitempty"`
	// MIMEType ("mimeType") is the media type of every matching resource, set
	// only when they all share it.
	MIMEType string `json:"mimeType,omitempty"`
	// Annotations say who the resources are for and how important they are.
	Annotations *Annotations `json:"annotations,omitempty"`
	// Icons represent the template in a user interface (2025-11-25+).
	Icons []Icon `json:"icons,omitempty"`
	// Meta is the template's "_meta".
	Meta Meta `json:"_meta,omitempty"`
}

// ResourceContents is the content of a resource: text, or a binary blob.
// Blob is non-nil exactly when the server sent "blob" (it arrives base64 on
// the wire and is decoded here).
type ResourceContents struct {
	// URI identifies the resource these contents are of.
	URI string `json:"uri"`
	// MIMEType ("mimeType") is the media type of the contents, if known.
	MIMEType string `json:"mimeType,omitempty"`
	// Text is the contents of a text resource; empty for a blob.
	Text string `json:"text"`
	// Blob is the contents of a binary resource, decoded; nil for text.
	Blob []byte `json:"blob,omitempty"`
	// Meta is the contents' "_meta".
	Meta Meta `json:"_meta,omitempty"`
}

// MarshalJSON writes either "text" or "blob", never both.
func (r *ResourceContents) MarshalJSON() ([]byte, error) {
	if r.Blob != nil {
		return json.Marshal(struct {
			URI      string `json:"uri"`
			MIMEType string `json:"mimeType,omitempty"`
			Blob     []byte `json:"blob"`
			Meta     Meta   `json:"_meta,omitempty"`
		}{r.URI, r.MIMEType, r.Blob, r.Meta})
	}
	return json.Marshal(struct {
		URI      string `json:"uri"`
		MIMEType string `json:"mimeType,omitempty"`
		Text     string `json:"text"`
		Meta     Meta   `json:"_meta,omitempty"`
	}{r.URI, r.MIMEType, r.Text, r.Meta})
}

// Prompt is one prompt a server offers.
type Prompt struct {
	// Name is what prompts/get asks for; required.
	Name string `json:"name"`
	// Title is a display name (2025-06-18+).
	Title string `json:"title,omitempty"`
	// Description says what the prompt is for.
	Description string `json:"description,omitempty"`
	// Arguments are the arguments prompts/get accepts; empty when it takes
	// none.
	Arguments []*PromptArgument `json:"arguments,omitempty"`
	// Icons represent the prompt in a user interface (2025-11-25+).
	Icons []Icon `json:"icons,omitempty"`
	// Meta is the prompt's "_meta".
	Meta Meta `json:"_meta,omitempty"`
}

// PromptArgument is one argument a prompt takes.
type PromptArgument struct {
	// Name is the argument's key in the prompts/get arguments.
	Name string `json:"name"`
	// Title is a display name (2025-06-18+).
	Title string `json:"title,omitempty"`
	// Description says what value the argument wants.
	Description string `json:"description,omitempty"`
	// Required: prompts/get must be given this argument. Absent = false.
	Required bool `json:"required,omitempty"`
}

// PromptMessage is one message of a rendered prompt.
type PromptMessage struct {
	// Role is "user" or "assistant".
	Role string `json:"role"`
	// Content is the message's one content block.
	Content Content `json:"content"`
}

// UnmarshalJSON decodes the message and its typed content block.
func (m *PromptMessage) UnmarshalJSON(data []byte) error {
	var w struct {
		Role    string       `json:"role"`
		Content contentBlock `json:"content"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	m.Role, m.Content = w.Role, w.Content.c
	return nil
}

// MarshalJSON writes the message with its content block in wire form.
func (m *PromptMessage) MarshalJSON() ([]byte, error) {
	if m.Content == nil {
		return nil, errors.New("encoding prompt message: nil content")
	}
	c, err := marshalContent(m.Content)
	if err != nil {
		return nil, err
	}
	return json.Marshal(struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}{m.Role, c})
}

// GetPromptResult is a rendered prompt.
type GetPromptResult struct {
	// Description describes the prompt, when the server sends one.
	Description string `json:"description,omitempty"`
	// Messages are the rendered prompt, in conversation order.
	Messages []*PromptMessage `json:"messages"`
	// Meta is the result's "_meta".
	Meta Meta `json:"_meta,omitempty"`
}

// Text returns the text of every text block in the prompt's messages, joined
// by newlines.
func (r *GetPromptResult) Text() string {
	var parts []string
	for _, m := range r.Messages {
		if t, ok := m.Content.(*TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// ReadResourceResult is what resources/read returns.
type ReadResourceResult struct {
	// Contents are the resource's contents: usually one entry, more when the
	// URI covers several resources.
	Contents []*ResourceContents `json:"contents"`
	// TTLMs ("ttlMs", 2026-07-28) is how many milliseconds the result stays
	// fresh for caching. 0, also when absent (older servers), means stale at
	// once; treat a negative value as 0.
	TTLMs int64 `json:"ttlMs,omitempty"`
	// CacheScope ("cacheScope", 2026-07-28) is "public" (shareable across
	// users) or "private" (only within one authorization context); empty from
	// older servers.
	CacheScope string `json:"cacheScope,omitempty"`
	// Meta is the result's "_meta".
	Meta Meta `json:"_meta,omitempty"`
}

// CompleteReference names what an argument completion is for: a prompt
// (Type "ref/prompt", Name) or a resource template (Type "ref/resource",
// URI). Build one with [PromptReference] or [ResourceReference].
type CompleteReference struct {
	// Type is "ref/prompt" or "ref/resource".
	Type string `json:"type"`
	// Name is the prompt's name (ref/prompt only).
	Name string `json:"name,omitempty"`
	// URI is the resource URI or URI template (ref/resource only).
	URI string `json:"uri,omitempty"`
}

// PromptReference refers to the prompt called name.
func PromptReference(name string) CompleteReference {
	return CompleteReference{Type: "ref/prompt", Name: name}
}

// ResourceReference refers to a resource or resource template by URI.
func ResourceReference(uri string) CompleteReference {
	return CompleteReference{Type: "ref/resource", URI: uri}
}

// CompleteRequest asks for completions of one argument's value.
type CompleteRequest struct {
	// Ref is the prompt or resource template whose argument is completed.
	Ref CompleteReference
	// Argument is the name of the argument being completed.
	Argument string
	// Value is what has been typed so far, perhaps empty.
	Value string
	// Context holds the values of arguments already chosen (2025-06-18+).
	Context map[string]string
}

// CompleteResult holds the suggested values.
type CompleteResult struct {
	// Values are the suggested completions, at most 100.
	Values []string `json:"values"`
	// Total is the number of matches the server knows of, when it says.
	Total *int64 `json:"total,omitempty"`
	// HasMore: there are more matches than Values holds. Absent = false.
	HasMore bool `json:"hasMore,omitempty"`
	// Meta is the "_meta" of the completion/complete result (it sits beside
	// "completion" on the wire).
	Meta Meta `json:"-"`
}

// CallToolResult is the outcome of a tool call. A tool that failed is a
// result with IsError set (and usually a text block saying why), not a Go
// error: the model is meant to read it.
type CallToolResult struct {
	// Content is the result as content blocks ("content"): what the model
	// reads. Always sent; may be empty.
	Content []Content
	// StructuredContent is the tool's structured output, as the server sent it
	// (any JSON value in 2026-07-28; an object before).
	StructuredContent json.RawMessage
	// IsError ("isError"): the tool failed, and Content says why so the model
	// can correct itself. Absent = false.
	IsError bool
	// Meta is the result's "_meta".
	Meta Meta
}

type callToolWire struct {
	Content           contentList     `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
	Meta              Meta            `json:"_meta,omitempty"`
}

// UnmarshalJSON decodes a CallToolResult, typing each content block.
func (r *CallToolResult) UnmarshalJSON(data []byte) error {
	var w callToolWire
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*r = CallToolResult{Content: w.Content, StructuredContent: w.StructuredContent, IsError: w.IsError, Meta: w.Meta}
	return nil
}

// MarshalJSON encodes the result in its wire form (content is always present).
func (r *CallToolResult) MarshalJSON() ([]byte, error) {
	content := r.Content
	if content == nil {
		content = []Content{}
	}
	return json.Marshal(callToolWire{Content: content, StructuredContent: r.StructuredContent, IsError: r.IsError, Meta: r.Meta})
}

// Text returns the text of every text block, joined by newlines: what a model
// would read.
func (r *CallToolResult) Text() string {
	var parts []string
	for _, c := range r.Content {
		if t, ok := c.(*TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// ToolError returns nil when the tool succeeded, and otherwise an error whose
// message is the result's text.
func (r *CallToolResult) ToolError() error {
	if !r.IsError {
		return nil
	}
	return &ToolError{Text: r.Text()}
}

// UnmarshalStructured decodes StructuredContent into v. With no structured
// content it falls back to the first text block, which servers should fill
// with the same JSON.
func (r *CallToolResult) UnmarshalStructured(v any) error {
	if len(r.StructuredContent) > 0 {
		return json.Unmarshal(r.StructuredContent, v)
	}
	for _, c := range r.Content {
		if t, ok := c.(*TextContent); ok {
			return json.Unmarshal([]byte(t.Text), v)
		}
	}
	return errNoStructured
}

var errNoStructured = errors.New("client: tool result has neither structured content nor a text block")

// ToolError is the error [CallToolResult.ToolError] returns for a failed
// tool: the text the tool gave as its reason.
type ToolError struct {
	// Text is the failed result's text, as [CallToolResult.Text] returns it.
	Text string
}

// Error implements the error interface.
func (e *ToolError) Error() string { return "tool error: " + e.Text }
