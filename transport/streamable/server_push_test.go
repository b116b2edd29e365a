package streamable

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// These tests cover what the Handler gains from serving an *mcp.Server that
// binds its sessions (transport.PushConn): requests run on their POST's
// goroutine, sessions keep no goroutine, and the HTTP request's context is the
// request's.

type principalKey struct{}

// TestHTTPRequestValuesReachTheHandler: values an HTTP middleware puts in the
// request's context (an authenticated user, a trace) are seen by the tool, in a
// session and sessionless.
func TestHTTPRequestValuesReachTheHandler(t *testing.T) {
	srv := mcp.NewServer(protocol.Implementation{Name: "values", Version: "1"}, nil)
	if err := mcp.AddTool(srv, &protocol.Tool{Name: "whoami"}, func(ctx context.Context, req *mcp.ToolRequest, _ struct{}) (string, error) {
		who, _ := ctx.Value(principalKey{}).(string)
		return "you are " + who, nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, sessionless := range []bool{false, true} {
		h := NewHandler(srv, &HandlerOptions{Sessionless: sessionless, Logger: quietLogger})
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), principalKey{}, "alice")))
		}))
		hs := &harness{t: t, h: h, srv: ts}
		sid := ""
		if !sessionless {
			sid = hs.initialize("2025-06-18")
		}
		resp := hs.post(sid, "2025-06-18", callBody(2, "whoami", `{}`, ""))
		if body := readBody(t, resp); !strings.Contains(body, "you are alice") {
			t.Errorf("sessionless=%v: %s", sessionless, body)
		}
		_ = h.Close()
		ts.Close()
	}
}

// TestCloseCancelsASessionlessRequest: a one-request session is not in the
// session table, yet Close still cancels what runs for it.
func TestCloseCancelsASessionlessRequest(t *testing.T) {
	started, cause := make(chan struct{}), make(chan error, 1)
	srv := mcp.NewServer(protocol.Implementation{Name: "wait", Version: "1"}, nil)
	if err := mcp.AddTool(srv, &protocol.Tool{Name: "wait"}, func(ctx context.Context, req *mcp.ToolRequest, _ struct{}) (string, error) {
		close(started)
		<-ctx.Done()
		cause <- ctx.Err()
		return "", ctx.Err()
	}); err != nil {
		t.Fatal(err)
	}
	hs := newHarness(t, srv, &HandlerOptions{Sessionless: true})
	ctx := testkit.Context(t)
	posted := make(chan *http.Response, 1)
	go func() { posted <- hs.postCtx(ctx, "", "2025-06-18", callBody(1, "wait", `{}`, "")) }()
	select {
	case <-started:
	case <-ctx.Done():
		t.Fatal("the tool did not start")
	}
	if err := hs.h.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-cause:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("the tool ended with %v", err)
		}
	case <-ctx.Done():
		t.Fatal("Close did not cancel the sessionless request")
	}
	select {
	case resp := <-posted:
		resp.Body.Close()
	case <-ctx.Done():
		t.Fatal("the POST was not answered after Close")
	}
}

// TestIdleSessionsHoldNoGoroutine: an open session that is not serving a
// request costs memory only — nothing waits on it.
func TestIdleSessionsHoldNoGoroutine(t *testing.T) {
	hs := newHarness(t, newDemo(t), nil)
	hs.initialize("2025-06-18") // starts the handler's own goroutines (the janitor)
	before := runtime.NumGoroutine()
	const sessions = 50
	for range sessions {
		sid := hs.initialize("2025-06-18")
		wantStatus(t, hs.post(sid, "2025-06-18", `{"jsonrpc":"2.0","method":"notifications/initialized"}`), http.StatusAccepted, 0)
	}
	if hs.h.Sessions() != sessions+1 {
		t.Fatalf("%d sessions open, want %d", hs.h.Sessions(), sessions+1)
	}
	// A few goroutines may come and go with the HTTP connections; one per
	// session would be 50.
	if grown := runtime.NumGoroutine() - before; grown >= 10 {
		t.Fatalf("%d idle sessions hold %d more goroutines", sessions, grown)
	}
}

// TestJSONAnswersCarryContentLength: a small JSON answer is not chunked (net/http
// sends its Content-Length), and a large one carries ours.
func TestJSONAnswersCarryContentLength(t *testing.T) {
	hs := newHarness(t, echoServer(t), nil)
	sid := hs.initialize("2025-06-18")
	for _, size := range []int{5, 3 * smallBody} {
		msg := strings.Repeat("x", size)
		resp := hs.post(sid, "2025-06-18", callBody(2, "echo", `{"message":"`+msg+`"}`, ""))
		body := readBody(t, resp)
		if resp.ContentLength != int64(len(body)) || len(resp.TransferEncoding) != 0 || !strings.Contains(body, "hello "+msg) {
			t.Fatalf("size %d: Content-Length %d, Transfer-Encoding %v, body of %d bytes", size, resp.ContentLength, resp.TransferEncoding, len(body))
		}
	}
}

// TestShutdownEndsAListenStreamServedInPlace: a subscriptions/listen request runs
// on its POST's goroutine for as long as the stream is open; Shutdown ends its
// stream at once and must not then wait for it (it would wait for ever: nothing
// else ends a listen request).
func TestShutdownEndsAListenStreamServedInPlace(t *testing.T) {
	srv := newDemo(t)
	hs := newHarness(t, srv, nil)
	body := statelessBody(8, "subscriptions/listen", `"notifications":{"toolsListChanged":true}`)
	resp := hs.postStateless(statelessHeaders("subscriptions/listen", ""), body)
	shutCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	shut := make(chan error, 1)
	go func() { shut <- hs.h.Shutdown(shutCtx) }()
	evs := mustEvents(t, resp) // returns when the stream ends
	if len(evs) == 0 || !strings.Contains(string(evs[0].Data), "subscriptions/acknowledged") {
		t.Fatalf("events %+v", evs)
	}
	if err := <-shut; err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
}
