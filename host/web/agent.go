package web

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/mcpkit/mcpkit/host"
	"github.com/mcpkit/mcpkit/llm"
	"github.com/mcpkit/mcpkit/protocol"
)

// event is what the page receives, one per SSE message.
type event struct {
	Type string `json:"type"` // user text call approve result step turn view error
	Text string `json:"text,omitempty"`
	// ID is the tool call's id (call, approve, result, view), or the
	// approval's (approve: Approval).
	ID       string          `json:"id,omitempty"`
	Approval string          `json:"approval,omitempty"`
	Name     string          `json:"name,omitempty"`
	Server   string          `json:"server,omitempty"`
	Args     json.RawMessage `json:"args,omitempty"`
	Result   any             `json:"result,omitempty"`
	IsError  bool            `json:"isError,omitempty"`
	Millis   int64           `json:"ms,omitempty"`
	Step     int             `json:"step,omitempty"`
	Usage    *usage          `json:"usage,omitempty"`
	View     *viewEvent      `json:"view,omitempty"`
	Progress *progress       `json:"progress,omitempty"`
	// Attached names the resources attached to a user message (server uri).
	Attached []string `json:"attached,omitempty"`
	// HasView says a result has a view coming.
	HasView bool `json:"hasView,omitempty"`
	// Cancelled says why the call of a result was never made, or did not
	// end (ui/notifications/tool-cancelled for its view).
	Cancelled string `json:"cancelled,omitempty"`
}

// writingCall is a tool call with a view whose arguments the model is
// writing: its view is opened at once and hears the arguments as they come
// (ui/notifications/tool-input-partial).
type writingCall struct {
	args    strings.Builder
	last    string // the arguments last sent to the page
	lastLen int    // the length of args then
	sent    int    // partial arguments sent to the page
	over    bool   // past maxPartial: no more partial arguments
}

// Partial arguments go to the page when they change and the new fragment
// ends a token (a quote, a comma, a bracket) or partialStep bytes came
// since; at most maxPartialEvents per call.
const (
	partialStep      = 64
	maxPartialEvents = 200
)

// progress is a tool call's progress notification for the page.
type progress struct {
	Progress float64 `json:"progress"`
	Total    float64 `json:"total,omitempty"`
	Message  string  `json:"message,omitempty"`
}

// usage is llm.Usage for the page.
type usage struct {
	In  int `json:"in"`
	Out int `json:"out"`
}

func usageOf(u llm.Usage) *usage { return &usage{In: u.InputTokens, Out: u.OutputTokens} }

// send runs one turn of the agent with text as the user's message, after
// attached (the attached resources' text); false when a turn is already
// running.
func (s *Server) send(ctx context.Context, text, attached string, names []string) bool {
	s.mu.Lock()
	if s.busy {
		s.mu.Unlock()
		return false
	}
	s.busy = true
	clear(s.writing)
	var extra []string
	for id, c := range s.context {
		if v := s.views[id]; v != nil {
			extra = append(extra, "[Context from the view of "+v.tool+"]\n"+c)
		}
	}
	clear(s.context)
	s.mu.Unlock()
	s.hub.publish(event{Type: "user", Text: text, Attached: names})
	if attached != "" {
		extra = append(extra, strings.TrimSpace(attached))
	}
	prompt := text
	if len(extra) > 0 {
		prompt = strings.Join(extra, "\n\n") + "\n\n" + text
	}
	tctx, stop := context.WithCancel(ctx)
	s.mu.Lock()
	s.turn, s.stop = tctx, stop
	s.mu.Unlock()
	go func() {
		defer stop()
		res, err := s.agent.Run(tctx, prompt)
		ev := event{Type: "turn"}
		if res != nil {
			ev.Text, ev.Step, ev.Usage = res.Text, res.Steps, usageOf(res.Usage)
		}
		switch {
		case err != nil && tctx.Err() != nil && ctx.Err() == nil:
			s.hub.publish(event{Type: "error", Text: "you stopped the turn"})
		case err != nil:
			s.hub.publish(event{Type: "error", Text: err.Error()})
		}
		if err := s.save(); err != nil {
			s.hub.publish(event{Type: "error", Text: "saving the conversation: " + err.Error()})
		}
		s.mu.Lock()
		s.busy = false
		s.mu.Unlock()
		s.hub.publish(ev)
	}()
	return true
}

// approve asks the page about a tool call (host.Options.Approve).
func (s *Server) approve(ctx context.Context, c *host.Call) (bool, error) {
	s.mu.Lock()
	if s.opts.Yes || s.always[c.Name] {
		s.mu.Unlock()
		return true, nil
	}
	id := randomID()
	ch := make(chan string, 1)
	s.pending[id] = ch
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.pending, id)
		s.mu.Unlock()
	}()
	s.hub.publish(event{Type: "approve", ID: c.ID, Approval: id, Name: c.Name, Args: c.Arguments})
	select {
	case d := <-ch:
		if d == "always" {
			s.mu.Lock()
			s.always[c.Name] = true
			s.mu.Unlock()
		}
		return d == "allow" || d == "always", nil
	case <-ctx.Done():
		return false, ctx.Err()
	}
}

// decide answers the approval id; false when nothing waits for it.
func (s *Server) decide(id, decision string) bool {
	s.mu.Lock()
	ch, ok := s.pending[id]
	s.mu.Unlock()
	if !ok {
		return false
	}
	select {
	case ch <- decision:
		return true
	default:
		return false
	}
}

// onEvent turns the agent's events into the page's (host.Options.OnEvent).
func (s *Server) onEvent(ev host.Event) {
	switch ev.Type {
	case host.EventText:
		s.hub.publish(event{Type: "text", Text: ev.Text})
	case host.EventToolCall:
		s.hub.publish(event{Type: "call", ID: ev.Call.ID, Name: ev.Call.Name, Args: ev.Call.Arguments})
	case host.EventToolArguments:
		s.toolArguments(ev.Call, ev.Text)
	case host.EventToolResult:
		out := event{Type: "result", ID: ev.Call.ID, Name: ev.Call.Name, Result: ev.Result,
			IsError: ev.Result.IsError, Millis: ev.Duration.Milliseconds()}
		switch {
		case ev.NotRun:
			out.Cancelled = "the host did not make the call: " + resultText(ev.Result)
		}
		s.mu.Lock()
		if out.Cancelled == "" && s.turn != nil && s.turn.Err() != nil {
			out.Cancelled = "the turn was stopped while the call ran"
		}
		_, opened := s.writing[ev.Call.ID]
		delete(s.writing, ev.Call.ID)
		s.mu.Unlock()
		var uri string
		if !opened && ev.Call.Tool != nil && !ev.Result.IsError {
			if uri = host.ViewOf(&ev.Call.Tool.MCP); strings.HasPrefix(uri, "ui://") {
				out.HasView = true
			}
		}
		s.hub.publish(out)
		if out.HasView { // after the result: the page shows the view in its card
			go s.openView(ev.Call.ID, ev.Call.Tool, uri)
		}
	case host.EventToolProgress:
		s.hub.publish(event{Type: "progress", ID: ev.Call.ID, Name: ev.Call.Name, Progress: &progress{
			Progress: ev.Progress.Progress, Total: ev.Progress.Total, Message: ev.Progress.Message}})
	case host.EventStep:
		s.hub.publish(event{Type: "step", Step: ev.Step, Usage: usageOf(ev.Usage)})
	}
}

// toolArguments takes a fragment of the arguments of a call that the model
// is writing. A call of a tool with a view opens the view at its start; the
// page gets the arguments recovered so far as they change (see partialStep),
// up to maxPartial bytes.
func (s *Server) toolArguments(call *host.Call, fragment string) {
	if call.Tool == nil {
		return
	}
	uri := host.ViewOf(&call.Tool.MCP)
	if !strings.HasPrefix(uri, "ui://") {
		return
	}
	s.mu.Lock()
	w := s.writing[call.ID]
	if w == nil {
		w = &writingCall{}
		s.writing[call.ID] = w
		s.mu.Unlock()
		go s.openView(call.ID, call.Tool, uri)
		s.mu.Lock()
	}
	defer s.mu.Unlock()
	if w.over || fragment == "" {
		return
	}
	if w.args.Len()+len(fragment) > maxPartial || w.sent >= maxPartialEvents {
		w.over = true
		return
	}
	w.args.WriteString(fragment)
	if !strings.ContainsAny(fragment, `",]}`) && w.args.Len()-w.lastLen < partialStep {
		return
	}
	args, ok := closeJSON(w.args.String())
	if !ok || string(args) == w.last {
		return
	}
	w.last, w.lastLen = string(args), w.args.Len()
	w.sent++
	s.hub.publish(event{Type: "args", ID: call.ID, Name: call.Name, Args: args})
}

// resultText is the text of a result's text blocks.
func resultText(r *protocol.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if c.Type == "text" {
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(c.Text)
		}
	}
	return b.String()
}

// stopTurn cancels the running turn: its model request, approvals and tool
// calls (their servers are told), whose views hear tool-cancelled; false
// when no turn runs.
func (s *Server) stopTurn() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.busy || s.stop == nil {
		return false
	}
	s.stop()
	return true
}
