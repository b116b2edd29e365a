package stdio

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/rpcconn"
	"github.com/mcpkit/mcpkit/internal/testkit"
)

// childEnv turns the test binary into one of the child programs below.
const childEnv = "MCPKIT_STDIO_TEST_CHILD"

func TestMain(m *testing.M) {
	if mode := os.Getenv(childEnv); mode != "" {
		os.Exit(runChild(mode))
	}
	os.Exit(m.Run())
}

// runChild is the main function of the test binary started as a server.
func runChild(mode string) int {
	switch mode {
	case "echo":
		return echo()
	case "stderr-spam":
		// 1 MiB on stderr before reading anything: a parent that does not drain
		// stderr deadlocks here.
		line := strings.Repeat("e", spamLineLen) + "\n"
		for range spamLines {
			if _, err := os.Stderr.WriteString(line); err != nil {
				return 10
			}
		}
		return echo()
	case "ignore-term":
		ignoreSIGTERM()
		fmt.Println(`{"ready":true}`)
		io.Copy(io.Discard, os.Stdin)
		time.Sleep(time.Hour) // only SIGKILL ends this
		return 0
	case "exit3":
		fmt.Fprintln(os.Stderr, "starting up")
		fmt.Fprintln(os.Stderr, "")
		fmt.Fprintln(os.Stderr, "fatal: cannot load config /etc/nope.json")
		return 3
	case "exit0":
		fmt.Println(`{"bye":true}`)
		return 0
	case "report-direct":
		// Says whether its server connection reads standard input directly.
		c := NewProcessServerConn(nil).(*serverConn)
		fmt.Printf("{\"direct\":%v}\n", c.direct != nil)
		return echo()
	case "exit0-stderr":
		fmt.Fprintln(os.Stderr, "usage: server [--port N]")
		return 0
	case "die-on-request":
		// Reads one message, then dies without answering it.
		if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
			return 10
		}
		fmt.Fprintln(os.Stderr, "fatal: out of memory")
		return 3
	}
	fmt.Fprintln(os.Stderr, "unknown child mode", mode)
	return 2
}

const spamLines, spamLineLen = 1024, 1023 // 1 MiB with the newlines

// echo serves the package's own server connection, writing back every message.
func echo() int {
	ctx := context.Background()
	c := NewProcessServerConn(nil)
	for {
		msg, err := c.Read(ctx)
		if err == io.EOF {
			return 0
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "echo:", err)
			return 1
		}
		if err := c.Write(ctx, msg); err != nil {
			fmt.Fprintln(os.Stderr, "echo:", err)
			return 1
		}
	}
}

// startChild runs the test binary as a server in the given mode.
func startChild(t *testing.T, mode string, opts *CommandOptions) *CommandConn {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+mode)
	c, err := NewCommandConn(testkit.Context(t), cmd, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// patient gives a child that exits on end of input all the time a loaded machine
// may need to start it and run it to the end; Close returns as soon as it exits.
func patient() *CommandOptions { return &CommandOptions{CloseTimeout: 30 * time.Second} }

// lineCollector is a CommandOptions.Stderr that keeps every line.
type lineCollector struct {
	mu    sync.Mutex
	lines []string
}

func (l *lineCollector) add(line string) {
	l.mu.Lock()
	l.lines = append(l.lines, line)
	l.mu.Unlock()
}

func (l *lineCollector) get() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.lines...)
}

func TestCommandEchoRoundTrip(t *testing.T) {
	ctx := testkit.Context(t)
	c := startChild(t, "echo", patient())
	msgs := [][]byte{[]byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), bigMessage(1 << 20), []byte(`[{"a":1},{"b":2}]`)}
	for _, m := range msgs {
		if err := c.Write(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	for _, want := range msgs {
		if got := mustRead(t, ctx, c); !bytes.Equal(got, want) {
			t.Fatalf("echo returned %d bytes, want %d intact", len(got), len(want))
		}
	}
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	ps := c.ProcessState()
	if ps == nil || !ps.Success() {
		t.Fatalf("echo server state after Close: %v, want a clean exit", ps)
	}
	select {
	case <-c.Exited():
	default:
		t.Fatal("Exited not closed after Close")
	}
	if err := c.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := c.Read(ctx); err != io.EOF {
		t.Fatalf("Read after Close: %v, want io.EOF", err)
	}
	if err := c.Write(ctx, []byte(`{}`)); !errors.Is(err, io.ErrClosedPipe) {
		t.Fatalf("Write after Close: %v, want io.ErrClosedPipe", err)
	}
}

func TestCommandStderrSpamDoesNotDeadlock(t *testing.T) {
	ctx := testkit.Context(t)
	var got lineCollector
	opts := patient()
	opts.Stderr = got.add
	c := startChild(t, "stderr-spam", opts)
	if err := c.Write(ctx, []byte(`{"id":1}`)); err != nil {
		t.Fatal(err)
	}
	// The child writes all of its stderr before it reads this: the answer arrives only
	// if stderr is drained.
	if msg := mustRead(t, ctx, c); string(msg) != `{"id":1}` {
		t.Fatalf("read %q", msg)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if ps := c.ProcessState(); ps == nil || !ps.Success() {
		t.Fatalf("server state after Close: %v, want a clean exit on end of input", ps)
	}
	lines := got.get()
	if len(lines) != spamLines {
		t.Fatalf("Stderr received %d lines, want %d", len(lines), spamLines)
	}
	for i, l := range lines {
		if len(l) != spamLineLen || strings.Trim(l, "e") != "" {
			t.Fatalf("stderr line %d damaged: %d bytes", i, len(l))
		}
	}
}

func TestCommandExitStatusAndStderrInReadError(t *testing.T) {
	ctx := testkit.Context(t)
	var logs syncBuffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c := startChild(t, "exit3", &CommandOptions{Logger: logger})

	_, err := c.Read(ctx)
	var exitErr *ExitError
	if !errors.As(err, &exitErr) {
		t.Fatalf("Read after the server died: %v, want *ExitError", err)
	}
	if exitErr.ExitCode() != 3 {
		t.Errorf("ExitCode = %d, want 3", exitErr.ExitCode())
	}
	if want := []string{"starting up", "fatal: cannot load config /etc/nope.json"}; !slices.Equal(exitErr.Stderr, want) {
		t.Errorf("stderr tail %q, want %q", exitErr.Stderr, want)
	}
	for _, want := range []string{"stdio: the server exited (status 3); its last stderr: starting up", "fatal: cannot load config /etc/nope.json"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	var osExit *exec.ExitError
	if !errors.As(err, &osExit) {
		t.Errorf("error does not unwrap to *exec.ExitError")
	}
	if _, again := c.Read(ctx); !errors.Is(again, err) {
		t.Errorf("second Read: %v, want the same error", again)
	}
	if err := c.Close(); !errors.As(err, &exitErr) || exitErr.ExitCode() != 3 {
		t.Errorf("Close: %v, want the exit error", err)
	}
	// With no Stderr function, the lines went to the logger.
	if !strings.Contains(logs.String(), "cannot load config") {
		t.Errorf("stderr not logged; log:\n%s", logs.String())
	}
}

func TestCommandCleanExitReadsEOF(t *testing.T) {
	ctx := testkit.Context(t)
	c := startChild(t, "exit0", nil)
	if msg := mustRead(t, ctx, c); string(msg) != `{"bye":true}` {
		t.Fatalf("read %q", msg)
	}
	_, err := c.Read(ctx)
	var exitErr *ExitError
	if !errors.Is(err, io.EOF) || !errors.As(err, &exitErr) || exitErr.ExitCode() != 0 || err.Error() != "stdio: the server exited (status 0)" {
		t.Fatalf("after a clean exit: %v, want an *ExitError wrapping io.EOF", err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
}

func TestCommandCloseUnblocksRead(t *testing.T) {
	ctx := testkit.Context(t)
	c := startChild(t, "echo", patient())
	errc := make(chan error, 1)
	go func() {
		_, err := c.Read(ctx)
		errc <- err
	}()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err != io.EOF {
		t.Fatalf("pending Read after Close: %v, want io.EOF", err)
	}
	if ps := c.ProcessState(); ps == nil || !ps.Success() {
		t.Fatalf("echo server state after Close: %v, want a clean exit on end of input", ps)
	}
}

func TestNewCommandConnErrors(t *testing.T) {
	ctx := testkit.Context(t)
	if _, err := NewCommandConn(ctx, exec.Command("/nonexistent/mcp-server"), nil); err == nil {
		t.Error("starting a missing program succeeded")
	}
	cmd := exec.Command("/nonexistent/mcp-server")
	cmd.Stdout = io.Discard
	if _, err := NewCommandConn(ctx, cmd, nil); err == nil {
		t.Error("a command with Stdout set was accepted")
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := NewCommandConn(cancelled, exec.Command("/nonexistent/mcp-server"), nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v", err)
	}
}

func TestExitErrorWithoutExecError(t *testing.T) {
	e := &ExitError{Err: errors.New("wait failed")}
	if e.ExitCode() != -1 {
		t.Errorf("ExitCode = %d, want -1", e.ExitCode())
	}
	if e.Error() != "stdio: the server exited (wait failed)" {
		t.Errorf("Error = %q", e.Error())
	}
}

func TestStderrTailKeepsLastLines(t *testing.T) {
	var tail stderrTail
	for i := range 25 {
		tail.add(fmt.Sprint("line ", i))
		tail.add("   ")
	}
	tail.add(strings.Repeat("z", 2000))
	got := tail.snapshot()
	if len(got) != stderrTailLines {
		t.Fatalf("kept %d lines, want %d", len(got), stderrTailLines)
	}
	if got[0] != "line 16" || got[8] != "line 24" {
		t.Fatalf("tail %q, want lines 16..24 then the long one", got)
	}
	if last := got[9]; len(last) > stderrTailLineMax+len("…") {
		t.Fatalf("long line kept with %d bytes", len(last))
	}
}

func TestDrainStderrSplitsLongLines(t *testing.T) {
	in := strings.Repeat("a", stderrLineMax) + "\n" + strings.Repeat("b", stderrLineMax+10) + "\r\nlast"
	var got lineCollector
	var tail stderrTail
	drainStderr(strings.NewReader(in), got.add, &tail)
	want := []string{strings.Repeat("a", stderrLineMax), strings.Repeat("b", stderrLineMax), strings.Repeat("b", 10), "last"}
	if !slices.Equal(got.get(), want) {
		t.Fatalf("got %d lines %v, want %d", len(got.get()), lengths(got.get()), len(want))
	}
}

func lengths(s []string) []int {
	var n []int
	for _, v := range s {
		n = append(n, len(v))
	}
	return n
}

// syncBuffer is a bytes.Buffer safe for a logger writing from another goroutine.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// exitCase is a child mode that exits, with the status and the error it must
// be reported with.
type exitCase struct {
	mode string
	code int
	want string
}

// A write to a server that has exited reports the exit, whatever its status, with
// the last stderr lines: not the broken pipe it hit.
func TestCommandWriteAfterExitReportsTheExit(t *testing.T) {
	for _, tt := range []exitCase{
		{"exit3", 3, "stdio: the server exited (status 3); its last stderr: starting up\n\tfatal: cannot load config /etc/nope.json"},
		{"exit0", 0, "stdio: the server exited (status 0)"},
		{"exit0-stderr", 0, "stdio: the server exited (status 0); its last stderr: usage: server [--port N]"},
	} {
		c := startChild(t, tt.mode, nil)
		<-c.Exited()
		for range 2 { // the first write fails, and every later one the same way
			err := c.Write(t.Context(), []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
			var exitErr *ExitError
			if !errors.As(err, &exitErr) || exitErr.ExitCode() != tt.code || err.Error() != tt.want {
				t.Fatalf("%s: Write = %v, want %q", tt.mode, err, tt.want)
			}
		}
	}
}

// A server that dies while a call waits for its answer: that call, and every later
// one, fails with the exit status and the server's last stderr lines.
func TestCommandCallsReportTheServerExit(t *testing.T) {
	for _, tt := range []exitCase{
		{"die-on-request", 3, "stdio: the server exited (status 3); its last stderr: fatal: out of memory"},
		{"exit0-stderr", 0, "stdio: the server exited (status 0); its last stderr: usage: server [--port N]"},
	} {
		c := startChild(t, tt.mode, nil)
		client := rpcconn.NewConn(c, rpcconn.ConnOptions{Logger: slog.New(slog.DiscardHandler)})
		client.Start(t.Context())
		t.Cleanup(func() { _ = client.Close() })
		for _, method := range []string{"tools/call", "ping"} {
			err := client.Call(t.Context(), method, nil, nil)
			var exitErr *ExitError
			if !errors.As(err, &exitErr) || exitErr.ExitCode() != tt.code || !strings.HasSuffix(err.Error(), tt.want) {
				t.Errorf("%s, %s: %v, want an error ending %q", tt.mode, method, err, tt.want)
			}
		}
	}
}
