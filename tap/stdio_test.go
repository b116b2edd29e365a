//go:build unix

package tap

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/tap/capture"
)

// childEnv makes the test binary act as a server instead of running the tests.
const childEnv = "MCPKIT_TAP_TEST_CHILD"

func TestMain(m *testing.M) {
	if mode := os.Getenv(childEnv); mode != "" {
		os.Exit(runChild(mode))
	}
	os.Exit(m.Run())
}

// runChild is the test server.
func runChild(mode string) int {
	if code, ok := runBenchChild(mode); ok {
		return code
	}
	switch mode {
	case "echo": // copies its input to its output, as it comes
		_, _ = io.Copy(os.Stdout, os.Stdin)
		return 0
	case "rpc": // answers each request line with a result; notes each on stderr
		sc := bufio.NewScanner(os.Stdin)
		sc.Buffer(nil, 1<<30)
		for sc.Scan() {
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			if json.Unmarshal(sc.Bytes(), &m) != nil || m.ID == nil {
				continue
			}
			fmt.Fprintf(os.Stderr, "handling %s\n", m.Method)
			fmt.Fprintf(os.Stdout, `{"jsonrpc":"2.0","id":%s,"result":{}}`+"\n", m.ID)
		}
		return 0
	case "garbage": // what a misbehaving server writes on its stdout
		fmt.Fprint(os.Stdout, "Starting server v1.0 on stdio...\n")
		fmt.Fprint(os.Stdout, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info"}}`+"\n")
		fmt.Fprint(os.Stdout, "\x1b[32mready\x1b[0m\r\n\n")
		fmt.Fprint(os.Stdout, "{\"jsonrpc\":\"2.0\",\"id\":1,\"res\xff\n")
		fmt.Fprint(os.Stderr, "warning: something\nno newline at the end")
		fmt.Fprint(os.Stdout, `{"partial":`)
		return 0
	case "signal": // waits for a signal, says which, and exits 7
		c := make(chan os.Signal, 1)
		signal.Notify(c, syscall.SIGTERM, syscall.SIGINT)
		fmt.Fprintln(os.Stdout, `{"jsonrpc":"2.0","method":"ready"}`)
		sig := <-c
		fmt.Fprintf(os.Stderr, "got %v\n", sig)
		return 7
	case "exit3":
		return 3
	case "killself":
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	}
	fmt.Fprintf(os.Stderr, "unknown child mode %q\n", mode)
	return 2
}

// stdioRun is a stdio tap running the test binary as its server.
type stdioRun struct {
	in      *os.File // the client's end: write to the server through it
	out     *io.PipeReader
	stderr  func() string // what the server wrote on its stderr
	capt    *testCapture
	signals chan os.Signal
	done    chan struct{}
	code    int
	err     error
}

// startStdio starts a tap around the test binary in mode. The tap must end within
// the test's time; it is waited for at cleanup.
func startStdio(t *testing.T, mode string, opts StdioOptions) *stdioRun {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW := io.Pipe()
	r := &stdioRun{in: inW, out: outR, capt: newTestCapture(t), signals: make(chan os.Signal, 1), done: make(chan struct{})}
	opts.Command, opts.Args = exe, []string{"-test.run=^$"}
	opts.Env = append(os.Environ(), childEnv+"="+mode)
	errFile, errText := tempFile(t)
	r.stderr = errText
	opts.Stdin, opts.Stdout, opts.Stderr = inR, outW, errFile
	opts.Recorder, opts.Signals = r.capt.rec, r.signals
	go func() {
		defer close(r.done)
		r.code, r.err = RunStdio(testkit.Context(t), opts)
		_ = outW.Close()
		_ = inR.Close()
	}()
	t.Cleanup(func() {
		_ = inW.Close()
		_ = outR.Close()
		select {
		case <-r.done:
		case <-time.After(testTimeout):
			t.Errorf("the stdio tap did not end within %v", testTimeout)
		}
	})
	return r
}

// wait waits for the tap to end and returns the server's exit status.
func (r *stdioRun) wait(t *testing.T) int {
	t.Helper()
	select {
	case <-r.done:
	case <-testkit.Context(t).Done():
		t.Fatal("the stdio tap did not end")
	}
	if r.err != nil {
		t.Fatalf("RunStdio: %v", r.err)
	}
	return r.code
}

// TestStdioTapRelaysBytesExactly: whatever the client writes reaches the server
// unchanged and as it comes (partial lines, CRLF, a line of 50 MB, a last line
// without a line end), and so does whatever the server writes back; each line is
// recorded whole in its direction.
func TestStdioTapRelaysBytesExactly(t *testing.T) {
	r := startStdio(t, "echo", StdioOptions{})
	big := bigMessage(largeMessage)
	parts := [][]byte{
		[]byte(`{"jsonrpc":"2.0","id":1,"me`), []byte(`thod":"ping"}` + "\n"),
		[]byte(`{"jsonrpc":"2.0","method":"x"}` + "\r\n"),
		big, []byte("\n"),
		[]byte("\n"), // a blank line: relayed, not a message
		[]byte(`{"jsonrpc":"2.0","id":2,"method":"last"}`),
	}
	want := bytes.Join(parts, nil)
	// A partial line goes through before its end is written.
	if _, err := r.in.Write(parts[0]); err != nil {
		t.Fatal(err)
	}
	head := make([]byte, len(parts[0]))
	if _, err := io.ReadFull(r.out, head); err != nil || !bytes.Equal(head, parts[0]) {
		t.Fatalf("the partial line came back as %q, %v", head, err)
	}
	// Only now the rest is read, as it comes (the 50 MB line would fill the pipe):
	// one reader at a time, so the partial line above cannot be taken by this one.
	got := make(chan []byte, 1)
	go func() { b, _ := io.ReadAll(r.out); got <- b }()
	for _, p := range parts[1:] {
		if _, err := r.in.Write(p); err != nil {
			t.Fatal(err)
		}
	}
	_ = r.in.Close() // EOF: the server ends
	if code := r.wait(t); code != 0 {
		t.Errorf("exit status %d", code)
	}
	if b := append(head, <-got...); !bytes.Equal(b, want) {
		t.Fatalf("the client got %d bytes, want %d, not equal", len(b), len(want))
	}
	recs := r.capt.records(t)
	var msgs []*capture.Record
	for _, rec := range recs {
		if rec.IsMessage() {
			msgs = append(msgs, rec)
		}
	}
	if len(msgs) != 8 {
		t.Fatalf("%d messages recorded, want 4 each way: %s", len(msgs), kinds(recs))
	}
	sum := sha256.Sum256(big)
	for _, dir := range []string{capture.ClientToServer, capture.ServerToClient} {
		var mine []*capture.Record
		for _, m := range msgs {
			if m.Dir == dir {
				mine = append(mine, m)
			}
		}
		if len(mine) != 4 || string(mine[0].Msg) != `{"jsonrpc":"2.0","id":1,"method":"ping"}` || string(mine[1].Msg) != `{"jsonrpc":"2.0","method":"x"}` ||
			sha256.Sum256(mine[2].Msg) != sum || mine[2].Size != int64(len(big)) || string(mine[3].Msg) != `{"jsonrpc":"2.0","id":2,"method":"last"}` {
			t.Errorf("%s records are not the lines sent", dir)
		}
	}
	if ex := findKind(recs, capture.KindExit); len(ex) != 1 || *ex[0].ExitCode != 0 {
		t.Errorf("exit records %+v", ex)
	}
}

// TestStdioTapRecordsGarbage: lines that are not JSON are relayed and recorded raw
// and flagged; stderr is relayed and recorded line by line.
func TestStdioTapRecordsGarbage(t *testing.T) {
	r := startStdio(t, "garbage", StdioOptions{})
	out, _ := io.ReadAll(r.out)
	r.wait(t)
	if !strings.HasPrefix(string(out), "Starting server") || !strings.HasSuffix(string(out), `{"partial":`) {
		t.Errorf("stdout relayed as %q", out)
	}
	if got := r.stderr(); got != "warning: something\nno newline at the end" {
		t.Errorf("stderr relayed as %q", got)
	}
	recs := r.capt.records(t)
	var invalid []string
	valid := 0
	for _, rec := range recs {
		if !rec.IsMessage() {
			continue
		}
		if rec.Invalid {
			invalid = append(invalid, rec.Raw+string(rec.Raw64))
		} else {
			valid++
		}
	}
	wantInvalid := []string{"Starting server v1.0 on stdio...", "\x1b[32mready\x1b[0m\r", "{\"jsonrpc\":\"2.0\",\"id\":1,\"res\xff", `{"partial":`}
	if valid != 1 || strings.Join(invalid, "|") != strings.Join(wantInvalid, "|") {
		t.Errorf("%d valid, invalid %q; want 1 and %q", valid, invalid, wantInvalid)
	}
	var lines []string
	for _, rec := range findKind(recs, capture.KindStderr) {
		lines = append(lines, rec.Text)
	}
	if strings.Join(lines, "|") != "warning: something|no newline at the end" {
		t.Errorf("stderr lines %q", lines)
	}
}

// TestStdioTapPairsRequests: requests and their responses pair up; a request the
// server never answers is listed.
func TestStdioTapPairsRequests(t *testing.T) {
	r := startStdio(t, "rpc", StdioOptions{})
	go func() { _, _ = io.Copy(io.Discard, r.out) }()
	fmt.Fprintln(r.in, `{"jsonrpc":"2.0","id":1,"method":"initialize"}`)
	fmt.Fprintln(r.in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	fmt.Fprintln(r.in, `[{"jsonrpc":"2.0","id":"a","method":"tools/list"}]`) // a batch: the server skips it
	fmt.Fprintln(r.in, `{"jsonrpc":"2.0","id":2,"method":"tools/call"}`)
	_ = r.in.Close()
	r.wait(t)
	sum := capture.Summarize(r.capt.records(t))
	if sum.Requests != 3 || sum.Responses != 2 || len(sum.Unanswered) != 1 || sum.Unanswered[0].ID != `"a"` || sum.StderrLines != 2 {
		t.Errorf("summary %s", sum.String())
	}
}

// TestStdioTapRecordsCauseBeforeEffect: a request is recorded before the tap
// relays it, so the server's answer can never get the earlier seq — even when the
// answer comes back at once, round after round.
func TestStdioTapRecordsCauseBeforeEffect(t *testing.T) {
	r := startStdio(t, "rpc", StdioOptions{})
	answers := bufio.NewReader(r.out)
	const rounds = 300
	for i := range rounds {
		fmt.Fprintf(r.in, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`+"\n", i)
		if _, err := answers.ReadString('\n'); err != nil {
			t.Fatalf("round %d: %v", i, err)
		}
	}
	_ = r.in.Close()
	go func() { _, _ = io.Copy(io.Discard, answers) }()
	r.wait(t)
	sent := map[string]uint64{}
	answered := 0
	for _, rec := range r.capt.records(t) {
		if rec.Kind != "" {
			continue
		}
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		if err := json.Unmarshal(rec.Msg, &m); err != nil {
			t.Fatalf("record %d: %v", rec.Seq, err)
		}
		switch rec.Dir {
		case capture.ClientToServer:
			sent[string(m.ID)] = rec.Seq
		case capture.ServerToClient:
			if _, ok := sent[string(m.ID)]; !ok {
				t.Errorf("the answer to id %s (seq %d) is recorded before its request", m.ID, rec.Seq)
			}
			answered++
		}
	}
	if answered != rounds {
		t.Errorf("%d answers recorded, want %d", answered, rounds)
	}
}

// TestStdioTapExitStatus: the server's exit status is the tap's; a signal that
// killed it is reported as 128+N.
func TestStdioTapExitStatus(t *testing.T) {
	r := startStdio(t, "exit3", StdioOptions{})
	if code := r.wait(t); code != 3 {
		t.Errorf("exit status %d, want 3", code)
	}
	r = startStdio(t, "killself", StdioOptions{})
	if code := r.wait(t); code != 128+9 {
		t.Errorf("exit status %d, want 137", code)
	}
	if ex := findKind(r.capt.records(t), capture.KindExit); len(ex) != 1 || ex[0].Signal != "SIGKILL" || *ex[0].ExitCode != 137 {
		t.Errorf("exit records %+v", ex)
	}
}

// TestStdioTapForwardsSignals: a signal the tap receives reaches the server, which
// decides what to do (here: exit 7); the tap exits with that status.
func TestStdioTapForwardsSignals(t *testing.T) {
	r := startStdio(t, "signal", StdioOptions{})
	line, err := bufio.NewReader(r.out).ReadString('\n') // the server has set up its handler
	if err != nil || !strings.Contains(line, "ready") {
		t.Fatalf("%q, %v", line, err)
	}
	go func() { _, _ = io.Copy(io.Discard, r.out) }()
	r.signals <- syscall.SIGTERM
	if code := r.wait(t); code != 7 {
		t.Errorf("exit status %d, want the server's 7", code)
	}
	if got := r.stderr(); got != "got terminated\n" {
		t.Errorf("the server's stderr: %q", got)
	}
	if s := findKind(r.capt.records(t), capture.KindSignal); len(s) != 1 || s[0].Signal != "SIGTERM" {
		t.Errorf("signal records %+v", s)
	}
}

// TestStdioTapLeftoverHoldsOutput: a server that exits while a process it started
// keeps its output open does not keep the tap waiting past DrainTimeout.
func TestStdioTapLeftoverHoldsOutput(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	capt := newTestCapture(t)
	out, outText := tempFile(t)
	start := time.Now()
	code, err := RunStdio(testkit.Context(t), StdioOptions{
		Command: sh, Args: []string{"-c", `echo '{"jsonrpc":"2.0","method":"hi"}'; sleep 60 & echo $! >&2; exit 0`},
		Stdin: strings.NewReader(""), Stdout: out, Stderr: out, Recorder: capt.rec, DrainTimeout: 200 * time.Millisecond,
	})
	if err != nil || code != 0 {
		t.Fatalf("%d, %v", code, err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("the tap waited %v for the leftover", d)
	}
	// Stop the leftover (it is in the server's process group, which the tap made).
	for _, line := range strings.Split(outText(), "\n") {
		var pid int
		if _, err := fmt.Sscanf(line, "%d", &pid); err == nil && pid > 0 {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	if sum := capture.Summarize(capt.records(t)); sum.S2C != 1 {
		t.Errorf("summary %s", sum.String())
	}
}
