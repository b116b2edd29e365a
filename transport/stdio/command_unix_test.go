//go:build unix

package stdio

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/jsonrpc"
)

func ignoreSIGTERM() { signal.Ignore(syscall.SIGTERM) }

// waitStatus returns how the server ended, failing if it has not.
func waitStatus(t *testing.T, c *CommandConn) syscall.WaitStatus {
	t.Helper()
	ps := c.ProcessState()
	if ps == nil {
		t.Fatal("the server is still running after Close")
	}
	return ps.Sys().(syscall.WaitStatus)
}

func TestCommandCloseKillsSIGTERMIgnorer(t *testing.T) {
	ctx := testkit.Context(t)
	opts := &CommandOptions{CloseTimeout: 100 * time.Millisecond, TermTimeout: time.Second}
	c := startChild(t, "ignore-term", opts)
	// The child says it is ready only after it ignores SIGTERM.
	if msg := mustRead(t, ctx, c); string(msg) != `{"ready":true}` {
		t.Fatalf("read %q", msg)
	}
	start := time.Now()
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v, want nil for a server killed by Close", err)
	}
	elapsed := time.Since(start)
	ws := waitStatus(t, c)
	if !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("server ended with %v, want killed by SIGKILL", ws)
	}
	// The bound: CloseTimeout, then TermTimeout, then SIGKILL is immediate. Generous
	// slack for a loaded machine, far below what a hang would take.
	if bound := 10 * time.Second; elapsed > bound {
		t.Fatalf("Close took %v", elapsed)
	}
}

// shellWithWitness runs script under sh with a pipe on file descriptor 3 that every
// process of the script inherits. Reading the other end returns io.EOF only once all
// of them have exited: the witness that no grandchild survived.
func shellWithWitness(t *testing.T, script string, opts *CommandOptions) (*CommandConn, *os.File) {
	t.Helper()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh:", err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	cmd := exec.Command(sh, "-c", script)
	cmd.ExtraFiles = []*os.File{w}
	c, err := NewCommandConn(testkit.Context(t), cmd, opts)
	w.Close() // only the script's processes hold it now
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, r
}

// grandchildPID reads the {"pid":N} line the scripts print and checks that process
// is alive.
func grandchildPID(t *testing.T, c *CommandConn) int {
	t.Helper()
	msg := mustRead(t, testkit.Context(t), c)
	var v struct{ PID int }
	if err := json.Unmarshal(msg, &v); err != nil || v.PID <= 0 {
		t.Fatalf("script printed %q: %v", msg, err)
	}
	if err := syscall.Kill(v.PID, 0); err != nil {
		t.Fatalf("grandchild %d not running before Close: %v", v.PID, err)
	}
	return v.PID
}

// assertAllExited waits, bounded, for the witness pipe to report that every process
// of the script has exited.
func assertAllExited(t *testing.T, witness *os.File) {
	t.Helper()
	if err := witness.SetReadDeadline(time.Now().Add(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	if _, err := witness.Read(make([]byte, 1)); err != io.EOF {
		t.Fatalf("a process of the group is still alive (witness read: %v)", err)
	}
}

// The script waits for its sleeping child, so closing its input does nothing: Close
// must send SIGTERM to the whole group.
func TestCommandCloseKillsGrandchildren(t *testing.T) {
	opts := &CommandOptions{CloseTimeout: 100 * time.Millisecond, TermTimeout: 5 * time.Second}
	c, witness := shellWithWitness(t, `sleep 1000 & echo "{\"pid\":$!}"; wait`, opts)
	grandchildPID(t, c)
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	ws := waitStatus(t, c)
	if !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
		t.Fatalf("shell ended with %v, want SIGTERM", ws)
	}
	assertAllExited(t, witness)
}

// The shell exits as soon as its input closes, leaving its sleeping child behind; the
// child must not outlive it.
func TestCommandKillsLeftoversAfterCleanExit(t *testing.T) {
	opts := &CommandOptions{CloseTimeout: 10 * time.Second}
	c, witness := shellWithWitness(t, `sleep 1000 & echo "{\"pid\":$!}"; cat >/dev/null`, opts)
	grandchildPID(t, c)
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if ws := waitStatus(t, c); ws.Signaled() || ws.ExitStatus() != 0 {
		t.Fatalf("shell ended with %v, want a clean exit on end of input", ws)
	}
	assertAllExited(t, witness)
}

// The server dies while a grandchild holds its standard output open: Read must still
// report the exit instead of waiting for the grandchild.
func TestCommandReadReportsExitDespiteGrandchild(t *testing.T) {
	c, witness := shellWithWitness(t, `sleep 1000 & echo "{\"pid\":$!}"; echo "giving up" >&2; exit 3`, nil)
	grandchildPID(t, c)
	_, err := c.Read(testkit.Context(t))
	var exitErr *ExitError
	if !errors.As(err, &exitErr) || exitErr.ExitCode() != 3 {
		t.Fatalf("Read: %v, want an exit error with status 3", err)
	}
	if len(exitErr.Stderr) != 1 || exitErr.Stderr[0] != "giving up" {
		t.Fatalf("stderr tail %q", exitErr.Stderr)
	}
	assertAllExited(t, witness)
}

func TestUseProcessGroupRespectsCallerChoice(t *testing.T) {
	cmd := exec.Command("true")
	if !useProcessGroup(cmd) || !cmd.SysProcAttr.Setpgid || cmd.SysProcAttr.Pgid != 0 {
		t.Fatalf("default: %+v", cmd.SysProcAttr)
	}
	cmd = exec.Command("true")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if !useProcessGroup(cmd) || cmd.SysProcAttr.Setpgid {
		t.Fatalf("with Setsid: %+v", cmd.SysProcAttr)
	}
	cmd = exec.Command("true")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pgid: 12345}
	if useProcessGroup(cmd) {
		t.Fatal("a caller-chosen group must not be signalled as a whole")
	}
}

// The command client's default bound is transport.DefaultClientMaxMessageSize
// (32 MiB), above what other SDKs' clients accept: a 20 MiB line from the
// server is read whole, and MaxMessageSize lowers the bound.
func TestCommandDefaultMaxMessage(t *testing.T) {
	const size = 20 << 20
	script := `printf '{"jsonrpc":"2.0","method":"x","params":{"a":"'; head -c ` + strconv.Itoa(size) + ` /dev/zero | tr '\0' a; printf '"}}\n'; read x`
	c, _ := shellWithWitness(t, script, nil)
	msg := mustRead(t, testkit.Context(t), c)
	if len(msg) < size {
		t.Fatalf("read %d bytes, want the whole %d-byte line", len(msg), size)
	}
	c, _ = shellWithWitness(t, script, &CommandOptions{MaxMessageSize: size / 2})
	if _, err := c.Read(testkit.Context(t)); !errors.Is(err, jsonrpc.ErrMessageTooLarge) {
		t.Fatalf("with MaxMessageSize %d: %v, want ErrMessageTooLarge", size/2, err)
	}
}

// Both ends of a subprocess connection read their pipe directly: the client its
// end of the server's stdout, the server its standard input (once switched to the
// poller). A cancelled Read of the client returns the context's error, and the
// next Read gets the next message.
func TestCommandPipesReadDirectly(t *testing.T) {
	c := startChild(t, "report-direct", patient())
	if c.lines.direct == nil {
		t.Fatal("the client does not read the server's stdout directly")
	}
	ctx := testkit.Context(t)
	if got := mustRead(t, ctx, c); string(got) != `{"direct":true}` {
		t.Fatalf("the server says %s, want that it reads its stdin directly", got)
	}
	cctx, cancel := context.WithCancel(ctx)
	errc := make(chan error, 1)
	go func() {
		_, err := c.Read(cctx)
		errc <- err
	}()
	cancel()
	if err := testkit.Receive(t, errc); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled Read: %v, want context.Canceled", err)
	}
	if err := c.Write(ctx, []byte(`{"a":1}`)); err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, ctx, c); string(got) != `{"a":1}` {
		t.Fatalf("after a cancelled Read: %q", got)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
}
