package main

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/llmtest"
)

// refusedAddr returns an address nothing listens on: requests to it are
// refused.
func refusedAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// The break-it review's T6: `mcpkit gateway -v` logged configuration
// secrets at DEBUG (the failed server/discover probe carries a server's
// stderr, which prints its env, and the transport error carries the URL
// with its query). Every line, at every level, must have them redacted.
func TestGatewayVerboseLogRedactsSecrets(t *testing.T) {
	addr := refusedAddr(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "gw.json")
	data, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"crashstart": map[string]any{
			"command": "sh",
			"args":    []string{"-c", `echo "fatal: cannot start (secret=$MYSECRET)" >&2; exit 1`},
			"env":     map[string]string{"MYSECRET": "S3CRET_ENV_VALUE"},
		},
		"web": map[string]any{
			"url":     "http://user:S3CRET_PASS@" + addr + "/mcp?api_key=S3CRET_Q",
			"headers": map[string]string{"Authorization": "Bearer S3CRET_HDR"},
		},
	}})
	if err := os.WriteFile(cfg, data, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, mcpkitBin, "gateway", "--config", cfg, "-v", "--start-timeout", "30s")
	stdin, err := cmd.StdinPipe() // kept open: the gateway serves on stdio until it closes
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		stdin.Close()
		if err := cmd.Wait(); err != nil {
			t.Errorf("gateway: %v", err)
		}
	}()
	// Read until both servers' probes failed at DEBUG and both are down.
	var log strings.Builder
	probes, down := map[string]bool{}, map[string]bool{}
	sc := bufio.NewScanner(stderr)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for len(probes) < 2 || len(down) < 2 {
		if !sc.Scan() {
			t.Fatalf("the gateway's stderr ended (%v) before both servers failed:\n%s", sc.Err(), log.String())
		}
		line := sc.Text()
		log.WriteString(line + "\n")
		for _, name := range []string{"crashstart", "web"} {
			if !strings.Contains(line, "server="+name) {
				continue
			}
			if strings.Contains(line, "level=DEBUG") && strings.Contains(line, "server/discover") ||
				strings.Contains(line, "the server is not stateless") {
				probes[name] = true
			}
			if strings.Contains(line, "upstream: server down") {
				down[name] = true
			}
		}
	}
	text := log.String()
	if strings.Contains(text, "S3CRET") {
		for l := range strings.Lines(text) {
			if strings.Contains(l, "S3CRET") {
				t.Errorf("a log line shows a secret: %s", l)
			}
		}
	}
	// The lines that carried them before are there, redacted.
	for _, want := range []string{"(secret=[redacted])", "api_key=[redacted]"} {
		if !strings.Contains(text, want) {
			t.Errorf("the log lacks %q:\n%s", want, text)
		}
	}
}

// The client commands' -v log redacts the secrets of --url and --header
// the same way.
func TestClientVerboseLogRedactsSecrets(t *testing.T) {
	addr := refusedAddr(t)
	_, errOut, code := runCLI(t, nil, "tools", "-v", "--url", "http://user:S3CRET_PASS@"+addr+"/mcp?api_key=S3CRET_Q",
		"--header", "Authorization: Bearer S3CRET_HDR")
	if code == 0 {
		t.Fatal("tools against a closed port succeeded")
	}
	logged := 0
	for line := range strings.Lines(errOut) {
		if !strings.Contains(line, "level=") {
			continue // not a log line (the final error message)
		}
		logged++
		if strings.Contains(line, "S3CRET") {
			t.Errorf("a log line shows a secret: %s", line)
		}
	}
	if logged == 0 || !strings.Contains(errOut, "api_key=[redacted]") {
		t.Errorf("no redacted log line:\n%s", errOut)
	}
}

// host --config -v: the same redaction, through a real process with a
// working server beside the two that fail.
func TestHostConfigVerboseLogRedactsSecrets(t *testing.T) {
	addr := refusedAddr(t)
	cfg := writeHostConfig(t, map[string]any{
		"demo": map[string]any{"command": mcpkitBin, "args": []string{"serve"}},
		"crashstart": map[string]any{
			"command": "sh",
			"args":    []string{"-c", `echo "fatal: cannot start (secret=$MYSECRET)" >&2; exit 1`},
			"env":     map[string]string{"MYSECRET": "S3CRET_ENV_VALUE"},
		},
		"web": map[string]any{"url": "http://user:S3CRET_PASS@" + addr + "/mcp?api_key=S3CRET_Q"},
	})
	srv := llmtest.NewOpenAI(t, "sk-test", llmtest.Reply{Body: llmtest.OpenAI("done")})
	_, errOut, _ := runHostCmd(t, openAIEnv(srv), "", "--model", "openai:gpt-4o", "--config", cfg, "-p", "hi", "--yes", "-v")
	probes := 0
	for line := range strings.Lines(errOut) {
		if strings.Contains(line, "S3CRET") {
			t.Errorf("stderr shows a secret: %s", line)
		}
		if strings.Contains(line, "level=DEBUG") && strings.Contains(line, "the server is not stateless") {
			probes++
		}
	}
	if probes == 0 || !strings.Contains(errOut, "(secret=[redacted])") || !strings.Contains(errOut, "api_key=[redacted]") {
		t.Errorf("the DEBUG lines of the failed servers are missing:\n%s", errOut)
	}
}
