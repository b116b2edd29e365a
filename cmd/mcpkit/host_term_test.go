package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/host/web"
	"github.com/mcpkit/mcpkit/internal/llmtest"
	"github.com/mcpkit/mcpkit/llm"
)

// lastUserText is the content of the last user message of a Chat
// Completions request.
func lastUserText(body map[string]any) string {
	msgs := llmtest.Messages(body)
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i]["role"] == "user" {
			s, _ := msgs[i]["content"].(string)
			return s
		}
	}
	return ""
}

// @server:uri attaches the resource, read through the server's session, to
// the user's message; --session saves the conversation in the --web format,
// and --resume goes on from it; a conversation the page saved (its events
// kept) goes on in the terminal. Without a terminal, no escape codes.
func TestHostAttachesResourceAndResumes(t *testing.T) {
	file := filepath.Join(t.TempDir(), "chat.json")
	srv := llmtest.NewOpenAI(t, "sk-test",
		llmtest.Reply{Body: llmtest.OpenAI("It is the demo server."), Check: func(t testing.TB, body map[string]any) {
			got := lastUserText(body)
			for _, want := range []string{"[Attached resource demo://readme from mcpkit, text/plain]", "mcpkit demo server: every MCP feature in one place.", "What is @mcpkit:demo://readme?"} {
				if !strings.Contains(got, want) {
					t.Errorf("the user message lacks %q:\n%s", want, got)
				}
			}
		}},
		llmtest.Reply{Body: llmtest.OpenAI("Yes, still the demo."), Check: func(t testing.TB, body map[string]any) {
			msgs := llmtest.Messages(body)
			if len(msgs) != 3 || msgs[1]["content"] != "It is the demo server." || msgs[2]["content"] != "Sure?" {
				t.Errorf("the resumed conversation: %v", msgs)
			}
		}})
	out, errOut, code := runHostCmd(t, openAIEnv(srv), "", "--model", "openai:gpt-4o", "--server", mcpkitBin+" serve", "--session", file, "-p", "What is @mcpkit:demo://readme?")
	if code != 0 || out != "It is the demo server.\n" {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s", code, out, errOut)
	}
	if strings.Contains(out+errOut, "\x1b") {
		t.Errorf("escape codes without a terminal: %q %q", out, errOut)
	}
	sv, err := web.ReadSession(file)
	if err != nil || sv == nil {
		t.Fatalf("the saved session: %v %v", sv, err)
	}
	if len(sv.Messages) != 2 || len(sv.Events) != 3 || !strings.Contains(string(sv.Events[0]), `"attached":["mcpkit demo://readme"]`) {
		t.Fatalf("saved: %d messages, events %s", len(sv.Messages), sv.Events)
	}
	out, errOut, code = runHostCmd(t, openAIEnv(srv), "", "--model", "openai:gpt-4o", "--server", mcpkitBin+" serve", "--resume", file, "-p", "Sure?")
	if code != 0 || out != "Yes, still the demo.\n" || !strings.Contains(errOut, "going on from 2 messages saved in") {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s", code, out, errOut)
	}

	// A conversation the page saved, with an event the terminal does not make.
	pageFile := filepath.Join(t.TempDir(), "page.json")
	page := web.SavedSession{Version: 1, Messages: []llm.Message{llm.UserText("from the page"), {Role: llm.RoleAssistant, Parts: []llm.Part{{Type: llm.PartText, Text: "page answer"}}}},
		Events: []json.RawMessage{json.RawMessage(`{"type":"user","text":"from the page"}`), json.RawMessage(`{"type":"call","id":"c9","name":"echo"}`)}}
	data, _ := json.Marshal(page)
	if err := os.WriteFile(pageFile, data, 0o600); err != nil {
		t.Fatal(err)
	}
	srv2 := llmtest.NewOpenAI(t, "sk-test", llmtest.Reply{Body: llmtest.OpenAI("Going on."), Check: func(t testing.TB, body map[string]any) {
		msgs := llmtest.Messages(body)
		if len(msgs) != 3 || msgs[0]["content"] != "from the page" || msgs[1]["content"] != "page answer" {
			t.Errorf("the page's conversation was not resumed: %v", msgs)
		}
	}})
	if out, errOut, code := runHostCmd(t, openAIEnv(srv2), "", "--model", "openai:gpt-4o", "--server", mcpkitBin+" serve", "--session", pageFile, "-p", "go on"); code != 0 || out != "Going on.\n" {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s", code, out, errOut)
	}
	sv, err = web.ReadSession(pageFile)
	if err != nil || len(sv.Messages) != 4 || len(sv.Events) != 5 || string(sv.Events[1]) != `{"type":"call","id":"c9","name":"echo"}` {
		t.Fatalf("after the terminal's turn: %v; events %s", err, sv.Events)
	}
}

// An attachment that cannot be read stops the message before the model
// sees it; a word like @alice is not an attachment.
func TestHostAttachmentErrors(t *testing.T) {
	srv := llmtest.NewOpenAI(t, "sk-test", llmtest.Reply{Body: llmtest.OpenAI("Hi Alice."), Check: func(t testing.TB, body map[string]any) {
		if got := lastUserText(body); got != "say hi to @alice" {
			t.Errorf("the user message: %q", got)
		}
	}})
	_, errOut, code := runHostCmd(t, openAIEnv(srv), "", "--model", "openai:gpt-4o", "--server", mcpkitBin+" serve", "-p", "read @mcpkit:demo://items/7")
	if code == 0 || !strings.Contains(errOut, "attaching: reading demo://items/7 of mcpkit") {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	if out, errOut, code := runHostCmd(t, openAIEnv(srv), "", "--model", "openai:gpt-4o", "--server", mcpkitBin+" serve", "-p", "say hi to @alice"); code != 0 || out != "Hi Alice.\n" {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s", code, out, errOut)
	}
}

// The chat on a terminal: /prompt sends a server's prompt with JSON
// arguments; the tool call it leads to is coloured, a spinner turns while
// it runs, its result is escaped and clipped, and /last shows it in full.
func TestHostChatPromptAndLast(t *testing.T) {
	long := strings.Repeat("abcdefghij", 50) + " \u001b]0;owned\u0007 END"
	args, _ := json.Marshal(map[string]string{"message": long})
	srv := llmtest.NewOpenAI(t, "sk-test",
		llmtest.Reply{Body: llmtest.OpenAI("", llmtest.Call{ID: "c1", Name: "echo", Args: string(args)}), Check: func(t testing.TB, body map[string]any) {
			if got := lastUserText(body); got != "Greet Ada in a formal style." {
				t.Errorf("the prompt sent: %q", got)
			}
		}},
		llmtest.Reply{Body: llmtest.OpenAI("Greeted.")})
	r := startPTYWith(t, ptyOptions{stdin: true, stdout: true, env: openAIEnv(srv)},
		"host", "--model", "openai:gpt-4o", "--server", mcpkitBin+" serve", "--yes")
	r.waitFor("> ")
	r.send(`/prompt greet {"name":"Ada","style":"formal"}` + "\r")
	r.waitFor("│ Greet Ada in a formal style.")
	r.waitFor("\x1b[36m→ echo ")
	r.waitFor("⠋ running echo…")
	r.waitFor("\x1b[32m← echo: ")
	r.waitFor("…\x1b[0m") // clipped
	r.waitFor("Greeted.")
	r.waitFor("> ")
	r.send("/last\r")
	r.waitFor(`\x1b]0;owned\x07 END`)
	r.waitFor("> ")
	r.send("\x04")
	_, screen, code := r.wait()
	if code != 0 {
		t.Fatalf("exit %d; the terminal shows:\n%s", code, screen)
	}
	if strings.Contains(screen, "\x1b]0;owned") {
		t.Errorf("a peer's escape sequence reached the terminal:\n%q", screen)
	}
	if srv.Remaining() != 0 {
		t.Errorf("%d model replies unused", srv.Remaining())
	}
}

// NO_COLOR turns the colours off on a terminal.
func TestHostNoColor(t *testing.T) {
	srv := llmtest.NewOpenAI(t, "sk-test",
		llmtest.Reply{Body: llmtest.OpenAI("", llmtest.Call{ID: "c1", Name: "add", Args: `{"a":1,"b":2}`})},
		llmtest.Reply{Body: llmtest.OpenAI("3")})
	r := startPTYWith(t, ptyOptions{env: append(openAIEnv(srv), "NO_COLOR=1")},
		"host", "--model", "openai:gpt-4o", "--server", mcpkitBin+" serve", "--yes", "-p", "add")
	r.waitFor(`→ add {"a":1,"b":2}`)
	stdout, screen, code := r.wait()
	if code != 0 || stdout != "3\n" {
		t.Fatalf("exit %d, stdout %q; the terminal shows:\n%s", code, stdout, screen)
	}
	if strings.Contains(screen, "\x1b[3") || strings.Contains(screen, "\x1b[1m") {
		t.Errorf("colours with NO_COLOR:\n%q", screen)
	}
}
