//go:build unix

package upstream

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport/streamable"
)

// httpServer is a Streamable HTTP server on addr that can be stopped and
// started again on the same address, as a server process that restarts.
type httpServer struct {
	t    *testing.T
	addr string
	hs   *http.Server
	h    *streamable.Handler
}

// startHTTPServer serves a new server (no sessions of the last one survive)
// with the tool "hello" on addr ("127.0.0.1:0" for a free port).
func startHTTPServer(t *testing.T, addr string) *httpServer {
	t.Helper()
	srv := mcp.NewServer(protocol.Implementation{Name: "http-test", Version: "1"}, nil)
	_ = mcp.AddTool(srv, &protocol.Tool{Name: "hello"}, func(ctx context.Context, req *mcp.ToolRequest, _ struct{}) (string, error) {
		return "hello", nil
	})
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	s := &httpServer{t: t, addr: ln.Addr().String(), h: streamable.NewHandler(srv, nil)}
	s.hs = &http.Server{Handler: s.h}
	go func() { _ = s.hs.Serve(ln) }()
	t.Cleanup(s.stop)
	return s
}

// stop closes the listener and every connection, open streams included.
func (s *httpServer) stop() {
	_ = s.hs.Close()
	_ = s.h.Shutdown(context.Background())
}

// TestSupervisorReconnectsHTTPServer: a Streamable HTTP server that goes away
// is noticed at the first request that fails (with pings turned off: not by
// them), calls fail fast while it is down, and once it is back on its address
// the supervisor connects again and calls work — in both eras.
func TestSupervisorReconnectsHTTPServer(t *testing.T) {
	for _, era := range []struct{ name, version string }{
		{"stateless", ""},
		{"legacy session", protocol.LatestLegacy},
	} {
		t.Run(era.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			first := startHTTPServer(t, "127.0.0.1:0")
			sc := &ServerConfig{Name: "web", Transport: TransportHTTP, URL: "http://" + first.addr + "/mcp", ProtocolVersion: era.version}
			sup, rec := startSupervisor(t, &Options{PingInterval: -1, MaxBackoff: 50 * time.Millisecond}, sc)
			if got := callText(ctx, t, sup, "web", "hello"); got != "hello" {
				t.Fatalf("hello = %q", got)
			}
			cs, err := sup.Session(ctx, "web")
			if err != nil {
				t.Fatal(err)
			}

			first.stop()
			if _, err := cs.CallTool(ctx, "hello", nil); err == nil {
				t.Fatal("a call to the stopped server succeeded")
			}
			down := rec.wait(ctx, t, "the backoff", func(e Event) bool { return e.Kind == EventState && e.Status.State == StateBackoff })
			if !strings.Contains(down.Status.LastError, "connection refused") {
				t.Errorf("LastError = %q, want the transport's error", down.Status.LastError)
			}
			if _, err := sup.Session(ctx, "web"); err == nil || !strings.Contains(err.Error(), `server "web" is`) {
				t.Errorf("Session while the server is down: %v, want an error at once", err)
			}

			startHTTPServer(t, first.addr)
			rec.wait(ctx, t, "the reconnection", connectedEvent(2))
			if got := callText(ctx, t, sup, "web", "hello"); got != "hello" {
				t.Errorf("hello after the server came back = %q", got)
			}
		})
	}
}

// TestSupervisorReconnectsBehindProxy: a proxy that answers 502 because the
// server behind it is gone counts as a failure of the transport too.
func TestSupervisorReconnectsBehindProxy(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	backend := startHTTPServer(t, "127.0.0.1:0")
	var gone atomic.Bool
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if gone.Load() {
			http.Error(w, "no backend", http.StatusBadGateway)
			return
		}
		backend.h.ServeHTTP(w, r)
	}))
	t.Cleanup(proxy.Close)
	sup, rec := startSupervisor(t, &Options{PingInterval: -1, MaxBackoff: 50 * time.Millisecond},
		&ServerConfig{Name: "web", Transport: TransportHTTP, URL: proxy.URL + "/mcp"})
	cs, err := sup.Session(ctx, "web")
	if err != nil {
		t.Fatal(err)
	}
	gone.Store(true)
	if _, err := cs.CallTool(ctx, "hello", nil); err == nil {
		t.Fatal("a call through the proxy without its backend succeeded")
	}
	down := rec.wait(ctx, t, "the backoff", func(e Event) bool { return e.Kind == EventState && e.Status.State == StateBackoff })
	if !strings.Contains(down.Status.LastError, "502 Bad Gateway") {
		t.Errorf("LastError = %q, want the proxy's 502", down.Status.LastError)
	}
	gone.Store(false)
	rec.wait(ctx, t, "the reconnection", connectedEvent(2))
	if got := callText(ctx, t, sup, "web", "hello"); got != "hello" {
		t.Errorf("hello after the backend came back = %q", got)
	}
}

// TestSupervisorHTTPServerOnPlainTransport: an HTTP server given no client of
// the caller's is called over the supervisor's own transport (internal/h1),
// which keeps the calls' keep-alive connection, and Close closes it.
func TestSupervisorHTTPServerOnPlainTransport(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	srv := startHTTPServer(t, "127.0.0.1:0")
	sup, _ := startSupervisor(t, &Options{PingInterval: -1},
		&ServerConfig{Name: "web", Transport: TransportHTTP, URL: "http://" + srv.addr + "/mcp", ProtocolVersion: protocol.LatestLegacy})
	for range 3 {
		if got := callText(ctx, t, sup, "web", "hello"); got != "hello" {
			t.Fatalf("hello = %q", got)
		}
	}
	sup.mu.Lock()
	plain := sup.plain
	sup.mu.Unlock()
	if plain == nil || plain.IdleConns() == 0 {
		t.Fatalf("no idle connection in the supervisor's transport after the calls (transport %v)", plain)
	}
	_ = sup.Close()
	if n := plain.IdleConns(); n != 0 {
		t.Errorf("%d idle connections after Close", n)
	}
}

// TestSupervisorKeepsTroubleBeforeWatch: a transport failure reported once the
// session is announced but before the runner watches it (a call made at once,
// on a loaded machine) is still checked with a ping. It used to be taken for a
// failure of the attempts before the session and dropped: with pings off, a
// server that had gone away then stayed "ready" for good.
func TestSupervisorKeepsTroubleBeforeWatch(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	srv := mcp.NewServer(protocol.Implementation{Name: "http-test", Version: "1"}, nil)
	h := streamable.NewHandler(srv, nil)
	pinged := make(chan struct{}, 16)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			if bytes.Contains(body, []byte(`"method":"ping"`)) {
				pinged <- struct{}{}
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	t.Cleanup(func() { _ = h.Shutdown(context.Background()) })
	var once sync.Once
	afterConnected = func(r *runner) { once.Do(func() { r.transportFailed("test: a request failed") }) }
	t.Cleanup(func() { afterConnected = nil })
	startSupervisor(t, &Options{PingInterval: -1},
		&ServerConfig{Name: "web", Transport: TransportHTTP, URL: ts.URL + "/mcp", ProtocolVersion: protocol.LatestLegacy})
	select {
	case <-pinged:
	case <-ctx.Done():
		t.Fatal("the failure reported before watch started was never checked with a ping")
	}
}
