package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/demo"
	"github.com/mcpkit/mcpkit/internal/h1"
	"github.com/mcpkit/mcpkit/internal/sse"
	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/transport/legacysse"
	"github.com/mcpkit/mcpkit/transport/streamable"
)

// lineWriter is an io.Writer that adds each complete line written to it to an
// eventLog, for loggers and process output.
type lineWriter struct {
	mu   sync.Mutex
	log  *eventLog
	tail []byte
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.tail = append(w.tail, p...)
	for {
		i := bytes.IndexByte(w.tail, '\n')
		if i < 0 {
			return len(p), nil
		}
		w.log.add(string(bytes.TrimRight(w.tail[:i], "\r")))
		w.tail = w.tail[i+1:]
	}
}

// logTo returns a logger that writes its records, at every level, to log.
func logTo(log *eventLog) *slog.Logger {
	return slog.New(slog.NewTextHandler(&lineWriter{log: log}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// dumpOnFailure prints the lines of log at cleanup if the test failed.
func dumpOnFailure(t *testing.T, what string, log *eventLog) {
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("%s:\n\t%s", what, strings.Join(log.snapshot(), "\n\t"))
		}
	})
}

// serveDemoHTTP serves a fresh demo server in-process on 127.0.0.1, as `mcpkit serve
// --http` lays it out: Streamable HTTP at /mcp with opts, HTTP+SSE at /sse and
// /messages. It returns the base URL (no trailing slash) and the log of both
// handlers. Everything is closed at cleanup: the handlers first, which end their
// streams, then the HTTP server.
func serveDemoHTTP(t *testing.T, opts streamable.HandlerOptions) (string, *eventLog) {
	t.Helper()
	log := newEventLog()
	dumpOnFailure(t, "mcpkit server log", log)
	srv, err := demo.NewServer(&demo.Options{Logger: logTo(log)})
	if err != nil {
		t.Fatal(err)
	}
	opts.Logger = logTo(log)
	streamableHandler := streamable.NewHandler(srv, &opts)
	sseHandler := legacysse.NewHandler(srv, &legacysse.HandlerOptions{Logger: logTo(log)})
	mux := http.NewServeMux()
	mux.Handle("/mcp", streamableHandler)
	mux.Handle("/sse", sseHandler)
	mux.Handle("/messages", sseHandler)
	ts := testkit.NewServer(t, mux) // listens on 127.0.0.1
	t.Cleanup(func() {              // before the server stops
		_ = streamableHandler.Close()
		_ = sseHandler.Close()
	})
	return ts.URL, log
}

// listeningLine is what http_loopback.mjs prints once the server listens.
var listeningLine = regexp.MustCompile(`^mcpkit-interop: listening on (127\.0\.0\.1:\d+)$`)

// startHTTPPeer runs `node --import http_loopback.mjs script args...`, an npm HTTP
// server, with PORT=0, so that it listens on a free port of 127.0.0.1 only, and waits
// for the line in which http_loopback.mjs announces that port. Every line of the
// process's stdout and stderr goes to out. It returns the server's base URL. The
// process (and its process group) is killed by PID at cleanup; ctx bounds it too.
func startHTTPPeer(ctx context.Context, t *testing.T, node string, out *eventLog, script string, args ...string) string {
	t.Helper()
	preload, err := filepath.Abs("http_loopback.mjs")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, node, append([]string{"--import", fileURL(preload), script}, args...)...)
	cmd.Env = append(os.Environ(), "PORT=0")
	m, _ := startAnnouncedServer(ctx, t, cmd, out, listeningLine)
	return "http://" + m[1]
}

// serverProcess is a server started by startAnnouncedServer.
type serverProcess struct {
	name string
	cmd  *exec.Cmd
	done chan struct{} // closed when the process has exited
	err  error         // cmd.Wait's result, set before done is closed
}

// startAnnouncedServer starts cmd in its own process group, sends every line of its
// stdout and stderr to out, and waits (at most 20 seconds) for a line matching
// announce, whose submatches it returns: a server announcing where it listens. The
// process group is killed by PID at cleanup, and the process's exit is awaited.
func startAnnouncedServer(ctx context.Context, t *testing.T, cmd *exec.Cmd, out *eventLog, announce *regexp.Regexp) ([]string, *serverProcess) {
	t.Helper()
	p := &serverProcess{name: filepath.Base(cmd.Path), cmd: cmd, done: make(chan struct{})}
	for _, a := range cmd.Args[1:] {
		if strings.HasSuffix(a, ".js") {
			p.name = filepath.Base(filepath.Dir(filepath.Dir(a))) + "/" + filepath.Base(a)
		}
	}
	testkit.KillGroupOnCancel(cmd)
	cmd.WaitDelay = 5 * time.Second
	w := &lineWriter{log: out}
	cmd.Stdout, cmd.Stderr = w, w
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", p.name, err)
	}
	pid := cmd.Process.Pid
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		testkit.KillGroup(pid)
		select {
		case <-p.done:
		case <-time.After(10 * time.Second):
			t.Errorf("%s (pid %d) did not exit after SIGKILL", p.name, pid)
		}
	})
	dumpOnFailure(t, "output of "+p.name, out)

	// Wait for the announcement; stop waiting if the process dies first.
	waitCtx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	returned := make(chan struct{})
	defer close(returned)
	go func() {
		select {
		case <-p.done:
			cancel()
		case <-returned:
		}
	}()
	m, err := out.waitMatch(waitCtx, announce)
	if err != nil {
		select {
		case <-p.done:
			t.Fatalf("%s exited (%v) before announcing its address", p.name, p.err)
		default:
			t.Fatalf("%s never announced its address: %v", p.name, err)
		}
	}
	t.Logf("%s (pid %d) listens at %s after %v", p.name, pid, m[1], time.Since(start).Round(time.Millisecond))
	return m, p
}

// interrupt asks the server to stop (os.Interrupt) and waits at most timeout for it
// to exit; it returns its exit error. Where interrupts cannot be sent it returns
// errors.ErrUnsupported.
func (p *serverProcess) interrupt(timeout time.Duration) error {
	if err := p.cmd.Process.Signal(os.Interrupt); err != nil {
		return errors.ErrUnsupported
	}
	select {
	case <-p.done:
		return p.err
	case <-time.After(timeout):
		return fmt.Errorf("%s did not exit within %v of an interrupt", p.name, timeout)
	}
}

// waitMatch waits until a line matches re, and returns its submatches.
func (l *eventLog) waitMatch(ctx context.Context, re *regexp.Regexp) ([]string, error) {
	for {
		l.mu.Lock()
		for _, line := range l.lines {
			if m := re.FindStringSubmatch(line); m != nil {
				l.mu.Unlock()
				return m, nil
			}
		}
		changed := l.changed
		l.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for a line matching %s: %w", re, ctx.Err())
		}
	}
}

// fileURL turns an absolute path into a file: URL, which is what node --import wants
// on every platform.
func fileURL(abs string) string {
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // C:/dir → /C:/dir
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}

// httpExchange is one HTTP request and its response, as recorded by a client.
type httpExchange struct {
	Method          string            `json:"method"`
	Path            string            `json:"path"`
	RequestHeaders  map[string]string `json:"requestHeaders"`
	RequestBody     string            `json:"requestBody"`
	Status          int               `json:"status"`
	ResponseHeaders map[string]string `json:"responseHeaders"`
	ResponseBody    string            `json:"responseBody"`
	FetchError      string            `json:"fetchError"`
}

// String is a one-line summary, for failure messages.
func (e *httpExchange) String() string {
	return fmt.Sprintf("%s %s %s → %d %s", e.Method, e.Path, clip([]byte(e.RequestBody), 200), e.Status, e.ResponseHeaders["content-type"])
}

// contentType returns the media type of the response, without parameters.
func (e *httpExchange) contentType() string {
	ct, _, _ := strings.Cut(e.ResponseHeaders["content-type"], ";")
	return strings.TrimSpace(strings.ToLower(ct))
}

// rpcMessage is the part of a JSON-RPC message the HTTP tests look at.
type rpcMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Name          string          `json:"name"`          // tools/call
		ProgressToken json.RawMessage `json:"progressToken"` // notifications/progress
		Progress      float64         `json:"progress"`
		Meta          struct {
			ProgressToken json.RawMessage `json:"progressToken"` // a request asking for progress
		} `json:"_meta"`
	} `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
	Raw    json.RawMessage `json:"-"`
}

// isResponse reports whether m is a response (it has no method).
func (m *rpcMessage) isResponse() bool { return m.Method == "" && m.ID != nil }

// request decodes the request body, if it is one JSON-RPC message.
func (e *httpExchange) request() (rpcMessage, bool) {
	var m rpcMessage
	if e.RequestBody == "" || json.Unmarshal([]byte(e.RequestBody), &m) != nil {
		return m, false
	}
	m.Raw = json.RawMessage(e.RequestBody)
	return m, true
}

// messages decodes the JSON-RPC messages the response carried: the JSON body (one
// message or a batch), or the data of every "message" event of an event stream (the
// priming events and keep-alives carry none). The HTTP+SSE stream's endpoint event
// is skipped.
func (e *httpExchange) messages(t *testing.T) []rpcMessage {
	t.Helper()
	var raws [][]byte
	switch e.contentType() {
	case "application/json":
		body := bytes.TrimSpace([]byte(e.ResponseBody))
		if len(body) > 0 && body[0] == '[' {
			var batch []json.RawMessage
			if err := json.Unmarshal(body, &batch); err != nil {
				t.Errorf("%s: the JSON body is not a batch: %v\n%s", e, err, body)
			}
			for _, m := range batch {
				raws = append(raws, m)
			}
		} else if len(body) > 0 {
			raws = append(raws, body)
		}
	case "text/event-stream":
		dec := sse.NewDecoder(strings.NewReader(e.ResponseBody))
		for {
			ev, err := dec.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Errorf("%s: the event stream does not decode: %v", e, err)
				break
			}
			if ev.Type == "message" && len(ev.Data) > 0 {
				raws = append(raws, ev.Data)
			}
		}
	}
	out := make([]rpcMessage, 0, len(raws))
	for _, raw := range raws {
		var m rpcMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Errorf("%s: a message that is not JSON-RPC: %v\n%s", e, err, raw)
			continue
		}
		m.Raw = raw
		out = append(out, m)
	}
	return out
}

// recordedRequest is one exchange of an mcpkit client, as recordingTransport saw it.
type recordedRequest struct {
	Line      string // "METHOD path → status content-type"
	SessionID string // the Mcp-Session-Id request header
	Version   string // the MCP-Protocol-Version request header
}

// recordingTransport is an http.RoundTripper that records every exchange an mcpkit
// client makes, for tests to assert the sequence of requests (a fallback, a DELETE)
// and the MCP headers they carried.
type recordingTransport struct {
	base http.RoundTripper
	mu   sync.Mutex
	seen []recordedRequest
}

// newRecordingClient returns an HTTP client of its own (closed at cleanup) that
// records its exchanges.
func newRecordingClient(t *testing.T) (*http.Client, *recordingTransport) {
	// The transport the Streamable HTTP client uses by default for an http://
	// URL (internal/h1), so that the peers meet it (legacysse's requests go
	// through it too here).
	base := h1.New(nil)
	t.Cleanup(base.Close)
	rt := &recordingTransport{base: base}
	return &http.Client{Transport: rt}, rt
}

func (rt *recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	rec := recordedRequest{
		SessionID: req.Header.Get("Mcp-Session-Id"),
		Version:   req.Header.Get("Mcp-Protocol-Version"),
	}
	resp, err := rt.base.RoundTrip(req)
	rec.Line = req.Method + " " + req.URL.RequestURI() + " → "
	if err != nil {
		rec.Line += "error " + err.Error()
	} else {
		ct, _, _ := strings.Cut(resp.Header.Get("Content-Type"), ";")
		rec.Line += fmt.Sprintf("%d %s", resp.StatusCode, ct)
	}
	rt.mu.Lock()
	rt.seen = append(rt.seen, rec)
	rt.mu.Unlock()
	return resp, err
}

// requests returns the exchanges recorded so far.
func (rt *recordingTransport) requests() []recordedRequest {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return append([]recordedRequest(nil), rt.seen...)
}

// exchanges returns the lines recorded so far, "METHOD path → status content-type".
func (rt *recordingTransport) exchanges() []string {
	var lines []string
	for _, r := range rt.requests() {
		lines = append(lines, r.Line)
	}
	return lines
}
