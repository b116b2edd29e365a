package interop

import (
	"bytes"
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/testkit"
)

// runNode runs node with args in its own process group, bounded by testTimeout,
// and returns what it wrote and how it ended; the group is killed at cleanup, so
// nothing it started outlives the test.
func runNode(t *testing.T, node string, args ...string) (stdout, stderr []byte, waitErr error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, args...)
	testkit.KillGroupOnCancel(cmd)
	cmd.WaitDelay = 5 * time.Second
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	t.Cleanup(func() { testkit.KillGroup(pid) })
	waitErr = cmd.Wait()
	return out.Bytes(), errOut.Bytes(), waitErr
}
