package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// mcpkitBin is the CLI built once for these tests.
var mcpkitBin string

// silentServerEnv makes the test binary a stdio "server" that reads its input and
// never answers (for the request timeout tests).
const silentServerEnv = "MCPKIT_TEST_SILENT_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(silentServerEnv) == "1" {
		_, _ = io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}
	if path := os.Getenv(schemaServerEnv); path != "" {
		serveSchemaTool(path)
		os.Exit(0)
	}
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
	return runIn(t, "", args...)
}

// runIn is run in the directory dir ("" for the test's own).
func runIn(t *testing.T, dir string, args ...string) (string, string, int) {
	t.Helper()
	return execCLI(t, cliRun{dir: dir, args: append(args, "--", mcpkitBin, "serve")})
}

// cliRun is how execCLI runs the CLI: in dir ("" for the test's own), with env
// added to the environment and stdin as its input ("" for /dev/null).
type cliRun struct {
	dir   string
	env   []string
	stdin string
	args  []string
}

// execCLI runs the CLI, bounded by 30 s, and returns stdout, stderr and the
// exit status.
func execCLI(t *testing.T, r cliRun) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, mcpkitBin, r.args...)
	cmd.Dir = r.dir
	cmd.Env = append(os.Environ(), r.env...)
	if r.stdin != "" {
		cmd.Stdin = strings.NewReader(r.stdin)
	}
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

// When stderr is not a terminal, progress comes as plain lines without escape
// codes (TestProgressBarOnATerminal covers the terminal).
func TestCallWithProgressPrintsPlainLines(t *testing.T) {
	out, errOut, code := run(t, "call", "count", `{"n":3}`)
	if out != "3\n" || code != 0 || !strings.Contains(errOut, "progress 2/3 Step 2 of 3\n") || strings.Contains(errOut, "\x1b[") {
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
		{[]string{"call", "echo", `["hi"]`}, "the arguments must be a JSON object, not an array"},
		// The stateless era reports an unknown resource as invalid params; a legacy
		// session as -32002.
		{[]string{"read", "demo://items/7"}, "-32602: Resource not found"},
		{[]string{"read", "demo://items/7", "--protocol", "2025-11-25"}, "-32002: Resource not found"},
		{[]string{"tools", "--protocol", "1999-01-01"}, "not a version mcpkit speaks"},
	} {
		out, errOut, code := run(t, c.args...)
		if code == 0 || !strings.Contains(errOut, c.stderr) {
			t.Errorf("%v: stdout %q stderr %q exit %d", c.args, out, errOut, code)
		}
		// Every failure is reported under one prefix.
		for line := range strings.Lines(errOut) {
			if !strings.HasPrefix(line, "mcpkit: ") {
				t.Errorf("%v: stderr line %q lacks the prefix \"mcpkit: \"", c.args, line)
			}
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

// The client commands detect the server's era (the demo server speaks both, so the
// stateless one), and --protocol forces one.
func TestProtocolEraSelection(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"ping", "-v"}, "protocol 2026-07-28 (stateless)"},
		{[]string{"ping", "-v", "--protocol", "2026-07-28"}, "protocol 2026-07-28 (stateless)"},
		{[]string{"ping", "-v", "--protocol", "2025-11-25"}, "protocol 2025-11-25 (legacy session)"},
		{[]string{"call", "echo", `{"message":"old"}`, "-v", "--protocol", "2024-11-05"}, "protocol 2024-11-05 (legacy session)"},
	} {
		out, errOut, code := run(t, c.args...)
		if code != 0 || !strings.Contains(errOut, "mcpkit: connected to mcpkit-demo") || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: want %q on stderr; stdout %q stderr %q exit %d", c.args, c.want, out, lastLines(errOut, 5), code)
		}
	}
}

// lastLines returns the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// serveHTTPForTest starts `mcpkit serve --http 127.0.0.1:0 [args]` and returns its base
// URL; the server is stopped when the test ends.
func serveHTTPForTest(t *testing.T, args ...string) string {
	t.Helper()
	return startHTTPForTest(t, append([]string{"serve", "--http", "127.0.0.1:0"}, args...)...)
}

// startHTTPForTest runs the CLI with args (a command that serves HTTP and
// announces "… at http://ADDR/mcp" on stderr) and returns its base URL; the
// process is stopped when the test ends.
func startHTTPForTest(t *testing.T, args ...string) string {
	t.Helper()
	u, _ := startHTTPForTestEnv(t, nil, args...)
	return u
}

// startHTTPForTestEnv is startHTTPForTest with env added to the process's
// environment; it also returns what the process wrote on stderr before its
// announcement.
func startHTTPForTestEnv(t *testing.T, env []string, args ...string) (url string, before []string) {
	t.Helper()
	p := startLogged(t, env, args...)
	return p.base, p.before
}

// runURL runs the CLI against --url and returns stdout, stderr and the exit status.
func runURL(t *testing.T, url string, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, mcpkitBin, append(args, "--url", url)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	code := 0
	if ee != nil {
		code = ee.ExitCode()
	}
	return stdout.String(), stderr.String(), code
}

// Over HTTP: the Streamable HTTP endpoint serves the stateless client, --protocol
// gets a legacy session there, and the old HTTP+SSE endpoint is reached through
// both fallbacks (no stateless answer, then no Streamable HTTP).
func TestProtocolEraSelectionOverHTTP(t *testing.T) {
	base := serveHTTPForTest(t)
	for _, c := range []struct {
		path string
		args []string
		want string
	}{
		{"/mcp", []string{"call", "echo", `{"message":"hi"}`, "-v"}, "protocol 2026-07-28 (stateless)"},
		{"/mcp", []string{"call", "echo", `{"message":"hi"}`, "-v", "--protocol", "2025-11-25"}, "protocol 2025-11-25 (legacy session)"},
		{"/sse", []string{"call", "echo", `{"message":"hi"}`, "-v"}, "(legacy session)"},
	} {
		out, errOut, code := runURL(t, base+c.path, c.args...)
		if code != 0 || out != "hello hi\n" || !strings.Contains(errOut, c.want) {
			t.Errorf("%s %v: want %q; stdout %q stderr %q exit %d", c.path, c.args, c.want, out, lastLines(errOut, 5), code)
		}
	}
	if _, errOut, code := runURL(t, base+"/sse", "ping", "--protocol", "2026-07-28"); code == 0 || !strings.Contains(errOut, "does not speak protocol version 2026-07-28") {
		t.Errorf("forcing 2026-07-28 on the HTTP+SSE endpoint: stderr %q exit %d", errOut, code)
	}
}

// A target server that exits instead of answering is reported with its exit status
// and its last stderr lines, not as a broken pipe or a closed connection.
func TestServerExitIsReported(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, mcpkitBin, "tools", "--", mcpkitBin, "no-such-command")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	// The request may have been written before the server exited or not: the
	// error is a closed connection or a failed write, with the same cause.
	want := `stdio: the server exited (status 1); its last stderr: mcpkit: unknown command "no-such-command" for "mcpkit"`
	got := stderr.String()
	if err == nil || !strings.HasPrefix(got, "mcpkit: mcp: initialize: ") || !strings.Contains(got, want) || strings.Contains(got, "broken pipe") {
		t.Fatalf("exit %v, stderr %q\nwant it to report %q", err, got, want)
	}
}
