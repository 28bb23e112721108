package client

import (
	"encoding/json"
	"slices"
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
