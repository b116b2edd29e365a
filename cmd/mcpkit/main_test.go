package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// mcpkitBin is the CLI built once for these tests.
var mcpkitBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mcpkit-cli")
	if err != nil {
		panic(err)
	}
	mcpkitBin = filepath.Join(dir, "mcpkit")
	if out, err := exec.Command("go", "build", "-o", mcpkitBin, ".").CombinedOutput(); err != nil {
		panic(string(out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// run runs the CLI with the demo server as its target and returns stdout, stderr and
// the exit status.
func run(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, mcpkitBin, append(args, "--", mcpkitBin, "serve")...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return stdout.String(), stderr.String(), code
}

func TestCallEcho(t *testing.T) {
	out, errOut, code := run(t, "call", "echo", `{"message":"hi"}`)
	if out != "hello hi\n" || code != 0 {
		t.Fatalf("stdout %q stderr %q exit %d", out, errOut, code)
	}
}

func TestCallWithProgressDrawsABar(t *testing.T) {
	out, errOut, code := run(t, "call", "count", `{"n":3}`)
	if out != "3\n" || code != 0 || !strings.Contains(errOut, "2/3 Step 2 of 3") {
		t.Fatalf("stdout %q stderr %q exit %d", out, errOut, code)
	}
}

func TestCallFailures(t *testing.T) {
	for _, c := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"call", "test_throw"}, "test_throw always fails"},
		{[]string{"call", "nope"}, "-32602"},
		{[]string{"call", "echo", `{"message":`}, "not valid JSON"},
		{[]string{"read", "demo://items/7"}, "-32002"},
	} {
		out, errOut, code := run(t, c.args...)
		if code == 0 || !strings.Contains(errOut, c.stderr) {
			t.Errorf("%v: stdout %q stderr %q exit %d", c.args, out, errOut, code)
		}
	}
}

func TestListingsAndJSON(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"tools"}, []string{"echo — Echoes the message back", "message (string, required)"}},
		{[]string{"resources"}, []string{"demo://readme", "demo://items/{id}"}},
		{[]string{"prompts"}, []string{"greet", "name (required)"}},
		{[]string{"get", "greet", `{"name":"Ada","style":"pirate"}`}, []string{"Greet Ada in a pirate style."}},
		{[]string{"read", "demo://items/42"}, []string{"the answer"}},
		{[]string{"ping"}, []string{"pong"}},
	} {
		out, errOut, code := run(t, c.args...)
		for _, w := range c.want {
			if code != 0 || !strings.Contains(out, w) {
				t.Errorf("%v: want %q in stdout %q (stderr %q, exit %d)", c.args, w, out, errOut, code)
			}
		}
	}
	out, _, code := run(t, "call", "add", `{"a":1,"b":2}`, "--json")
	var res struct {
		StructuredContent struct{ Sum float64 } `json:"structuredContent"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &res) != nil || res.StructuredContent.Sum != 3 {
		t.Fatalf("--json output %q", out)
	}
}

func TestMissingTarget(t *testing.T) {
	cmd := exec.Command(mcpkitBin, "tools")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "put the command to run after --") {
		t.Fatalf("no target: %v %s", err, out)
	}
}
