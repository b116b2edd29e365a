// Package redistest starts a real redis-server for tests: one private server
// per call to Start, on a free loopback port, with persistence off, stopped by
// its process id when the test ends.
//
// When redis-server is not installed, Start fails the test if the CI
// environment variable is "true" (scripts/test.sh installs the Debian package,
// so a missing server there is a broken setup, never a reason to skip) and
// skips it, with a message saying how to install it, otherwise.
package redistest

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// startTimeout bounds how long a redis-server may take to say it is ready, and
// stopTimeout how long it may take to exit after SIGTERM before it is killed.
const (
	startTimeout = 10 * time.Second
	stopTimeout  = 5 * time.Second
)

// readyLine is what redis-server logs once it accepts connections.
const readyLine = "Ready to accept connections"

// Server is one running (or stopped) redis-server owned by a test.
type Server struct {
	t     testing.TB
	bin   string
	port  int
	dir   string
	extra []string // more arguments of redis-server

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{} // closed when the current process has exited
}

// Binary returns the path of redis-server, or an error when it is not installed.
func Binary() (string, error) {
	if p, err := exec.LookPath("redis-server"); err == nil {
		return p, nil
	}
	for _, p := range []string{"/usr/bin/redis-server", "/usr/sbin/redis-server", "/usr/local/bin/redis-server"} {
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
	}
	return "", errors.New("redis-server is not installed (Debian: apt-get install redis-server; scripts/test.sh installs it)")
}

// Version returns what `redis-server --version` prints, for reports.
func Version() (string, error) {
	bin, err := Binary()
	if err != nil {
		return "", err
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("redistest: %s --version: %w", bin, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// Start starts a redis-server for t and stops it when t ends. See the package
// documentation for what happens when redis-server is missing.
func Start(t testing.TB) *Server {
	t.Helper()
	return start(t)
}

func start(t testing.TB, extra ...string) *Server {
	t.Helper()
	bin, err := Binary()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("redistest: %v", err)
		}
		t.Skipf("redistest: %v; skipping (CI=true makes this a failure)", err)
	}
	s := &Server{t: t, bin: bin, dir: t.TempDir(), extra: extra}
	t.Cleanup(s.Stop)
	// A free port can be taken by someone else between finding and binding it:
	// try a few.
	for range 5 {
		if s.port, err = freePort(); err != nil {
			t.Fatalf("redistest: %v", err)
		}
		if err = s.start(); err == nil {
			return s
		}
	}
	t.Fatalf("redistest: %v", err)
	return nil
}

// Addr returns the server's "host:port".
func (s *Server) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)) }

// URL returns the server's redis:// URL, database 0.
func (s *Server) URL() string { return "redis://" + s.Addr() + "/0" }

// Restart starts the server again on the same port after Stop (with no data:
// persistence is off). It fails the test if the server does not come up.
func (s *Server) Restart() {
	s.t.Helper()
	if err := s.start(); err != nil {
		s.t.Fatalf("redistest: restarting: %v", err)
	}
}

// Freeze stops the server's process (SIGSTOP) without ending it: connections
// stay open and nothing is answered, as with a hung Redis. Thaw resumes it.
// Not supported on Windows.
func (s *Server) Freeze() { s.signal(syscall.SIGSTOP) }

// Thaw resumes a server stopped by Freeze (SIGCONT).
func (s *Server) Thaw() { s.signal(syscall.SIGCONT) }

func (s *Server) signal(sig syscall.Signal) {
	s.t.Helper()
	s.mu.Lock()
	cmd := s.cmd
	s.mu.Unlock()
	if cmd == nil {
		s.t.Fatalf("redistest: signal %v: the server is not running", sig)
	}
	if err := cmd.Process.Signal(sig); err != nil {
		s.t.Fatalf("redistest: signal %v: %v", sig, err)
	}
}

// Stop stops the server: SIGTERM, then SIGKILL if it has not exited within
// a few seconds. Stopping a stopped server does nothing.
func (s *Server) Stop() {
	s.mu.Lock()
	cmd, done := s.cmd, s.done
	s.cmd = nil
	s.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	_ = cmd.Process.Signal(syscall.SIGCONT) // a frozen server must run to exit
	timer := time.NewTimer(stopTimeout)
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
		_ = cmd.Process.Kill()
		<-done
	}
}

// start runs redis-server on s.port and waits until it logs that it is ready.
func (s *Server) start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd != nil {
		return errors.New("already running")
	}
	cmd := exec.Command(s.bin, append([]string{
		"--port", strconv.Itoa(s.port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", s.dir,
		"--daemonize", "no", "--logfile", "", "--loglevel", "notice",
	}, s.extra...)...)
	cmd.SysProcAttr = sysProcAttr()
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting %s: %w", s.bin, err)
	}
	ready := make(chan struct{})
	done := make(chan struct{})
	var logTail tail
	go func() {
		// Owns the log pipe: reads it until the process closes it, then reaps
		// the process.
		sc := bufio.NewScanner(out)
		signalled := false
		for sc.Scan() {
			line := sc.Text()
			logTail.add(line)
			if !signalled && strings.Contains(line, readyLine) {
				signalled = true
				close(ready)
			}
		}
		_, _ = io.Copy(io.Discard, out)
		_ = cmd.Wait()
		close(done)
	}()
	timer := time.NewTimer(startTimeout)
	defer timer.Stop()
	select {
	case <-ready:
		s.cmd, s.done = cmd, done
		return nil
	case <-done:
		return fmt.Errorf("redis-server on port %d exited at start: %s", s.port, logTail.String())
	case <-timer.C:
		_ = cmd.Process.Kill()
		<-done
		return fmt.Errorf("redis-server on port %d not ready after %v: %s", s.port, startTimeout, logTail.String())
	}
}

// freePort returns a loopback TCP port nobody listened on a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// tail keeps the last lines of a log, for error messages.
type tail struct {
	mu    sync.Mutex
	lines []string
}

func (t *tail) add(line string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.lines) == 8 {
		t.lines = t.lines[1:]
	}
	t.lines = append(t.lines, line)
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.Join(t.lines, " | ")
}
