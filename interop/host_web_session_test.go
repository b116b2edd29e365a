//go:build unix

package interop

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/internal/llmtest"
	"github.com/mcpkit/mcpkit/internal/testkit"
)

// TestHostWebSessionResumes: `mcpkit host --web --session FILE` writes the
// conversation after each turn; started again on the same file, it goes on
// from it: the model gets the earlier turns, and the page gets them replayed.
func TestHostWebSessionResumes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs mcpkit")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*testTimeout)
	defer cancel()
	bin := buildMcpkit(t)
	model := llmtest.NewOpenAI(t, "sk-test",
		llmtest.Reply{Body: llmtest.OpenAI("Noted: your name is Ada.")},
		llmtest.Reply{Body: llmtest.OpenAI("Your name is Ada.")})
	session := filepath.Join(t.TempDir(), "chat.json")
	start := func() (string, *exec.Cmd) {
		cmd := exec.Command(bin, "host", "--model", "openai:gpt-4o", "--base-url", model.BaseURL(),
			"--server", bin+" serve", "--web", "--session", session)
		cmd.Env = append(os.Environ(), "OPENAI_API_KEY=sk-test")
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		return strings.Fields(testkit.StartAnnounced(t, ctx, cmd, stderr, "mcpkit: web host at "))[0], cmd
	}
	// turn sends text through the page's API and waits for the turn's end on
	// the event stream; it returns the events' types and texts.
	turn := func(url, text string) []string {
		t.Helper()
		var cfg struct{ Token string }
		creq, _ := http.NewRequestWithContext(ctx, "GET", url+"api/config", nil)
		cresp, err := http.DefaultClient.Do(creq)
		if err != nil {
			t.Fatal(err)
		}
		err = json.NewDecoder(cresp.Body).Decode(&cfg)
		cresp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		body, _ := json.Marshal(map[string]string{"text": text})
		req, _ := http.NewRequestWithContext(ctx, "GET", url+"api/events", nil)
		stream, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer stream.Body.Close()
		post, _ := http.NewRequestWithContext(ctx, "POST", url+"api/send", strings.NewReader(string(body)))
		post.Header.Set("Content-Type", "application/json")
		post.Header.Set("X-Mcpkit-Token", cfg.Token)
		resp, err := http.DefaultClient.Do(post)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("send: %v %v", resp, err)
		}
		resp.Body.Close()
		var seen []string
		sc := bufio.NewScanner(stream.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		mine := false
		for sc.Scan() {
			data, ok := strings.CutPrefix(sc.Text(), "data: ")
			if !ok {
				continue
			}
			var ev struct{ Type, Text string }
			if err := json.Unmarshal([]byte(data), &ev); err != nil {
				t.Fatal(err)
			}
			seen = append(seen, ev.Type+" "+ev.Text)
			// The stream replays the saved turns first: this turn ends
			// with the first "turn" after its own user message.
			if ev.Type == "user" && ev.Text == text {
				mine = true
			}
			if ev.Type == "turn" && mine {
				return seen
			}
		}
		t.Fatalf("the stream ended: %v (%v)", seen, sc.Err())
		return nil
	}
	url, cmd := start()
	turn(url, "My name is Ada.")
	// The file was written before the turn's end was announced; the first
	// process is stopped (StartAnnounced reaps it).
	testkit.KillGroup(cmd.Process.Pid)

	url, _ = start()
	seen := turn(url, "What is my name?")
	// The page got the first turn again before the new one.
	var streamed strings.Builder
	for _, e := range seen {
		if text, ok := strings.CutPrefix(e, "text "); ok {
			streamed.WriteString(text)
		}
	}
	if seen[0] != "user My name is Ada." || !strings.HasPrefix(streamed.String(), "Noted: your name is Ada.") {
		t.Errorf("the page was not given the saved turn: %q", seen)
	}
	reqs := model.Requests()
	msgs := llmtest.Messages(reqs[len(reqs)-1].JSON)
	var got []string
	for _, m := range msgs {
		c, _ := m["content"].(string)
		got = append(got, m["role"].(string)+": "+c)
	}
	want := []string{"user: My name is Ada.", "assistant: Noted: your name is Ada.", "user: What is my name?"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("the resumed model got %q, want %q", got, want)
	}
}
