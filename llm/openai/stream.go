package openai

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/mcpkit/mcpkit/internal/sse"
	"github.com/mcpkit/mcpkit/llm"
	"github.com/mcpkit/mcpkit/llm/internal/wire"
)

// chunk is one chat.completion.chunk (or an error object, which some servers
// send inside the stream).
type chunk struct {
	ID      string          `json:"id"`
	Model   string          `json:"model"`
	Choices []chunkChoice   `json:"choices"`
	Usage   *chunkUsage     `json:"usage"`
	Error   json.RawMessage `json:"error"`
}

type chunkChoice struct {
	Index        int        `json:"index"`
	Delta        chunkDelta `json:"delta"`
	FinishReason *string    `json:"finish_reason"`
}

type chunkDelta struct {
	Content   *string         `json:"content"`
	Refusal   *string         `json:"refusal"`
	ToolCalls []toolCallDelta `json:"tool_calls"`
}

type toolCallDelta struct {
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type chunkUsage struct {
	PromptTokens        int `json:"prompt_tokens"`
	CompletionTokens    int `json:"completion_tokens"`
	PromptTokensDetails *struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
}

// decoder turns chat.completion.chunk events into llm events.
type decoder struct {
	started bool
	calls   []*pendingCall // in the order the model started them
	finish  string         // the finish_reason, once seen
	refusal bool
	usage   *llm.Usage
}

// pendingCall is a tool call being streamed. Its start is held back until its
// name is known (some servers send the name after the first fragment), with
// the fragments that came meanwhile.
type pendingCall struct {
	wireIndex int // the index the server gave it
	id, name  string
	held      bytes.Buffer
	started   bool
	ended     bool
}

var _ wire.Decoder = (*decoder)(nil)

// Event implements wire.Decoder.
func (d *decoder) Event(ev sse.Event, yield func(llm.Event) bool) (bool, error) {
	data := bytes.TrimSpace(ev.Data)
	if string(data) == "[DONE]" {
		return true, d.end(yield)
	}
	if len(data) == 0 {
		return false, nil
	}
	var c chunk
	if err := json.Unmarshal(data, &c); err != nil {
		return false, fmt.Errorf("llm: openai: a stream event is not a chunk: %w (%.200s)", err, data)
	}
	if len(c.Error) > 0 && string(c.Error) != "null" {
		return false, wire.ParseError("openai", 0, data)
	}
	if !d.started {
		d.started = true
		if !yield(llm.Event{Type: llm.EventStart, Model: c.Model}) {
			return true, nil
		}
	}
	if c.Usage != nil {
		u := llm.Usage{InputTokens: c.Usage.PromptTokens, OutputTokens: c.Usage.CompletionTokens}
		if c.Usage.PromptTokensDetails != nil {
			u.CacheReadTokens = c.Usage.PromptTokensDetails.CachedTokens
		}
		d.usage = &u
	}
	for _, ch := range c.Choices {
		if ch.Index != 0 {
			continue // one answer is asked for (n=1)
		}
		if t := ch.Delta.Content; t != nil && *t != "" {
			if !yield(llm.Event{Type: llm.EventTextDelta, Text: *t}) {
				return true, nil
			}
		}
		if t := ch.Delta.Refusal; t != nil && *t != "" {
			d.refusal = true
			if !yield(llm.Event{Type: llm.EventTextDelta, Text: *t}) {
				return true, nil
			}
		}
		for i := range ch.Delta.ToolCalls {
			if !d.toolCall(&ch.Delta.ToolCalls[i], yield) {
				return true, nil
			}
		}
		if ch.FinishReason != nil && *ch.FinishReason != "" {
			d.finish = *ch.FinishReason
		}
	}
	return false, nil
}

// toolCall takes one tool-call fragment. The server's index says which call
// it continues; a fragment with an index already in use but a new id starts a
// new call (servers that number every call 0), and one without an index
// continues the last call unless its id is new.
func (d *decoder) toolCall(tc *toolCallDelta, yield func(llm.Event) bool) bool {
	var call *pendingCall
	for _, c := range d.calls {
		if tc.Index != nil && c.wireIndex == *tc.Index && (tc.ID == "" || tc.ID == c.id) {
			call = c
		}
	}
	if call == nil && tc.Index == nil && len(d.calls) > 0 {
		if last := d.calls[len(d.calls)-1]; tc.ID == "" || tc.ID == last.id {
			call = last
		}
	}
	if call == nil {
		// A new call: the ones before it are complete.
		for _, c := range d.calls {
			if !d.endCall(c, yield) {
				return false
			}
		}
		call = &pendingCall{wireIndex: len(d.calls), id: tc.ID}
		if tc.Index != nil {
			call.wireIndex = *tc.Index
		}
		d.calls = append(d.calls, call)
	}
	n := len(d.calls) - 1
	for i, c := range d.calls {
		if c == call {
			n = i
		}
	}
	if call.id == "" {
		call.id = tc.ID
	}
	call.name += tc.Function.Name
	if !call.started {
		call.held.WriteString(tc.Function.Arguments)
		if call.name == "" {
			return true
		}
		return d.startCall(n, call, yield)
	}
	if tc.Function.Arguments == "" {
		return true
	}
	return yield(llm.Event{Type: llm.EventToolCallDelta, Index: n, Text: tc.Function.Arguments})
}

// startCall yields the start of call number n and the fragments held back.
func (d *decoder) startCall(n int, c *pendingCall, yield func(llm.Event) bool) bool {
	c.started = true
	if c.id == "" {
		c.id = fmt.Sprintf("call_%d", n)
	}
	if !yield(llm.Event{Type: llm.EventToolCallStart, Index: n, ID: c.id, Name: c.name}) {
		return false
	}
	if c.held.Len() > 0 {
		args := c.held.String()
		c.held.Reset()
		return yield(llm.Event{Type: llm.EventToolCallDelta, Index: n, Text: args})
	}
	return true
}

// endCall yields the end of a call, starting it first if its name never came.
func (d *decoder) endCall(c *pendingCall, yield func(llm.Event) bool) bool {
	if c.ended {
		return true
	}
	n := 0
	for i, x := range d.calls {
		if x == c {
			n = i
		}
	}
	if !c.started && !d.startCall(n, c, yield) {
		return false
	}
	c.ended = true
	return yield(llm.Event{Type: llm.EventToolCallEnd, Index: n})
}

// end closes the answer: open tool calls, usage, stop reason.
func (d *decoder) end(yield func(llm.Event) bool) error {
	if d.finish == "" {
		return fmt.Errorf("llm: openai: the stream ended without a finish_reason: %w", llm.ErrIncomplete)
	}
	for _, c := range d.calls {
		if !d.endCall(c, yield) {
			return nil
		}
	}
	if d.usage != nil && !yield(llm.Event{Type: llm.EventUsage, Usage: *d.usage}) {
		return nil
	}
	yield(llm.Event{Type: llm.EventStop, StopReason: d.stopReason()})
	return nil
}

// End implements wire.Decoder: a stream cut after its finish_reason (some
// servers omit [DONE]) is complete.
func (d *decoder) End(yield func(llm.Event) bool) error { return d.end(yield) }

// stopReason maps the finish_reason.
func (d *decoder) stopReason() llm.StopReason {
	switch d.finish {
	case "tool_calls", "function_call":
		return llm.StopToolUse
	case "stop":
		if len(d.calls) > 0 {
			return llm.StopToolUse // some compatible servers say "stop" after tool calls
		}
		if d.refusal {
			return llm.StopRefusal
		}
		return llm.StopEndTurn
	case "length":
		return llm.StopMaxTokens
	case "content_filter":
		return llm.StopRefusal
	}
	return llm.StopReason(d.finish)
}
