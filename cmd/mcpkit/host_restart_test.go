//go:build unix

package main

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/mcpkit/mcpkit/internal/llmtest"
	"github.com/mcpkit/mcpkit/internal/testkit"
)

// announcePIDs makes a FIFO that a wrapped server writes its PID to as it
// starts, and returns the FIFO's path and the PIDs as they come.
func announcePIDs(t *testing.T) (string, <-chan int) {
	t.Helper()
	fifo := filepath.Join(t.TempDir(), "pids")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	pids := make(chan int, 4)
	go func() {
		for {
			f, err := os.Open(fifo) // blocks until a server opens it to write
			if err != nil {
				return
			}
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				if pid, err := strconv.Atoi(strings.TrimSpace(sc.Text())); err == nil {
					pids <- pid
				}
			}
			f.Close()
		}
	}()
	t.Cleanup(func() { // unblock the reader's last open
		if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	return fifo, pids
}

// TestHostRestartsACrashedServer: a server of --server, like one of --config,
// runs under the supervisor: killed between two tool calls of one turn, it is
// started again and the second call reaches the new process.
func TestHostRestartsACrashedServer(t *testing.T) {
	for _, how := range []string{"--server", "--config"} {
		t.Run(how, func(t *testing.T) {
			fifo, pids := announcePIDs(t)
			wrapper := "echo $$ > " + fifo + "; exec " + mcpkitBin + " serve"
			srv := llmtest.NewOpenAI(t, "sk-test",
				llmtest.Reply{Body: llmtest.OpenAI("", llmtest.Call{ID: "c1", Name: "add", Args: `{"a":2,"b":3}`})},
				llmtest.Reply{
					Body: llmtest.OpenAI("", llmtest.Call{ID: "c2", Name: "add", Args: `{"a":4,"b":5}`}),
					Check: func(t testing.TB, body map[string]any) {
						first := testkit.Receive(t, pids)
						if err := syscall.Kill(first, syscall.SIGKILL); err != nil {
							t.Errorf("killing the server: %v", err)
						}
						if second := testkit.Receive(t, pids); second == first {
							t.Errorf("the same PID %d again", second)
						}
					},
				},
				llmtest.Reply{Body: llmtest.OpenAI("4 + 5 = 9"), Check: func(t testing.TB, body map[string]any) {
					msgs := llmtest.Messages(body)
					if last := msgs[len(msgs)-1]; !strings.Contains(last["content"].(string), `"sum":9`) {
						t.Errorf("the second call's result: %v", last)
					}
				}})
			args := []string{"--model", "openai:gpt-4o", "-p", "add twice", "--yes"}
			if how == "--server" {
				args = append(args, "--server", "calc=sh -c '"+wrapper+"'")
			} else {
				args = append(args, "--config", writeHostConfig(t, map[string]any{"calc": map[string]any{"command": "sh", "args": []string{"-c", wrapper}}}))
			}
			out, errOut, code := runHostCmd(t, openAIEnv(srv), "", args...)
			if code != 0 || out != "4 + 5 = 9\n" {
				t.Fatalf("exit %d, stdout %q, stderr:\n%s", code, out, errOut)
			}
			if n := srv.Remaining(); n != 0 {
				t.Errorf("%d scripted replies left", n)
			}
		})
	}
}
