package conformance

import (
	"context"
	"fmt"
	"net"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Time bounds of the server-mode run.
const (
	serverStartTimeout = 15 * time.Second
	serverStopTimeout  = 5 * time.Second
	serverSuiteTimeout = 5 * time.Minute
)

// TestServerConformance runs the suite's active server scenarios against
// `mcpkit serve --http` and fails, listing them, unless every one passes.
func TestServerConformance(t *testing.T) {
	s := requireSuite(t)
	bin := buildBinary(t, "github.com/mcpkit/mcpkit/cmd/mcpkit", t.TempDir())
	srv := startServer(t, bin, "serve", "--http")

	outDir := t.TempDir()
	stdout, stderr, code, err := s.run(context.Background(), t, serverSuiteTimeout, "server", "--url", srv.url, "--output-dir", outDir)
	if err != nil {
		t.Fatalf("running the suite: %v\nstdout:\n%s\nstderr:\n%s", err, tail(stdout, 60), tail(stderr, 30))
	}
	sum := parseSummary(stdout)
	results, err := readResults(outDir, "server-")
	if err != nil {
		t.Fatalf("reading the suite's results: %v", err)
	}
	if sum.planned <= 0 || len(sum.order) != sum.planned {
		t.Fatalf("the suite announced %d scenarios and summarised %d (exit status %d); its output:\n%s\nstderr:\n%s",
			sum.planned, len(sum.order), code, tail(stdout, 80), tail(stderr, 30))
	}
	passed, failures := judge(sum, results)
	t.Logf("conformance server: %d/%d scenarios passed against %s", len(passed), sum.planned, srv.url)
	if len(failures) > 0 {
		t.Errorf("conformance server: %d/%d scenarios passed; these did not:\n\t%s\nmcpkit serve's stderr:\n%s",
			len(passed), sum.planned, strings.Join(failures, "\n\t"), tail(srv.stderr.String(), 40))
	} else if code != 0 {
		t.Errorf("every scenario passed but the suite exited with status %d; stderr:\n%s", code, tail(stderr, 30))
	}
}

// server is a running `mcpkit serve --http`.
type server struct {
	url    string // the MCP endpoint
	stderr *lockedBuffer
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
	ownProcessGroup(cmd)
	if err := cmd.Start(); err != nil {
		return server{}, err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stop := func() {
		terminateGroup(cmd.Process.Pid)
		select {
		case <-exited:
		case <-time.After(serverStopTimeout):
			killGroup(cmd.Process.Pid)
			<-exited
		}
		killGroup(cmd.Process.Pid) // anything it left behind
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
			return server{stderr: stderr}, nil
		}
		select {
		case err := <-exited:
			killGroup(cmd.Process.Pid) // anything it left behind
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
