//go:build unix

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTapExport records a stdio session through `mcpkit tap` and exports it with
// `mcpkit tap export`: HAR (synthetic entries, one per request) and Markdown.
func TestTapExport(t *testing.T) {
	capPath := filepath.Join(t.TempDir(), "cap.jsonl")
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, mcpkitBin, "call", "echo", `{"message":"exported"}`, "--", mcpkitBin, "tap", "--out", capPath, "--", mcpkitBin, "serve")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	run := func(args ...string) (string, string, error) {
		c := exec.CommandContext(ctx, mcpkitBin, args...)
		var stdout, stderr bytes.Buffer
		c.Stdout, c.Stderr = &stdout, &stderr
		err := c.Run()
		return stdout.String(), stderr.String(), err
	}

	out, errOut, err := run("tap", "export", "--har", capPath)
	if err != nil {
		t.Fatalf("export --har: %v %s", err, errOut)
	}
	var har struct {
		Log struct {
			Version string
			Entries []struct {
				Request struct {
					URL      string
					PostData struct{ Text string }
				}
				Response struct {
					Status  int
					Content struct{ Text string }
				}
				MCPKit struct{ Synthetic bool } `json:"_mcpkit"`
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &har); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if har.Log.Version != "1.2" || len(har.Log.Entries) != 2 { // initialize, tools/call
		t.Fatalf("HAR version %q, %d entries, want 1.2 and 2:\n%s", har.Log.Version, len(har.Log.Entries), out)
	}
	call := har.Log.Entries[1]
	if call.Request.URL != "http://stdio.invalid/tools/call" || !strings.Contains(call.Request.PostData.Text, "exported") ||
		call.Response.Status != 200 || !strings.Contains(call.Response.Content.Text, "hello exported") || !call.MCPKit.Synthetic {
		t.Errorf("tools/call entry: %+v", call)
	}

	md, errOut, err := run("tap", "export", "--format", "markdown", capPath)
	if err != nil {
		t.Fatalf("export --format markdown: %v %s", err, errOut)
	}
	for _, want := range []string{"## Session `stdio` (stdio)", "### 2. `tools/call` (id ", `"text": "hello exported"`, "Response after ", "the server exited with status 0"} {
		if !strings.Contains(md, want) {
			t.Errorf("the transcript lacks %q:\n%s", want, md)
		}
	}

	for _, args := range [][]string{
		{"tap", "export", capPath},
		{"tap", "export", "--format", "pdf", capPath},
		{"tap", "export", "--har", filepath.Join(t.TempDir(), "none.jsonl")},
	} {
		if _, errOut, err := run(args...); err == nil || !strings.Contains(errOut, "tap export") {
			t.Errorf("%v: %v %q, want a failure that says why", args, err, errOut)
		}
	}
}
