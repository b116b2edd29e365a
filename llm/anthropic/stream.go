package anthropic

import (
	"encoding/json"
	"fmt"

	"github.com/mcpkit/mcpkit/internal/sse"
	"github.com/mcpkit/mcpkit/llm"
	"github.com/mcpkit/mcpkit/llm/internal/wire"
)

// streamEvent is the data of one Messages streaming event; its fields are
// those of every event type, discriminated by Type.
type streamEvent struct {
	Type         string          `json:"type"`
	Message      *startMessage   `json:"message"`
	Index        int             `json:"index"`
	ContentBlock *startBlock     `json:"content_block"`
	Delta        json.RawMessage `json:"delta"`
	Usage        *usage          `json:"usage"`
}

type startMessage struct {
	Model string `json:"model"`
	Usage usage  `json:"usage"`
}

type startBlock struct {
	Type  string          `json:"type"`
	Text  string          `json:"text"`
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

type blockDelta struct {
	Type        string `json:"type"`
	Text        string `json:"text"`
	PartialJSON string `json:"partial_json"`
	StopReason  string `json:"stop_reason"`
}

// usage is the usage object of message_start and message_delta; message_delta
// carries cumulative counts, and only those it has.
type usage struct {
	InputTokens              *int `json:"input_tokens"`
	OutputTokens             *int `json:"output_tokens"`
	CacheCreationInputTokens *int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     *int `json:"cache_read_input_tokens"`
}

// decoder turns Messages streaming events into llm events.
type decoder struct {
	blocks              map[int]*blockState // by content block index
	calls               int                 // tool calls started
	in, out, cacheWrite int
	cacheRead           int
	stop                string
}

// blockState is an open content block: text, or a tool call (call is its
// number among the answer's tool calls), or a kind this client ignores
// (thinking, server tools).
type blockState struct {
	kind  string
	call  int
	input json.RawMessage // a tool_use's input given whole at its start
	delta bool            // input_json_delta events came
}

var _ wire.Decoder = (*decoder)(nil)

// Event implements wire.Decoder.
func (d *decoder) Event(ev sse.Event, yield func(llm.Event) bool) (bool, error) {
	var e streamEvent
	if err := json.Unmarshal(ev.Data, &e); err != nil {
		return false, fmt.Errorf("llm: anthropic: a %q event is not JSON: %w (%.200s)", ev.Type, err, ev.Data)
	}
	switch e.Type {
	case "message_start":
		if e.Message == nil {
			return false, fmt.Errorf("llm: anthropic: message_start without a message")
		}
		d.takeUsage(&e.Message.Usage)
		return !yield(llm.Event{Type: llm.EventStart, Model: e.Message.Model}), nil
	case "content_block_start":
		if e.ContentBlock == nil {
			return false, fmt.Errorf("llm: anthropic: content_block_start %d without a block", e.Index)
		}
		b := &blockState{kind: e.ContentBlock.Type}
		d.blocks[e.Index] = b
		switch b.kind {
		case "text":
			if e.ContentBlock.Text != "" {
				return !yield(llm.Event{Type: llm.EventTextDelta, Text: e.ContentBlock.Text}), nil
			}
		case "tool_use":
			b.call = d.calls
			b.input = e.ContentBlock.Input
			d.calls++
			return !yield(llm.Event{Type: llm.EventToolCallStart, Index: b.call, ID: e.ContentBlock.ID, Name: e.ContentBlock.Name}), nil
		}
	case "content_block_delta":
		b := d.blocks[e.Index]
		if b == nil {
			return false, fmt.Errorf("llm: anthropic: content_block_delta for block %d, which never started", e.Index)
		}
		var delta blockDelta
		if err := json.Unmarshal(e.Delta, &delta); err != nil {
			return false, fmt.Errorf("llm: anthropic: content_block_delta: %w", err)
		}
		switch {
		case delta.Type == "text_delta" && b.kind == "text" && delta.Text != "":
			return !yield(llm.Event{Type: llm.EventTextDelta, Text: delta.Text}), nil
		case delta.Type == "input_json_delta" && b.kind == "tool_use" && delta.PartialJSON != "":
			b.delta = true
			return !yield(llm.Event{Type: llm.EventToolCallDelta, Index: b.call, Text: delta.PartialJSON}), nil
		}
	case "content_block_stop":
		b := d.blocks[e.Index]
		delete(d.blocks, e.Index)
		if b != nil && b.kind == "tool_use" {
			// Streams send the input in fragments after an empty {}; one that
			// came whole at the start is passed on as one fragment.
			if in := string(b.input); !b.delta && in != "" && in != "{}" {
				if !yield(llm.Event{Type: llm.EventToolCallDelta, Index: b.call, Text: in}) {
					return true, nil
				}
			}
			return !yield(llm.Event{Type: llm.EventToolCallEnd, Index: b.call}), nil
		}
	case "message_delta":
		var delta blockDelta
		if len(e.Delta) > 0 {
			if err := json.Unmarshal(e.Delta, &delta); err != nil {
				return false, fmt.Errorf("llm: anthropic: message_delta: %w", err)
			}
		}
		if delta.StopReason != "" {
			d.stop = delta.StopReason
		}
		if e.Usage != nil {
			d.takeUsage(e.Usage)
		}
	case "message_stop":
		return true, d.end(yield)
	case "error":
		return false, wire.ParseError("anthropic", 0, ev.Data)
	}
	return false, nil // ping, and event types added later
}

// takeUsage keeps the counts u has.
func (d *decoder) takeUsage(u *usage) {
	for _, f := range []struct {
		v   *int
		dst *int
	}{{u.InputTokens, &d.in}, {u.OutputTokens, &d.out}, {u.CacheCreationInputTokens, &d.cacheWrite}, {u.CacheReadInputTokens, &d.cacheRead}} {
		if f.v != nil {
			*f.dst = *f.v
		}
	}
}

// end yields the usage and the stop reason.
func (d *decoder) end(yield func(llm.Event) bool) error {
	if d.stop == "" {
		return fmt.Errorf("llm: anthropic: the message stopped without a stop_reason: %w", llm.ErrIncomplete)
	}
	u := llm.Usage{InputTokens: d.in + d.cacheRead + d.cacheWrite, OutputTokens: d.out,
		CacheReadTokens: d.cacheRead, CacheWriteTokens: d.cacheWrite}
	if !yield(llm.Event{Type: llm.EventUsage, Usage: u}) {
		return nil
	}
	yield(llm.Event{Type: llm.EventStop, StopReason: stopReason(d.stop)})
	return nil
}

// End implements wire.Decoder: the body ended before message_stop.
func (d *decoder) End(yield func(llm.Event) bool) error {
	return fmt.Errorf("llm: anthropic: the stream ended before message_stop: %w", llm.ErrIncomplete)
}

// stopReason maps the API's stop_reason.
func stopReason(s string) llm.StopReason {
	switch s {
	case "end_turn":
		return llm.StopEndTurn
	case "tool_use":
		return llm.StopToolUse
	case "max_tokens":
		return llm.StopMaxTokens
	case "stop_sequence":
		return llm.StopSequence
	case "refusal":
		return llm.StopRefusal
	}
	return llm.StopReason(s)
}
