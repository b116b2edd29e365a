// Package examples_test builds every program under examples/ and runs it the
// way its documentation says, checking what it prints.
package examples_test

import (
	"bufio"
	"bytes"
	"context"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit"
	"github.com/mcpkit/mcpkit/auth/authtest"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/store/redistest"
)

// runTimeout bounds each run of an example.
const runTimeout = 30 * time.Second

// run is one run of an example: the program (a directory under examples/),
// its arguments, and what it must print.
type run struct {
	name, program string
	args          []string
	fails         bool     // a non-zero exit status is expected
	stdout        []string // regular expressions, each must match
	stderr        []string
	// setup, when set, starts what the run needs (an authorization server, a
	// redis-server) and returns more arguments; it may skip the run.
	setup func(t *testing.T) []string
}

var runs = []run{
	{name: "apps", program: "apps", args: []string{"-addr", "127.0.0.1:0", "-demo"}, stdout: []string{
		`(?m)^serving MCP Apps at http://127\.0\.0\.1:\d+/mcp$`,
		`(?m)^host sees tool temperature_chart, _meta\.ui map\[resourceUri:ui://temperature/chart\.html\]$`,
		`(?m)^host sees tool temperature_next, _meta\.ui map\[resourceUri:ui://temperature/chart\.html visibility:\[app\]\]$`,
		`(?m)^host reads ui://temperature/chart\.html: text/html;profile=mcp-app, \d+ bytes of HTML, _meta\.ui map\[csp:map\[resourceDomains:\[https://unpkg\.com\]\] prefersBorder:true\]$`,
		`(?m)^host calls temperature_chart: 12 points for the view; text: Lyon: 12 readings, min 7\.2 °C, max 14\.5 °C, last 7\.2 °C \(reading 1000\)$`,
		`(?m)^the view polls temperature_next: reading 1001 is 7\.1 °C$`,
		`(?m)^plain client sees tool temperature_chart, _meta map\[\]$`,
		`(?m)^plain client reads: Lyon: 12 readings`,
	}},
	{name: "typed-tools", program: "typed-tools", args: []string{"-demo"}, stdout: []string{
		`(?m)^tool greet: input \{.*"description":"Who to greet\.".*"enum":\["en","fr","es"\]`,
		`(?m)^tool stats: output \{.*"count":\{"type":"integer"`,
		`(?m)^greet: Bonjour, Ada!$`,
		`(?m)^stats: \{Count:5 Min:1 Max:5 Mean:2\.8\}$`,
		`(?m)^stats with no numbers: isError=true: .*want at least 1`,
	}},
	{name: "client/default", program: "client", stdout: []string{ // runs typed-tools with go run
		`(?m)^connected, protocol 2026-07-28$`,
		`(?m)^tool greet: Greets someone`,
		`(?m)^tool stats: Count, minimum`,
		`(?m)^stats: count=6 min=1 max=8 mean=4\.66666`,
	}},
	{name: "client/command", program: "client", args: []string{"-tool", "greet", "-args", `{"name":"Bo","language":"es"}`, "--", "{bin}/typed-tools"},
		stdout: []string{`(?m)^greet \(isError=false\): Hola, Bo!$`}},
	{name: "http", program: "http", args: []string{"-addr", "127.0.0.1:0", "-demo"}, stdout: []string{
		`(?m)^serving Streamable HTTP at http://127\.0\.0\.1:\d+/mcp and HTTP\+SSE at http://127\.0\.0\.1:\d+/sse$`,
		`(?m)^/mcp \(protocol 2026-07-28\): echo: hi over /mcp$`,
		`(?m)^/sse \(protocol 2025-11-25\): echo: hi over /sse$`,
		`(?m)^shut down cleanly$`,
	}},
	{name: "stateless-balancer", program: "stateless-balancer", stdout: []string{
		`(?m)^connected through the proxy, protocol 2026-07-28$`,
		// Alternating replicas, and the input-required round trip asked on
		// one and resumed on the other.
		`proxy → replica-2: tools/call whoami\nwhoami: answered by replica-2\nproxy → replica-1: tools/call whoami\nwhoami: answered by replica-1\n`,
		`proxy → replica-2: tools/call book\n  replica-2: book asks the user to confirm \(input required\)\n` +
			`  client: the user is asked "Book a table for 2 at 19:30\?" and says yes\n` +
			`proxy → replica-1: tools/call book\n  replica-1: book resumes with the user's answer\n` +
			`book: booked a table for 2 at 19:30 \(on replica-1\)\n`,
	}},
	{name: "stateless-balancer/separate-keys", program: "stateless-balancer", args: []string{"-separate-keys"}, fails: true,
		stdout: []string{`replica-2: book asks the user to confirm`, `proxy → replica-1: tools/call book\n$`},
		stderr: []string{`calling book: .*-32602.*requestState rejected.*unknown key`}},
	{name: "tasks", program: "tasks", args: []string{"-demo"}, stdout: []string{
		`(?m)^task created: working$`,
		`(?m)^task completed \(tasks/get asked \d+ times\)$`,
		`(?m)^result: report on tides: done in 5 steps$`,
		`(?m)^second task cancelled: true$`,
	}},
	{name: "middleware", program: "middleware", args: []string{"-demo"},
		stdout: []string{
			`(?m)^echo: hello$`,
			`(?m)^echo without text: isError true$`,
			`(?m)^delete_all refused: .*-32602: tool "delete_all" is disabled on this server$`,
		},
		stderr: []string{
			`level=INFO msg=call method=tools/call direction=incoming duration=\S+ tool=echo\n`,
			`level=INFO msg=call method=tools/call direction=incoming duration=\S+ tool=echo isError=true\n`,
			`level=WARN msg="call failed" method=tools/call direction=incoming duration=\S+ tool=delete_all error=`,
		}},
	{name: "host-provider", program: "host-provider", stdout: []string{
		`(?m)^model calls add \{"a":2,"b":3\}$`,
		`(?m)^tool answers 5$`,
		`(?m)^answer after 2 model requests: The tool said: 5$`,
	}},
	{name: "gateway", program: "gateway", args: []string{"-addr", "127.0.0.1:0", "-demo"}, stdout: []string{
		`(?m)^tool clock__zone → zone of clock$`,
		`(?m)^tool weather__forecast → forecast of weather$`,
		`(?m)^instructions: This server is a gateway to several MCP servers`,
		`(?m)^weather__forecast: sunny in Lisbon$`,
		`(?m)^clock__zone: Asia/Tokyo$`,
	}},
	{name: "tap-capture", program: "tap-capture", args: []string{"-demo"}, stdout: []string{
		`(?m)^capture of a http tap, \d+ records$`,
		`(?m)^#1 c2s initialize streamable-http$`,
		`(?m)^#\d+ answers #\d+ \(tools/call\): ok$`,
		`(?m)^#\d+ answers #\d+ \(tools/call\): error: Unknown tool`,
		`(?m)^summary: 4 requests, 4 responses, 1 notifications, 0 unanswered$`,
	}},
	{name: "oauth", program: "oauth", setup: startAuthorizationServer, stdout: []string{
		`(?m)^without a token: 401 Unauthorized$`,
		`(?m)^with auth.Transport: connected, token from http://127\.0\.0\.1:\d+$`,
		`(?m)^whoami: principal \S+, client example-client, scopes \[.*\]$`,
	}},
	{name: "redis-replicas", program: "redis-replicas", setup: startRedis, stdout: []string{
		`(?m)^connected through the balancer, protocol 2025-11-25$`,
		`(?m)^whoami: answered by replica1$`, // the session is served by both
		`(?m)^whoami: answered by replica2$`,
		`(?m)^  client: asked "What is your name\?", answers Ada$`,
		// The answer to the elicitation went to replica2 and was relayed.
		`(?m)^greet: hello Ada \(the call waited on replica1\)$`,
	}},
}

// startRedis runs a redis-server for the redis-replicas example; without one
// installed the run is skipped, unless CI=true (see store/redistest).
func startRedis(t *testing.T) []string {
	return []string{"-redis", redistest.Start(t).URL()}
}

// startAuthorizationServer runs auth/authtest's authorization server for the
// oauth example, with its client registered.
func startAuthorizationServer(t *testing.T) []string {
	as := authtest.New(t, authtest.Options{Clients: map[string]string{"example-client": "s3cret"}})
	return []string{"-issuer", as.Issuer, "-client-id", "example-client", "-client-secret", "s3cret"}
}

// TestExamples builds every example and runs each as listed in runs, within
// runTimeout: it must exit as expected and print what the run asks for.
// Every directory under examples/ must have a run.
func TestExamples(t *testing.T) {
	bin := build(t, examplePrograms(t)...)
	for _, r := range runs {
		t.Run(r.name, func(t *testing.T) {
			args := make([]string, len(r.args))
			for i, a := range r.args {
				args[i] = strings.ReplaceAll(a, "{bin}", bin)
			}
			if r.setup != nil {
				args = append(args, r.setup(t)...)
			}
			ctx, cancel := context.WithTimeout(t.Context(), runTimeout)
			defer cancel()
			cmd := exec.CommandContext(ctx, filepath.Join(bin, r.program), args...)
			cmd.WaitDelay = time.Second
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			if ctx.Err() != nil {
				t.Fatalf("did not finish within %s\nstdout:\n%s\nstderr:\n%s", runTimeout, &stdout, &stderr)
			}
			if failed := err != nil; failed != r.fails {
				t.Errorf("exit: %v, want failure %v", err, r.fails)
			}
			match(t, "stdout", stdout.String(), r.stdout)
			match(t, "stderr", stderr.String(), r.stderr)
			if t.Failed() {
				t.Logf("stdout:\n%s\nstderr:\n%s", &stdout, &stderr)
			}
		})
	}
}

// match checks that out matches every pattern.
func match(t *testing.T, what, out string, patterns []string) {
	t.Helper()
	for _, p := range patterns {
		if !regexp.MustCompile(p).MatchString(out) {
			t.Errorf("%s does not match %q", what, p)
		}
	}
}

// examplePrograms returns the directories under examples/, checking that
// each has a main.go and a run. It reads the sources so that go test's cache
// sees them change.
func examplePrograms(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var programs []string
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		if _, err := os.ReadFile(filepath.Join(e.Name(), "main.go")); err != nil {
			t.Errorf("examples/%s: %v", e.Name(), err)
			continue
		}
		programs = append(programs, e.Name())
		if !hasRun(e.Name()) {
			t.Errorf("examples/%s has no run in TestExamples", e.Name())
		}
	}
	return programs
}

// build builds the programs (directories under examples/) into a temporary
// directory, which it returns.
func build(t *testing.T, programs ...string) string {
	t.Helper()
	bin := t.TempDir()
	args := []string{"build", "-o", bin + string(filepath.Separator)}
	for _, p := range programs {
		args = append(args, "./"+p)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "go", args...).CombinedOutput(); err != nil {
		t.Fatalf("building the examples: %v\n%s", err, out)
	}
	return bin
}

// hasRun reports whether runs has a run of program.
func hasRun(program string) bool {
	for _, r := range runs {
		if r.program == program {
			return true
		}
	}
	return false
}

// TestHTTPExampleStopsOnSignal starts the http example without -demo, calls
// it while a session is open, and stops it with SIGINT and with SIGTERM: each
// time it must shut down gracefully (exit status 0) within its shutdown
// timeout, ending the open session.
func TestHTTPExampleStopsOnSignal(t *testing.T) {
	if _, err := os.ReadFile(filepath.Join("http", "main.go")); err != nil {
		t.Fatal(err)
	}
	bin := build(t, "http")
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), runTimeout)
			defer cancel()
			cmd := exec.CommandContext(ctx, filepath.Join(bin, "http"), "-addr", "127.0.0.1:0")
			cmd.WaitDelay = time.Second
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()

			// The first line names the address; the listener is open by then.
			lines := bufio.NewScanner(out)
			if !lines.Scan() {
				t.Fatalf("no output: %v\n%s", lines.Err(), &stderr)
			}
			m := regexp.MustCompile(`at (http://127\.0\.0\.1:\d+)/mcp`).FindStringSubmatch(lines.Text())
			if m == nil {
				t.Fatalf("first line %q names no address", lines.Text())
			}
			// An HTTP+SSE session holds a stream open: the shutdown must end it.
			client := mcp.NewClient(mcp.Implementation{Name: "signal-test", Version: "1"}, nil)
			cs, err := mcpkit.ConnectURL(ctx, client, m[1]+"/sse", &mcpkit.ConnectOptions{Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			res, err := cs.CallTool(ctx, "echo", map[string]string{"message": "x"})
			if err != nil || res.IsError || res.Content[0].Text != "echo: x" {
				t.Fatalf("echo: %+v, %v", res, err)
			}

			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			var rest strings.Builder
			for lines.Scan() {
				rest.WriteString(lines.Text() + "\n")
			}
			if err := cmd.Wait(); err != nil {
				t.Fatalf("after %s: %v (want exit status 0)\nstdout:\n%s\nstderr:\n%s", sig, err, &rest, &stderr)
			}
			if rest.String() != "shut down cleanly\n" {
				t.Errorf("after %s the example printed %q, want \"shut down cleanly\\n\"", sig, rest.String())
			}
			select {
			case <-cs.Done():
			case <-ctx.Done():
				t.Fatal("the client's session did not end with the server")
			}
		})
	}
}
