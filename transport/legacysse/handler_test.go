package legacysse_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/sse"
	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/transport"
	"github.com/mcpkit/mcpkit/transport/legacysse"
)

// acceptServer is a transport.Server that hands each session's Conn to the test.
type acceptServer struct{ conns chan transport.Conn }

func (a *acceptServer) Accept(ctx context.Context, conn transport.Conn) error {
	a.conns <- conn
	return nil
}

// serveRaw serves a Handler for acceptServer on 127.0.0.1.
func serveRaw(t *testing.T, opts *legacysse.HandlerOptions) (*httptest.Server, served, *acceptServer) {
	t.Helper()
	srv := &acceptServer{conns: make(chan transport.Conn, 16)}
	if opts == nil {
		opts = &legacysse.HandlerOptions{}
	}
	opts.Logger = quiet
	h := served{Handler: legacysse.NewHandler(srv, opts), reqs: new(testkit.Requests)}
	ts := testkit.NewServer(t, h.reqs.Handler(h))
	t.Cleanup(func() { _ = h.Close() }) // runs first: the sessions end gracefully
	return ts, h, srv
}

func (a *acceptServer) next(t *testing.T) transport.Conn {
	t.Helper()
	select {
	case c := <-a.conns:
		return c
	case <-time.After(10 * time.Second):
		t.Fatal("no session was accepted")
		return nil
	}
}

// rawStream is an event stream read by hand.
type rawStream struct {
	resp     *http.Response
	dec      *sse.Decoder
	cancel   context.CancelFunc
	comments chan string
}

// openRawStream GETs url and returns its first event (which must be the endpoint).
func openRawStream(t *testing.T, url string, hdr http.Header) (sse.Event, *rawStream) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	for k, v := range hdr {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		cancel()
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	s := &rawStream{resp: resp, cancel: cancel, comments: make(chan string, 16)}
	s.dec = sse.NewDecoderWithOptions(resp.Body, sse.DecoderOptions{OnComment: func(text []byte) {
		select {
		case s.comments <- string(text):
		default:
		}
	}})
	t.Cleanup(s.close)
	ev := s.next(t)
	if ev.Type != "endpoint" {
		t.Fatalf("first event %q %q, want the endpoint", ev.Type, ev.Data)
	}
	return ev, s
}

func (s *rawStream) next(t *testing.T) sse.Event {
	t.Helper()
	ev, err := s.dec.Next()
	if err != nil {
		t.Fatalf("reading the stream: %v", err)
	}
	return ev
}

func (s *rawStream) close() {
	s.cancel()
	_ = s.resp.Body.Close()
}

func post(t *testing.T, url, body string, hdr http.Header) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range hdr {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func TestStreamHeadersEndpointAndDelivery(t *testing.T) {
	ts, h, srv := serveRaw(t, nil)
	ev, st := openRawStream(t, ts.URL+"/sse", nil)
	for k, want := range map[string]string{"Content-Type": "text/event-stream", "Cache-Control": "no-cache", "X-Accel-Buffering": "no"} {
		if got := st.resp.Header.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	endpoint := string(ev.Data)
	if !strings.HasPrefix(endpoint, "/messages?sessionId=") || len(endpoint) < len("/messages?sessionId=")+20 {
		t.Fatalf("endpoint %q", endpoint)
	}
	conn := srv.next(t)
	if pc, ok := conn.(transport.PeerConn); !ok || !strings.HasPrefix(pc.RemoteAddr(), "127.0.0.1:") {
		t.Errorf("the session's Conn is not a PeerConn with the client's address: %T", conn)
	}
	if n := h.SessionCount(); n != 1 {
		t.Errorf("SessionCount = %d", n)
	}

	msg := `{"jsonrpc":"2.0","id":0,"method":"ping"}`
	resp, body := post(t, ts.URL+endpoint, msg, nil)
	if resp.StatusCode != http.StatusAccepted || body != "" {
		t.Errorf("POST = %s %q, want 202 with no body", resp.Status, body)
	}
	got, err := conn.Read(testkit.Context(t))
	if err != nil || string(got) != msg {
		t.Errorf("Read = %q %v, want the posted message", got, err)
	}

	// Messages written on the Conn arrive as "message" events, in order; the
	// buffer may be reused as soon as Write returns.
	buf := []byte(`{"jsonrpc":"2.0","id":0,"result":{}}`)
	if err := conn.Write(testkit.Context(t), buf); err != nil {
		t.Fatal(err)
	}
	copy(buf, "XXXXXXXX")
	if err := conn.Write(testkit.Context(t), []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"a":"b\nc"}}`)); err != nil {
		t.Fatal(err)
	}
	ev = st.next(t)
	if ev.Type != "message" || string(ev.Data) != `{"jsonrpc":"2.0","id":0,"result":{}}` {
		t.Errorf("event %q %q", ev.Type, ev.Data)
	}
	if ev = st.next(t); !strings.Contains(string(ev.Data), "notifications/message") {
		t.Errorf("second event %q", ev.Data)
	}
}

func TestPostErrors(t *testing.T) {
	ts, _, srv := serveRaw(t, &legacysse.HandlerOptions{MaxBodySize: 64})
	ev, _ := openRawStream(t, ts.URL+"/sse", nil)
	srv.next(t)
	endpoint := ts.URL + string(ev.Data)

	cases := []struct {
		name, url, body string
		want            int
	}{
		{"unknown session", ts.URL + "/messages?sessionId=nope", `{}`, http.StatusNotFound},
		{"missing session", ts.URL + "/messages", `{}`, http.StatusBadRequest},
		{"not JSON", endpoint, `{"jsonrpc":`, http.StatusBadRequest},
		{"too large", endpoint, `{"jsonrpc":"2.0","method":"x","params":{"pad":"` + strings.Repeat("a", 64) + `"}}`, http.StatusRequestEntityTooLarge},
		{"unknown path", ts.URL + "/other", `{}`, http.StatusNotFound},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp, body := post(t, c.url, c.body, nil)
			if resp.StatusCode != c.want {
				t.Fatalf("POST = %s %q, want %d", resp.Status, body, c.want)
			}
			if c.name == "not JSON" {
				var reply struct {
					ID    json.RawMessage `json:"id"`
					Error jsonrpc.Error   `json:"error"`
				}
				if err := json.Unmarshal([]byte(body), &reply); err != nil || reply.Error.Code != jsonrpc.CodeParseError || string(reply.ID) != "null" {
					t.Errorf("body %q, want a JSON-RPC -32700 error with id null", body)
				}
				if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
					t.Errorf("Content-Type %q", ct)
				}
			}
		})
	}

	t.Run("too large without a length", func(t *testing.T) {
		big := io.MultiReader(strings.NewReader(`{"pad":"`), strings.NewReader(strings.Repeat("a", 100)), strings.NewReader(`"}`))
		resp, err := http.Post(endpoint, "application/json", big) // chunked: no Content-Length
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestEntityTooLarge {
			t.Errorf("POST = %s, want 413", resp.Status)
		}
	})

	t.Run("wrong methods", func(t *testing.T) {
		resp, err := http.Get(endpoint)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "POST" {
			t.Errorf("GET messages = %s Allow %q", resp.Status, resp.Header.Get("Allow"))
		}
		resp, _ = post(t, ts.URL+"/sse", `{}`, nil)
		if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET" {
			t.Errorf("POST sse = %s Allow %q", resp.Status, resp.Header.Get("Allow"))
		}
	})
}

func TestOriginValidation(t *testing.T) {
	ts, h, _ := serveRaw(t, &legacysse.HandlerOptions{AllowedOrigins: []string{"https://App.example.com/"}})
	cases := []struct {
		origin string
		want   int
	}{
		{"", http.StatusNotFound}, // allowed: the unknown session answers 404
		{"http://localhost:3000", http.StatusNotFound},
		{"http://127.0.0.1:5173", http.StatusNotFound},
		{"http://[::1]:8080", http.StatusNotFound},
		{"https://app.example.com", http.StatusNotFound},
		{"http://evil.example", http.StatusForbidden},
		{"http://localhost.evil.example", http.StatusForbidden},
		{"null", http.StatusForbidden},
		{"file://", http.StatusForbidden},
		{"http://user@localhost:3000", http.StatusForbidden},
		{"http://localhost:3000/path", http.StatusForbidden},
	}
	for _, c := range cases {
		hdr := http.Header{}
		if c.origin != "" {
			hdr.Set("Origin", c.origin)
		}
		if resp, body := post(t, ts.URL+"/messages?sessionId=nope", `{}`, hdr); resp.StatusCode != c.want {
			t.Errorf("Origin %q: %s %q, want %d", c.origin, resp.Status, body, c.want)
		}
	}

	// A stream from a forbidden origin creates no session.
	req, _ := http.NewRequest(http.MethodGet, ts.URL+"/sse", nil)
	req.Header.Set("Origin", "http://evil.example")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden || h.SessionCount() != 0 {
		t.Errorf("GET from evil origin: %s, %d sessions", resp.Status, h.SessionCount())
	}

	// On loopback, the Host header must name a loopback host (a rebound DNS name
	// does not), unless AllowedHosts lists it.
	hosted, _, _ := serveRaw(t, &legacysse.HandlerOptions{AllowedHosts: []string{"mcp.example.com"}})
	for _, c := range []struct {
		url, host string
		want      int
	}{
		{ts.URL, "evil.example", http.StatusForbidden},
		{ts.URL, "localhost:1234", http.StatusNotFound},
		{hosted.URL, "mcp.example.com:8080", http.StatusNotFound},
		{hosted.URL, "127.0.0.1", http.StatusForbidden}, // once listed, only listed hosts
	} {
		req, _ := http.NewRequest(http.MethodPost, c.url+"/messages?sessionId=nope", strings.NewReader(`{}`))
		req.Host = c.host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("Host %q: %s, want %d", c.host, resp.Status, c.want)
		}
	}

	// On a non-loopback address, loopback origins are not trusted by default.
	remote := legacysse.NewHandler(&acceptServer{conns: make(chan transport.Conn, 1)}, &legacysse.HandlerOptions{Logger: quiet})
	for origin, want := range map[string]int{"": http.StatusNotFound, "http://localhost:3000": http.StatusForbidden} {
		r := httptest.NewRequest(http.MethodPost, "/messages?sessionId=nope", strings.NewReader(`{}`))
		r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, &net.TCPAddr{IP: net.ParseIP("192.0.2.7"), Port: 80}))
		if origin != "" {
			r.Header.Set("Origin", origin)
		}
		w := httptest.NewRecorder()
		remote.ServeHTTP(w, r)
		if w.Code != want {
			t.Errorf("non-loopback server, Origin %q: %d, want %d", origin, w.Code, want)
		}
	}

	// "*" allows every origin.
	anyOrigin := legacysse.NewHandler(&acceptServer{}, &legacysse.HandlerOptions{AllowedOrigins: []string{"*"}, Logger: quiet})
	r := httptest.NewRequest(http.MethodPost, "/messages?sessionId=nope", strings.NewReader(`{}`))
	r.Header.Set("Origin", "http://evil.example")
	w := httptest.NewRecorder()
	anyOrigin.ServeHTTP(w, r)
	if w.Code != http.StatusNotFound {
		t.Errorf(`AllowedOrigins "*": %d, want 404`, w.Code)
	}
}

func TestSessionFreedWhenStreamCloses(t *testing.T) {
	ts, h, srv := serveRaw(t, nil)
	ev, st := openRawStream(t, ts.URL+"/sse", nil)
	conn := srv.next(t)
	readErr := make(chan error, 1)
	go func() {
		_, err := conn.Read(context.Background())
		readErr <- err
	}()
	if n := h.SessionCount(); n != 1 {
		t.Fatalf("SessionCount = %d, want 1", n)
	}

	st.close() // the client goes away

	select {
	case err := <-readErr:
		if !errors.Is(err, io.EOF) {
			t.Errorf("server Read after the client left = %v, want io.EOF", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the session's Read did not end when the stream closed")
	}
	h.waitFreed(t)
	if err := conn.Write(testkit.Context(t), []byte(`{}`)); !errors.Is(err, io.ErrClosedPipe) {
		t.Errorf("Write on an ended session = %v, want io.ErrClosedPipe", err)
	}
	if resp, _ := post(t, ts.URL+string(ev.Data), `{}`, nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("POST to a freed session = %s, want 404", resp.Status)
	}
}

func TestServerClosesSession(t *testing.T) {
	ts, h, srv := serveRaw(t, nil)
	_, st := openRawStream(t, ts.URL+"/sse", nil)
	conn := srv.next(t)
	if err := conn.Write(testkit.Context(t), []byte(`{"jsonrpc":"2.0","method":"bye"}`)); err != nil {
		t.Fatal(err)
	}
	_ = conn.Close()
	// What was queued before Close still arrives, then the stream ends.
	if ev := st.next(t); !strings.Contains(string(ev.Data), "bye") {
		t.Errorf("event %q", ev.Data)
	}
	if _, err := st.dec.Next(); err != io.EOF {
		t.Errorf("after the server closed the session: %v, want io.EOF", err)
	}
	h.waitFreed(t)
}

// TestCloseEndsAllStreams: Close and Shutdown end every session after its
// queued messages, and later streams are refused.
func TestCloseEndsAllStreams(t *testing.T) {
	for name, stop := range map[string]func(h served) error{
		"Close":    func(h served) error { return h.Close() },
		"Shutdown": func(h served) error { return h.Shutdown(testkit.Context(t)) },
	} {
		t.Run(name, func(t *testing.T) { testStopEndsAllStreams(t, stop) })
	}
}

func testStopEndsAllStreams(t *testing.T, stop func(h served) error) {
	ts, h, srv := serveRaw(t, nil)
	_, st1 := openRawStream(t, ts.URL+"/sse", nil)
	c1 := srv.next(t)
	_, st2 := openRawStream(t, ts.URL+"/sse", nil)
	c2 := srv.next(t)
	if err := c1.Write(testkit.Context(t), []byte(`{"jsonrpc":"2.0","method":"last"}`)); err != nil {
		t.Fatal(err)
	}
	if err := stop(h); err != nil {
		t.Fatal(err)
	}
	if n := h.SessionCount(); n != 0 {
		t.Errorf("SessionCount after Close = %d", n)
	}
	if ev := st1.next(t); !strings.Contains(string(ev.Data), "last") {
		t.Errorf("queued message lost: %q", ev.Data)
	}
	for i, st := range []*rawStream{st1, st2} {
		if _, err := st.dec.Next(); err != io.EOF {
			t.Errorf("stream %d after Close: %v, want io.EOF", i, err)
		}
	}
	for i, c := range []transport.Conn{c1, c2} {
		if _, err := c.Read(testkit.Context(t)); err != io.EOF {
			t.Errorf("session %d Read after Close: %v, want io.EOF", i, err)
		}
	}
	resp, err := http.Get(ts.URL + "/sse")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("GET after Close = %s, want 503", resp.Status)
	}
	if err := stop(h); err != nil {
		t.Errorf("second stop: %v", err)
	}
}

func TestKeepAliveComments(t *testing.T) {
	ts, _, _ := serveRaw(t, &legacysse.HandlerOptions{KeepAlive: 5 * time.Millisecond})
	_, st := openRawStream(t, ts.URL+"/sse", nil)
	done := make(chan error, 1)
	go func() { _, err := st.dec.Next(); done <- err }() // runs OnComment as comments arrive
	select {
	case text := <-st.comments:
		if text != "ping" {
			t.Errorf("keep-alive comment %q", text)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no keep-alive comment arrived")
	}
	st.close()
	<-done
}

func TestAcceptFailure(t *testing.T) {
	h := legacysse.NewHandler(failingServer{}, &legacysse.HandlerOptions{Logger: quiet})
	ts := testkit.NewServer(t, h)
	resp, err := http.Get(ts.URL + "/sse")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusInternalServerError || h.SessionCount() != 0 {
		t.Errorf("GET with a failing server: %s, %d sessions", resp.Status, h.SessionCount())
	}
}

type failingServer struct{}

func (failingServer) Accept(context.Context, transport.Conn) error { return errors.New("no") }

func TestCustomPaths(t *testing.T) {
	ts, _, srv := serveRaw(t, &legacysse.HandlerOptions{SSEPath: "mcp", MessagePath: "/mcp"})
	ev, _ := openRawStream(t, ts.URL+"/mcp", nil)
	conn := srv.next(t)
	if !strings.HasPrefix(string(ev.Data), "/mcp?sessionId=") {
		t.Fatalf("endpoint %q", ev.Data)
	}
	if resp, _ := post(t, ts.URL+string(ev.Data), `{"jsonrpc":"2.0","method":"x"}`, nil); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("POST = %s", resp.Status)
	}
	if got, err := conn.Read(testkit.Context(t)); err != nil || !bytes.Contains(got, []byte(`"x"`)) {
		t.Errorf("Read = %q %v", got, err)
	}
	resp, err := http.Head(ts.URL + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET, POST" {
		t.Errorf("HEAD = %s Allow %q", resp.Status, resp.Header.Get("Allow"))
	}
}
