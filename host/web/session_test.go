package web

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/llm"
)

// A conversation the terminal host saved (WriteSession, its turns added with
// AddTurn) goes on in the page: the model's messages resumed, the turns
// shown as the page's own events.
func TestPageResumesTerminalSession(t *testing.T) {
	file := filepath.Join(t.TempDir(), "chat.json")
	sv := &SavedSession{Messages: []llm.Message{llm.UserText("[Attached resource demo://readme from demo]\nhi\n\nwhat is it?"),
		{Role: llm.RoleAssistant, Parts: []llm.Part{{Type: llm.PartText, Text: "a demo"}}}}}
	sv.AddTurn("what is it?", []string{"demo demo://readme"}, "a demo", 1, llm.Usage{InputTokens: 10, OutputTokens: 2})
	if err := WriteSession(file, sv); err != nil {
		t.Fatal(err)
	}
	s, err := New(Options{SessionFile: file})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.agent.Messages(); len(got) != 2 || got[1].Text() != "a demo" {
		t.Fatalf("messages %v", got)
	}
	evs, _, _ := s.hub.since(0)
	var all []string
	for _, e := range evs {
		all = append(all, string(e))
	}
	want := []string{`{"type":"user","text":"what is it?","attached":["demo demo://readme"]}`, `{"type":"text","text":"a demo"}`, `{"type":"turn","text":"a demo","step":1,"usage":{"in":10,"out":2}}`}
	if strings.Join(all, "\n") != strings.Join(want, "\n") {
		t.Errorf("the page's events:\n%s", strings.Join(all, "\n"))
	}
}
