//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/tap/capture"
)

// readCaptureFile reads a capture the CLI wrote.
func readCaptureFile(t *testing.T, path string) (capture.Header, []*capture.Record) {
	t.Helper()
	h, recs, err := capture.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return h, recs
}

// TestTapStdioInFrontOfServe: a client runs `mcpkit tap -- mcpkit serve` as if it
// were the server; everything works and the capture holds the session.
func TestTapStdioInFrontOfServe(t *testing.T) {
	capPath := filepath.Join(t.TempDir(), "cap-{pid}.jsonl")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, mcpkitBin, "-v", "call", "echo", `{"message":"hi"}`, "--", mcpkitBin, "tap", "--out", capPath, "--", mcpkitBin, "serve")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil || stdout.String() != "hello hi\n" {
		t.Fatalf("%v: stdout %q stderr %s", err, stdout.String(), stderr.String())
	}
	if !strings.Contains(stderr.String(), "mcpkit tap: 4 messages") || !strings.Contains(stderr.String(), "0 requests without a response") {
		t.Errorf("the tap's summary is not on stderr:\n%s", stderr.String())
	}
	matches, _ := filepath.Glob(filepath.Join(filepath.Dir(capPath), "cap-*.jsonl"))
	if len(matches) != 1 || strings.Contains(matches[0], "{pid}") {
		t.Fatalf("capture files %v: {pid} not replaced", matches)
	}
	h, recs := readCaptureFile(t, matches[0])
	if h.Mode != "stdio" || h.Command[len(h.Command)-1] != "serve" || !h.Redacted {
		t.Errorf("header %+v", h)
	}
	if sum := capture.Summarize(recs); sum.Requests != 2 || len(sum.Unanswered) != 0 || recs[len(recs)-1].Kind != capture.KindExit {
		t.Errorf("capture: %s", sum.String())
	}
}

// TestTapStdioExitStatusAndSignals: the tap exits with its server's status, and
// passes SIGTERM on to the server rather than dying of it.
func TestTapStdioExitStatusAndSignals(t *testing.T) {
	cmd := exec.Command(mcpkitBin, "tap", "--", "sh", "-c", "exit 3")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 || !strings.Contains(stderr.String(), "mcpkit tap: 0 messages") {
		t.Errorf("exit %v, stderr %q; want status 3 and the summary", err, stderr.String())
	}

	// mcpkit serve stops cleanly on SIGTERM; if the tap did not pass the signal on,
	// it would wait for its server forever.
	capPath := filepath.Join(t.TempDir(), "cap.jsonl")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd = exec.CommandContext(ctx, mcpkitBin, "tap", "--out", capPath, "--", mcpkitBin, "serve")
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The server answers: it is up, its signal handling in place.
	_, _ = io.WriteString(in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n")
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || !strings.Contains(line, `"id":1`) {
		t.Fatalf("no answer through the tap: %q %v", line, err)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the tap after SIGTERM: %v (the server should have stopped cleanly)", err)
	}
	_, recs := readCaptureFile(t, capPath)
	sig, exit := findRecord(recs, capture.KindSignal), findRecord(recs, capture.KindExit)
	if sig == nil || sig.Signal != "SIGTERM" || exit == nil || *exit.ExitCode != 0 {
		t.Errorf("signal %+v, exit %+v", sig, exit)
	}
}

func findRecord(recs []*capture.Record, kind string) *capture.Record {
	for _, r := range recs {
		if r.Kind == kind {
			return r
		}
	}
	return nil
}

// TestTapHTTPInFrontOfServe: `mcpkit tap --listen --upstream` in front of `mcpkit
// serve --http`; the CLI's client works through it, and SIGTERM ends the tap with
// its summary and a complete capture.
func TestTapHTTPInFrontOfServe(t *testing.T) {
	base := serveHTTPForTest(t)
	capPath := filepath.Join(t.TempDir(), "cap.jsonl")
	tapURL, stop := startHTTPTap(t, base+"/mcp?api_key=secret", capPath)
	if strings.Contains(tapURL, "secret") {
		t.Fatalf("the tap announced %q", tapURL)
	}
	out, errOut, code := runURL(t, tapURL, "call", "count", `{"n":2}`)
	if out != "2\n" || code != 0 {
		t.Errorf("through the tap: %q %q %d", out, errOut, code)
	}
	if s := stop(); !strings.Contains(s, "0 requests without a response") || !strings.Contains(s, "capture "+capPath) {
		t.Errorf("summary: %q", s)
	}
	h, recs := readCaptureFile(t, capPath)
	if h.Mode != "http" || strings.Contains(h.Upstream, "secret") || !strings.Contains(h.Upstream, "api_key=") {
		t.Errorf("header %+v", h)
	}
	if sum := capture.Summarize(recs); sum.Requests < 2 || len(sum.Unanswered) != 0 || sum.Notifications < 2 {
		t.Errorf("capture: %s", sum.String())
	}
}

// TestTapUsageErrors: a tap needs a command, or both --listen and --upstream.
func TestTapUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"tap"},
		{"tap", "--listen", "127.0.0.1:0"},
		{"tap", "--upstream", "http://127.0.0.1:1/mcp", "--listen", "127.0.0.1:0", "--", "x"},
		{"tap", "--upstream", "ftp://x/", "--listen", "127.0.0.1:0"},
		{"tap", "--", "/no/such/server"},
	} {
		cmd := exec.Command(mcpkitBin, args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() == 0 || !strings.Contains(stderr.String(), "tap") {
			t.Errorf("%v: %v, stderr %q; want a failure that says why", args, err, stderr.String())
		}
	}
}

// TestTapCaptureIsJSONLines: every line of a capture is one JSON object.
func TestTapCaptureIsJSONLines(t *testing.T) {
	capPath := filepath.Join(t.TempDir(), "cap.jsonl")
	cmd := exec.Command(mcpkitBin, "tap", "--out", capPath, "--", "sh", "-c", `echo '{"jsonrpc":"2.0","method":"x"}'; echo garbage; echo oops >&2`)
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(capPath)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 5 { // header, message, garbage, stderr line, exit
		t.Fatalf("%d lines:\n%s", len(lines), data)
	}
	for i, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Errorf("line %d is not a JSON object: %v", i+1, err)
		}
		if i > 0 && m["seq"] != float64(i) {
			t.Errorf("line %d: seq %v", i+1, m["seq"])
		}
	}
	if !strings.Contains(string(data), `"raw":"garbage","invalid":true`) {
		t.Errorf("no garbage record:\n%s", data)
	}
}
