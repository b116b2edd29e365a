package interop

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/internal/llmtest"
	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/llm/tokens"
)

// runHost runs `mcpkit host -p PROMPT --yes` over the demo server and the npm
// servers everything, filesystem (serving dir) and memory, against the
// scripted model srv, and returns its stdout.
func runHost(t *testing.T, bin, node, dir string, srv *llmtest.Server, search string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*testTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "host", "--model", "openai:gpt-4o", "--yes", "--tool-search", search,
		"--server", "demo="+bin+" serve",
		"--server", "everything="+node+" "+packageBin(t, "@modelcontextprotocol/server-everything")+" stdio",
		"--server", "filesystem="+node+" "+packageBin(t, "@modelcontextprotocol/server-filesystem")+" "+dir,
		"--server", "memory="+node+" "+packageBin(t, "@modelcontextprotocol/server-memory"),
		"-p", "What does note.txt say?")
	cmd.Env = append(os.Environ(), "OPENAI_API_KEY=sk-test", "OPENAI_BASE_URL="+srv.BaseURL(),
		"MEMORY_FILE_PATH="+filepath.Join(t.TempDir(), "memory.jsonl"))
	testkit.OwnProcessGroup(cmd)
	testkit.KillGroupOnCancel(cmd)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("mcpkit host --tool-search %s: %v\n%s", search, err, stderr.String())
	}
	return string(out)
}

// toolTokens counts the tool definitions of a request as sent (the "tools"
// array of the Chat Completions body) with o200k_base, and lists their names.
func toolTokens(t *testing.T, body []byte) (int, []string) {
	t.Helper()
	var b struct {
		Tools []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		t.Fatal(err)
	}
	c, err := tokens.NewCounter(tokens.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	var names []string
	for _, raw := range b.Tools {
		n += c.Count(string(raw))
		var f struct {
			Function struct{ Name string } `json:"function"`
		}
		_ = json.Unmarshal(raw, &f)
		names = append(names, f.Function.Name)
	}
	return n, names
}

// A real `mcpkit host` over the demo and three npm servers: with
// --tool-search off the first request carries every definition; with it on,
// the scripted model searches for a way to read a file, finds
// filesystem__read_text_file among the results, loads it (its definition is
// in the next request) and calls it, and the file's text reaches the model.
// The first requests' tool tokens are logged for bench/RESULTS.md, and search
// must cut them by at least 80%.
func TestHostToolSearchOverNpmServers(t *testing.T) {
	node := requirePeers(t)
	bin := buildMcpkit(t)
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	note := filepath.Join(dir, "note.txt")
	if err := os.WriteFile(note, []byte("the llama sleeps at noon"), 0o644); err != nil {
		t.Fatal(err)
	}

	off := llmtest.NewOpenAI(t, "sk-test", llmtest.Reply{Body: llmtest.OpenAI("I would read it.")})
	runHost(t, bin, node, dir, off, "off")
	full, names := toolTokens(t, off.Requests()[0].Body)
	if len(names) < 40 { // the demo (11 tools without --conformance) and the three npm servers
		t.Fatalf("without search only %d tools were offered: %v", len(names), names)
	}

	const read = "filesystem__read_text_file"
	on := llmtest.NewOpenAI(t, "sk-test",
		llmtest.Reply{Body: llmtest.OpenAI("", llmtest.Call{ID: "s", Name: "search_tools", Args: `{"query":"read the contents of a text file"}`})},
		llmtest.Reply{Body: llmtest.OpenAI("", llmtest.Call{ID: "l", Name: "load_tools", Args: `{"names":["` + read + `"]}`}),
			Check: func(t testing.TB, body map[string]any) {
				msgs := llmtest.Messages(body)
				found, _ := msgs[len(msgs)-1]["content"].(string)
				if first := strings.SplitN(found, "\n", 4); len(first) < 4 || !strings.Contains(strings.Join(first[:3], "\n"), read+":") {
					t.Errorf("%s is not among the first three results:\n%s", read, found)
				}
			}},
		llmtest.Reply{Body: llmtest.OpenAI("", llmtest.Call{ID: "r", Name: read, Args: fmt.Sprintf(`{"path":%q}`, note)})},
		llmtest.Reply{Body: llmtest.OpenAI("It says the llama sleeps at noon."), Check: func(t testing.TB, body map[string]any) {
			msgs := llmtest.Messages(body)
			if got, _ := msgs[len(msgs)-1]["content"].(string); !strings.Contains(got, "the llama sleeps at noon") {
				t.Errorf("the file's text did not reach the model: %v", msgs[len(msgs)-1])
			}
		}})
	if out := runHost(t, bin, node, dir, on, "on"); out != "It says the llama sleeps at noon.\n" {
		t.Errorf("stdout %q", out)
	}
	reqs := on.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d model requests, want 4", len(reqs))
	}
	small, first := toolTokens(t, reqs[0].Body)
	if strings.Join(first, ",") != "search_tools,load_tools" {
		t.Errorf("with search the first request offered %v", first)
	}
	if _, after := toolTokens(t, reqs[2].Body); strings.Join(after, ",") != "search_tools,load_tools,"+read {
		t.Errorf("after the load the request offered %v", after)
	}
	t.Logf("tool-definition tokens of the first request (o200k_base), %d tools: %d without search, %d with (%.1f%% fewer)",
		len(names), full, small, 100*float64(full-small)/float64(full))
	if small*5 > full {
		t.Errorf("search cut the tool tokens from %d to %d only: less than 80%%", full, small)
	}

	auto := llmtest.NewOpenAI(t, "sk-test", llmtest.Reply{Body: llmtest.OpenAI("ok")})
	runHost(t, bin, node, dir, auto, "auto")
	if _, got := toolTokens(t, auto.Requests()[0].Body); len(got) != 2 {
		t.Errorf("auto with four servers offered %d tools, want the search surface", len(got))
	}
}
