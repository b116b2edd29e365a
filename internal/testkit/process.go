package testkit

import (
	"bufio"
	"context"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// waitDelay bounds how long exec.Cmd.Wait waits for a killed command's output pipes,
// which a grandchild may still hold.
const waitDelay = 5 * time.Second

// StartAnnounced starts cmd in its own process group, which is killed when
// the test ends, and returns the rest of the first line of out (its stdout or
// stderr pipe) that starts with prefix: the address a server announces, say.
// The test fails if the command exits without printing such a line, or ctx
// ends first. out is read to its end, so the command never blocks on it.
func StartAnnounced(t testing.TB, ctx context.Context, cmd *exec.Cmd, out io.Reader, prefix string) string {
	t.Helper()
	OwnProcessGroup(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waited := make(chan struct{})
	t.Cleanup(func() {
		KillGroup(cmd.Process.Pid)
		<-waited
	})
	lines := make(chan string, 1)
	go func() {
		defer close(waited)
		sc := bufio.NewScanner(out)
		found := false
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), prefix); ok && !found {
				lines <- rest
				found = true
			}
		}
		close(lines)
		_ = cmd.Wait()
	}()
	select {
	case line, ok := <-lines:
		if !ok {
			t.Fatalf("%s exited without printing %q", cmd.Path, prefix)
		}
		return line
	case <-ctx.Done():
		t.Fatalf("%s did not print %q in time", cmd.Path, prefix)
	}
	return ""
}
