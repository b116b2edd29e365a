package web

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/ext/apps"
	"github.com/mcpkit/mcpkit/host"
	"github.com/mcpkit/mcpkit/internal/llmtest"
	"github.com/mcpkit/mcpkit/llm/openai"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport/memory"
)

// TestStopCancelsTheCall: a call of a tool with a view opens the view while
// the model writes it and shows its arguments so far; stopping the turn
// while the call runs cancels it at its server, and its result says it was
// cancelled (which the page passes to the view as tool-cancelled); the turn
// ends saying it was stopped.
func TestStopCancelsTheCall(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	srv := mcp.NewServer(mcp.Implementation{Name: "lab", Version: "1"}, &mcp.ServerOptions{Middleware: []mcp.Middleware{apps.Middleware()}})
	const uri = "ui://lab/wait.html"
	running, cancelled := make(chan struct{}), make(chan struct{})
	for _, err := range []error{
		apps.AddResource(srv, &apps.Resource{URI: uri, Name: "wait", HTML: "<p>waiting</p>"}),
		apps.AddRawTool(srv, &protocol.Tool{Name: "wait", Description: "Waits.", InputSchema: protocol.DefaultInputSchema}, apps.ToolMeta{ResourceURI: uri},
			func(ctx context.Context, _ *mcp.ToolRequest) (*protocol.CallToolResult, error) {
				close(running)
				<-ctx.Done()
				close(cancelled)
				return nil, ctx.Err()
			}),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	c, sc := memory.NewPair()
	if _, err := srv.Connect(t.Context(), sc); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(protocol.Implementation{Name: "web-test", Version: "1"},
		&mcp.ClientOptions{Extensions: map[string]map[string]any{apps.ExtensionID: apps.ClientSettings()}}).Connect(t.Context(), c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	model := llmtest.NewOpenAI(t, "sk-test", llmtest.Reply{Body: llmtest.OpenAI("", llmtest.Call{ID: "w1", Name: "wait", Args: `{"reason":"a long one"}`})})
	s, err := New(Options{Provider: openai.New(openai.Options{BaseURL: model.BaseURL(), APIKey: "sk-test", MaxRetries: -1}), Model: "m", Yes: true,
		Source: host.NewSessionSource(host.Server{Name: "lab", Session: func(context.Context) (*mcp.ClientSession, error) { return cs, nil }})})
	if err != nil {
		t.Fatal(err)
	}
	if s.stopTurn() {
		t.Error("stopped a turn when none ran")
	}
	if !s.send(t.Context(), "wait", "", nil) {
		t.Fatal("not sent")
	}
	select {
	case <-running:
	case <-ctx.Done():
		t.Fatal("the call never ran")
	}
	if !s.stopTurn() {
		t.Fatal("no turn to stop")
	}
	select {
	case <-cancelled: // the server's handler saw the cancellation
	case <-ctx.Done():
		t.Fatal("the server never heard the call was cancelled")
	}

	// The page's events, until the turn ended and the view (read by its own
	// goroutine) opened.
	wake := s.hub.subscribe()
	defer s.hub.unsubscribe(wake)
	var evs []event
	seen := map[string]bool{}
	for from := 0; !seen["turn"] || !seen["view"]; {
		got, next, _ := s.hub.since(from)
		for _, b := range got {
			var ev event
			if err := json.Unmarshal(b, &ev); err != nil {
				t.Fatal(err)
			}
			evs = append(evs, ev)
			seen[ev.Type] = true
		}
		from = next
		if seen["turn"] && seen["view"] {
			break
		}
		select {
		case <-wake:
		case <-ctx.Done():
			t.Fatalf("the turn never ended, or the view never opened: %+v", evs)
		}
	}
	var args []string
	var result *event
	view, stopped := false, false
	for i, ev := range evs {
		switch ev.Type {
		case "args":
			args = append(args, string(ev.Args))
		case "view":
			view = ev.View != nil && ev.View.URI == uri && ev.ID == "w1"
		case "result":
			result = &evs[i]
		case "error":
			stopped = ev.Text == "you stopped the turn"
		}
	}
	if len(args) == 0 || args[len(args)-1] != `{"reason":"a long one"}` || args[0] != `{}` {
		t.Errorf("the arguments as they were written: %q", args)
	}
	if !view {
		t.Errorf("no view opened for the call: %+v", evs)
	}
	if result == nil || result.Cancelled != "the turn was stopped while the call ran" {
		t.Errorf("the call's result: %+v", result)
	}
	if !stopped {
		t.Errorf("the turn did not say it was stopped: %+v", evs)
	}
}
