package streamable

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/transport"
)

// benchBody is a request body that can be rewound without allocating.
type benchBody struct{ bytes.Reader }

func (*benchBody) Close() error { return nil }

// benchWriter is a reusable http.ResponseWriter (and http.Flusher).
type benchWriter struct {
	hdr    http.Header
	status int
	body   bytes.Buffer
}

func (w *benchWriter) Header() http.Header         { return w.hdr }
func (w *benchWriter) WriteHeader(status int)      { w.status = status }
func (w *benchWriter) Write(b []byte) (int, error) { return w.body.Write(b) }
func (w *benchWriter) Flush()                      {}

func (w *benchWriter) reset() {
	clear(w.hdr)
	w.status = 0
	w.body.Reset()
}

// benchServeHTTP measures the server side of one tools/call: the handler and the MCP
// server it feeds, without any client or network. The request and response writer
// are reused, so every allocation counted is the server's.
func benchServeHTTP(b *testing.B, opts *HandlerOptions) {
	opts.Logger = quietLogger
	h := NewHandler(echoServer(b), opts)
	defer h.Close()
	if w, ok := opts.Sessions.(*syncedSessions); ok {
		(<-w.callbacks)("", false) // it hears notices
	}
	var sid string
	if !opts.Sessionless {
		w := serve(h, http.MethodPost, "", initBody("2025-06-18"))
		sid = w.Header().Get(HeaderSessionID)
		if w.Code != http.StatusOK || sid == "" {
			b.Fatalf("initialize: %d", w.Code)
		}
	}
	header := map[string]string{HeaderProtocolVersion: "2025-06-18"}
	if sid != "" {
		header[HeaderSessionID] = sid
	}
	call := echoCaller(b, h, callBody(7, "echo", `{"message":"world"}`, ""), header)
	b.ReportAllocs()
	for b.Loop() {
		call()
	}
}

// echoCaller returns a function that posts body (a call of echoServer's echo
// tool with id 7) to h with these headers, each time with a new id (an id may
// only be reused once its request is over), and checks the answer. The request
// and response writer are reused, so every allocation counted is the server's.
func echoCaller(tb testing.TB, h http.Handler, body string, header map[string]string) func() {
	prefix, suffix, _ := strings.Cut(body, "7")
	payload := make([]byte, 0, 512)
	id := int64(100)
	rb := &benchBody{}
	req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", rb)
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	w := &benchWriter{hdr: make(http.Header)}
	return func() {
		id++
		payload = append(strconv.AppendInt(append(payload[:0], prefix...), id, 10), suffix...)
		rb.Reset(payload)
		req.ContentLength = int64(len(payload))
		w.reset()
		h.ServeHTTP(w, req)
		if w.status != http.StatusOK || !bytes.Contains(w.body.Bytes(), []byte("hello world")) {
			tb.Fatalf("%d %s", w.status, w.body.Bytes())
		}
	}
}

func BenchmarkServeHTTPToolCall(b *testing.B) { benchServeHTTP(b, &HandlerOptions{}) }

// BenchmarkServeHTTPToolCallShared is BenchmarkServeHTTPToolCall on a replica
// that shares its sessions, serving one it checked recently (from memory): the
// request path of a replica behind a balancer.
func BenchmarkServeHTTPToolCallShared(b *testing.B) {
	benchServeHTTP(b, &HandlerOptions{Sessions: &memSessions{}, SessionCheckInterval: time.Hour})
}

// BenchmarkServeHTTPToolCallSynced is BenchmarkServeHTTPToolCallShared with a
// SessionSyncer (as redisstore's) that hears change notices.
func BenchmarkServeHTTPToolCallSynced(b *testing.B) {
	w := &syncedSessions{
		watchedSessions: &watchedSessions{memSessions: &memSessions{}, callbacks: make(chan func(string, bool), 1)},
		within:          make(chan time.Duration, 16),
	}
	benchServeHTTP(b, &HandlerOptions{Sessions: w, SessionCheckInterval: time.Hour})
}

func BenchmarkServeHTTPToolCallSSE(b *testing.B) {
	benchServeHTTP(b, &HandlerOptions{ResponseMode: ResponseAlwaysSSE})
}

func BenchmarkServeHTTPToolCallSessionless(b *testing.B) {
	benchServeHTTP(b, &HandlerOptions{Sessionless: true})
}

// benchRoundTrip measures a whole tools/call through a real HTTP connection on
// 127.0.0.1 (client allocations included).
func benchRoundTrip(b *testing.B, opts *HandlerOptions) {
	opts.Logger = quietLogger
	h := NewHandler(echoServer(b), opts)
	ts := newBenchServer(h)
	defer ts.Close()
	defer h.Close()
	client := ts.Client()
	post := func(sid, body string) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(body))
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(HeaderProtocolVersion, "2025-06-18")
		if sid != "" {
			req.Header.Set(HeaderSessionID, sid)
		}
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		return resp
	}
	var sid string
	if !opts.Sessionless {
		resp := post("", initBody("2025-06-18"))
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		sid = resp.Header.Get(HeaderSessionID)
	}
	id := 100
	b.ReportAllocs()
	for b.Loop() {
		id++
		resp := post(sid, callBody(id, "echo", `{"message":"world"}`, ""))
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !bytes.Contains(data, []byte("hello world")) {
			b.Fatalf("%d %s", resp.StatusCode, data)
		}
	}
}

func BenchmarkRoundTripToolCall(b *testing.B) { benchRoundTrip(b, &HandlerOptions{}) }

func BenchmarkRoundTripToolCallSessionless(b *testing.B) {
	benchRoundTrip(b, &HandlerOptions{Sessionless: true})
}

func newBenchServer(h http.Handler) *httptest.Server { return httptest.NewServer(h) }

// statelessEchoHeader are the standard headers of a 2026-07-28 call of echo.
var statelessEchoHeader = map[string]string{HeaderProtocolVersion: "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "echo"}

// BenchmarkServeHTTPToolCallStateless measures the server side of one 2026-07-28
// tools/call (standard headers checked, a connection of its own), as
// benchServeHTTP does for the legacy eras.
func BenchmarkServeHTTPToolCallStateless(b *testing.B) {
	for _, sessionless := range []bool{false, true} {
		name := "stateful-handler"
		if sessionless {
			name = "sessionless-handler"
		}
		b.Run(name, func(b *testing.B) {
			h := NewHandler(echoServer(b), &HandlerOptions{Sessionless: sessionless, Logger: quietLogger})
			defer h.Close()
			call := echoCaller(b, h, statelessBody(7, "tools/call", `"name":"echo","arguments":{"message":"world"}`), statelessEchoHeader)
			b.ReportAllocs()
			for b.Loop() {
				call()
			}
		})
	}
}

// BenchmarkIdleSessionHeap opens legacy sessions (initialize, initialized, one
// tools/call) and reports the heap each one keeps while idle (issue 20: the
// server ≤ 1.05× the bare net/http server's bytes per idle session, connection
// included; see bench/). b.N sessions stay open until the end.
func BenchmarkIdleSessionHeap(b *testing.B) {
	h, open := idleSessions(b)
	defer h.Close()
	open()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for b.Loop() {
		open()
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if h.Sessions() != b.N+1 {
		b.Fatalf("%d sessions open, want %d", h.Sessions(), b.N+1)
	}
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(b.N), "heapB/session")
	b.ReportMetric(float64(after.HeapObjects-before.HeapObjects)/float64(b.N), "objects/session")
}

// idleSessions returns a handler without session caps and a function that
// opens one legacy session on it (initialize, initialized, one tools/call) and
// leaves it idle.
func idleSessions(tb testing.TB) (*Handler, func()) {
	// Every session comes from one client address, and there may be more
	// than the default caps allow.
	unlimited := &transport.Limits{MaxSessions: -1, MaxSessionsPerClient: -1}
	h := NewHandler(echoServer(tb), &HandlerOptions{Logger: quietLogger, Limits: unlimited})
	post := func(sid, body string) http.Header {
		w := serve(h, http.MethodPost, sid, body)
		if w.Code >= 300 {
			tb.Fatalf("%d %s", w.Code, w.Body)
		}
		return w.Header()
	}
	return h, func() {
		sid := post("", initBody("2025-06-18")).Get(HeaderSessionID)
		post(sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		post(sid, callBody(2, "echo", `{"message":"x"}`, ""))
	}
}
