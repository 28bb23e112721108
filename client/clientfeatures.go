package client

import (
	"encoding/json"
)

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
