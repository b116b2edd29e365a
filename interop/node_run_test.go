package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/testkit"
)

// runNode runs node with args in its own process group, bounded by testTimeout,
// with env added to the test's environment (nil: none), and returns what it
// wrote and how it ended; the group is killed at cleanup, so nothing it started
// (a stdio server, say) outlives the test.
func runNode(t *testing.T, env []string, node string, args ...string) (stdout, stderr []byte, waitErr error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, args...)
	testkit.KillGroupOnCancel(cmd)
	cmd.WaitDelay = 5 * time.Second
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting node %s: %v", strings.Join(args, " "), err)
	}
	pid := cmd.Process.Pid
	t.Cleanup(func() { testkit.KillGroup(pid) })
	waitErr = cmd.Wait()
	t.Logf("node %s ran in %v", strings.Join(args, " "), time.Since(start).Round(time.Millisecond))
	return out.Bytes(), errOut.Bytes(), waitErr
}

// runNodeReport is runNode for a script that prints its report, one JSON
// object, on stdout: it decodes it into report (a pointer), failing the test
// when it cannot, and returns the script's stderr and how it ended.
func runNodeReport(t *testing.T, env []string, report any, node string, args ...string) (stderr []byte, waitErr error) {
	t.Helper()
	stdout, stderr, waitErr := runNode(t, env, node, args...)
	if err := json.Unmarshal(stdout, report); err != nil {
		t.Fatalf("node %s: its output is not one JSON object: %v (exit: %v)\nstdout:\n%s\nstderr:\n%s",
			strings.Join(args, " "), err, waitErr, stdout, stderr)
	}
	return stderr, waitErr
}
