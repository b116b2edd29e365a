package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startHTTPTap runs `mcpkit tap --listen 127.0.0.1:0 --upstream upstream --out
// capPath [args]` and returns the URL it relays at and a stop function that
// sends it SIGTERM, waits for it, and returns what it wrote on stderr after its
// announcement.
func startHTTPTap(t *testing.T, upstream, capPath string, args ...string) (tapURL string, stop func() string) {
	t.Helper()
	return startHTTPTapArgs(t, append([]string{"tap", "--listen", "127.0.0.1:0", "--upstream", upstream, "--out", capPath}, args...))
}

// startHTTPTapArgs is startHTTPTap with the tap's whole command line.
func startHTTPTapArgs(t *testing.T, args []string) (tapURL string, stop func() string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	tap := exec.CommandContext(ctx, mcpkitBin, args...)
	stderr, err := tap.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := tap.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); _ = tap.Wait() })
	sc := bufio.NewScanner(stderr)
	var announced string
	for sc.Scan() {
		announced = sc.Text()
		if i := strings.Index(announced, "relaying http://"); i >= 0 {
			tapURL = strings.Fields(announced[i+len("relaying "):])[0]
			break
		}
	}
	if tapURL == "" {
		t.Fatalf("the tap did not announce its address: %q", announced)
	}
	rest := make(chan string, 1)
	go func() { b, _ := io.ReadAll(stderr); rest <- string(b) }()
	return tapURL, func() string {
		if err := tap.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		if err := tap.Wait(); err != nil {
			t.Errorf("the tap after SIGTERM: %v", err)
		}
		return <-rest
	}
}

// TestQuietClientCapture: the client commands send a server only the requests
// the session needs — no ping to find out whether authorization is wanted, no
// refused probe — so a capture of them in front of `mcpkit serve --http` holds
// no refused request and no failure, as `tap stats` reads it.
func TestQuietClientCapture(t *testing.T) {
	base := serveHTTPForTest(t)
	capPath := filepath.Join(t.TempDir(), "cap.jsonl")
	tapURL, stop := startHTTPTap(t, base+"/mcp", capPath)
	for _, args := range [][]string{
		{"tools"},
		{"call", "echo", `{"message":"hi"}`},
		{"call", "echo", `{"message":"hi"}`, "--protocol", "2025-11-25"},
		{"read", "demo://readme"},
	} {
		if out, errOut, code := runURL(t, tapURL, args...); code != 0 || out == "" {
			t.Errorf("%v through the tap: %q %q %d", args, out, errOut, code)
		}
	}
	stop()
	_, recs := readCaptureFile(t, capPath)
	var methods []string
	for _, r := range recs {
		if r.HTTP != nil && r.HTTP.Status >= 400 {
			t.Errorf("record %d: HTTP %d", r.Seq, r.HTTP.Status)
		}
		var m struct {
			Method string `json:"method"`
		}
		if r.IsMessage() && json.Unmarshal(r.Msg, &m) == nil && m.Method != "" {
			methods = append(methods, m.Method)
		}
	}
	for _, m := range methods {
		if m == "ping" {
			t.Errorf("the client sent a ping it did not need: %v", methods)
		}
	}
	out, errOut, code := execCLI(t, cliRun{args: []string{"tap", "stats", capPath}})
	if code != 0 || !strings.Contains(out, " 0 refused, 0 unanswered") || strings.Contains(out, "Failures") {
		t.Errorf("tap stats: %d %q %q", code, out, errOut)
	}
}
