// Package llm is a provider-neutral model of a conversation with a language
// model that can call tools: messages made of parts (text, images, audio,
// documents, tool calls and tool results), tool definitions, and the events of
// a streamed answer (text deltas, tool-call starts, argument fragments and
// ends, usage, the stop reason).
//
// A [Provider] turns a [Request] into a stream of [Event]s; the subpackages
// llm/openai (Chat Completions, and every endpoint compatible with it) and
// llm/anthropic (Messages) speak the two wire formats. [Generate] runs a
// request and assembles the streamed answer into a [Response].
//
// The package also converts MCP values to this model: tool definitions with
// their JSON Schema mapped to what providers accept ([MapSchema]), tool names
// made valid for models ([ModelToolNames]), and tool results with every kind of
// content ([ToolResultFromMCP]).
package llm

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strconv"
)

// Role is the speaker of a message.
type Role string

// Roles. The system prompt is not a message: it is Request.System.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// PartType discriminates the parts of a message.
type PartType string

// Part types.
const (
	// PartText is text.
	PartText PartType = "text"
	// PartImage is an image: Data with its MimeType.
	PartImage PartType = "image"
	// PartAudio is audio: Data with its MimeType.
	PartAudio PartType = "audio"
	// PartDocument is a file such as a PDF: Data with its MimeType, and the
	// file's Name (a resource URI, for instance).
	PartDocument PartType = "document"
	// PartToolCall is the model's request to call a tool (assistant messages).
	PartToolCall PartType = "tool_call"
	// PartToolResult answers a tool call (user messages).
	PartToolResult PartType = "tool_result"
)

// Part is one piece of a message; only the fields of its Type are meaningful.
type Part struct {
	// Type says what the part is.
	Type PartType
	// Text is the text of a PartText.
	Text string
	// MimeType is the media type of an image, audio or document part.
	MimeType string
	// Data holds the raw bytes of an image, audio or document part.
	Data []byte
	// Name names a document part (a file name or resource URI).
	Name string
	// ToolCall is the call of a PartToolCall.
	ToolCall *ToolCall
	// ToolResult is the result of a PartToolResult.
	ToolResult *ToolResult
}

// ToolCall is a model's request to call a tool.
type ToolCall struct {
	// ID identifies the call; its result refers to it.
	ID string
	// Name is the tool's name as the model knows it.
	Name string
	// Arguments is the JSON text the model wrote for the arguments. It may be
	// empty, or not even valid JSON: the model wrote it.
	Arguments string
}

// ToolResult is the outcome of a tool call, for the model to read.
type ToolResult struct {
	// CallID is the ToolCall.ID this result answers.
	CallID string
	// Name is the tool's name as the model knows it (some providers want it).
	Name string
	// Content is what the tool returned: text, image, audio and document parts.
	Content []Part
	// IsError says that the call failed; Content says why.
	IsError bool
}

// Message is one turn of a conversation.
type Message struct {
	// Role is who speaks.
	Role Role
	// Parts are the message's content, in order.
	Parts []Part
}

// UserText returns a user message holding text.
func UserText(text string) Message {
	return Message{Role: RoleUser, Parts: []Part{{Type: PartText, Text: text}}}
}

// Text returns the message's text parts joined.
func (m *Message) Text() string {
	var s string
	for _, p := range m.Parts {
		if p.Type == PartText {
			s += p.Text
		}
	}
	return s
}

// ToolCalls returns the message's tool calls, in order.
func (m *Message) ToolCalls() []*ToolCall {
	var calls []*ToolCall
	for _, p := range m.Parts {
		if p.Type == PartToolCall && p.ToolCall != nil {
			calls = append(calls, p.ToolCall)
		}
	}
	return calls
}

// Tool describes a tool the model may call.
type Tool struct {
	// Name is the tool's name for the model: ^[a-zA-Z0-9_-]{1,64}$ (see ToolName).
	Name string
	// Description tells the model what the tool does.
	Description string
	// InputSchema is the JSON Schema of the arguments, an object schema. A
	// provider maps it with MapSchema before sending it.
	InputSchema []byte
}

// ToolChoice says whether the model may, must or must not call tools.
type ToolChoice string

// Tool choices; the empty value is the provider's default (auto).
const (
	ToolChoiceAuto     ToolChoice = "auto"
	ToolChoiceRequired ToolChoice = "required"
	ToolChoiceNone     ToolChoice = "none"
)

// Request is one request to a model.
type Request struct {
	// Model names the model.
	Model string
	// System is the system prompt.
	System string
	// Messages is the conversation so far; the last one is normally the
	// user's.
	Messages []Message
	// Tools are the tools the model may call.
	Tools []Tool
	// ToolChoice constrains tool use; empty means the provider's default.
	ToolChoice ToolChoice
	// MaxTokens bounds the answer; zero means the provider's default.
	MaxTokens int
	// Temperature, when set, is the sampling temperature.
	Temperature *float64
	// StopSequences end the answer when the model writes one of them.
	StopSequences []string
}

// StopReason says why the model stopped.
type StopReason string

// Stop reasons. A provider's reason that has no equivalent here is passed on
// as it is.
const (
	// StopEndTurn: the model finished its answer.
	StopEndTurn StopReason = "end_turn"
	// StopToolUse: the model asks for tool calls.
	StopToolUse StopReason = "tool_use"
	// StopMaxTokens: the answer reached the token limit.
	StopMaxTokens StopReason = "max_tokens"
	// StopSequence: the model wrote a stop sequence.
	StopSequence StopReason = "stop_sequence"
	// StopRefusal: the provider's content filter or the model refused.
	StopRefusal StopReason = "refusal"
)

// Usage counts the tokens of one answer.
type Usage struct {
	// InputTokens is the prompt's size, cached tokens included.
	InputTokens int
	// OutputTokens is the answer's size.
	OutputTokens int
	// CacheReadTokens are input tokens read from the provider's prompt cache.
	CacheReadTokens int
	// CacheWriteTokens are input tokens written to the provider's prompt cache.
	CacheWriteTokens int
}

// Add returns u plus v.
func (u Usage) Add(v Usage) Usage {
	return Usage{
		InputTokens:      u.InputTokens + v.InputTokens,
		OutputTokens:     u.OutputTokens + v.OutputTokens,
		CacheReadTokens:  u.CacheReadTokens + v.CacheReadTokens,
		CacheWriteTokens: u.CacheWriteTokens + v.CacheWriteTokens,
	}
}

// String formats the usage as "N in, M out" (with the cache figures when
// there are any).
func (u Usage) String() string {
	s := strconv.Itoa(u.InputTokens) + " in, " + strconv.Itoa(u.OutputTokens) + " out"
	if u.CacheReadTokens > 0 || u.CacheWriteTokens > 0 {
		s += fmt.Sprintf(" (cache: %d read, %d written)", u.CacheReadTokens, u.CacheWriteTokens)
	}
	return s
}

// EventType discriminates streaming events.
type EventType uint8

// Event types, in the order a stream produces them: one EventStart, then
// text deltas and tool calls (each a start, argument fragments and an end),
// then usage and the stop reason.
const (
	// EventStart opens the answer; Model names the model that answers.
	EventStart EventType = iota + 1
	// EventTextDelta carries the next piece of the answer's text in Text.
	EventTextDelta
	// EventToolCallStart opens tool call number Index with its ID and Name.
	EventToolCallStart
	// EventToolCallDelta carries the next fragment of the arguments of tool
	// call Index in Text. Fragments end anywhere, even inside a JSON token.
	EventToolCallDelta
	// EventToolCallEnd closes tool call Index: its arguments are complete.
	EventToolCallEnd
	// EventUsage reports the answer's token usage so far in Usage; a later
	// usage event replaces an earlier one.
	EventUsage
	// EventStop ends the answer with StopReason.
	EventStop
)

// Event is one event of a streamed answer.
type Event struct {
	// Type says which fields are set.
	Type EventType
	// Index numbers the tool calls of the answer from 0.
	Index int
	// Text is a text delta or an arguments fragment.
	Text string
	// ID and Name identify a tool call at its start.
	ID, Name string
	// Model is the answering model, at the start.
	Model string
	// Usage is the token usage of an EventUsage.
	Usage Usage
	// StopReason is the reason of an EventStop.
	StopReason StopReason
}

// Provider sends requests to a language model.
type Provider interface {
	// Stream sends req and yields the events of the answer as they arrive. A
	// failure is yielded as an error, after which the sequence ends; breaking
	// out of the loop closes the connection.
	Stream(ctx context.Context, req *Request) iter.Seq2[Event, error]
}

// Response is an answer assembled from its events.
type Response struct {
	// Message is the assistant's message: text and tool calls.
	Message Message
	// StopReason says why the model stopped.
	StopReason StopReason
	// Usage is the answer's token usage.
	Usage Usage
	// Model names the model that answered.
	Model string
}

// Generate sends req to p and assembles the answer. onEvent, when not nil,
// sees each event as it arrives (to show the answer while it streams).
func Generate(ctx context.Context, p Provider, req *Request, onEvent func(Event)) (*Response, error) {
	var acc Accumulator
	for ev, err := range p.Stream(ctx, req) {
		if err != nil {
			return acc.Response(), err
		}
		if err := acc.Add(ev); err != nil {
			return acc.Response(), err
		}
		if onEvent != nil {
			onEvent(ev)
		}
	}
	if !acc.stopped {
		return acc.Response(), ErrIncomplete
	}
	return acc.Response(), nil
}

// ErrIncomplete means that a stream ended before its stop event: the
// connection was cut, or the provider sent a truncated stream.
var ErrIncomplete = errors.New("llm: the answer ended before the model stopped")

// APIError is an error the provider reported: an HTTP status with its error
// body, or an error event inside a stream (StatusCode 0).
type APIError struct {
	// Provider names the provider ("openai", "anthropic").
	Provider string
	// StatusCode is the HTTP status, or 0 for an error inside the stream.
	StatusCode int
	// Type is the provider's error type or code, when it gave one.
	Type string
	// Message is the provider's message, or the start of the body.
	Message string
}

// Error implements error.
func (e *APIError) Error() string {
	s := "llm: " + e.Provider
	if e.StatusCode != 0 {
		s += " answered HTTP " + strconv.Itoa(e.StatusCode)
	} else {
		s += " reported an error"
	}
	if e.Type != "" {
		s += " (" + e.Type + ")"
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}
