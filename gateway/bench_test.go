//go:build unix

package gateway

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net"
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
//     more hop: the gateway's handler, its client, the stdio pipe);
//   - supergateway, mcp-proxy: the npm stdio-to-HTTP bridges pinned in
//     bench/package.json (`npm ci --prefix bench`; skipped when missing) in
//     front of the same `mcpkit serve` on stdio.
//
// All run as real processes; the client runs in the benchmark. calls/s is the
// figure to compare (goals: gateway ≥ 0.6 × direct and ≥ 2 × each bridge), and
// server-CPU-µs/call the CPU of the server's process tree (bridge or gateway and
// its stdio child) per call.
//
//	go test -run '^$' -bench GatewayToolCall -benchtime 5s ./gateway/
func BenchmarkGatewayToolCall(b *testing.B) {
	bin := buildCLI(b)
	cfg := filepath.Join(b.TempDir(), "mcp.json")
	data, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"demo": map[string]any{"command": bin, "args": []string{"serve"}}}})
	if err := os.WriteFile(cfg, data, 0o600); err != nil {
		b.Fatal(err)
	}
	mcpkitReady := regexp.MustCompile(`serving .* at (http://127\.0\.0\.1:\d+/mcp) `)
	for _, c := range []struct {
		name  string
		peer  string // the npm package of a bridge ("" for mcpkit)
		args  func(port string) []string
		ready *regexp.Regexp // the line that says it listens (its group 1, if any, is the URL)
		tool  string
	}{
		{"direct", "", func(string) []string { return []string{bin, "serve", "--http", "127.0.0.1:0"} }, mcpkitReady, "echo"},
		{"gateway", "", func(string) []string { return []string{bin, "gateway", "--config", cfg, "--http", "127.0.0.1:0"} }, mcpkitReady, "demo__echo"},
		{"supergateway", "supergateway/dist/index.js", func(port string) []string {
			return []string{"--stdio", bin + " serve", "--outputTransport", "streamableHttp", "--stateful", "--port", port, "--logLevel", "info"}
		}, regexp.MustCompile(`Listening on port`), "echo"},
		{"mcp-proxy", "mcp-proxy/dist/bin/mcp-proxy.mjs", func(port string) []string {
			return []string{"--port", port, "--host", "127.0.0.1", "--", bin, "serve"}
		}, regexp.MustCompile(`starting server on port`), "echo"},
	} {
		b.Run(c.name, func(b *testing.B) {
			port := ""
			args := c.args("")
			if c.peer != "" {
				script := filepath.Join("..", "bench", "node_modules", filepath.FromSlash(c.peer))
				if _, err := os.Stat(script); err != nil {
					b.Skipf("%s is not installed (npm ci --prefix bench): %v", c.peer, err)
				}
				port = freePort(b)
				args = append([]string{"node", script}, c.args(port)...)
			}
			url, pid := startHTTPServer(b, c.ready, args...)
			if url == "" {
				url = "http://127.0.0.1:" + port + "/mcp"
				waitListening(b, "127.0.0.1:"+port) // mcp-proxy announces before it listens
			}
			benchCalls(b, url, c.tool, pid)
		})
	}
}

// waitListening waits (at most 10 s) until addr accepts a connection.
func waitListening(b *testing.B, addr string) {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("%s does not accept connections: %v", addr, err)
		}
		<-tick.C
	}
}

// freePort returns a loopback port that was free a moment ago.
func freePort(b *testing.B) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return port
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

// startHTTPServer runs the command args until the benchmark ends and returns
// the URL its ready line names (group 1 of ready; "" when it has none) and its
// pid. It is stopped with an interrupt, then killed, by PID.
func startHTTPServer(b *testing.B, ready *regexp.Regexp, args ...string) (url string, pid int) {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	output, err := cmd.StderrPipe()
	if err != nil {
		b.Fatal(err)
	}
	cmd.Stdout = cmd.Stderr // both bridges announce on stdout, mcpkit on stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	pid = cmd.Process.Pid
	done := make(chan struct{})
	urls := make(chan string, 1)
	go func() {
		defer close(done)
		sc := bufio.NewScanner(output)
		for sc.Scan() {
			if m := ready.FindStringSubmatch(sc.Text()); m != nil {
				m = append(m, "")
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
		b.Fatalf("%v exited before listening", args)
	case <-ctx.Done():
		b.Fatalf("%v did not announce its address", args)
	}
	return "", 0
}
