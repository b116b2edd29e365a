package protocol

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// IncludeContext says which MCP servers' context the client should add to a
// sampling prompt.
type IncludeContext string

// IncludeContext values. "thisServer" and "allServers" are soft-deprecated
// in 2025-11-25: use them only when the client declares sampling.context.
const (
	IncludeContextNone       IncludeContext = "none"
	IncludeContextThisServer IncludeContext = "thisServer"
	IncludeContextAllServers IncludeContext = "allServers"
)

// Stop reasons commonly reported in CreateMessageResult.StopReason (the
// field is an open string).
const (
	StopReasonEndTurn      = "endTurn"
	StopReasonStopSequence = "stopSequence"
	StopReasonMaxTokens    = "maxTokens"
	// StopReasonToolUse means the model asked to use tools. Added in
	// 2025-11-25.
	StopReasonToolUse = "toolUse"
)

// CreateMessageParams are the params of sampling/createMessage.
type CreateMessageParams struct {
	// Meta is the request's _meta object.
	Meta Meta `json:"_meta,omitempty"`
	// Messages is the conversation to sample from.
	Messages []SamplingMessage `json:"messages"`
	// ModelPreferences guide the client's model choice.
	ModelPreferences *ModelPreferences `json:"modelPreferences,omitempty"`
	// SystemPrompt is an optional system prompt.
	SystemPrompt string `json:"systemPrompt,omitempty"`
	// IncludeContext asks the client to add MCP context to the prompt.
	IncludeContext IncludeContext `json:"includeContext,omitempty"`
	// Temperature is the sampling temperature, if set.
	Temperature *float64 `json:"temperature,omitempty"`
	// MaxTokens is the maximum number of tokens to sample.
	MaxTokens int64 `json:"maxTokens"`
	// StopSequences end sampling when produced.
	StopSequences []string `json:"stopSequences,omitempty"`
	// Metadata is provider-specific data passed through to the LLM
	// provider.
	Metadata map[string]any `json:"metadata,omitempty"`
	// Tools are tools the model may use. Added in 2025-11-25.
	Tools []Tool `json:"tools,omitempty"`
	// ToolChoice controls tool use. Added in 2025-11-25.
	ToolChoice *ToolChoice `json:"toolChoice,omitempty"`
	// Task asks for task-augmented execution. Added in 2025-11-25.
	Task *TaskMetadata `json:"task,omitempty"`
}

type createMessageParamsWire CreateMessageParams

// MarshalJSON encodes p, writing a nil Messages as [].
func (p CreateMessageParams) MarshalJSON() ([]byte, error) {
	if p.Messages == nil {
		p.Messages = []SamplingMessage{}
	}
	return json.Marshal(createMessageParamsWire(p))
}

// ToolChoiceMode says how the model may use tools.
type ToolChoiceMode string

// Tool choice modes.
const (
	ToolChoiceAuto     ToolChoiceMode = "auto"
	ToolChoiceRequired ToolChoiceMode = "required"
	ToolChoiceNone     ToolChoiceMode = "none"
)

// ToolChoice controls tool use in sampling. Added in 2025-11-25.
type ToolChoice struct {
	// Mode is how the model may use tools (default "auto").
	Mode ToolChoiceMode `json:"mode,omitempty"`
}

// SamplingContent is the content of a sampling message: one block, or
// (since 2025-11-25) several. It encodes a single block as a JSON object,
// valid in every version, and several as an array; it decodes either form.
type SamplingContent []Content

// MarshalJSON encodes one block as an object and zero or several as an
// array.
func (c SamplingContent) MarshalJSON() ([]byte, error) {
	if len(c) == 1 {
		return c[0].MarshalJSON()
	}
	return appendContentArray(make([]byte, 0, 64), c)
}

// UnmarshalJSON accepts a single block object or an array of blocks.
func (c *SamplingContent) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '{' {
		var one Content
		if err := json.Unmarshal(data, &one); err != nil {
			return err
		}
		*c = SamplingContent{one}
		return nil
	}
	var many []Content
	if err := json.Unmarshal(data, &many); err != nil {
		return fmt.Errorf("protocol: sampling content: %w", err)
	}
	*c = many
	return nil
}

// SamplingMessage is one message of a sampling conversation.
type SamplingMessage struct {
	// Role is the message's speaker.
	Role Role `json:"role"`
	// Content is the message content: text, image, audio and, since
	// 2025-11-25, tool_use / tool_result blocks.
	Content SamplingContent `json:"content"`
	// Meta is the message's _meta object. Added in 2025-11-25.
	Meta Meta `json:"_meta,omitempty"`
}

// CreateMessageResult is the client's answer to sampling/createMessage.
type CreateMessageResult struct {
	// Meta is the result's _meta object.
	Meta Meta `json:"_meta,omitempty"`
	// Role is the role of the sampled message (normally "assistant").
	Role Role `json:"role"`
	// Content is the sampled content.
	Content SamplingContent `json:"content"`
	// Model is the name of the model that produced it.
	Model string `json:"model"`
	// StopReason says why sampling stopped (see the StopReason constants).
	StopReason string `json:"stopReason,omitempty"`
}

// ModelPreferences guide the client's model choice; priorities range from 0
// to 1.
type ModelPreferences struct {
	// Hints suggest model names or families, in order of preference.
	Hints []ModelHint `json:"hints,omitempty"`
	// CostPriority is how much to prefer cheaper models.
	CostPriority *float64 `json:"costPriority,omitempty"`
	// SpeedPriority is how much to prefer faster models.
	SpeedPriority *float64 `json:"speedPriority,omitempty"`
	// IntelligencePriority is how much to prefer more capable models.
	IntelligencePriority *float64 `json:"intelligencePriority,omitempty"`
}

// ModelHint suggests a model; Name may be a substring of a model name.
type ModelHint struct {
	// Name is a full or partial model name, e.g. "claude-3-5-sonnet".
	Name string `json:"name,omitempty"`
}
