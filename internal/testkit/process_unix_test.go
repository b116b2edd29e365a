//go:build unix

package testkit_test

import (
	"bufio"
	"context"
	"io"
	"os/exec"
	"testing"

	"github.com/mcpkit/mcpkit/internal/testkit"
)

// TestKillGroupOnCancelReachesGrandchildren starts a shell that starts a sleeper in
// the background, cancels the context, and checks that the sleeper died with the
// shell: the sleeper holds the command's output pipe, which reaches its end only
// once every process holding it has gone.
func TestKillGroupOnCancelReachesGrandchildren(t *testing.T) {
	ctx, cancel := context.WithCancel(testkit.Context(t))
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", "sleep 600 & echo started; wait")
	testkit.KillGroupOnCancel(cmd)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Skipf("no shell: %v", err)
	}
	defer testkit.KillGroup(cmd.Process.Pid) // whatever happens below
	r := bufio.NewReader(out)
	if line, err := r.ReadString('\n'); err != nil || line != "started\n" {
		t.Fatalf("the shell wrote %q (%v), want started", line, err)
	}
	cancel()
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		_, _ = io.Copy(io.Discard, r)
	}()
	testkit.Receive(t, ended) // every process holding the pipe is gone
	if err := cmd.Wait(); err == nil {
		t.Error("the cancelled shell exited cleanly, want it killed")
	}
}
