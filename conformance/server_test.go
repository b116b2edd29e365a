package conformance

import (
	"context"
	"fmt"
	"net"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/testkit"
)

// Time bounds of the server-mode run.
const (
	serverStartTimeout = 15 * time.Second
	serverStopTimeout  = 5 * time.Second
	serverSuiteTimeout = 5 * time.Minute
)

// TestServerConformance runs the active server scenarios of the suite for the
// released protocol versions (0.1.16) against `mcpkit serve --http` and fails,
// listing them, unless every one passes.
func TestServerConformance(t *testing.T) {
	run := runServerSuite(t, requireSuite(t))
	run.verdict(t, func(string) bool { return true })
	if run.code != 0 && !t.Failed() {
		t.Errorf("every scenario passed but the suite exited with status %d; stderr:\n%s", run.code, tail(run.stderr, 30))
	}
}

// requirementsRevision is the protocol revision whose frozen requirements
// TestServerConformance20260728 runs.
const requirementsRevision = "2026-07-28"

// TestServerConformance20260728 runs the server scenarios the 2026-07-28 revision
// requires (suite 0.2.0-alpha.12, --requirements 2026-07-28) against `mcpkit serve
// --http` in one run, and judges them in three groups:
//   - required: every scenario the requirements score must pass;
//   - not-scored: the scenarios run but not scored because the suite's own reference
//     server cannot pass them yet (pending) must pass too — mcpkit implements what
//     they test;
//   - extension: the tasks extension's scenarios (io.modelcontextprotocol/tasks),
//     optional in the protocol but implemented by mcpkit, so they must pass too.
//
// Each group fails listing every failed check of every scenario that did not pass.
func TestServerConformance20260728(t *testing.T) {
	run := runServerSuite(t, requireNextSuite(t), "--requirements", requirementsRevision)
	scored := func(name string) bool { _, ns := run.sum.notScored[name]; return !ns }
	extension := func(name string) bool { return run.sum.notScored[name] == "extension" }
	t.Run("required", func(t *testing.T) {
		if run.sum.only(scored).planned == 0 {
			t.Fatalf("the requirements of %s scored no scenario; the suite's output:\n%s", requirementsRevision, tail(run.stdout, 80))
		}
		run.verdict(t, scored)
		if run.code != 0 && !t.Failed() {
			t.Errorf("every required scenario passed but the suite exited with status %d; stderr:\n%s", run.code, tail(run.stderr, 30))
		}
	})
	t.Run("not-scored", func(t *testing.T) {
		run.verdict(t, func(name string) bool { return !scored(name) && !extension(name) })
	})
	t.Run("extension", func(t *testing.T) {
		run.verdict(t, extension)
	})
}

// suiteRun is one server-mode run of the suite against `mcpkit serve --http`.
type suiteRun struct {
	srv            server
	stdout, stderr string
	code           int
	sum            summary
	results        map[string]scenarioResult
}

// runServerSuite builds mcpkit, serves the demo server over HTTP and runs the suite
// s in server mode against it with args. It fails the test when the suite cannot
// run or its account is incomplete; judging the scenarios is the caller's.
func runServerSuite(t *testing.T, s suite, args ...string) *suiteRun {
	t.Helper()
	bin := buildBinary(t, "github.com/mcpkit/mcpkit/cmd/mcpkit", t.TempDir())
	return runSuiteAt(t, s, startServer(t, bin, "serve", "--conformance", "--http"), args...)
}

// runSuiteAt runs the suite s in server mode against srv with args. It fails the
// test when the suite cannot run or its account is incomplete; judging the
// scenarios is the caller's.
func runSuiteAt(t *testing.T, s suite, srv server, args ...string) *suiteRun {
	t.Helper()
	run := &suiteRun{srv: srv}
	outDir := t.TempDir()
	args = append([]string{"server", "--url", run.srv.url, "--output-dir", outDir}, args...)
	var err error
	run.stdout, run.stderr, run.code, err = s.run(context.Background(), t, serverSuiteTimeout, args...)
	if err != nil {
		t.Fatalf("running the suite: %v\nstdout:\n%s\nstderr:\n%s", err, tail(run.stdout, 60), tail(run.stderr, 30))
	}
	run.sum = parseSummary(run.stdout)
	if run.results, err = readResults(outDir, "server-"); err != nil {
		t.Fatalf("reading the suite's results: %v", err)
	}
	if run.sum.planned <= 0 || len(run.sum.order) != run.sum.planned {
		t.Fatalf("the suite announced %d scenarios and summarised %d (exit status %d); its output:\n%s\nstderr:\n%s",
			run.sum.planned, len(run.sum.order), run.code, tail(run.stdout, 80), tail(run.stderr, 30))
	}
	return run
}

// verdict judges the scenarios keep selects and fails t, listing every failed
// check, unless all of them passed.
func (run *suiteRun) verdict(t *testing.T, keep func(name string) bool) {
	t.Helper()
	sum := run.sum.only(keep)
	results := map[string]scenarioResult{}
	for name, r := range run.results {
		if keep(name) {
			results[name] = r
		}
	}
	passed, skipped, failures := judge(sum, results)
	t.Logf("%d/%d scenarios passed against %s", len(passed), sum.planned, run.srv.url)
	if len(skipped) > 0 {
		t.Logf("the suite skipped %d scenarios as a whole: %s", len(skipped), strings.Join(skipped, ", "))
	}
	if len(failures) > 0 {
		t.Errorf("%d/%d scenarios passed; these did not:\n\t%s\nmcpkit serve's stderr:\n%s",
			len(passed), sum.planned, strings.Join(failures, "\n\t"), tail(run.srv.stderr.String(), 40))
	}
}

// server is a running `mcpkit serve --http` (or another mcpkit command listening
// on HTTP).
type server struct {
	url    string // the MCP endpoint
	stderr *lockedBuffer
	// stop stops it (SIGTERM, then SIGKILL) and waits for it; cleanup calls it too.
	stop func()
}

// startServer runs bin with args followed by a free loopback address, waits until
// it accepts connections, and stops it (SIGTERM, then SIGKILL) at cleanup. A port
// taken between choosing it and the server binding it is retried with another.
func startServer(t *testing.T, bin string, args ...string) server {
	t.Helper()
	var lastErr error
	for range 3 {
		addr, err := freeLoopbackAddr()
		if err != nil {
			t.Fatal(err)
		}
		srv, err := tryStartServer(t, bin, append(args, addr)...)
		if err == nil {
			srv.url = "http://" + addr + "/mcp"
			return srv
		}
		lastErr = err
	}
	t.Fatalf("starting %s: %v", bin, lastErr)
	return server{}
}

// freeLoopbackAddr returns a 127.0.0.1 address with a port nobody listened on a
// moment ago.
func freeLoopbackAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("finding a free port: %w", err)
	}
	addr := l.Addr().String()
	return addr, l.Close()
}

// tryStartServer starts bin args... (the last arg is the address it listens on) and
// waits until the address accepts connections. It fails if the process exits first.
func tryStartServer(t *testing.T, bin string, args ...string) (server, error) {
	t.Helper()
	addr := args[len(args)-1]
	cmd := exec.Command(bin, args...)
	stderr := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = stderr, stderr
	testkit.OwnProcessGroup(cmd)
	if err := cmd.Start(); err != nil {
		return server{}, err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			testkit.TerminateGroup(cmd.Process.Pid)
			select {
			case <-exited:
			case <-time.After(serverStopTimeout):
				testkit.KillGroup(cmd.Process.Pid)
				<-exited
			}
			testkit.KillGroup(cmd.Process.Pid) // anything it left behind
		})
	}

	ctx, cancel := context.WithTimeout(context.Background(), serverStartTimeout)
	defer cancel()
	tick := time.NewTicker(25 * time.Millisecond)
	defer tick.Stop()
	for {
		var d net.Dialer
		if conn, err := d.DialContext(ctx, "tcp", addr); err == nil {
			_ = conn.Close()
			t.Cleanup(stop)
			return server{stderr: stderr, stop: stop}, nil
		}
		select {
		case err := <-exited:
			testkit.KillGroup(cmd.Process.Pid) // anything it left behind
			return server{}, fmt.Errorf("%s %s exited before listening (%v):\n%s", bin, strings.Join(args, " "), err, stderr.String())
		case <-ctx.Done():
			stop()
			return server{}, fmt.Errorf("%s %s did not listen on %s within %v:\n%s", bin, strings.Join(args, " "), addr, serverStartTimeout, stderr.String())
		case <-tick.C:
		}
	}
}

// ansiPattern matches the terminal colour codes the suite writes whatever NO_COLOR says.
var ansiPattern = regexp.MustCompile("\x1b\\[[0-9;]*m")

// tail returns the last n lines of s, without colour codes.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(ansiPattern.ReplaceAllString(s, ""), "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{fmt.Sprintf("[... %d lines before]", len(lines)-n)}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}
