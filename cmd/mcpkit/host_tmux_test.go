//go:build unix

package main

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/internal/llmtest"
	"github.com/mcpkit/mcpkit/internal/testkit"
)

// TestHostInTerminal runs the terminal host in a real terminal (tmux) with a
// scripted model: a message that attaches the demo's readme (@server:uri),
// then /prompt greet, whose answer calls a tool. The screens are logged (go
// test -v), the coloured one with its escape codes, to be looked at.
func TestHostInTerminal(t *testing.T) {
	ctx := testkit.Context(t)
	srv := llmtest.NewOpenAI(t, "sk-test",
		llmtest.Reply{Body: llmtest.OpenAI("The readme says it is the mcpkit demo server."), Check: func(t testing.TB, body map[string]any) {
			if got := lastUserText(body); !strings.Contains(got, "mcpkit demo server: every MCP feature in one place.") {
				t.Errorf("the readme was not attached:\n%s", got)
			}
		}},
		llmtest.Reply{Body: llmtest.OpenAI("", llmtest.Call{ID: "c1", Name: "add", Args: `{"a":40,"b":2}`}), Check: func(t testing.TB, body map[string]any) {
			if got := lastUserText(body); got != "Greet Ada in a casual style." {
				t.Errorf("the prompt sent: %q", got)
			}
		}},
		llmtest.Reply{Body: llmtest.OpenAI("Hello Ada! 40 + 2 = 42.")})
	s := startTmux(t, ctx, "OPENAI_API_KEY=sk-test OPENAI_BASE_URL="+srv.BaseURL()+" "+mcpkitBin+" host --model openai:gpt-4o --yes --server '"+mcpkitBin+" serve'")
	s.waitText("mcpkit host: openai:gpt-4o, ", "Ctrl-D to quit.\n>")
	s.keys("What is in @mcpkit:demo://readme?", "Enter")
	screen := s.waitText("attached demo://readme from mcpkit", "The readme says it is the mcpkit demo server.")
	t.Logf("after the attachment:\n%s", screen)
	s.keys(`/prompt greet {"name":"Ada"}`, "Enter")
	screen = s.waitText("│ Greet Ada in a casual style.", `→ add {"a":40,"b":2}`, `← add: {"sum":42}`, "Hello Ada! 40 + 2 = 42.")
	t.Logf("after /prompt:\n%s", screen)
	coloured := s.tmux("capture-pane", "-p", "-e")
	t.Logf("with its escape codes:\n%q", coloured)
	for _, want := range []string{"\x1b[36m→ add", "\x1b[32m← add", "\x1b[2mattached demo://readme", "\x1b[1m>"} {
		if !strings.Contains(coloured, want) {
			t.Errorf("no %q on the screen", want)
		}
	}
	s.keys("C-d")
	s.waitFor("the host quits", func(string) bool {
		return exec.Command("tmux", "-S", s.socket, "has-session").Run() != nil
	})
	if srv.Remaining() != 0 {
		t.Errorf("%d model replies unused", srv.Remaining())
	}
}
