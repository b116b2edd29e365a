package llm

import (
	"fmt"
	"strings"
)

// Accumulator assembles a streamed answer from its events. The zero value is
// ready to use.
type Accumulator struct {
	parts   []Part
	text    strings.Builder // the text part being streamed
	inText  bool
	calls   map[int]*callState // by event Index
	stop    StopReason
	usage   Usage
	model   string
	stopped bool
}

type callState struct {
	part  int // index in parts
	args  strings.Builder
	ended bool
}

// Add takes the next event. It fails on an event that contradicts the
// earlier ones (a fragment or an end for a tool call that never started).
func (a *Accumulator) Add(ev Event) error {
	switch ev.Type {
	case EventStart:
		a.model = ev.Model
	case EventTextDelta:
		if !a.inText {
			a.parts = append(a.parts, Part{Type: PartText})
			a.inText = true
		}
		a.text.WriteString(ev.Text)
		a.parts[len(a.parts)-1].Text = a.text.String()
	case EventToolCallStart:
		a.endText()
		if a.calls == nil {
			a.calls = make(map[int]*callState)
		}
		if _, dup := a.calls[ev.Index]; dup {
			return fmt.Errorf("llm: tool call %d started twice", ev.Index)
		}
		a.parts = append(a.parts, Part{Type: PartToolCall, ToolCall: &ToolCall{ID: ev.ID, Name: ev.Name}})
		a.calls[ev.Index] = &callState{part: len(a.parts) - 1}
	case EventToolCallDelta, EventToolCallEnd:
		c := a.calls[ev.Index]
		if c == nil {
			return fmt.Errorf("llm: arguments for tool call %d, which never started", ev.Index)
		}
		if ev.Type == EventToolCallEnd {
			c.ended = true
			return nil
		}
		c.args.WriteString(ev.Text)
		a.parts[c.part].ToolCall.Arguments = c.args.String()
	case EventUsage:
		a.usage = ev.Usage
	case EventStop:
		a.endText()
		a.stop = ev.StopReason
		a.stopped = true
	}
	return nil
}

// endText closes the text part being streamed: later text starts a new part.
func (a *Accumulator) endText() {
	if a.inText {
		a.inText = false
		a.text.Reset()
	}
}

// Response returns the answer assembled so far.
func (a *Accumulator) Response() *Response {
	parts := make([]Part, len(a.parts))
	copy(parts, a.parts)
	return &Response{
		Message:    Message{Role: RoleAssistant, Parts: parts},
		StopReason: a.stop,
		Usage:      a.usage,
		Model:      a.model,
	}
}
