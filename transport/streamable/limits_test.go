package streamable

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpkit/mcpkit/internal/rpcconn"
	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport"
)

// serveFrom calls the handler directly with a request from the client at
// remote ("host:port"), with the header pairs of hdr.
func serveFrom(h http.Handler, remote, method, sid, body string, hdr ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, "http://127.0.0.1/mcp", strings.NewReader(body))
	req.RemoteAddr = remote
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Content-Type", "application/json")
	if sid != "" {
		req.Header.Set(HeaderSessionID, sid)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

// wantRefusal checks a refusal: its status, a Retry-After header, and a
// JSON-RPC error for the request id that says why.
func wantRefusal(t *testing.T, w *httptest.ResponseRecorder, status int, id, reason string) {
	t.Helper()
	if w.Code != status {
		t.Fatalf("status %d, want %d (%s)", w.Code, status, w.Body)
	}
	if ra := w.Header().Get("Retry-After"); ra != "10" {
		t.Errorf("Retry-After %q, want the default 10", ra)
	}
	if w.Header().Get(HeaderSessionID) != "" {
		t.Error("a refused initialize got a session id")
	}
	m := decodeRPC(t, w.Body.Bytes())
	if m.Error == nil || string(m.ID) != id || !strings.Contains(m.Error.Message, reason) {
		t.Fatalf("body %s, want a JSON-RPC error for id %s saying %q", w.Body, id, reason)
	}
}

// TestSessionLimits: a client gets its share of sessions and then 429; once
// the server holds MaxSessions every client gets 503; a session that ends
// (DELETE, or idle expiry) frees its place.
func TestSessionLimits(t *testing.T) {
	srv := newDemo(t)
	h := NewHandler(srv, &HandlerOptions{Logger: quietLogger, SessionIdleTimeout: time.Minute,
		Limits: &transport.Limits{MaxSessions: 4, MaxSessionsPerClient: 2}})
	defer h.Close()
	clock := testkit.NewClock(time.Unix(1_700_000_000, 0))
	h.now = clock.Now
	const a, b, c = "192.0.2.1:1000", "192.0.2.2:1000", "[2001:db8::1]:1000"
	open := func(remote string) string {
		t.Helper()
		w := serveFrom(h, remote, http.MethodPost, "", initBody("2025-06-18"))
		if w.Code != http.StatusOK {
			t.Fatalf("initialize from %s: %d %s", remote, w.Code, w.Body)
		}
		return w.Header().Get(HeaderSessionID)
	}
	a1 := open(a)
	open("192.0.2.1:2000") // another connection of the same client
	wantRefusal(t, serveFrom(h, a, http.MethodPost, "", initBody("2025-06-18")), http.StatusTooManyRequests, "1", "this client address holds 2 sessions")
	bs := open(b)
	open(c)
	// The server is full: even a client with share left is refused.
	wantRefusal(t, serveFrom(h, "[2001:db8::2]:1000", http.MethodPost, "", initBody("2025-06-18")), http.StatusServiceUnavailable, "1", "server full: 4 sessions are open")
	if h.Sessions() != 4 || len(srv.Sessions()) != 4 {
		t.Fatalf("%d handler sessions, %d server sessions; want 4", h.Sessions(), len(srv.Sessions()))
	}
	if w := serveFrom(h, a, http.MethodDelete, a1, ""); w.Code != http.StatusNoContent {
		t.Fatalf("DELETE: %d", w.Code)
	}
	// Another address of the same IPv6 /64 is the same client.
	open("[2001:db8::2]:1000")
	if w := serveFrom(h, b, http.MethodDelete, bs, ""); w.Code != http.StatusNoContent {
		t.Fatalf("DELETE: %d", w.Code)
	}
	wantRefusal(t, serveFrom(h, "[2001:db8::3]:1000", http.MethodPost, "", initBody("2025-06-18")), http.StatusTooManyRequests, "1", "")

	// Idle sessions expire and free the server.
	clock.Advance(2 * time.Minute)
	if ended := h.sweep(); ended != 3 {
		t.Fatalf("sweep ended %d sessions, want 3", ended)
	}
	if sessions, _ := h.limits.Open(); sessions != 0 {
		t.Fatalf("%d sessions still counted after they all ended", sessions)
	}
	for _, remote := range []string{a, a, b, c} {
		open(remote)
	}
	// Sessionless and 2026-07-28 requests hold no session: a full server serves them.
	w := serveFrom(h, a, http.MethodPost, "", statelessBody(9, "tools/list", ""),
		HeaderProtocolVersion, "2026-07-28", protocol.HeaderMethod, "tools/list")
	if w.Code != http.StatusOK {
		t.Fatalf("a stateless request to a full server: %d %s", w.Code, w.Body)
	}
}

// TestSessionlessRequestsAreNotCounted: every POST of a sessionless handler is
// served, whatever the session limits.
func TestSessionlessRequestsAreNotCounted(t *testing.T) {
	h := NewHandler(newDemo(t), &HandlerOptions{Logger: quietLogger, Sessionless: true,
		Limits: &transport.Limits{MaxSessions: 1}})
	defer h.Close()
	for i := range 3 {
		if w := serveFrom(h, "192.0.2.1:1", http.MethodPost, "", callBody(i, "echo", `{"message":"x"}`, "")); w.Code != http.StatusOK {
			t.Fatalf("call %d: %d %s", i, w.Code, w.Body)
		}
	}
}

// TestStreamLimit: GET streams and subscriptions/listen requests beyond
// MaxStreams are refused with 503; a stream that ends frees its place.
func TestStreamLimit(t *testing.T) {
	listening := make(chan struct{}, 1)
	srv := &fakeServer{handle: func(ctx context.Context, c *rpcconn.Conn, msg *jsonrpc.Message) (any, error) {
		if msg.Method != "subscriptions/listen" {
			return map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "serverInfo": map[string]any{"name": "s", "version": "1"}}, nil
		}
		if err := c.Notify(ctx, "notifications/subscriptions/acknowledged", map[string]any{}); err != nil {
			return nil, err
		}
		listening <- struct{}{}
		<-ctx.Done()
		return nil, ctx.Err()
	}}
	hs := newHarness(t, srv, &HandlerOptions{Limits: &transport.Limits{MaxStreams: 1}})
	ctx := testkit.Context(t)
	s1, s2 := hs.initialize("2025-06-18"), hs.initialize("2025-06-18")
	getCtx, closeGet := context.WithCancel(ctx)
	first := getStream(t, hs, getCtx, s1, nil)
	if first.StatusCode != http.StatusOK {
		t.Fatalf("first GET: %d", first.StatusCode)
	}
	refused := getStream(t, hs, ctx, s2, nil)
	if refused.Header.Get("Retry-After") == "" {
		t.Error("no Retry-After")
	}
	wantStatus(t, refused, http.StatusServiceUnavailable, jsonrpc.CodeInternalError)
	listen := statelessBody(8, "subscriptions/listen", `"notifications":{"toolsListChanged":true}`)
	wantStatus(t, hs.postStateless(statelessHeaders("subscriptions/listen", ""), listen), http.StatusServiceUnavailable, jsonrpc.CodeInternalError)

	closeGet()
	first.Body.Close()
	// The stream's place comes back once its handler has returned.
	hs.reqs.WaitIdle(t, http.MethodGet)
	if _, streams := hs.h.limits.Open(); streams != 0 {
		t.Fatalf("%d streams still counted after the GET ended", streams)
	}
	listenCtx, stopListen := context.WithCancel(ctx)
	defer stopListen()
	resp := hs.request(listenCtx, http.MethodPost, statelessHeaders("subscriptions/listen", ""), listen)
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("listen after the GET ended: %d", resp.StatusCode)
	}
	<-listening
	wantStatus(t, getStream(t, hs, ctx, s2, nil), http.StatusServiceUnavailable, jsonrpc.CodeInternalError)
}

// TestSlowBodyIsCut: a client that sends a POST's body slower than
// BodyReadTimeout is answered with 408 and loses its connection, instead of
// holding it for ever.
func TestSlowBodyIsCut(t *testing.T) {
	hs := newHarness(t, newDemo(t), &HandlerOptions{BodyReadTimeout: 50 * time.Millisecond})
	conn, err := net.Dial("tcp", hs.srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// Half a body, then nothing: the handler waits for the rest.
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nAccept: application/json, text/event-stream\r\n"+
		"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"jsonrpc\":", hs.srv.Listener.Addr())
	if err := conn.SetReadDeadline(time.Now().Add(20 * time.Second)); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer to a trickled body: %v", err)
	}
	body := readBody(t, resp)
	if resp.StatusCode != http.StatusRequestTimeout || !resp.Close || !strings.Contains(body, "request timeout") {
		t.Fatalf("%d (close %v) %s, want 408 and the connection closed", resp.StatusCode, resp.Close, body)
	}
}

// TestLongCallOutlivesBodyDeadline: the body's read deadline bounds the body
// only. Had it bounded the request (as http.Server's WriteTimeout bounds a
// whole response), a long call's SSE stream would be cut (in a session), or
// the call cancelled (sessionless). Here a call streams for two minutes with a
// one-second body deadline and is answered, and the kept-alive connection then
// serves the next request after a pause. (In a synctest bubble: the minutes
// are the fake clock's.)
func TestLongCallOutlivesBodyDeadline(t *testing.T) {
	for _, sessionless := range []bool{false, true} {
		t.Run(fmt.Sprint("sessionless=", sessionless), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { twoMinuteCall(t, sessionless) })
		})
	}
}

func twoMinuteCall(t *testing.T, sessionless bool) {
	srv, release := blockingServer(t)
	h := NewHandler(srv, &HandlerOptions{Logger: quietLogger, BodyReadTimeout: time.Second, Sessionless: sessionless})
	pn := testkit.NewPipeNet()
	conns := 0
	hs := &http.Server{Handler: h, ConnState: func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns++
		}
	}}
	go func() { _ = hs.Serve(pn) }()
	client := pn.Client()
	defer func() {
		_ = h.Close()
		_ = hs.Close()
		client.CloseIdleConnections()
	}()
	post := func(sid, body string) (*http.Response, string) {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(body))
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Content-Type", "application/json")
		if sid != "" {
			req.Header.Set(HeaderSessionID, sid)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("POST %s: %v", body, err)
		}
		return resp, readBody(t, resp)
	}
	var sid string
	if !sessionless {
		resp, _ := post("", initBody("2025-06-18"))
		sid = resp.Header.Get(HeaderSessionID)
		post(sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	}
	answered := make(chan string, 1)
	go func() {
		// The tool reports progress, so the answer is an SSE stream.
		_, body := post(sid, callBody(2, "block", `{}`, `{"progressToken":1}`))
		answered <- body
	}()
	time.Sleep(2 * time.Minute)
	close(release)
	if got := <-answered; !strings.Contains(got, `"result"`) {
		t.Fatalf("a two-minute call: %s", got)
	}
	time.Sleep(time.Minute) // idle on the kept-alive connection
	if resp, body := post(sid, `{"jsonrpc":"2.0","id":3,"method":"ping"}`); resp.StatusCode != http.StatusOK {
		t.Fatalf("ping after a pause: %d %s", resp.StatusCode, body)
	}
	if conns != 1 {
		t.Errorf("%d connections, want 1: every request on the kept-alive one", conns)
	}
}

// TestShutdownEndsListenStreamsWithTheirResult: Shutdown ends an
// *mcp.Server's subscriptions/listen streams through EndSubscriptions, so
// each ends with its final result rather than being cut; a listen request
// that comes during the shutdown is refused.
func TestShutdownEndsListenStreamsWithTheirResult(t *testing.T) {
	for range 10 { // the result and the shutdown race, if anything lets them
		hs := newHarness(t, newDemo(t), nil)
		body := statelessBody(8, "subscriptions/listen", `"notifications":{"toolsListChanged":true}`)
		er := newEventReader(t, hs.postStateless(statelessHeaders("subscriptions/listen", ""), body))
		if _, ack := er.next(); ack.Method != "notifications/subscriptions/acknowledged" {
			t.Fatalf("first event %+v", ack)
		}
		if err := hs.h.Shutdown(testkit.Context(t)); err != nil {
			t.Fatalf("Shutdown: %v", err)
		}
		if _, final := er.next(); string(final.ID) != "8" || final.Result == nil {
			t.Fatalf("the stream ended with %+v, want the listen request's result", final)
		}
		wantStatus(t, hs.postStateless(statelessHeaders("subscriptions/listen", ""), body), http.StatusServiceUnavailable, jsonrpc.CodeInternalError)
	}
}
