// Package host runs a language model over MCP tools: the agent loop of an
// MCP host. An [Agent] keeps a conversation; each [Agent.Run] adds the user's
// message and asks the model, streaming its answer; when the model asks for
// tools, the agent checks each call (a tool that does not exist, arguments
// that are not a JSON object), asks the approval hook, runs the approved
// calls through MCP — concurrently when the model asked for several at once —
// and gives the results back to the model, until it answers without tool
// calls or MaxSteps requests were made. Every failure of a call becomes an
// error result the model reads, and the loop goes on.
//
// [SamplingHandler] answers the sampling requests of MCP servers with the
// same model.
package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mcpkit/mcpkit/llm"
	"github.com/mcpkit/mcpkit/protocol"
)

// DefaultMaxSteps is the bound on model requests per Run when
// Options.MaxSteps is zero.
const DefaultMaxSteps = 20

// Options configure an Agent.
type Options struct {
	// Provider is the language model's API.
	Provider llm.Provider
	// Model names the model.
	Model string
	// System is the system prompt.
	System string
	// MaxSteps bounds the model requests of one Run; zero means
	// DefaultMaxSteps.
	MaxSteps int
	// MaxTokens bounds each answer; zero means the provider's default.
	MaxTokens int
	// Approve, when set, is asked before each tool call runs (one call at a
	// time, in the model's order); false declines it and the model is told.
	// Nil approves every call.
	Approve func(ctx context.Context, c *Call) (bool, error)
	// OnEvent, when set, sees the run as it happens: the answer's text as it
	// streams, tool calls and their results, the end of each step. Calls are
	// serialized, also while tools run concurrently.
	OnEvent func(Event)
	// Progress asks the servers for progress notifications of tool calls,
	// which OnEvent sees as EventToolProgress (a SessionSource passes the
	// request on; another ToolSource may ignore it).
	Progress bool
	// ToolSearch says whether the model gets every tool's definition or a
	// search over them (the zero value: every definition).
	ToolSearch ToolSearch
	// SearchThreshold is the estimated tokens (EstimateTokens) of all the
	// definitions above which ToolSearchAuto searches; zero means
	// DefaultSearchThreshold.
	SearchThreshold int
}

// Call is a tool call of the model, as the agent runs it.
type Call struct {
	// ID is the model's id for the call.
	ID string
	// Name is the tool's name for the model.
	Name string
	// Tool is the tool, when the name is known; nil for a call of the tool
	// search surface, which the agent answers itself without approval.
	Tool *Tool
	// Arguments is the JSON object sent to the tool.
	Arguments json.RawMessage
}

// EventType discriminates the events of a run.
type EventType uint8

// Event types.
const (
	// EventText carries a piece of the model's answer in Text.
	EventText EventType = iota + 1
	// EventToolCall: Call is about to run (it was approved).
	EventToolCall
	// EventToolResult: Call ended with Result (IsError when it failed, or
	// could not be made at all: an unknown tool, bad arguments, a refusal).
	EventToolResult
	// EventStep: a model request ended, with its Usage and StopReason.
	EventStep
	// EventToolProgress: the server of Call reported Progress (only with
	// Options.Progress).
	EventToolProgress
	// EventToolArguments: the model is writing the arguments of a tool
	// call; Text is their next fragment (empty at the call's start), cut
	// anywhere, even inside a JSON token. Call has the ID, Name and Tool (nil
	// for an unknown name) but no Arguments: EventToolCall, or a refusing
	// EventToolResult, follows with the complete ones.
	EventToolArguments
)

// Event is something that happened during a run.
type Event struct {
	// Type says which fields are set.
	Type EventType
	// Text is a piece of the answer (EventText), or of a tool call's
	// arguments (EventToolArguments).
	Text string
	// Call is the tool call of EventToolCall and EventToolResult.
	Call *Call
	// Result is the tool result of EventToolResult.
	Result *protocol.CallToolResult
	// Duration is how long the call took (EventToolResult).
	Duration time.Duration
	// NotRun says the call of an EventToolResult was never made: the host
	// refused it (an unknown tool, bad arguments, the user's refusal), and
	// Result says why.
	NotRun bool
	// Step numbers the model requests of the run from 1.
	Step int
	// Progress is the server's progress notification (EventToolProgress).
	Progress *protocol.ProgressParams
	// Usage and StopReason describe the model's answer (EventStep).
	Usage      llm.Usage
	StopReason llm.StopReason
}

// Result is the outcome of a Run.
type Result struct {
	// Text is the model's final answer.
	Text string
	// Steps is how many model requests were made.
	Steps int
	// Usage is the tokens of all of them.
	Usage llm.Usage
	// StopReason is why the model stopped last.
	StopReason llm.StopReason
}

// ErrMaxSteps is returned by Run when the model still asked for tools after
// MaxSteps requests. Its last tool calls were not run (the model is told so in
// their results), and the conversation can go on.
var ErrMaxSteps = errors.New("host: the model still wanted tools after the step limit")

// Agent is a conversation with a model over a set of tools. Its methods must
// not be called concurrently.
type Agent struct {
	opts     Options
	tools    ToolSource
	messages []llm.Message
	usage    llm.Usage
	evMu     sync.Mutex
	loaded   map[string]bool // tools whose definitions tool search loaded
	search   bool            // the last Run searched
}

// New returns an agent whose model uses the tools of src.
func New(src ToolSource, opts Options) *Agent {
	if opts.MaxSteps <= 0 {
		opts.MaxSteps = DefaultMaxSteps
	}
	if opts.SearchThreshold <= 0 {
		opts.SearchThreshold = DefaultSearchThreshold
	}
	return &Agent{opts: opts, tools: src, loaded: map[string]bool{}}
}

// Searching reports whether the last Run offered the model the tool search
// surface instead of every definition.
func (a *Agent) Searching() bool { return a.search }

// Messages returns the conversation so far.
func (a *Agent) Messages() []llm.Message { return a.messages }

// Resume replaces the conversation with msgs: a saved Messages, to go on
// from there.
func (a *Agent) Resume(msgs []llm.Message) { a.messages = msgs }

// Usage returns the tokens of every request so far.
func (a *Agent) Usage() llm.Usage { return a.usage }

func (a *Agent) emit(ev Event) {
	if a.opts.OnEvent == nil {
		return
	}
	a.evMu.Lock()
	defer a.evMu.Unlock()
	a.opts.OnEvent(ev)
}

// Run adds prompt to the conversation as the user's message and runs the
// model, and the tools it asks for, until it answers. It returns the answer;
// ErrMaxSteps when the step limit cut the run short; a provider's error
// (*llm.APIError, say) when a request failed — the conversation then holds
// what was done before the failure, and the next Run goes on from there.
func (a *Agent) Run(ctx context.Context, prompt string) (*Result, error) {
	a.messages = append(a.messages, llm.UserText(prompt))
	ts, err := a.toolset(ctx)
	if err != nil {
		return nil, err
	}
	res := &Result{}
	for step := 1; ; step++ {
		req := &llm.Request{Model: a.opts.Model, System: a.opts.System, Messages: a.messages, Tools: ts.definitions(a.loaded), MaxTokens: a.opts.MaxTokens}
		var writing map[int]*Call // the tool calls whose arguments stream, by index
		resp, err := llm.Generate(ctx, a.opts.Provider, req, func(ev llm.Event) {
			switch ev.Type {
			case llm.EventTextDelta:
				a.emit(Event{Type: EventText, Text: ev.Text, Step: step})
			case llm.EventToolCallStart:
				if a.opts.OnEvent == nil {
					return
				}
				if writing == nil {
					writing = map[int]*Call{}
				}
				c := &Call{ID: ev.ID, Name: ev.Name, Tool: ts.byName[ev.Name]}
				writing[ev.Index] = c
				a.emit(Event{Type: EventToolArguments, Call: c, Step: step})
			case llm.EventToolCallDelta:
				if c := writing[ev.Index]; c != nil {
					a.emit(Event{Type: EventToolArguments, Call: c, Text: ev.Text, Step: step})
				}
			}
		})
		res.Steps = step
		if err != nil {
			return res, err
		}
		res.Usage = res.Usage.Add(resp.Usage)
		a.usage = a.usage.Add(resp.Usage)
		res.StopReason = resp.StopReason
		a.emit(Event{Type: EventStep, Step: step, Usage: resp.Usage, StopReason: resp.StopReason})
		if len(resp.Message.Parts) > 0 {
			a.messages = append(a.messages, resp.Message)
		}
		calls := resp.Message.ToolCalls()
		if len(calls) == 0 {
			res.Text = resp.Message.Text()
			return res, nil
		}
		if step >= a.opts.MaxSteps {
			a.messages = append(a.messages, notRun(calls, fmt.Sprintf("not run: the host's limit of %d model requests per turn was reached", a.opts.MaxSteps)))
			return res, fmt.Errorf("%w (%d)", ErrMaxSteps, a.opts.MaxSteps)
		}
		results, err := a.runCalls(ctx, step, calls, ts)
		if err != nil {
			a.messages = append(a.messages, notRun(calls, "not run: "+err.Error()))
			return res, err
		}
		a.messages = append(a.messages, llm.Message{Role: llm.RoleUser, Parts: results})
	}
}

// notRun answers every call with the same error, so that the conversation
// stays well formed (each tool call has its result).
func notRun(calls []*llm.ToolCall, why string) llm.Message {
	m := llm.Message{Role: llm.RoleUser}
	for _, c := range calls {
		m.Parts = append(m.Parts, llm.Part{Type: llm.PartToolResult, ToolResult: &llm.ToolResult{CallID: c.ID, Name: c.Name, IsError: true,
			Content: []llm.Part{{Type: llm.PartText, Text: why}}}})
	}
	return m
}

// toolset is what the model may use in a Run: the tools it may see (app-only
// tools are not among them), their definitions, and the search over them when
// search is on.
type toolset struct {
	byName map[string]*Tool
	defs   []llm.Tool // every visible tool's, in the source's order
	names  []string   // defs' names
	search *searchIndex
}

func (a *Agent) toolset(ctx context.Context) (*toolset, error) {
	tools, err := a.tools.Tools(ctx)
	if err != nil {
		return nil, fmt.Errorf("host: listing the tools: %w", err)
	}
	ts := &toolset{byName: make(map[string]*Tool, len(tools))}
	var visible []*Tool
	for i := range tools {
		t := &tools[i]
		if !VisibleTo(&t.MCP, ForModel) {
			continue
		}
		visible = append(visible, t)
		ts.byName[t.Name] = t
		ts.defs = append(ts.defs, llm.ToolFromMCP(&t.MCP, t.Name))
		ts.names = append(ts.names, t.Name)
	}
	switch a.opts.ToolSearch {
	case ToolSearchOn:
		a.search = true
	case ToolSearchAuto:
		a.search = EstimateTokens(ts.defs) > a.opts.SearchThreshold
	default:
		a.search = false
	}
	if a.search {
		ts.search = newSearchIndex(visible)
	}
	return ts, nil
}

// definitions returns the tool definitions of the next request: every
// visible tool's, or with search on the surface and the loaded tools'.
func (ts *toolset) definitions(loaded map[string]bool) []llm.Tool {
	if ts.search == nil {
		return ts.defs
	}
	out := ts.search.surface()
	for i, n := range ts.names {
		if loaded[n] {
			out = append(out, ts.defs[i])
		}
	}
	return out
}
