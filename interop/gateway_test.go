//go:build unix

package interop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// gatewayAnnouncement is the line `mcpkit gateway --http` prints once it listens.
var gatewayAnnouncement = regexp.MustCompile(`^mcpkit: serving the gateway at http://(127\.0\.0\.1:\d+)/mcp \(Streamable HTTP\) and http://127\.0\.0\.1:\d+/sse \(HTTP\+SSE\)$`)

// inspectorCLI is the command of the Inspector's CLI mode in the pinned package.
const inspectorCLI = "node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js"

// gatewayTSReport is what gateway_ts_client.mjs prints.
type gatewayTSReport struct {
	Mode       string            `json:"mode"`
	Steps      map[string]tsStep `json:"steps"`
	Sampling   []string          `json:"sampling"`
	Unexpected []string          `json:"unexpected"`
}

// gatewayToolResult is the value of a call step of gateway_ts_client.mjs.
type gatewayToolResult struct {
	Text     string    `json:"text"`
	IsError  bool      `json:"isError"`
	Progress []float64 `json:"progress"`
}

// TestGatewayWithOfficialClients runs `mcpkit gateway --http` in front of two stdio
// servers, the npm reference server server-everything and `mcpkit serve`, and drives
// it with the official TypeScript SDK client (gateway_ts_client.mjs) and the official
// Inspector's CLI mode: both list the namespaced tools of both servers and call them;
// progress passes through from both servers; both servers' sampling requests reach
// the TypeScript client and its answers go back. Then both server processes are
// killed (SIGKILL): the gateway restarts them, and calls work again. Finally an
// interrupt stops the gateway, which stops both servers.
func TestGatewayWithOfficialClients(t *testing.T) {
	node := requirePeers(t)
	bin := buildMcpkit(t)
	everything := packageBin(t, "@modelcontextprotocol/server-everything")
	if _, err := os.Stat(inspectorCLI); err != nil {
		t.Fatalf("the Inspector CLI is missing (%v); %s", err, installHint)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*testTimeout)
	defer cancel()

	// Each server writes its pid to a file (then becomes the server, with exec),
	// so that the test can kill exactly it.
	dir := t.TempDir()
	pidFile := func(name string) string { return filepath.Join(dir, name+".pid") }
	shell := func(name, command string) map[string]any {
		return map[string]any{"command": "/bin/sh", "args": []string{"-c", fmt.Sprintf("echo $$ > %q; exec %s", pidFile(name), command)}}
	}
	cfg := map[string]any{"mcpServers": map[string]any{
		"everything": shell("everything", fmt.Sprintf("%q %q stdio", node, everything)),
		"demo":       shell("demo", fmt.Sprintf("%q serve", bin)),
	}}
	data, _ := json.Marshal(cfg)
	cfgPath := filepath.Join(dir, "mcp.json")
	if err := os.WriteFile(cfgPath, data, 0o600); err != nil {
		t.Fatal(err)
	}

	out := newEventLog()
	cmd := exec.CommandContext(ctx, bin, "gateway", "--config", cfgPath, "--http", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "GORACE=halt_on_error=1 atexit_sleep_ms=0")
	m, gw := startAnnouncedServer(ctx, t, cmd, out, gatewayAnnouncement)
	url := "http://" + m[1] + "/mcp"

	r := runGatewayTSClient(t, node, "full", url)
	var tools struct {
		Names []string `json:"names"`
	}
	if stepValue(t, r, "listTools", &tools) {
		requireAll(t, "tools/list through the gateway", tools.Names,
			"demo__echo", "demo__count", "demo__sample", "everything__echo", "everything__trigger-long-running-operation", "everything__trigger-sampling-request")
	}
	wantCall(t, r, "demoEcho", "hello hi", nil)
	wantCall(t, r, "everythingEcho", "Echo: hi", nil)
	wantCall(t, r, "demoCount", "3", []float64{0, 1, 2})
	wantCall(t, r, "everythingLong", "Long running operation completed. Duration: 1 seconds, Steps: 3.", []float64{1, 2, 3})
	wantCall(t, r, "demoSample", "sampled: two plus two? (model gateway-interop-model)", nil)
	var sample gatewayToolResult
	if stepValue(t, r, "everythingSample", &sample) && !strings.Contains(sample.Text, `"text": "sampled: Resource trigger-sampling-request context: a haiku"`) {
		t.Errorf("everything__trigger-sampling-request = %q, want the TypeScript client's answer in it", sample.Text)
	}
	if len(r.Sampling) != 2 {
		t.Errorf("the TypeScript client answered %d sampling requests (%q), want 2", len(r.Sampling), r.Sampling)
	}

	runInspector(t, node, url, []string{"--method", "tools/list"}, `"name": "demo__echo"`, `"name": "everything__get-sum"`)
	runInspector(t, node, url, []string{"--method", "tools/call", "--tool-name", "demo__echo", "--tool-arg", "message=inspector"}, `"text": "hello inspector"`)
	runInspector(t, node, url, []string{"--method", "tools/call", "--tool-name", "everything__get-sum", "--tool-arg", "a=1", "b=2"}, "The sum of 1 and 2 is 3.")

	// Kill both servers; the gateway restarts them.
	pids := map[string]int{}
	for _, name := range []string{"everything", "demo"} {
		pids[name] = readPid(t, pidFile(name))
		if err := syscall.Kill(pids[name], syscall.SIGKILL); err != nil {
			t.Fatalf("killing %s (pid %d): %v", name, pids[name], err)
		}
	}
	for _, name := range []string{"everything", "demo"} {
		line, err := out.waitCount(ctx, "server="+name+" connects=2", 1)
		if err != nil {
			t.Fatalf("the gateway did not restart %s: %v", name, err)
		}
		t.Logf("restarted: %s", line)
		if pid := readPid(t, pidFile(name)); pid == pids[name] {
			t.Errorf("%s: still pid %d after the restart", name, pid)
		}
	}
	if _, err := out.waitCount(ctx, `server down" server=everything error="stdio: the server exited (signal: killed)`, 1); err != nil {
		t.Errorf("the gateway did not say why everything stopped: %v", err)
	}
	r = runGatewayTSClient(t, node, "calls", url)
	wantCall(t, r, "demoEcho", "hello hi", nil)
	wantCall(t, r, "everythingEcho", "Echo: hi", nil)

	restarted := map[string]int{}
	for _, name := range []string{"everything", "demo"} {
		restarted[name] = readPid(t, pidFile(name))
	}
	switch err := gw.interrupt(15 * time.Second); {
	case errors.Is(err, errors.ErrUnsupported):
		t.Log("interrupts cannot be sent here: graceful shutdown not checked")
	case err != nil:
		t.Errorf("mcpkit gateway after an interrupt: %v", err)
	default:
		for name, pid := range restarted {
			if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
				t.Errorf("%s (pid %d) still runs after the gateway stopped (%v)", name, pid, err)
			}
		}
	}
	for _, line := range out.snapshot() {
		if strings.Contains(line, "DATA RACE") {
			t.Error("mcpkit gateway reported a data race")
			break
		}
	}
}

// runGatewayTSClient runs gateway_ts_client.mjs in mode against url and returns its
// report (see runNode for how the process is bounded).
func runGatewayTSClient(t *testing.T, node, mode, url string) *gatewayTSReport {
	t.Helper()
	var r gatewayTSReport
	stderr, waitErr := runNodeReport(t, nil, &r, node, "gateway_ts_client.mjs", mode, url)
	if waitErr != nil || len(r.Unexpected) > 0 {
		t.Errorf("gateway_ts_client.mjs %s: exit %v; steps that failed: %v\nstderr:\n%s", mode, waitErr, r.Unexpected, stderr)
		for _, name := range r.Unexpected {
			t.Errorf("  %s: %+v", name, r.Steps[name].Error)
		}
	}
	return &r
}

// stepValue decodes the value of a step that succeeded.
func stepValue(t *testing.T, r *gatewayTSReport, name string, v any) bool {
	t.Helper()
	s, ok := r.Steps[name]
	if !ok || !s.OK {
		t.Errorf("step %s did not succeed: %+v", name, s)
		return false
	}
	if err := json.Unmarshal(s.Value, v); err != nil {
		t.Errorf("step %s: %v", name, err)
		return false
	}
	return true
}

// wantCall checks a call step's text and progress values (nil: not checked).
func wantCall(t *testing.T, r *gatewayTSReport, step, text string, progress []float64) {
	t.Helper()
	var res gatewayToolResult
	if !stepValue(t, r, step, &res) {
		return
	}
	if res.Text != text || res.IsError {
		t.Errorf("%s (%s) = %q (isError %v), want %q", step, r.Mode, res.Text, res.IsError, text)
	}
	if progress != nil && fmt.Sprint(res.Progress) != fmt.Sprint(progress) {
		t.Errorf("%s: progress %v, want %v", step, res.Progress, progress)
	}
}

// runInspector runs the Inspector's CLI against the gateway and checks that its
// output contains each of want.
func runInspector(t *testing.T, node, url string, args []string, want ...string) {
	t.Helper()
	// It keeps a catalog in the home directory.
	stdout, stderr, err := runNode(t, []string{"HOME=" + t.TempDir()}, node, append([]string{inspectorCLI, "--cli", url, "--transport", "http"}, args...)...)
	out := append(stdout, stderr...)
	if err != nil {
		t.Errorf("inspector --cli %v: %v\n%s", args, err, out)
		return
	}
	for _, w := range want {
		if !strings.Contains(string(out), w) {
			t.Errorf("inspector --cli %v: output lacks %q:\n%s", args, w, clip(out, 3000))
		}
	}
}

func readPid(t *testing.T, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return pid
}
