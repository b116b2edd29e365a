//go:build linux

package stress

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// server is a running `mcpkit serve --http` process.
type server struct {
	t    *testing.T
	cmd  *exec.Cmd
	addr string // host:port it listens on
	// debug is the host:port of its runtime profiles (--debug-addr), where the
	// test reads its goroutine count.
	debug string
	pid   int
	done  chan struct{} // closed when the process has exited
	err   error         // its exit status, once done
}

// buildMCPKit builds the mcpkit command into dir.
func buildMCPKit(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "mcpkit")
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, "../cmd/mcpkit").CombinedOutput(); err != nil {
		t.Fatalf("building mcpkit: %v\n%s", err, out)
	}
	return bin
}

// startServer starts `bin serve --http 127.0.0.1:0` with args, and waits for
// the line that announces its address. The process is stopped (SIGTERM, then
// SIGKILL) when the test ends.
func startServer(t *testing.T, bin string, args ...string) *server {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve", "--http", "127.0.0.1:0", "--debug-addr", "127.0.0.1:0"}, args...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &server{t: t, cmd: cmd, pid: cmd.Process.Pid, done: make(chan struct{})}
	addr, debug := make(chan string, 1), make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			if _, rest, ok := strings.Cut(line, " at http://"); ok && strings.HasPrefix(line, "mcpkit: ") {
				a, _, _ := strings.Cut(rest, "/")
				if strings.HasPrefix(line, "mcpkit: debug profiles") {
					debug <- a
				} else {
					addr <- a
				}
				continue
			}
			if strings.Contains(line, "level=ERROR") || strings.Contains(line, "panic") || strings.Contains(line, "fatal error") {
				t.Errorf("server: %s", line)
			}
		}
	}()
	go func() {
		s.err = cmd.Wait()
		close(s.done)
	}()
	t.Cleanup(s.stop)
	for s.addr == "" || s.debug == "" {
		select {
		case s.addr = <-addr:
		case s.debug = <-debug:
		case <-s.done:
			t.Fatalf("the server exited before listening: %v", s.err)
		case <-time.After(30 * time.Second):
			t.Fatal("the server did not announce its addresses")
		}
	}
	return s
}

// stop ends the server by its PID: SIGTERM, on which it must shut down
// gracefully and exit with status 0, or SIGKILL if it has not exited within
// 15 seconds.
func (s *server) stop() {
	_ = syscall.Kill(s.pid, syscall.SIGTERM)
	select {
	case <-s.done:
		if s.err != nil {
			s.t.Errorf("the server did not exit cleanly on SIGTERM: %v", s.err)
		}
		return
	case <-time.After(15 * time.Second):
	}
	s.t.Errorf("the server did not stop on SIGTERM; killing it")
	_ = syscall.Kill(s.pid, syscall.SIGKILL)
	<-s.done
}

// usage is what the server process holds.
type usage struct {
	rssKB      int // resident memory (VmRSS)
	fds        int // open file descriptors
	threads    int // OS threads (for the log)
	goroutines int // goroutines, from its goroutine profile (the reading's own included)
}

func (u usage) String() string {
	return fmt.Sprintf("RSS %.1f MB, %d descriptors, %d threads, %d goroutines", float64(u.rssKB)/1024, u.fds, u.threads, u.goroutines)
}

// usage reads the process's usage from /proc.
func (s *server) usage() usage {
	s.t.Helper()
	u, err := s.read()
	if err != nil {
		s.t.Fatalf("reading the server's usage: %v", err)
	}
	return u
}

// settle waits, up to limit, until ok holds for the server's usage, sampling
// it every 100 ms (the server is another process: there is nothing to wait on
// but its numbers). It returns the last sample and whether ok held.
func (s *server) settle(limit time.Duration, ok func(usage) bool) (usage, bool) {
	s.t.Helper()
	deadline := time.Now().Add(limit)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		u := s.usage()
		if ok(u) {
			return u, true
		}
		if time.Now().After(deadline) {
			return u, false
		}
		select {
		case <-tick.C:
		case <-s.done:
			s.t.Fatalf("the server exited: %v", s.err)
		}
	}
}

// watch samples the server's usage every 50 ms until stop is called, and
// returns the peak of each number.
func (s *server) watch() (stop func() usage) {
	peak := make(chan usage, 1)
	quit := make(chan struct{})
	go func() {
		var top usage
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			if u, err := s.read(); err == nil {
				top.rssKB = max(top.rssKB, u.rssKB)
				top.fds = max(top.fds, u.fds)
				top.threads = max(top.threads, u.threads)
				top.goroutines = max(top.goroutines, u.goroutines)
			}
			select {
			case <-tick.C:
			case <-quit:
				peak <- top
				return
			}
		}
	}()
	return func() usage { close(quit); return <-peak }
}

// read reads the process's usage from /proc/PID/status and /proc/PID/fd, and
// its goroutine count from its goroutine profile. The profile is read on a
// connection that is closed before the descriptors are counted.
func (s *server) read() (usage, error) {
	var u usage
	g, err := s.goroutines()
	if err != nil {
		return u, err
	}
	u.goroutines = g
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", s.pid))
	if err != nil {
		return u, err
	}
	u.fds = len(fds)
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.pid))
	if err != nil {
		return u, err
	}
	for _, line := range strings.Split(string(status), "\n") {
		k, v, _ := strings.Cut(line, ":")
		if f := strings.Fields(v); len(f) > 0 {
			n, _ := strconv.Atoi(f[0])
			switch k {
			case "VmRSS":
				u.rssKB = n
			case "Threads":
				u.threads = n
			}
		}
	}
	return u, nil
}

// goroutines reads the first line of the server's goroutine profile,
// "goroutine profile: total N".
func (s *server) goroutines() (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+s.debug+"/debug/pprof/goroutine?debug=1", nil)
	if err != nil {
		return 0, err
	}
	req.Close = true // the server closes the connection: it must not count as a descriptor
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil {
		return 0, fmt.Errorf("reading the goroutine profile: %w", err)
	}
	_, n, ok := strings.Cut(strings.TrimSpace(line), "total ")
	if !ok {
		return 0, fmt.Errorf("goroutine profile begins %q", line)
	}
	return strconv.Atoi(n)
}
