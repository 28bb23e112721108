package client

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
)

// Protocol versions, newest first. Versions are dates and compare correctly as
// strings.
const (
	// Version20260728 is the modern (stateless) protocol: no handshake,
	// metadata on every request, multi round-trip input requests.
	Version20260728 = "2026-07-28"
	// Version20251125 is the last legacy version (tasks, URL elicitation).
	Version20251125 = "2025-11-25"
	// Version20250618 added structured tool output, resource links and
	// elicitation.
	Version20250618 = "2025-06-18"
	// Version20250326 added tool annotations, audio content and completions.
	Version20250326 = "2025-03-26"
	// Version20241105 is the first published version.
	Version20241105 = "2024-11-05"

	// LatestVersion is the newest version this client speaks.
	LatestVersion = Version20260728
	// LatestLegacyVersion is the newest version that starts with initialize.
	LatestLegacyVersion = Version20251125
)

var supportedVersions = []string{Version20260728, Version20251125, Version20250618, Version20250326, Version20241105}

// SupportedVersions returns every protocol version this client speaks, newest
// first. The caller may modify the returned slice.
func SupportedVersions() []string { return slices.Clone(supportedVersions) }

// IsLegacy reports whether version starts its sessions with the initialize
// handshake (every version before 2026-07-28).
func IsLegacy(version string) bool { return version < Version20260728 }

func knownVersion(v string) bool { return slices.Contains(supportedVersions, v) }

// Meta is a "_meta" object: free-form metadata that servers and clients
// attach to requests, results and other objects.
type Meta = map[string]any

// Implementation names a client or a server and its version.
type Implementation struct {
	Name        string `json:"name"`
	Version     string `json:"version"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	WebsiteURL  string `json:"websiteUrl,omitempty"`
	Icons       []Icon `json:"icons,omitempty"`
}

// Icon is an image a server offers for itself or one of its things.
// Clients must treat icons as untrusted (see the protocol's security notes).
type Icon struct {
	Src      string   `json:"src"`
	MIMEType string   `json:"mimeType,omitempty"`
	Sizes    []string `json:"sizes,omitempty"`
	Theme    string   `json:"theme,omitempty"`
}

// ServerCapabilities says what the server offers. A nil member means the
// capability is absent. Raw keeps the whole object as it came, so fields this
// client does not model are not lost.
type ServerCapabilities struct {
	Experimental map[string]json.RawMessage `json:"experimental,omitempty"`
	Logging      *LoggingCapability         `json:"logging,omitempty"`
	Completions  *CompletionsCapability     `json:"completions,omitempty"`
	Prompts      *PromptsCapability         `json:"prompts,omitempty"`
	Resources    *ResourcesCapability       `json:"resources,omitempty"`
	Tools        *ToolsCapability           `json:"tools,omitempty"`
	// Tasks is the 2025-11-25 tasks capability, kept raw.
	Tasks json.RawMessage `json:"tasks,omitempty"`
	// Extensions (2026-07-28) maps an extension id to its settings.
	Extensions map[string]json.RawMessage `json:"extensions,omitempty"`
	// Raw is the capabilities object exactly as received.
	Raw json.RawMessage `json:"-"`
}

// UnmarshalJSON decodes the object and keeps a copy of it in Raw.
func (c *ServerCapabilities) UnmarshalJSON(data []byte) error {
	type plain ServerCapabilities
	var p plain
	if err := json.Unmarshal(data, &p); err != nil {
		return err
	}
	p.Raw = append(json.RawMessage(nil), data...)
	*c = ServerCapabilities(p)
	return nil
}

// LoggingCapability is present when the server can send log messages.
type LoggingCapability struct{}

// CompletionsCapability is present when the server answers completion/complete.
type CompletionsCapability struct{}

// PromptsCapability is present when the server has prompts.
type PromptsCapability struct {
	ListChanged bool `json:"listChanged,omitempty"`
}

// ResourcesCapability is present when the server has resources.
type ResourcesCapability struct {
	Subscribe   bool `json:"subscribe,omitempty"`
	ListChanged bool `json:"listChanged,omitempty"`
}

// ToolsCapability is present when the server has tools.
type ToolsCapability struct {
	ListChanged bool `json:"listChanged,omitempty"`
}

// ClientCapabilities says what the client offers. [Connect] fills Sampling,
// Elicitation and Roots from the callbacks in [Options]; set the rest (or
// finer sub-capabilities) through Options.Capabilities.
type ClientCapabilities struct {
	Experimental map[string]json.RawMessage `json:"experimental,omitempty"`
	Roots        *RootsCapability           `json:"roots,omitempty"`
	Sampling     *SamplingCapability        `json:"sampling,omitempty"`
	Elicitation  *ElicitationCapability     `json:"elicitation,omitempty"`
	// Tasks is the 2025-11-25 tasks capability, sent as given.
	Tasks json.RawMessage `json:"tasks,omitempty"`
	// Extensions (2026-07-28) maps an extension id to its settings.
	Extensions map[string]json.RawMessage `json:"extensions,omitempty"`
}

// RootsCapability is present when the client answers roots/list.
type RootsCapability struct {
	// ListChanged promises notifications/roots/list_changed (legacy only).
	ListChanged bool `json:"listChanged,omitempty"`
}

// SamplingCapability is present when the client answers
// sampling/createMessage.
type SamplingCapability struct {
	// Context: the client honours includeContext other than "none".
	Context bool `json:"-"`
	// Tools: the client supports tools and toolChoice in sampling (2025-11-25+).
	Tools bool `json:"-"`
}

// MarshalJSON writes the sub-capabilities as the empty objects the protocol
// uses for flags.
func (s SamplingCapability) MarshalJSON() ([]byte, error) {
	return flagObject("context", s.Context, "tools", s.Tools), nil
}

// UnmarshalJSON reads the flag objects back.
func (s *SamplingCapability) UnmarshalJSON(data []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return err
	}
	_, s.Context = m["context"]
	_, s.Tools = m["tools"]
	return nil
}

// ElicitationCapability is present when the client answers
// elicitation/create. With neither flag set it means form mode only.
type ElicitationCapability struct {
	Form bool `json:"-"`
	URL  bool `json:"-"`
}

// MarshalJSON writes the modes as the empty objects the protocol uses.
func (e ElicitationCapability) MarshalJSON() ([]byte, error) {
	return flagObject("form", e.Form, "url", e.URL), nil
}

// UnmarshalJSON reads the mode flags back.
func (e *ElicitationCapability) UnmarshalJSON(data []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return err
	}
	_, e.Form = m["form"]
	_, e.URL = m["url"]
	return nil
}

func flagObject(k1 string, v1 bool, k2 string, v2 bool) []byte {
	b := []byte{'{'}
	if v1 {
		b = append(b, `"`+k1+`":{}`...)
	}
	if v2 {
		if v1 {
			b = append(b, ',')
		}
		b = append(b, `"`+k2+`":{}`...)
	}
	return append(b, '}')
}

// Tool is one tool a server offers.
type Tool struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	// InputSchema is the JSON Schema of the arguments, as the server sent it.
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
	// OutputSchema is the JSON Schema of StructuredContent, if declared.
	OutputSchema json.RawMessage  `json:"outputSchema,omitempty"`
	Annotations  *ToolAnnotations `json:"annotations,omitempty"`
	Icons        []Icon           `json:"icons,omitempty"`
	// Execution is the 2025-11-25 execution object (taskSupport), kept raw.
	Execution json.RawMessage `json:"execution,omitempty"`
	Meta      Meta            `json:"_meta,omitempty"`
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
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool  `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// Annotations tell a client how to use an object: who it is for and how
// important it is.
type Annotations struct {
	Audience     []string `json:"audience,omitempty"`
	Priority     *float64 `json:"priority,omitempty"`
	LastModified string   `json:"lastModified,omitempty"`
}

// Resource is one resource a server lists.
type Resource struct {
	URI         string       `json:"uri"`
	Name        string       `json:"name"`
	Title       string       `json:"title,omitempty"`
	Description string       `json:"description,omitempty"`
	MIMEType    string       `json:"mimeType,omitempty"`
	Size        *int64       `json:"size,omitempty"`
	Annotations *Annotations `json:"annotations,omitempty"`
	Icons       []Icon       `json:"icons,omitempty"`
	Meta        Meta         `json:"_meta,omitempty"`
}

// ResourceTemplate describes a family of resources by an RFC 6570 URI
// template.
type ResourceTemplate struct {
	URITemplate string       `json:"uriTemplate"`
	Name        string       `json:"name"`
	Title       string       `json:"title,omitempty"`
	Description string       `json:"description,omitempty"`
	MIMEType    string       `json:"mimeType,omitempty"`
	Annotations *Annotations `json:"annotations,omitempty"`
	Icons       []Icon       `json:"icons,omitempty"`
	Meta        Meta         `json:"_meta,omitempty"`
}

// ResourceContents is the content of a resource: text, or a binary blob.
// Blob is non-nil exactly when the server sent "blob" (it arrives base64 on
// the wire and is decoded here).
type ResourceContents struct {
	URI      string `json:"uri"`
	MIMEType string `json:"mimeType,omitempty"`
	Text     string `json:"text"`
	Blob     []byte `json:"blob,omitempty"`
	Meta     Meta   `json:"_meta,omitempty"`
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
	Name        string            `json:"name"`
	Title       string            `json:"title,omitempty"`
	Description string            `json:"description,omitempty"`
	Arguments   []*PromptArgument `json:"arguments,omitempty"`
	Icons       []Icon            `json:"icons,omitempty"`
	Meta        Meta              `json:"_meta,omitempty"`
}

// PromptArgument is one argument a prompt takes.
type PromptArgument struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// PromptMessage is one message of a rendered prompt.
type PromptMessage struct {
	Role    string  `json:"role"`
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
	Description string           `json:"description,omitempty"`
	Messages    []*PromptMessage `json:"messages"`
	Meta        Meta             `json:"_meta,omitempty"`
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
	Contents   []*ResourceContents `json:"contents"`
	TTLMs      int64               `json:"ttlMs,omitempty"`
	CacheScope string              `json:"cacheScope,omitempty"`
	Meta       Meta                `json:"_meta,omitempty"`
}

// CompleteReference names what an argument completion is for: a prompt
// (Type "ref/prompt", Name) or a resource template (Type "ref/resource",
// URI). Build one with [PromptReference] or [ResourceReference].
type CompleteReference struct {
	Type string `json:"type"`
	Name string `json:"name,omitempty"`
	URI  string `json:"uri,omitempty"`
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
	Ref CompleteReference
	// Argument is the argument being completed and Value what is typed so far.
	Argument string
	Value    string
	// Context holds the values of arguments already chosen (2025-06-18+).
	Context map[string]string
}

// CompleteResult holds the suggested values.
type CompleteResult struct {
	Values []string `json:"values"`
	// Total is the number of matches the server knows of, when it says.
	Total   *int64 `json:"total,omitempty"`
	HasMore bool   `json:"hasMore,omitempty"`
	Meta    Meta   `json:"-"`
}

// CallToolResult is the outcome of a tool call. A tool that failed is a
// result with IsError set (and usually a text block saying why), not a Go
// error: the model is meant to read it.
type CallToolResult struct {
	Content []Content
	// StructuredContent is the tool's structured output, as the server sent it
	// (any JSON value in 2026-07-28; an object before).
	StructuredContent json.RawMessage
	IsError           bool
	Meta              Meta
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
type ToolError struct{ Text string }

// Error implements the error interface.
func (e *ToolError) Error() string { return "tool error: " + e.Text }

// LogLevel is a syslog severity, as MCP log messages use them.
type LogLevel string

// Log levels, least to most severe.
const (
	LevelDebug     LogLevel = "debug"
	LevelInfo      LogLevel = "info"
	LevelNotice    LogLevel = "notice"
	LevelWarning   LogLevel = "warning"
	LevelError     LogLevel = "error"
	LevelCritical  LogLevel = "critical"
	LevelAlert     LogLevel = "alert"
	LevelEmergency LogLevel = "emergency"
)

// LogMessage is a notifications/message from the server.
type LogMessage struct {
	Level  LogLevel `json:"level"`
	Logger string   `json:"logger,omitempty"`
	// Data is the logged value (often a string or an object), as sent.
	Data json.RawMessage `json:"data"`
	Meta Meta            `json:"_meta,omitempty"`
}

// Progress is one notifications/progress for a request.
type Progress struct {
	// Token is the progress token of the request, as JSON text.
	Token json.RawMessage `json:"progressToken"`
	// Progress increases with every notification; it may be fractional.
	Progress float64 `json:"progress"`
	// Total is the expected final Progress, or 0 when unknown.
	Total   float64 `json:"total,omitempty"`
	Message string  `json:"message,omitempty"`
}

// Root is a directory (a file:// URI) the client lets the server work in.
type Root struct {
	URI  string `json:"uri"`
	Name string `json:"name,omitempty"`
	Meta Meta   `json:"_meta,omitempty"`
}

// CreateMessageRequest is a server's request to sample from the client's
// language model (sampling/createMessage).
type CreateMessageRequest struct {
	Messages         []*SamplingMessage `json:"messages"`
	ModelPreferences *ModelPreferences  `json:"modelPreferences,omitempty"`
	SystemPrompt     string             `json:"systemPrompt,omitempty"`
	// IncludeContext is "none", "thisServer" or "allServers" (deprecated).
	IncludeContext string          `json:"includeContext,omitempty"`
	Temperature    *float64        `json:"temperature,omitempty"`
	MaxTokens      int64           `json:"maxTokens"`
	StopSequences  []string        `json:"stopSequences,omitempty"`
	Metadata       json.RawMessage `json:"metadata,omitempty"`
	// Tools and ToolChoice (2025-11-25+) need the sampling tools capability.
	Tools      []*Tool     `json:"tools,omitempty"`
	ToolChoice *ToolChoice `json:"toolChoice,omitempty"`
	Meta       Meta        `json:"_meta,omitempty"`
}

// SamplingMessage is one message of a sampling conversation. Content holds
// one block, or several from 2025-11-25 (tool use and tool results).
type SamplingMessage struct {
	Role    string
	Content []Content
}

// UnmarshalJSON accepts a single content block or an array of them.
func (m *SamplingMessage) UnmarshalJSON(data []byte) error {
	var w struct {
		Role    string      `json:"role"`
		Content contentList `json:"content"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	m.Role, m.Content = w.Role, w.Content
	return nil
}

// MarshalJSON writes a single block as an object and several as an array.
func (m *SamplingMessage) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}{m.Role, oneOrMany(m.Content)})
}

// ModelPreferences are the server's advisory model choices.
type ModelPreferences struct {
	Hints                []ModelHint `json:"hints,omitempty"`
	CostPriority         *float64    `json:"costPriority,omitempty"`
	SpeedPriority        *float64    `json:"speedPriority,omitempty"`
	IntelligencePriority *float64    `json:"intelligencePriority,omitempty"`
}

// ModelHint suggests a model by (partial) name.
type ModelHint struct {
	Name string `json:"name,omitempty"`
}

// ToolChoice says whether the sampled model may, must or must not use tools.
type ToolChoice struct {
	Mode string `json:"mode,omitempty"`
}

// CreateMessageResult is the client's answer to a sampling request.
type CreateMessageResult struct {
	Role string
	// Content is one block, or several (tool_use) from 2025-11-25.
	Content []Content
	Model   string
	// StopReason: "endTurn", "stopSequence", "maxTokens", "toolUse", or other.
	StopReason string
	Meta       Meta
}

// MarshalJSON writes the wire form (a single block as an object).
func (r *CreateMessageResult) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		Model      string          `json:"model"`
		StopReason string          `json:"stopReason,omitempty"`
		Meta       Meta            `json:"_meta,omitempty"`
	}{r.Role, oneOrMany(r.Content), r.Model, r.StopReason, r.Meta})
}

// UnmarshalJSON accepts a single content block or an array of them.
func (r *CreateMessageResult) UnmarshalJSON(data []byte) error {
	var w struct {
		Role       string      `json:"role"`
		Content    contentList `json:"content"`
		Model      string      `json:"model"`
		StopReason string      `json:"stopReason"`
		Meta       Meta        `json:"_meta"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*r = CreateMessageResult{Role: w.Role, Content: w.Content, Model: w.Model, StopReason: w.StopReason, Meta: w.Meta}
	return nil
}

// ElicitRequest is a server's request for information from the user
// (elicitation/create).
type ElicitRequest struct {
	// Mode is "form" (also when the server sent none) or "url".
	Mode    string `json:"mode,omitempty"`
	Message string `json:"message"`
	// RequestedSchema is the flat JSON Schema of the form (form mode).
	RequestedSchema json.RawMessage `json:"requestedSchema,omitempty"`
	// URL is the page to send the user to (url mode).
	URL string `json:"url,omitempty"`
	// ElicitationID identifies a 2025-11-25 URL elicitation.
	ElicitationID string `json:"elicitationId,omitempty"`
	Meta          Meta   `json:"_meta,omitempty"`
}

// Elicitation actions.
const (
	ElicitAccept  = "accept"
	ElicitDecline = "decline"
	ElicitCancel  = "cancel"
)

// ElicitResult is the user's answer: Action is "accept" (with Content for a
// form), "decline" or "cancel".
type ElicitResult struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
	Meta    Meta           `json:"_meta,omitempty"`
}
