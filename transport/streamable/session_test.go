package streamable

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/transport"
)

// serve calls the handler directly, as net/http would, and returns the recorder.
func serve(h http.Handler, method, sid, body string) *httptest.ResponseRecorder {
	var req *http.Request
	if body != "" {
		req = httptest.NewRequest(method, "http://127.0.0.1/mcp", strings.NewReader(body))
	} else {
		req = httptest.NewRequest(method, "http://127.0.0.1/mcp", nil)
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Content-Type", "application/json")
	if sid != "" {
		req.Header.Set(HeaderSessionID, sid)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

func TestAbandonedSessionsAreFreed(t *testing.T) {
	const n = 5000
	srv := newDemo(t)
	store := NewMemoryEventStore(nil)
	// Every session comes from one client address: no per-client cap.
	h := NewHandler(srv, &HandlerOptions{SessionIdleTimeout: 10 * time.Minute, EventStore: store, ResponseMode: ResponseAlwaysSSE,
		Limits: &transport.Limits{MaxSessionsPerClient: -1}})
	defer h.Close()
	clock := testkit.NewClock(time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC))
	h.now = clock.Now

	baseGoroutines := runtime.NumGoroutine()
	baseHeap := heapInUse()
	ids := make([]string, 0, n)
	for range n {
		w := serve(h, http.MethodPost, "", initBody("2025-06-18"))
		if w.Code != http.StatusOK {
			t.Fatalf("initialize: %d %s", w.Code, w.Body)
		}
		ids = append(ids, w.Header().Get(HeaderSessionID))
	}
	if h.Sessions() != n || len(srv.Sessions()) != n || store.sessionCount() != n {
		t.Fatalf("%d handler sessions, %d server sessions, %d stored, want %d", h.Sessions(), len(srv.Sessions()), store.sessionCount(), n)
	}
	fullHeap := heapInUse()
	serverSessions := srv.Sessions()

	// Not idle long enough yet.
	clock.Advance(9 * time.Minute)
	if ended := h.sweep(); ended != 0 {
		t.Fatalf("sweep ended %d sessions before their time", ended)
	}
	// One client comes back: its session lives on.
	keep := ids[0]
	if w := serve(h, http.MethodPost, keep, `{"jsonrpc":"2.0","id":2,"method":"ping"}`); w.Code != http.StatusOK {
		t.Fatalf("ping: %d %s", w.Code, w.Body)
	}
	clock.Advance(2 * time.Minute)
	if ended := h.sweep(); ended != n-1 {
		t.Fatalf("sweep ended %d sessions, want %d", ended, n-1)
	}
	if h.Sessions() != 1 || store.sessionCount() != 1 {
		t.Fatalf("%d sessions and %d stored remain, want 1", h.Sessions(), store.sessionCount())
	}
	// Every MCP session but the kept one ended, within sweep (the handler ends a
	// bound session's Receiver before it returns), and the server let go of them.
	if got := len(srv.Sessions()); got != 1 {
		t.Fatalf("the server still has %d sessions after the sweep, want 1", got)
	}
	kept := srv.Sessions()[0]
	for _, ss := range serverSessions {
		select {
		case <-ss.Done():
		default:
			if ss != kept {
				t.Fatal("an expired session's MCP session did not end")
			}
		}
	}
	if w := serve(h, http.MethodPost, ids[1], `{"jsonrpc":"2.0","id":2,"method":"ping"}`); w.Code != http.StatusNotFound {
		t.Fatalf("an expired session answered %d, want 404", w.Code)
	}
	if w := serve(h, http.MethodPost, keep, `{"jsonrpc":"2.0","id":3,"method":"ping"}`); w.Code != http.StatusOK {
		t.Fatalf("the kept session answered %d", w.Code)
	}
	// The read loops are gone (the server removes a session after its Conn ends, so
	// allow for stragglers) and so is the memory, roughly.
	serverSessions, kept = nil, nil
	endHeap := heapInUse()
	if g := runtime.NumGoroutine(); g > baseGoroutines+50 {
		t.Errorf("%d goroutines remain, %d before the sessions", g, baseGoroutines)
	}
	grown := int64(fullHeap) - int64(baseHeap)
	left := int64(endHeap) - int64(baseHeap)
	t.Logf("heap: %d KB before, %d KB with %d sessions (%d B each), %d KB after expiry",
		baseHeap>>10, fullHeap>>10, n, grown/n, endHeap>>10)
	if grown > 0 && left > grown/3 {
		t.Errorf("heap after expiry is %d KB above the start; the sessions took %d KB", left>>10, grown>>10)
	}
}

func TestBusySessionsAreNotIdle(t *testing.T) {
	srv, release := blockingServer(t)
	hs := newHarness(t, srv, &HandlerOptions{SessionIdleTimeout: time.Minute})
	clock := testkit.NewClock(time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC))
	hs.h.now = clock.Now
	ctx := testkit.Context(t)

	withGET := hs.initialize("2025-06-18")
	newEventReader(t, getStream(t, hs, ctx, withGET, nil)) // held open
	inFlight := hs.initialize("2025-06-18")
	cut, cancel := context.WithCancel(ctx)
	post := newEventReader(t, hs.postCtx(cut, inFlight, "2025-06-18", callBody(2, "block", `{}`, `{"progressToken":1}`)))
	post.next()
	cancel() // the client left, but its request runs on
	idle := hs.initialize("2025-06-18")

	clock.Advance(2 * time.Minute)
	if ended := hs.h.sweep(); ended != 1 {
		t.Fatalf("sweep ended %d sessions, want only the idle one", ended)
	}
	wantStatus(t, hs.post(idle, "2025-06-18", `{"jsonrpc":"2.0","id":5,"method":"ping"}`), http.StatusNotFound, -32600)
	wantStatus(t, hs.post(withGET, "2025-06-18", `{"jsonrpc":"2.0","id":5,"method":"ping"}`), http.StatusOK, 0)

	// Once its request is answered, the session that had one in flight can expire.
	// The answer is written by the POST that carried the request: once that POST
	// has been served, the request's route is gone and the POST no longer counts.
	close(release)
	hs.reqs.WaitIdle(t, http.MethodPost)
	s := hs.h.lookupSession(inFlight)
	s.mu.Lock()
	routes, open := s.routes.len(), s.open
	s.mu.Unlock()
	if routes != 0 || open != 0 {
		t.Fatalf("the answered session has %d routes and %d open requests, want none", routes, open)
	}
	clock.Advance(2 * time.Minute)
	if ended := hs.h.sweep(); ended != 1 {
		t.Fatalf("sweep ended %d sessions, want the formerly busy one", ended)
	}
}

func TestRemoteAddrOfTheClient(t *testing.T) {
	hs := newHarness(t, newDemo(t), nil)
	sid := hs.initialize("2025-06-18")
	body := readBody(t, hs.post(sid, "2025-06-18", callBody(2, "echo_ip", `{}`, "")))
	if !strings.Contains(body, `127.0.0.1:`) {
		t.Fatalf("echo_ip: %s, want the client's address", body)
	}
}

func TestServerEndsSession(t *testing.T) {
	srv := newDemo(t)
	hs := newHarness(t, srv, nil)
	sid := hs.initialize("2025-06-18")
	var ss *mcp.ServerSession = srv.Sessions()[0]
	if err := ss.Close(); err != nil {
		t.Fatal(err)
	}
	wantStatus(t, hs.post(sid, "2025-06-18", `{"jsonrpc":"2.0","id":5,"method":"ping"}`), http.StatusNotFound, -32600)
}

func TestConcurrentRequestsInOneSession(t *testing.T) {
	hs := newHarness(t, newDemo(t), nil)
	sid := hs.initialize("2025-06-18")
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for i := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			msg := strings.Repeat("m", i)
			tool, args := "echo", `{"message":"`+msg+`"}`
			if i%4 == 0 {
				tool, args = "count", `{"n":3}`
			}
			resp := hs.post(sid, "2025-06-18", callBody(100+i, tool, args, `{"progressToken":`+strconv.Itoa(i)+`}`))
			body := readBody(t, resp)
			want := `"id":` + strconv.Itoa(100+i)
			if resp.StatusCode != http.StatusOK || !strings.Contains(body, want) {
				errs <- body
			}
			if tool == "echo" && !strings.Contains(body, "hello "+msg+`"`) {
				errs <- "wrong answer: " + body
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// maxIdleSessionHeap bounds the heap an idle legacy session keeps, its map
// entries included (the connection is net/http's). It was 1,601 bytes in 12
// objects before issue 20; it is 789 in 5: the session, the rpcconn.Conn, the
// mcp.ServerSession, the id and a route slice.
const maxIdleSessionHeap = 1024

// TestIdleSessionHeap opens idle legacy sessions and checks what each keeps on
// the heap: no done channel, no read-loop state, no copy of what initialize
// negotiated when its client sent the same params as another.
func TestIdleSessionHeap(t *testing.T) {
	h, open := idleSessions(t)
	defer h.Close()
	open()
	const n = 2000
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range n {
		open()
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if h.Sessions() != n+1 {
		t.Fatalf("%d sessions open, want %d", h.Sessions(), n+1)
	}
	perSession := float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / n
	objects := float64(int64(after.HeapObjects)-int64(before.HeapObjects)) / n
	t.Logf("an idle session keeps %.0f heap bytes in %.1f objects", perSession, objects)
	if perSession > maxIdleSessionHeap {
		t.Errorf("an idle session keeps %.0f heap bytes (%.1f objects), want ≤ %d", perSession, objects, maxIdleSessionHeap)
	}
}
