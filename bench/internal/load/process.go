package load

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mcpkit/mcpkit/bench/internal/serverkit"
)

// serverSpec says how to start one server process.
type serverSpec struct {
	bin        string   // the server binary
	args       []string // its arguments
	pinCPU     string   // taskset -c list; empty for no pinning
	gomaxprocs int      // GOMAXPROCS of the server; 0 leaves it alone
	stdio      bool     // the server speaks stdio: keep its stdin and stdout
	verbose    bool     // copy the server's standard error to ours
	env        []string // added to the server's environment
}

// memStats is one statistics line of a server (see package serverkit).
type memStats struct {
	Mallocs, TotalAlloc, HeapAlloc, HeapObjects, StackInuse, Goroutines, NumGC int64
}

// serverProc is a running server process, owned by the load generator: stop ends it.
type serverProc struct {
	cmd    *exec.Cmd
	pid    int
	addr   string         // host:port (HTTP)
	stdin  io.WriteCloser // stdio only
	stdout io.Reader      // stdio only

	stats   chan memStats
	tail    *lineTail
	exited  chan struct{} // closed once Wait returned
	waitMu  sync.Mutex
	waitEr  error
	readers sync.WaitGroup // the goroutines reading stdout and stderr
}

// startServer starts the server and, for HTTP, waits until it listens.
func startServer(ctx context.Context, spec serverSpec) (*serverProc, error) {
	name, args := spec.bin, spec.args
	if spec.pinCPU != "" {
		// taskset execs the server in place: the PID is the server's.
		name, args = "taskset", append([]string{"-c", spec.pinCPU, spec.bin}, spec.args...)
	}
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), spec.env...)
	if spec.gomaxprocs > 0 {
		cmd.Env = append(cmd.Env, "GOMAXPROCS="+strconv.Itoa(spec.gomaxprocs))
	}
	p := &serverProc{cmd: cmd, stats: make(chan memStats, 4), tail: &lineTail{max: 30}, exited: make(chan struct{})}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if spec.stdio {
		if p.stdin, err = cmd.StdinPipe(); err != nil {
			return nil, err
		}
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", spec.bin, err)
	}
	p.pid = cmd.Process.Pid
	p.readers.Add(1)
	go p.readStderr(stderr, spec.verbose)
	var listening <-chan listenResult
	if !spec.stdio {
		p.readers.Add(1)
		listening = p.readStdout(stdout)
	}
	go func() {
		// Wait must not run before the pipes are drained: wait for the readers.
		p.readers.Wait()
		err := cmd.Wait()
		p.waitMu.Lock()
		p.waitEr = err
		p.waitMu.Unlock()
		close(p.exited)
	}()
	if spec.stdio {
		p.stdout = stdout
		return p, nil
	}
	addr, err := p.awaitListen(ctx, listening)
	if err != nil {
		p.stop()
		return nil, err
	}
	p.addr = addr
	return p, nil
}

// listenResult is the address an HTTP server announced, or why it announced none.
type listenResult struct {
	addr string
	err  error
}

// readStdout drains the server's standard output, reporting its LISTEN line (or
// the lack of one) on the returned channel.
func (p *serverProc) readStdout(stdout io.Reader) <-chan listenResult {
	res := make(chan listenResult, 1)
	go func() {
		defer p.readers.Done()
		br := bufio.NewReader(stdout)
		announced := false
		for {
			line, err := br.ReadString('\n')
			if !announced {
				if rest, ok := strings.CutPrefix(line, serverkit.ListenPrefix+" "); ok {
					announced = true
					res <- listenResult{addr: strings.TrimSpace(rest)}
				}
			}
			if err != nil {
				if !announced {
					res <- listenResult{err: fmt.Errorf("server exited before listening: %w", err)}
				}
				return
			}
		}
	}()
	return res
}

// awaitListen waits at most 30 s for the server's address.
func (p *serverProc) awaitListen(ctx context.Context, listening <-chan listenResult) (string, error) {
	t := time.NewTimer(30 * time.Second)
	defer t.Stop()
	select {
	case f := <-listening:
		if f.err != nil {
			<-p.exited // so that the whole of stderr is in the tail
			return "", fmt.Errorf("%w; stderr:\n%s", f.err, p.tail)
		}
		return f.addr, nil
	case <-t.C:
		return "", fmt.Errorf("server did not listen within 30s; stderr:\n%s", p.tail)
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// readStderr keeps the last lines of the server's standard error and passes its
// statistics lines to p.stats.
func (p *serverProc) readStderr(r io.Reader, verbose bool) {
	defer p.readers.Done()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, serverkit.StatsPrefix+" "); ok {
			if m, err := parseStats(rest); err == nil {
				select {
				case p.stats <- m:
				default: // nobody asked: drop
				}
				continue
			}
		}
		p.tail.add(line)
		if verbose {
			fmt.Fprintf(os.Stderr, "[server %d] %s\n", p.pid, line)
		}
	}
}

// parseStats parses the fields of a statistics line.
func parseStats(s string) (memStats, error) {
	var m memStats
	for kv := range strings.FieldsSeq(s) {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return m, fmt.Errorf("bad stats field %q", kv)
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return m, fmt.Errorf("bad stats field %q: %w", kv, err)
		}
		switch k {
		case "mallocs":
			m.Mallocs = n
		case "totalalloc":
			m.TotalAlloc = n
		case "heapalloc":
			m.HeapAlloc = n
		case "heapobjects":
			m.HeapObjects = n
		case "stackinuse":
			m.StackInuse = n
		case "goroutines":
			m.Goroutines = n
		case "numgc":
			m.NumGC = n
		}
	}
	return m, nil
}

// memStats asks the server for its statistics (after a garbage collection when gc
// is set) and waits at most 10 s for them.
func (p *serverProc) memStats(gc bool) (memStats, error) {
	for { // drop a stale answer
		select {
		case <-p.stats:
			continue
		default:
		}
		break
	}
	sig := syscall.SIGUSR1
	if gc {
		sig = syscall.SIGUSR2
	}
	if err := p.cmd.Process.Signal(sig); err != nil {
		return memStats{}, err
	}
	t := time.NewTimer(10 * time.Second)
	defer t.Stop()
	select {
	case m := <-p.stats:
		return m, nil
	case <-p.exited:
		return memStats{}, errors.New("server exited")
	case <-t.C:
		return memStats{}, errors.New("server did not report its statistics within 10s")
	}
}

// stop asks the server to stop (end of input for stdio, then SIGINT if it has not
// exited within 5 s), waits up to 15 s for it to write its profiles and exit, and
// kills it otherwise. It returns the server's exit error, if any, with the end of
// its standard error.
func (p *serverProc) stop() error {
	if p.stdin != nil {
		_ = p.stdin.Close()
		// A stdio server stops on end of input; give it that chance first.
		t := time.NewTimer(5 * time.Second)
		select {
		case <-p.exited:
		case <-t.C:
		}
		t.Stop()
	}
	select {
	case <-p.exited:
	default:
		_ = p.cmd.Process.Signal(os.Interrupt)
		t := time.NewTimer(15 * time.Second)
		select {
		case <-p.exited:
			t.Stop()
		case <-t.C:
			_ = p.cmd.Process.Kill()
			<-p.exited
			return fmt.Errorf("server %d did not stop within 15s: killed", p.pid)
		}
	}
	p.waitMu.Lock()
	defer p.waitMu.Unlock()
	if p.waitEr != nil {
		return fmt.Errorf("server exited: %w; stderr:\n%s", p.waitEr, p.tail)
	}
	return nil
}

// lineTail keeps the last max lines written to it.
type lineTail struct {
	mu    sync.Mutex
	max   int
	lines []string
}

// add appends one line, dropping the oldest beyond max.
func (t *lineTail) add(line string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lines = append(t.lines, line)
	if len(t.lines) > t.max {
		t.lines = t.lines[len(t.lines)-t.max:]
	}
}

// String returns the kept lines, one per line.
func (t *lineTail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.Join(t.lines, "\n")
}
