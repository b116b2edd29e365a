package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/internal/llmtest"
)

// openAIToolNames returns the names of the tools an OpenAI-wire request body
// offers, sorted.
func openAIToolNames(t testing.TB, body map[string]any) []string {
	t.Helper()
	tools, _ := body["tools"].([]any)
	var names []string
	for _, tool := range tools {
		fn, _ := tool.(map[string]any)["function"].(map[string]any)
		name, _ := fn["name"].(string)
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// writeHostConfig writes a Claude Desktop configuration of servers and
// returns its path.
func writeHostConfig(t *testing.T, servers map[string]any) string {
	t.Helper()
	data, err := json.Marshal(map[string]any{"mcpServers": servers})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "claude_desktop_config.json")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// --config: two `mcpkit serve` servers from a Claude Desktop configuration
// (beta with add excluded, a third disabled) and one more from --server. The
// model is offered every server's tools but beta's add, calls a namespaced
// tool of each configured server in one reply, gets both results back, and
// its final answer is printed.
func TestHostConfigServers(t *testing.T) {
	cfg := writeHostConfig(t, map[string]any{
		"alpha": map[string]any{"command": mcpkitBin, "args": []string{"serve"}},
		"beta":  map[string]any{"command": mcpkitBin, "args": []string{"serve"}, "excludedTools": []string{"add"}},
		"off":   map[string]any{"command": filepath.Join(t.TempDir(), "no-such-server"), "disabled": true},
	})
	srv := llmtest.NewOpenAI(t, "sk-test",
		llmtest.Reply{
			Body: llmtest.OpenAI("Calling both.",
				llmtest.Call{ID: "c1", Name: "alpha__add", Args: `{"a":2,"b":3}`},
				llmtest.Call{ID: "c2", Name: "beta__echo", Args: `{"message":"from beta"}`}),
			Check: func(t testing.TB, body map[string]any) {
				names := openAIToolNames(t, body)
				for _, want := range []string{"alpha__add", "alpha__echo", "beta__echo", "gamma__add"} {
					if !slices.Contains(names, want) {
						t.Errorf("tool %s not offered; offered: %v", want, names)
					}
				}
				for _, name := range names {
					if name == "beta__add" || strings.HasPrefix(name, "off__") {
						t.Errorf("tool %s offered; offered: %v", name, names)
					}
				}
			},
		},
		llmtest.Reply{Body: llmtest.OpenAI("alpha says 5, beta echoed."), Check: func(t testing.TB, body map[string]any) {
			results := map[string]string{}
			for _, m := range llmtest.Messages(body) {
				if m["role"] == "tool" {
					content, _ := m["content"].(string)
					results[m["tool_call_id"].(string)] = content
				}
			}
			if !strings.Contains(results["c1"], `"sum":5`) || !strings.Contains(results["c2"], "from beta") {
				t.Errorf("tool results sent: %v", results)
			}
		}})
	out, errOut, code := runHostCmd(t, openAIEnv(srv), "", "--model", "openai:gpt-4o", "--config", cfg,
		"--server", "gamma="+mcpkitBin+" serve", "-p", "use both", "--yes", "--tool-search", "off") // every definition, to check the names
	if code != 0 || out != "alpha says 5, beta echoed.\n" {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s", code, out, errOut)
	}
	for _, want := range []string{`→ alpha__add {"a":2,"b":3}`, "← beta__echo"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if n := srv.Remaining(); n != 0 {
		t.Errorf("%d scripted replies left", n)
	}
}

// A configuration with a mistake is refused with a message naming the file,
// the server and the field, before any model request.
func TestHostConfigErrors(t *testing.T) {
	srv := llmtest.NewOpenAI(t, "sk-test")
	cfg := writeHostConfig(t, map[string]any{"broken": map[string]any{"command": 42}})
	out, errOut, code := runHostCmd(t, openAIEnv(srv), "", "--model", "openai:gpt-4o", "--config", cfg, "-p", "hi", "--yes")
	if code == 0 || out != "" {
		t.Fatalf("exit %d, stdout %q", code, out)
	}
	for _, want := range []string{cfg, "broken", "command"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d model requests", n)
	}
}

// /servers in the chat shows each server's state, transport and tools — the
// configured ones and those of --server as their one supervisor sees them (a
// disabled one, one that cannot start, with its error and stderr).
func TestHostChatServersCommand(t *testing.T) {
	cfg := writeHostConfig(t, map[string]any{
		"alpha":  map[string]any{"command": mcpkitBin, "args": []string{"serve"}},
		"broken": map[string]any{"command": mcpkitBin, "args": []string{"no-such-command"}},
		"off":    map[string]any{"command": mcpkitBin, "args": []string{"serve"}, "disabled": true},
	})
	srv := llmtest.NewOpenAI(t, "sk-test") // no turn: no model request
	r := startPTYWith(t, ptyOptions{stdin: true, stdout: true, env: openAIEnv(srv)},
		"host", "--model", "openai:gpt-4o", "--config", cfg, "--server", "gamma="+mcpkitBin+" serve")
	r.waitFor("> ")
	r.send("/servers\r")
	r.waitFor("SERVER  STATE")
	r.waitFor("TOOLS  RESTARTS  PROTOCOL")
	r.waitFor("\nalpha   ready  ")
	r.waitFor("\nbroken  ")
	r.waitFor("\ngamma   ready  ") // --server's, under the same supervisor: in name order
	r.waitFor("\noff     disabled  stdio      0      0")
	r.waitFor("\nbroken: mcp: initialize: ")
	r.waitFor(`  | mcpkit: unknown command "no-such-command" for "mcpkit"`)
	r.waitFor("> ")
	r.send("\x04")
	_, screen, code := r.wait()
	if code != 0 {
		t.Fatalf("exit %d; the terminal shows:\n%s", code, screen)
	}
}
