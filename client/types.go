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
	// Name identifies the program; required. It is meant for code and logs,
	// Title for people.
	Name string `json:"name"`
	// Version is the program's own version (not a protocol version); required.
	Version string `json:"version"`
	// Title is a display name (2025-06-18+); empty means show Name.
	Title string `json:"title,omitempty"`
	// Description says what the program does (2025-11-25+).
	Description string `json:"description,omitempty"`
	// WebsiteURL ("websiteUrl") is the program's home page (2025-11-25+).
	WebsiteURL string `json:"websiteUrl,omitempty"`
	// Icons represent the program in a user interface (2025-11-25+).
	Icons []Icon `json:"icons,omitempty"`
}

// Icon is an image a server offers for itself or one of its things.
// Clients must treat icons as untrusted (see the protocol's security notes).
type Icon struct {
	// Src is the image: an https URL or a data: URI. Untrusted: check the
	// scheme before fetching it.
	Src string `json:"src"`
	// MIMEType ("mimeType") is the image's media type, such as "image/png";
	// optional.
	MIMEType string `json:"mimeType,omitempty"`
	// Sizes are the sizes the image suits, each "WxH" ("48x48") or "any"; empty
	// when unspecified.
	Sizes []string `json:"sizes,omitempty"`
	// Theme is "light" (made for a light background) or "dark"; empty means
	// any.
	Theme string `json:"theme,omitempty"`
}

// ServerCapabilities says what the server offers. A nil member means the
// capability is absent. Raw keeps the whole object as it came, so fields this
// client does not model are not lost.
type ServerCapabilities struct {
	// Experimental holds non-standard capabilities by name, as received.
	Experimental map[string]json.RawMessage `json:"experimental,omitempty"`
	// Logging: the server sends log messages (notifications/message).
	Logging *LoggingCapability `json:"logging,omitempty"`
	// Completions: the server answers completion/complete (declared from
	// 2025-03-26).
	Completions *CompletionsCapability `json:"completions,omitempty"`
	// Prompts: the server offers prompts/list and prompts/get.
	Prompts *PromptsCapability `json:"prompts,omitempty"`
	// Resources: the server offers resources/list, resources/templates/list and
	// resources/read.
	Resources *ResourcesCapability `json:"resources,omitempty"`
	// Tools: the server offers tools/list and tools/call.
	Tools *ToolsCapability `json:"tools,omitempty"`
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
	// ListChanged: the server sends notifications/prompts/list_changed when its
	// prompts change (on 2026-07-28, only on a listen stream that asks).
	// Absent = false.
	ListChanged bool `json:"listChanged,omitempty"`
}

// ResourcesCapability is present when the server has resources.
type ResourcesCapability struct {
	// Subscribe: the server sends notifications/resources/updated for resources
	// a client subscribes to (resources/subscribe; on 2026-07-28,
	// resourceSubscriptions of a listen). Absent = false.
	Subscribe bool `json:"subscribe,omitempty"`
	// ListChanged: the server sends notifications/resources/list_changed when
	// its resource list changes. Absent = false.
	ListChanged bool `json:"listChanged,omitempty"`
}

// ToolsCapability is present when the server has tools.
type ToolsCapability struct {
	// ListChanged: the server sends notifications/tools/list_changed when its
	// tools change. Absent = false.
	ListChanged bool `json:"listChanged,omitempty"`
}

// Capabilities says what the client offers. [Connect] fills Sampling,
// Elicitation and Roots from the callbacks in [Options]; set the rest (or
// finer sub-capabilities) through Options.Capabilities.
type Capabilities struct {
	// Experimental holds non-standard capabilities by name, sent as given.
	Experimental map[string]json.RawMessage `json:"experimental,omitempty"`
	// Roots: the client answers roots/list (deprecated in 2026-07-28, still
	// functional).
	Roots *RootsCapability `json:"roots,omitempty"`
	// Sampling: the client answers sampling/createMessage (deprecated in
	// 2026-07-28, still functional).
	Sampling *SamplingCapability `json:"sampling,omitempty"`
	// Elicitation: the client answers elicitation/create (2025-06-18+).
	Elicitation *ElicitationCapability `json:"elicitation,omitempty"`
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
	// Form: the client fills in forms ("form": {}, 2025-11-25+).
	Form bool `json:"-"`
	// URL: the client sends the user to a web page ("url": {}, 2025-11-25+).
	URL bool `json:"-"`
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
	// Level is the message's severity.
	Level LogLevel `json:"level"`
	// Logger names the server component that logged, if the server says.
	Logger string `json:"logger,omitempty"`
	// Data is the logged value (often a string or an object), as sent.
	Data json.RawMessage `json:"data"`
	// Meta is the notification's "_meta".
	Meta Meta `json:"_meta,omitempty"`
}

// Progress is one notifications/progress for a request.
type Progress struct {
	// Token is the progress token of the request, as JSON text.
	Token json.RawMessage `json:"progressToken"`
	// Progress increases with every notification; it may be fractional.
	Progress float64 `json:"progress"`
	// Total is the expected final Progress, or 0 when unknown.
	Total float64 `json:"total,omitempty"`
	// Message describes the current progress for people (2025-03-26+); may be
	// empty.
	Message string `json:"message,omitempty"`
}

// Root is a directory (a file:// URI) the client lets the server work in.
type Root struct {
	// URI is the root's location; a file:// URI.
	URI string `json:"uri"`
	// Name is a display name for the root; optional.
	Name string `json:"name,omitempty"`
	// Meta is the root's "_meta".
	Meta Meta `json:"_meta,omitempty"`
}

// CreateMessageRequest is a server's request to sample from the client's
// language model (sampling/createMessage).
type CreateMessageRequest struct {
	// Messages are the conversation to continue.
	Messages []*SamplingMessage `json:"messages"`
	// ModelPreferences are the server's advisory model choices; nil when it has
	// none.
	ModelPreferences *ModelPreferences `json:"modelPreferences,omitempty"`
	// SystemPrompt is the system prompt the server asks for; the client may
	// change or drop it.
	SystemPrompt string `json:"systemPrompt,omitempty"`
	// IncludeContext is "none", "thisServer" or "allServers" (deprecated).
	IncludeContext string `json:"includeContext,omitempty"`
	// Temperature is the sampling temperature; nil leaves it to the client.
	Temperature *float64 `json:"temperature,omitempty"`
	// MaxTokens caps the tokens to sample; required, and the client must honour
	// it.
	MaxTokens int64 `json:"maxTokens"`
	// StopSequences end sampling when the model produces one of them.
	StopSequences []string `json:"stopSequences,omitempty"`
	// Metadata is provider-specific JSON to pass through to the model's
	// provider, as sent.
	Metadata json.RawMessage `json:"metadata,omitempty"`
	// Tools (2025-11-25+) are tools the model may use; they need the client's
	// sampling tools capability.
	Tools []*Tool `json:"tools,omitempty"`
	// ToolChoice (2025-11-25+) says whether the model may, must or must not use
	// Tools; nil leaves it to the client.
	ToolChoice *ToolChoice `json:"toolChoice,omitempty"`
	// Meta is the request's "_meta".
	Meta Meta `json:"_meta,omitempty"`
}

// SamplingMessage is one message of a sampling conversation. Content holds
// one block, or several from 2025-11-25 (tool use and tool results).
type SamplingMessage struct {
	// Role is "user" or "assistant".
	Role string
	// Content holds the message's blocks: one before 2025-11-25; several from
	// then (a user message answering tool use holds only tool_result blocks).
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
	// Hints suggest models by name, in order of preference.
	Hints []ModelHint `json:"hints,omitempty"`
	// CostPriority is how much low cost matters, from 0 to 1; nil when
	// unspecified.
	CostPriority *float64 `json:"costPriority,omitempty"`
	// SpeedPriority is how much low latency matters, from 0 to 1; nil when
	// unspecified.
	SpeedPriority *float64 `json:"speedPriority,omitempty"`
	// IntelligencePriority is how much capability matters, from 0 to 1; nil
	// when unspecified.
	IntelligencePriority *float64 `json:"intelligencePriority,omitempty"`
}

// ModelHint suggests a model by (partial) name.
type ModelHint struct {
	// Name is a full or partial model name ("sonnet"); the client may map it to
	// a model it has.
	Name string `json:"name,omitempty"`
}

// ToolChoice says whether the sampled model may, must or must not use tools.
type ToolChoice struct {
	// Mode is "auto", "required" or "none"; empty leaves it to the client.
	Mode string `json:"mode,omitempty"`
}

// CreateMessageResult is the client's answer to a sampling request.
type CreateMessageResult struct {
	// Role is the sampled message's role, normally "assistant".
	Role string
	// Content is one block, or several (tool_use) from 2025-11-25.
	Content []Content
	// Model names the model that produced the message; required.
	Model string
	// StopReason: "endTurn", "stopSequence", "maxTokens", "toolUse", or other.
	StopReason string
	// Meta is the result's "_meta".
	Meta Meta
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
	Mode string `json:"mode,omitempty"`
	// Message tells the user what is asked and why.
	Message string `json:"message"`
	// RequestedSchema is the flat JSON Schema of the form (form mode).
	RequestedSchema json.RawMessage `json:"requestedSchema,omitempty"`
	// URL is the page to send the user to (url mode).
	URL string `json:"url,omitempty"`
	// ElicitationID identifies a 2025-11-25 URL elicitation.
	ElicitationID string `json:"elicitationId,omitempty"`
	// Meta is the request's "_meta".
	Meta Meta `json:"_meta,omitempty"`
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
	// Action is [ElicitAccept], [ElicitDecline] or [ElicitCancel].
	Action string `json:"action"`
	// Content is the submitted form (accept in form mode only): values are
	// strings, numbers, booleans or (2025-11-25+) string slices.
	Content map[string]any `json:"content,omitempty"`
	// Meta is the result's "_meta".
	Meta Meta `json:"_meta,omitempty"`
}
