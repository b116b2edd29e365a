//go:build unix

package gateway

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport/streamable"
)

// BenchmarkGatewayToolCall measures tools/call over Streamable HTTP, 16 calls in
// flight on one legacy session, to the demo server's echo tool:
//
//   - direct: `mcpkit serve --http`, the server itself over HTTP;
//   - gateway: `mcpkit gateway --http` in front of `mcpkit serve` on stdio (one
//     more hop: the gateway's handler, its client, the stdio pipe).
//
// Both run as real processes built from this repository; the client runs in the
// benchmark. calls/s is the figure to compare (the goal: gateway ≥ 0.6 × direct).
//
//	go test -run '^$' -bench GatewayToolCall -benchtime 5s ./gateway/
func BenchmarkGatewayToolCall(b *testing.B) {
	bin := buildCLI(b)
	cfg := filepath.Join(b.TempDir(), "mcp.json")
	data, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"demo": map[string]any{"command": bin, "args": []string{"serve"}}}})
	if err := os.WriteFile(cfg, data, 0o600); err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		tool string
	}{
		{"direct", []string{"serve", "--http", "127.0.0.1:0"}, "echo"},
		{"gateway", []string{"gateway", "--config", cfg, "--http", "127.0.0.1:0"}, "demo__echo"},
	} {
		b.Run(c.name, func(b *testing.B) {
			url, pid := startHTTPServer(b, bin, c.args...)
			benchCalls(b, url, c.tool, pid)
		})
	}
}

// benchCalls calls tool over one session from 16 goroutines, and reports the
// CPU time the server's processes (pid and its descendants) spent per call.
func benchCalls(b *testing.B, url, tool string, pid int) {
	ctx := b.Context()
	conn, err := streamable.NewClientConn(ctx, url, nil)
	if err != nil {
		b.Fatal(err)
	}
	cs, err := mcp.NewClient(protocol.Implementation{Name: "bench", Version: "1"}, &mcp.ClientOptions{ProtocolVersion: protocol.LatestLegacy}).Connect(ctx, conn)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	args := json.RawMessage(`{"message":"hi"}`)
	if res, err := cs.CallTool(ctx, tool, args); err != nil || res.Content[0].Text != "hello hi" {
		b.Fatalf("%s: %v %+v", tool, err, res)
	}
	b.SetParallelism(8)
	b.ReportAllocs()
	cpu0 := treeCPU(pid)
	start := time.Now()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			res, err := cs.CallTool(ctx, tool, args)
			if err != nil || res.IsError {
				b.Errorf("%s: %v %+v", tool, err, res)
				return
			}
		}
	})
	b.StopTimer()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "calls/s")
	if cpu0 >= 0 {
		b.ReportMetric((treeCPU(pid)-cpu0)/float64(b.N)*1e6, "server-CPU-µs/call")
	}
}

// treeCPU returns the user and system CPU time, in seconds, of process pid and
// its descendants (-1 where /proc is not there). It counts clock ticks of
// 1/100 s, Linux's USER_HZ. The time of descendants that have exited is in
// their parent's cutime and cstime (fields 16 and 17), counted too.
func treeCPU(pid int) float64 {
	dirs, err := os.ReadDir("/proc")
	if err != nil {
		return -1
	}
	type proc struct {
		ppid  int
		ticks int64
	}
	procs := map[int]proc{}
	for _, d := range dirs {
		p, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join("/proc", d.Name(), "stat"))
		if err != nil {
			continue
		}
		// After the command name in parentheses: state ppid pgrp ... utime
		// (field 14), stime, cutime, cstime (field 17).
		i := bytes.LastIndexByte(data, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(data[i+1:]))
		if len(f) < 15 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		var ticks int64
		for _, k := range f[11:15] {
			n, _ := strconv.ParseInt(k, 10, 64)
			ticks += n
		}
		procs[p] = proc{ppid, ticks}
	}
	var total int64
	for p, pr := range procs {
		for q := p; q > 1; q = procs[q].ppid {
			if q == pid {
				total += pr.ticks
				break
			}
			if _, ok := procs[q]; !ok {
				break
			}
		}
	}
	return float64(total) / 100
}

var (
	cliOnce sync.Once
	cliPath string
	cliErr  error
)

// buildCLI builds cmd/mcpkit once per test binary.
func buildCLI(b *testing.B) string {
	cliOnce.Do(func() {
		dir, err := os.MkdirTemp("", "mcpkit-gateway-bench")
		if err != nil {
			cliErr = err
			return
		}
		cliPath = filepath.Join(dir, "mcpkit")
		out, err := exec.Command("go", "build", "-o", cliPath, "github.com/mcpkit/mcpkit/cmd/mcpkit").CombinedOutput()
		if err != nil {
			cliErr = &buildError{err, string(out)}
		}
	})
	if cliErr != nil {
		b.Fatal(cliErr)
	}
	return cliPath
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return e.err.Error() + "\n" + e.out }

var announcement = regexp.MustCompile(`serving .* at (http://127\.0\.0\.1:\d+/mcp) `)

// startHTTPServer runs the CLI with args until the benchmark ends and returns
// the URL it announces and its pid. It is stopped with an interrupt, then killed, by PID.
func startHTTPServer(b *testing.B, bin string, args ...string) (url string, pid int) {
	cmd := exec.Command(bin, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	pid = cmd.Process.Pid
	done := make(chan struct{})
	urls := make(chan string, 1)
	go func() {
		defer close(done)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := announcement.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case urls <- m[1]:
				default:
				}
			}
		}
		_ = cmd.Wait()
	}()
	b.Cleanup(func() {
		_ = syscall.Kill(pid, syscall.SIGINT)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = syscall.Kill(-pid, syscall.SIGKILL)
			<-done
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	select {
	case url := <-urls:
		return url, pid
	case <-done:
		b.Fatalf("%s %v exited before listening", bin, args)
	case <-ctx.Done():
		b.Fatalf("%s %v did not announce its address", bin, args)
	}
	return "", 0
}
