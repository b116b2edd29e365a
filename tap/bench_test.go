//go:build unix

package tap

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/tap/capture"
	"github.com/mcpkit/mcpkit/transport/stdio"
	"github.com/mcpkit/mcpkit/transport/streamable"
)

// The tap's cost, measured on a tools/call round trip of mcpkit's echo tool:
// direct, and through the tap, interleaved in rounds so that a busy machine
// weighs on both alike.
//
//	go test -run '^$' -bench Tap -benchtime 20000x ./tap/
//
// Reported: calls/s and p50 of each, their ratio and the p50 the tap adds, and the
// CPU time of the whole process per call (client, tap and server share it).

type echoInput struct {
	Message string `json:"message"`
}

func newEchoServer() *mcp.Server {
	s := mcp.NewServer(protocol.Implementation{Name: "bench", Version: "1"}, nil)
	_ = mcp.AddTool(s, &protocol.Tool{Name: "echo"}, func(ctx context.Context, req *mcp.ToolRequest, in echoInput) (string, error) {
		return "hello " + in.Message, nil
	})
	return s
}

// callBody is the tools/call the benchmarks send.
const callBody = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"message":"bench"}}}`

// leanClient posts on one keep-alive connection and reads a Content-Length reply:
// net/http's client costs more CPU than the server, which would hide the tap's cost.
type leanClient struct {
	addr string
	c    net.Conn
	br   *bufio.Reader
	req  []byte
	body []byte
}

func newLeanClient(addr string) (*leanClient, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	req := []byte("POST /mcp HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n" +
		"Mcp-Protocol-Version: 2025-06-18\r\nContent-Length: " + strconv.Itoa(len(callBody)) + "\r\n\r\n" + callBody)
	return &leanClient{addr: addr, c: c, br: bufio.NewReaderSize(c, 16<<10), req: req}, nil
}

func (l *leanClient) call() error {
	if _, err := l.c.Write(l.req); err != nil {
		return err
	}
	length := -1
	status := 0
	for {
		line, err := l.br.ReadSlice('\n')
		if err != nil {
			return err
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			break
		}
		if status == 0 {
			if len(line) < 12 {
				return fmt.Errorf("status line %q", line)
			}
			status, _ = strconv.Atoi(string(line[9:12]))
			continue
		}
		if name, value, ok := bytes.Cut(line, []byte(":")); ok && asciiEqualFold(name, "Content-Length") {
			length, _ = strconv.Atoi(string(bytes.TrimSpace(value)))
		}
	}
	if status != 200 || length < 0 {
		return fmt.Errorf("status %d, length %d", status, length)
	}
	l.body = slices.Grow(l.body[:0], length)[:length]
	if _, err := io.ReadFull(l.br, l.body); err != nil {
		return err
	}
	if !bytes.Contains(l.body, []byte("hello bench")) {
		return fmt.Errorf("reply %q", l.body)
	}
	return nil
}

// side is one way of reaching the server: its clients and what was measured.
type side struct {
	clients   []*leanClient
	latencies []time.Duration
	elapsed   time.Duration
	cpu       time.Duration
	mallocs   uint64
	calls     int
}

// round makes n calls with len(s.clients) workers and adds up what it measured.
func (s *side) round(b *testing.B, n int) {
	var mu sync.Mutex
	var next atomic.Int64
	var wg sync.WaitGroup
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	mallocs0 := ms.Mallocs
	cpu0 := testkit.ProcessCPU()
	start := time.Now()
	for _, c := range s.clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var lat []time.Duration
			for next.Add(1) <= int64(n) {
				t0 := time.Now()
				if err := c.call(); err != nil {
					b.Error(err)
					return
				}
				lat = append(lat, time.Since(t0))
			}
			mu.Lock()
			s.latencies = append(s.latencies, lat...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	s.elapsed += time.Since(start)
	s.cpu += testkit.ProcessCPU() - cpu0
	runtime.ReadMemStats(&ms)
	s.mallocs += ms.Mallocs - mallocs0
	s.calls += n
}

func (s *side) perSecond() float64 { return float64(s.calls) / s.elapsed.Seconds() }

func (s *side) p50() time.Duration { return s.quantile(0.5) }

func (s *side) quantile(q float64) time.Duration {
	slices.Sort(s.latencies)
	return s.latencies[int(q*float64(len(s.latencies)-1))]
}

// serveOn serves h on a loopback port until the benchmark ends.
func serveOn(b *testing.B, h http.Handler) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	hs := &http.Server{Handler: h}
	go func() { _ = hs.Serve(ln) }()
	b.Cleanup(func() { _ = hs.Close() })
	return ln.Addr().String()
}

// BenchmarkHTTPTap measures tools/call over Streamable HTTP (sessionless), direct
// and through an HTTP tap, with 1 and 16 clients in flight, with the capture going
// to a file and with no recorder at all; and, for reference, through "floor": a
// relay that copies the bytes of each connection without looking at them, the
// least any proxy costs.
func BenchmarkHTTPTap(b *testing.B) {
	upstream := serveOn(b, streamable.NewHandler(newEchoServer(), &streamable.HandlerOptions{Sessionless: true}))
	u, _ := url.Parse("http://" + upstream + "/mcp")
	for _, conc := range []int{1, 16} {
		for _, mode := range []string{"file", "none", "floor"} {
			b.Run(fmt.Sprintf("C=%d/capture=%s", conc, mode), func(b *testing.B) {
				opts := HTTPOptions{Upstream: u}
				if mode == "file" {
					f, err := os.Create(filepath.Join(b.TempDir(), "capture.jsonl"))
					if err != nil {
						b.Fatal(err)
					}
					rec, err := capture.NewRecorder(capture.Options{Out: f})
					if err != nil {
						b.Fatal(err)
					}
					b.Cleanup(func() { _ = rec.Close(); _ = f.Close() })
					opts.Recorder = rec
				}
				var addr string
				if mode == "floor" {
					addr = byteRelay(b, upstream)
				} else {
					addr, _ = startTap(b, u.String(), nil, opts)
				}
				direct, tapped := &side{}, &side{}
				for range conc {
					for _, s := range []struct {
						side *side
						addr string
					}{{direct, upstream}, {tapped, addr}} {
						c, err := newLeanClient(s.addr)
						if err != nil {
							b.Fatal(err)
						}
						b.Cleanup(func() { _ = c.c.Close() })
						s.side.clients = append(s.side.clients, c)
					}
				}
				compare(b, direct, tapped)
			})
		}
	}
}

// byteRelay relays each connection it accepts to upstream, copying bytes both
// ways, until the benchmark ends, and returns its address.
func byteRelay(b *testing.B, upstream string) string {
	return rawServer(b, func(c net.Conn) {
		u, err := net.Dial("tcp", upstream)
		if err != nil {
			return
		}
		done := make(chan struct{})
		go func() { defer close(done); _, _ = io.Copy(u, c); _ = u.Close() }()
		_, _ = io.Copy(c, u)
		_ = c.Close()
		_ = u.Close()
		<-done
	})
}

// compare runs b.N calls on each side, in interleaved rounds, and reports.
func compare(b *testing.B, direct, tapped *side) {
	warm := &side{clients: direct.clients}
	warm.round(b, 200)
	warm = &side{clients: tapped.clients}
	warm.round(b, 200)
	b.ResetTimer()
	const rounds = 10
	per := max(b.N/rounds, 1)
	for range rounds {
		direct.round(b, per)
		tapped.round(b, per)
	}
	b.StopTimer()
	b.ReportMetric(direct.perSecond(), "direct-calls/s")
	b.ReportMetric(tapped.perSecond(), "tap-calls/s")
	b.ReportMetric(tapped.perSecond()/direct.perSecond(), "ratio")
	b.ReportMetric(float64(direct.p50().Microseconds()), "direct-p50-µs")
	b.ReportMetric(float64((tapped.p50() - direct.p50()).Microseconds()), "added-p50-µs")
	b.ReportMetric(float64(direct.quantile(0.99).Microseconds()), "direct-p99-µs")
	b.ReportMetric(float64(tapped.quantile(0.99).Microseconds()), "tap-p99-µs")
	b.ReportMetric(float64(direct.cpu.Microseconds())/float64(direct.calls), "direct-cpu-µs/call")
	b.ReportMetric(float64(tapped.cpu.Microseconds())/float64(tapped.calls), "tap-cpu-µs/call")
	b.ReportMetric((float64(tapped.mallocs)-float64(direct.mallocs))/float64(tapped.calls), "added-allocs/call")
}

// stdioProc is a server process the benchmark talks to over pipes, one call at a
// time: the way a host talks to a stdio server.
type stdioProc struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func startStdioProc(b *testing.B, mode string, env ...string) *stdioProc {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(append(os.Environ(), childEnv+"="+mode), env...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	p := &stdioProc{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 64<<10)}
	b.Cleanup(func() { _ = in.Close(); _ = cmd.Wait() })
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}` + "\n"
	if _, err := io.WriteString(in, init); err != nil {
		b.Fatal(err)
	}
	if _, err := p.out.ReadSlice('\n'); err != nil {
		b.Fatal(err)
	}
	if _, err := io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		b.Fatal(err)
	}
	return p
}

func (p *stdioProc) call() error {
	if _, err := io.WriteString(p.in, callBody+"\n"); err != nil {
		return err
	}
	line, err := p.out.ReadSlice('\n')
	if err != nil {
		return err
	}
	if !bytes.Contains(line, []byte("hello bench")) {
		return fmt.Errorf("reply %q", line)
	}
	return nil
}

// BenchmarkStdioTap measures a tools/call round trip with a stdio server, direct
// and through a stdio tap (a process between them), one call at a time, with the
// capture going to a file, with no recorder at all, and through the floor: a
// process that starts the server and only copies bytes both ways (io.Copy), the
// least any stdio relay adds.
func BenchmarkStdioTap(b *testing.B) {
	for _, mode := range []string{"file", "none", "floor"} {
		b.Run("capture="+mode, func(b *testing.B) {
			capPath := ""
			if mode == "file" {
				capPath = filepath.Join(b.TempDir(), "capture.jsonl")
			}
			direct := startStdioProc(b, "bench-server")
			child := "bench-tap"
			if mode == "floor" {
				child = "bench-copy"
			}
			tapped := startStdioProc(b, child, "MCPKIT_TAP_BENCH_CAPTURE="+capPath)
			measure := func(p *stdioProc, n int, lat *[]time.Duration) {
				for range n {
					t0 := time.Now()
					if err := p.call(); err != nil {
						b.Fatal(err)
					}
					*lat = append(*lat, time.Since(t0))
				}
			}
			var warm []time.Duration
			measure(direct, 500, &warm)
			measure(tapped, 500, &warm)
			b.ResetTimer()
			var dl, tl []time.Duration
			const rounds = 10
			per := max(b.N/rounds, 1)
			for range rounds {
				measure(direct, per, &dl)
				measure(tapped, per, &tl)
			}
			b.StopTimer()
			slices.Sort(dl)
			slices.Sort(tl)
			b.ReportMetric(float64(dl[len(dl)/2].Microseconds()), "direct-p50-µs")
			b.ReportMetric(float64(tl[len(tl)/2].Microseconds()), "tap-p50-µs")
			b.ReportMetric(float64((tl[len(tl)/2] - dl[len(dl)/2]).Microseconds()), "added-p50-µs")
		})
	}
}

// runBenchChild runs the benchmark's processes: the echo server on stdio, a
// stdio tap in front of it, or a plain byte-copying relay in front of it.
func runBenchChild(mode string) (int, bool) {
	switch mode {
	case "bench-copy":
		exe, _ := os.Executable()
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), childEnv+"=bench-server")
		cmd.Stderr = os.Stderr
		in, err := cmd.StdinPipe()
		var out io.ReadCloser
		if err == nil {
			out, err = cmd.StdoutPipe()
		}
		if err == nil {
			err = cmd.Start()
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1, true
		}
		go func() { _, _ = io.Copy(in, os.Stdin); _ = in.Close() }() // both directions relayed, as a tap does
		_, _ = io.Copy(os.Stdout, out)
		_ = cmd.Wait()
		return 0, true
	case "bench-server":
		err := newEchoServer().Run(context.Background(), stdio.NewProcessServerConn(nil))
		if err != nil && !errors.Is(err, io.EOF) {
			fmt.Fprintln(os.Stderr, err)
		}
		return 0, true
	case "bench-tap":
		exe, _ := os.Executable()
		opts := StdioOptions{
			Command: exe, Args: []string{"-test.run=^$"}, Env: append(os.Environ(), childEnv+"=bench-server"),
			Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
		}
		if path := os.Getenv("MCPKIT_TAP_BENCH_CAPTURE"); path != "" {
			f, err := os.Create(path)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1, true
			}
			defer f.Close()
			rec, _ := capture.NewRecorder(capture.Options{Out: f})
			defer rec.Close()
			opts.Recorder = rec
		}
		code, err := RunStdio(context.Background(), opts)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1, true
		}
		return code, true
	}
	return 0, false
}
