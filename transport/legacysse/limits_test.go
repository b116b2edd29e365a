package legacysse_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/transport"
	"github.com/mcpkit/mcpkit/transport/legacysse"
)

// streamFrom opens an event stream by calling the handler directly, as the
// client at remote, on a goroutine of its own; it returns a function that
// ends the stream and waits for the handler to return.
func streamFrom(t *testing.T, h http.Handler, srv *acceptServer, remote string) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	req := httptest.NewRequestWithContext(ctx, http.MethodGet, "http://127.0.0.1/sse", nil)
	req.RemoteAddr = remote
	var wg sync.WaitGroup
	wg.Go(func() { h.ServeHTTP(httptest.NewRecorder(), req) })
	srv.next(t) // the session started
	return func() { cancel(); wg.Wait() }
}

// refusedFrom opens a stream as the client at remote and expects a refusal
// with status, a Retry-After header and a JSON-RPC error that says reason.
func refusedFrom(t *testing.T, h http.Handler, remote string, status int, reason string) {
	t.Helper()
	req := httptest.NewRequestWithContext(t.Context(), http.MethodGet, "http://127.0.0.1/sse", nil)
	req.RemoteAddr = remote
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	var body struct {
		ID    json.RawMessage `json:"id"`
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil || w.Code != status ||
		string(body.ID) != "null" || !strings.Contains(body.Error.Message, reason) {
		t.Fatalf("%d %s (%v), want %d and a JSON-RPC error saying %q", w.Code, w.Body, err, status, reason)
	}
	if w.Header().Get("Retry-After") == "" {
		t.Error("no Retry-After header")
	}
}

// TestSessionLimits: each session is an open stream; a client gets its share
// of them and then 429, a full server gives 503, and a stream that ends frees
// its place.
func TestSessionLimits(t *testing.T) {
	srv := &acceptServer{conns: make(chan transport.Conn, 16)}
	h := legacysse.NewHandler(srv, &legacysse.HandlerOptions{Logger: quiet,
		Limits: &transport.Limits{MaxSessions: 3, MaxSessionsPerClient: 2}})
	defer h.Close()
	a1 := streamFrom(t, h, srv, "192.0.2.1:1")
	defer streamFrom(t, h, srv, "192.0.2.1:2")()
	refusedFrom(t, h, "192.0.2.1:3", http.StatusTooManyRequests, "this client address holds 2 sessions")
	defer streamFrom(t, h, srv, "192.0.2.2:1")()
	refusedFrom(t, h, "192.0.2.3:1", http.StatusServiceUnavailable, "server full: 3 sessions are open")
	if n := h.SessionCount(); n != 3 {
		t.Fatalf("%d sessions, want 3", n)
	}
	a1()
	defer streamFrom(t, h, srv, "192.0.2.3:1")()
}

// TestStreamLimit: with MaxStreams reached, a new stream gets 503.
func TestStreamLimit(t *testing.T) {
	srv := &acceptServer{conns: make(chan transport.Conn, 16)}
	limits := &transport.Limits{MaxStreams: 1}
	h := legacysse.NewHandler(srv, &legacysse.HandlerOptions{Logger: quiet, Limits: limits})
	defer h.Close()
	stop := streamFrom(t, h, srv, "192.0.2.1:1")
	refusedFrom(t, h, "192.0.2.2:1", http.StatusServiceUnavailable, "server full: 1 streams are open")
	stop()
	if sessions, streams := limits.Open(); sessions != 0 || streams != 0 {
		t.Fatalf("%d sessions and %d streams counted after the stream ended", sessions, streams)
	}
	defer streamFrom(t, h, srv, "192.0.2.2:1")()
}

// TestSlowMessageBodyIsCut: a POST whose body trickles slower than
// BodyReadTimeout is answered with 408 and its connection closed.
func TestSlowMessageBodyIsCut(t *testing.T) {
	ts, _, srv := serveRaw(t, &legacysse.HandlerOptions{BodyReadTimeout: 50 * time.Millisecond})
	ev, st := openRawStream(t, ts.URL+"/sse", nil)
	defer st.close()
	srv.next(t)
	conn, err := net.Dial("tcp", ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"jsonrpc\":",
		ev.Data, ts.Listener.Addr())
	if err := conn.SetReadDeadline(time.Now().Add(20 * time.Second)); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer to a trickled body: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusRequestTimeout || !resp.Close {
		t.Fatalf("%s (close %v), want 408 and the connection closed", resp.Status, resp.Close)
	}
}
