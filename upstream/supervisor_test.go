//go:build unix

package upstream

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport/legacysse"
	"github.com/mcpkit/mcpkit/transport/streamable"
)

// selfServer is a configuration entry that runs testServer.
func selfServer(name string, env ...string) *ServerConfig {
	e := map[string]string{serverEnv: "1"}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		e[k] = v
	}
	return &ServerConfig{Name: name, Transport: TransportStdio, Command: os.Args[0], Args: []string{"-test.run=^$"}, Env: e}
}

// recorder keeps the events of a supervisor and lets a test wait for one.
type recorder struct {
	mu      sync.Mutex
	events  []Event
	changed chan struct{}
}

func record(s *Supervisor) *recorder {
	r := &recorder{changed: make(chan struct{})}
	s.Subscribe(func(e Event) {
		r.mu.Lock()
		r.events = append(r.events, e)
		close(r.changed)
		r.changed = make(chan struct{})
		r.mu.Unlock()
	})
	return r
}

// wait returns the first event that matches, waiting for it until ctx ends.
func (r *recorder) wait(ctx context.Context, t *testing.T, what string, match func(Event) bool) Event {
	t.Helper()
	for {
		r.mu.Lock()
		for _, e := range r.events {
			if match(e) {
				r.mu.Unlock()
				return e
			}
		}
		ch := r.changed
		r.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			t.Fatalf("waiting for %s: %v", what, ctx.Err())
		}
	}
}

func connectedEvent(n int) func(Event) bool {
	return func(e Event) bool { return e.Kind == EventConnected && e.Status.Connects == n }
}

// startSupervisor runs servers under a supervisor closed at cleanup.
func startSupervisor(t *testing.T, opts *Options, servers ...*ServerConfig) (*Supervisor, *recorder) {
	t.Helper()
	cfg := &Config{Servers: map[string]*ServerConfig{}}
	for _, s := range servers {
		cfg.Servers[s.Name] = s
	}
	if opts == nil {
		opts = &Options{}
	}
	if opts.InitialBackoff == 0 {
		opts.InitialBackoff = 10 * time.Millisecond
	}
	opts.StopTimeout = 200 * time.Millisecond
	opts.Logger = slog.New(slog.DiscardHandler)
	sup := NewSupervisor(cfg, opts)
	rec := record(sup)
	sup.Start(t.Context())
	t.Cleanup(func() { _ = sup.Close() })
	return sup, rec
}

func callText(ctx context.Context, t *testing.T, sup *Supervisor, server, tool string) string {
	t.Helper()
	cs, err := sup.Session(ctx, server)
	if err != nil {
		t.Fatalf("Session(%s): %v", server, err)
	}
	res, err := cs.CallTool(ctx, tool, nil)
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return res.Content[0].Text
}

func processGone(pid int) bool { return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) }

// TestSupervisorRestartsCrashedServer: a stdio server that exits is started
// again; its status keeps why it stopped and its last stderr lines, and the
// new process answers.
func TestSupervisorRestartsCrashedServer(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	sup, rec := startSupervisor(t, nil, selfServer("a"))

	pid1, _ := strconv.Atoi(callText(ctx, t, sup, "a", "pid"))
	if st, _ := sup.Status("a"); st.State != StateReady || st.PID != pid1 || st.Connects != 1 || st.ServerInfo.Name != "upstream-test" {
		t.Fatalf("status after start = %+v, want ready with pid %d", st, pid1)
	}
	cs, _ := sup.Session(ctx, "a")
	if _, err := cs.CallTool(ctx, "crash", nil); err == nil {
		t.Fatal("crash: the call succeeded, want the server's exit as an error")
	}
	ev := rec.wait(ctx, t, "the backoff", func(e Event) bool { return e.Kind == EventState && e.Status.State == StateBackoff })
	rec.wait(ctx, t, "the second connection", connectedEvent(2))
	if !strings.Contains(ev.Status.LastError, "status 3") {
		t.Errorf("LastError = %q, want the exit status", ev.Status.LastError)
	}
	if !containsLine(ev.Status.Stderr, "fatal: crash requested") {
		t.Errorf("Stderr = %q, want the crash line", ev.Status.Stderr)
	}
	pid2, _ := strconv.Atoi(callText(ctx, t, sup, "a", "pid"))
	if pid2 == pid1 || !processGone(pid1) {
		t.Errorf("pid after restart %d (before %d, gone: %v): want a new process", pid2, pid1, processGone(pid1))
	}
	if err := sup.Close(); err != nil {
		t.Fatal(err)
	}
	if st, _ := sup.Status("a"); st.State != StateStopped || !processGone(pid2) {
		t.Errorf("after Close: state %v, process %d gone %v", st.State, pid2, processGone(pid2))
	}
}

func containsLine(lines []string, want string) bool {
	for _, l := range lines {
		if strings.Contains(l, want) {
			return true
		}
	}
	return false
}

// TestSupervisorBacksOffWhenServerCannotStart: a command that does not exist
// puts the server in backoff at once, with the reason, and it is retried.
func TestSupervisorBacksOffWhenServerCannotStart(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	bad := &ServerConfig{Name: "bad", Transport: TransportStdio, Command: "/nonexistent/mcp-server"}
	sup, rec := startSupervisor(t, &Options{InitialBackoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond}, bad)
	if err := sup.WaitStarted(ctx); err != nil {
		t.Fatal(err)
	}
	ev := rec.wait(ctx, t, "a third failure", func(e Event) bool { return e.Kind == EventState && e.Status.Failures >= 3 })
	if ev.Status.State != StateBackoff || !strings.Contains(ev.Status.LastError, "/nonexistent/mcp-server") {
		t.Errorf("status = %+v, want backoff naming the command", ev.Status)
	}
	_, err := sup.Session(ctx, "bad")
	if err == nil || !strings.Contains(err.Error(), `server "bad" is`) || !strings.Contains(err.Error(), "/nonexistent/mcp-server") {
		t.Errorf("Session: %v, want an error saying why", err)
	}
	if _, err := sup.Session(ctx, "other"); !errors.Is(err, ErrUnknownServer) {
		t.Errorf("Session of an unknown server: %v", err)
	}
}

// TestSupervisorPingRestartsHungServer: a server that stops answering (SIGSTOP)
// fails its health checks and is replaced.
func TestSupervisorPingRestartsHungServer(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	sup, rec := startSupervisor(t, &Options{PingInterval: 50 * time.Millisecond, PingTimeout: 100 * time.Millisecond, PingFailures: 2}, selfServer("a"))
	pid1, _ := strconv.Atoi(callText(ctx, t, sup, "a", "pid"))
	if err := syscall.Kill(pid1, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(pid1, syscall.SIGKILL) })
	ev := rec.wait(ctx, t, "a reconnection", connectedEvent(2))
	st := rec.wait(ctx, t, "the backoff", func(e Event) bool { return e.Kind == EventState && e.Status.State == StateBackoff })
	if !strings.Contains(st.Status.LastError, "pings in a row failed") {
		t.Errorf("LastError = %q, want the failed pings", st.Status.LastError)
	}
	if ev.Status.PID == pid1 {
		t.Errorf("the same process %d after the restart", pid1)
	}
}

// TestSupervisorEventsAndRestart: list_changed from a server is reported, and
// Restart replaces the process at once.
func TestSupervisorEventsAndRestart(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	off := &ServerConfig{Name: "off", Transport: TransportStdio, Command: "unused", Disabled: true}
	sup, rec := startSupervisor(t, nil, selfServer("a", "UPSTREAM_TEST_STDERR=30"), off)
	if err := sup.WaitStarted(ctx); err != nil {
		t.Fatal(err)
	}
	if callText(ctx, t, sup, "a", "grow") != "grown" {
		t.Fatal("grow did not answer")
	}
	rec.wait(ctx, t, "tools list_changed", func(e Event) bool { return e.Kind == EventToolsChanged && e.Server == "a" })

	pid1, _ := strconv.Atoi(callText(ctx, t, sup, "a", "pid"))
	if err := sup.Restart("a"); err != nil {
		t.Fatal(err)
	}
	rec.wait(ctx, t, "the restart", connectedEvent(2))
	pid2, _ := strconv.Atoi(callText(ctx, t, sup, "a", "pid"))
	if pid1 == pid2 {
		t.Errorf("Restart kept process %d", pid1)
	}
	st, _ := sup.Status("a")
	if st.Failures != 0 || len(st.Stderr) != 20 || st.Stderr[19] != "line 29" {
		t.Errorf("status after Restart: failures %d, stderr tail %q (want the last 20 of 60 lines, no failure)", st.Failures, st.Stderr)
	}
	if st, _ := sup.Status("off"); st.State != StateDisabled {
		t.Errorf("disabled server state = %v", st.State)
	}
	if _, err := sup.Session(ctx, "off"); err == nil || !strings.Contains(err.Error(), "disabled") {
		t.Errorf("Session of a disabled server: %v", err)
	}
}

// TestSupervisorHTTPTransports connects to a Streamable HTTP and an HTTP+SSE
// server on 127.0.0.1.
func TestSupervisorHTTPTransports(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	srv := mcp.NewServer(protocol.Implementation{Name: "http-test", Version: "1"}, nil)
	_ = mcp.AddTool(srv, &protocol.Tool{Name: "hello"}, func(ctx context.Context, req *mcp.ToolRequest, _ struct{}) (string, error) {
		return "hello", nil
	})
	mux := http.NewServeMux()
	sh := streamable.NewHandler(srv, nil)
	lh := legacysse.NewHandler(srv, nil)
	mux.Handle("/mcp", sh)
	mux.Handle("/sse", lh)
	mux.Handle("/messages", lh)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: mux}
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() {
		_ = lh.Close()
		_ = sh.Shutdown(context.Background())
		_ = hs.Close()
	})
	base := "http://" + ln.Addr().String()
	sup, _ := startSupervisor(t, nil,
		&ServerConfig{Name: "streamable", Transport: TransportHTTP, URL: base + "/mcp", Headers: map[string]string{"X-Test": "1"}},
		&ServerConfig{Name: "sse", Transport: TransportSSE, URL: base + "/sse"})
	for _, name := range []string{"streamable", "sse"} {
		if got := callText(ctx, t, sup, name, "hello"); got != "hello" {
			t.Errorf("%s: hello = %q", name, got)
		}
		if st, _ := sup.Status(name); st.State != StateReady || st.ServerInfo.Name != "http-test" {
			t.Errorf("%s: status %+v", name, st)
		}
	}
}

// TestSupervisorRedactsWhatItKeeps: a server that prints its token on stderr
// and crashes: neither its stderr tail nor its last error shows the token.
func TestSupervisorRedactsWhatItKeeps(t *testing.T) {
	const token = "s3cr3t-t0ken"
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	sup, rec := startSupervisor(t, &Options{InitialBackoff: time.Hour}, selfServer("a", "UPSTREAM_TEST_TOKEN="+token))
	cs, err := sup.Session(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CallTool(ctx, "crash", nil); err == nil {
		t.Fatal("crash: the call succeeded")
	}
	ev := rec.wait(ctx, t, "the backoff", func(e Event) bool { return e.Kind == EventState && e.Status.State == StateBackoff })
	if !containsLine(ev.Status.Stderr, "starting with token=[redacted]") {
		t.Errorf("Stderr = %q, want the token line redacted", ev.Status.Stderr)
	}
	if all := ev.Status.LastError + strings.Join(ev.Status.Stderr, "\n"); strings.Contains(all, token) {
		t.Errorf("the status shows the token:\n%s", all)
	}
}
