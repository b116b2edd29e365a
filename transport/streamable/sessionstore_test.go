package streamable

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/sse"
	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport"
)

// memSessions is a SessionStore in a map, with a switch that makes it fail
// as an unreachable store would, and a count of its operations.
type memSessions struct {
	mu    sync.Mutex
	m     map[string][]byte
	down  atomic.Bool
	calls atomic.Int64
}

var errStoreDown = errors.New("store down")

func (s *memSessions) op() error {
	s.calls.Add(1)
	if s.down.Load() {
		return errStoreDown
	}
	return nil
}

func (s *memSessions) Create(_ context.Context, id string, rec []byte, _ time.Duration) error {
	if err := s.op(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string][]byte{}
	}
	if _, ok := s.m[id]; ok {
		return fmt.Errorf("session %s exists", id)
	}
	s.m[id] = append([]byte(nil), rec...)
	return nil
}

func (s *memSessions) Load(_ context.Context, id string, _ time.Duration) ([]byte, error) {
	if err := s.op(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, ok := s.m[id]
	if !ok {
		return nil, ErrSessionNotFound
	}
	return rec, nil
}

func (s *memSessions) Save(_ context.Context, id string, rec []byte, _ time.Duration) error {
	if err := s.op(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.m[id]; !ok {
		return ErrSessionNotFound
	}
	s.m[id] = append([]byte(nil), rec...)
	return nil
}

func (s *memSessions) Delete(_ context.Context, id string) error {
	if err := s.op(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, id)
	return nil
}

func (s *memSessions) record(t *testing.T, id string) sessionRecord {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	var rec sessionRecord
	if err := json.Unmarshal(s.m[id], &rec); err != nil {
		t.Fatalf("record of %s: %v (%q)", id, err, s.m[id])
	}
	return rec
}

// whoServer has a tool that reports the session as the server sees it and
// logs one message at info and one at error level.
func whoServer(t testing.TB) *mcp.Server {
	t.Helper()
	srv := mcp.NewServer(protocol.Implementation{Name: "who", Version: "1"}, &mcp.ServerOptions{Logger: quietLogger})
	if err := mcp.AddTool(srv, &protocol.Tool{Name: "who"}, func(ctx context.Context, req *mcp.ToolRequest, _ struct{}) (string, error) {
		_ = req.Session.Log(ctx, protocol.LevelInfo, "who", "an info line")
		_ = req.Session.Log(ctx, protocol.LevelError, "who", "an error line")
		caps := req.Session.ClientCapabilities()
		return fmt.Sprintf("client=%s version=%s sampling=%v", req.Session.ClientInfo().Name, req.Session.ProtocolVersion(), caps.Sampling != nil), nil
	}); err != nil {
		t.Fatal(err)
	}
	return srv
}

// replicas returns n handlers, each with its own server, sharing store.
func replicas(t *testing.T, n int, store SessionStore, check time.Duration) []*harness {
	t.Helper()
	var hs []*harness
	for range n {
		hs = append(hs, newHarness(t, whoServer(t), &HandlerOptions{Sessions: store, SessionCheckInterval: check}))
	}
	return hs
}

const whoCall = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"who","arguments":{}}}`

func TestSharedSessionServedByEveryReplica(t *testing.T) {
	store := &memSessions{}
	rs := replicas(t, 3, store, -1)
	const v = "2025-06-18"
	resp := rs[0].post("", "", initBody(v))
	if b := readBody(t, resp); resp.StatusCode != http.StatusOK {
		t.Fatalf("initialize: %d %s", resp.StatusCode, b)
	}
	sid := resp.Header.Get(HeaderSessionID)
	// notifications/initialized and logging/setLevel land on other replicas.
	resp = rs[1].post(sid, v, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if b := readBody(t, resp); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("initialized on replica 1: %d %s", resp.StatusCode, b)
	}
	if rec := store.record(t, sid); !rec.Initialized || rec.ProtocolVersion != v || !strings.Contains(string(rec.ClientInfo), `"test"`) {
		t.Fatalf("record after initialized: %+v", rec)
	}
	resp = rs[2].post(sid, v, `{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"error"}}`)
	if b := readBody(t, resp); resp.StatusCode != http.StatusOK || !strings.Contains(b, `"result"`) {
		t.Fatalf("setLevel on replica 2: %d %s", resp.StatusCode, b)
	}
	if rec := store.record(t, sid); rec.LogLevel != "error" {
		t.Fatalf("record after setLevel: %+v", rec)
	}
	// Every replica, the one that created the session included, serves the
	// session with the client's state and the level set on replica 2.
	for i, r := range rs {
		resp := r.post(sid, v, whoCall)
		b := readBody(t, resp)
		if resp.StatusCode != http.StatusOK || !strings.Contains(b, "client=test version="+v+" sampling=true") {
			t.Fatalf("replica %d: %d %s", i, resp.StatusCode, b)
		}
		if strings.Contains(b, "an info line") || !strings.Contains(b, "an error line") {
			t.Errorf("replica %d ignored the shared log level: %s", i, b)
		}
	}
	// DELETE on replica 1 ends the session everywhere.
	resp = rs[1].request(t.Context(), http.MethodDelete, map[string]string{HeaderSessionID: sid}, "")
	if b := readBody(t, resp); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: %d %s", resp.StatusCode, b)
	}
	for i, r := range rs {
		resp := r.post(sid, v, whoCall)
		if b := readBody(t, resp); resp.StatusCode != http.StatusNotFound {
			t.Errorf("replica %d after DELETE: %d %s", i, resp.StatusCode, b)
		}
	}
}

func TestSharedSessionStoreDown(t *testing.T) {
	store := &memSessions{}
	rs := replicas(t, 2, store, -1)
	sid := rs[0].initialize("2025-11-25")
	store.down.Store(true)
	check := func(name string, resp *http.Response) {
		t.Helper()
		b := readBody(t, resp)
		if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
			t.Errorf("%s with the store down: %d (Retry-After %q) %s", name, resp.StatusCode, resp.Header.Get("Retry-After"), b)
		}
	}
	check("initialize", rs[0].post("", "", initBody("2025-11-25")))
	check("a call on the replica that knows the session", rs[0].post(sid, "2025-11-25", whoCall))
	check("a call on another replica", rs[1].post(sid, "2025-11-25", whoCall))
	check("DELETE", rs[1].request(t.Context(), http.MethodDelete, map[string]string{HeaderSessionID: sid}, ""))
	// The stateless protocol needs no session store.
	resp := rs[1].postStateless(statelessHeaders("server/discover", ""), statelessBody(1, "server/discover", ""))
	if b := readBody(t, resp); resp.StatusCode != http.StatusOK {
		t.Errorf("stateless request with the store down: %d %s", resp.StatusCode, b)
	}
	store.down.Store(false)
	resp = rs[1].post(sid, "2025-11-25", whoCall)
	if b := readBody(t, resp); resp.StatusCode != http.StatusOK {
		t.Errorf("after the store came back: %d %s", resp.StatusCode, b)
	}
}

func TestSharedSessionCheckInterval(t *testing.T) {
	store := &memSessions{}
	rs := replicas(t, 2, store, time.Hour)
	sid := rs[0].initialize("2025-06-18")
	before := store.calls.Load()
	for range 5 {
		resp := rs[0].post(sid, "2025-06-18", whoCall)
		if b := readBody(t, resp); resp.StatusCode != http.StatusOK {
			t.Fatalf("call: %d %s", resp.StatusCode, b)
		}
	}
	if n := store.calls.Load() - before; n != 0 {
		t.Errorf("a replica that knows the session asked the store %d times for 5 calls; want 0", n)
	}
	// Another replica asks once, then knows the session too.
	for range 3 {
		resp := rs[1].post(sid, "2025-06-18", whoCall)
		if b := readBody(t, resp); resp.StatusCode != http.StatusOK {
			t.Fatalf("call on replica 1: %d %s", resp.StatusCode, b)
		}
	}
	if n := store.calls.Load() - before; n != 1 {
		t.Errorf("restoring on another replica cost %d store operations for 3 calls; want 1", n)
	}
}

func TestSharedSessionBoundToPrincipal(t *testing.T) {
	store := &memSessions{}
	var rs []*harness
	for _, who := range []string{"alice", "mallory"} {
		h := NewHandler(whoServer(t), &HandlerOptions{Sessions: store, SessionCheckInterval: -1, Logger: quietLogger})
		hs := &harness{t: t, h: h}
		hs.srv = testkit.NewServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h.ServeHTTP(w, r.WithContext(transport.WithPrincipal(r.Context(), who)))
		}))
		t.Cleanup(func() { _ = h.Close() })
		rs = append(rs, hs)
	}
	resp := rs[0].post("", "", initBody("2025-06-18"))
	if b := readBody(t, resp); resp.StatusCode != http.StatusOK {
		t.Fatalf("initialize: %d %s", resp.StatusCode, b)
	}
	sid := resp.Header.Get(HeaderSessionID)
	if rec := store.record(t, sid); rec.Principal == "" || strings.Contains(rec.Principal, "alice") {
		t.Errorf("stored principal %q: want a digest", rec.Principal)
	}
	resp = rs[1].post(sid, "2025-06-18", whoCall)
	if b := readBody(t, resp); resp.StatusCode != http.StatusNotFound {
		t.Errorf("another principal on another replica: %d %s", resp.StatusCode, b)
	}
	resp = rs[0].post(sid, "2025-06-18", whoCall)
	if b := readBody(t, resp); resp.StatusCode != http.StatusOK {
		t.Errorf("the creator: %d %s", resp.StatusCode, b)
	}
}

func TestSharedSessionGarbageRecord(t *testing.T) {
	store := &memSessions{m: map[string][]byte{"GARBAGE": []byte("\x00not json"), "EMPTY": []byte(`{}`), "BADVERSION": []byte(`{"v":"1999-01-01"}`)}}
	rs := replicas(t, 1, store, -1)
	for id := range store.m {
		resp := rs[0].post(id, "", whoCall)
		if b := readBody(t, resp); resp.StatusCode != http.StatusNotFound {
			t.Errorf("record %s: %d %s", id, resp.StatusCode, b)
		}
	}
}

// TestSharedSessionBusyTouched: a session with a GET stream open sends no
// request to the store, so the janitor restarts its TTL.
func TestSharedSessionBusyTouched(t *testing.T) {
	store := &memSessions{}
	hs := newHarness(t, whoServer(t), &HandlerOptions{Sessions: store, SessionCheckInterval: time.Hour, SessionIdleTimeout: time.Hour})
	sid := hs.initialize("2025-06-18")
	now := time.Now()
	hs.h.now = func() time.Time { return now }
	hs.h.sweep()
	if n := store.calls.Load(); n != 3 { // Create, and Save on initialize and initialized
		t.Fatalf("%d store operations before any stream; want 3", n)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	resp := getStream(t, hs, ctx, sid, nil)
	defer resp.Body.Close()
	now = now.Add(20 * time.Minute)
	hs.h.sweep()
	if n := store.calls.Load(); n != 4 {
		t.Errorf("%d store operations after a sweep with a GET stream open; want 4 (one Load)", n)
	}
}

// TestSharedSessionStreamIDsNeverRepeat: without a Relay, a shared session
// names its streams so that no id repeats in the shared EventStore, neither
// when the replica that served it restores it again (its object ended here,
// the record lived on) nor when a restarted handler serves it.
func TestSharedSessionStreamIDsNeverRepeat(t *testing.T) {
	store, events := &memSessions{}, NewMemoryEventStore(nil)
	opts := func() *HandlerOptions {
		return &HandlerOptions{Sessions: store, EventStore: events, SessionCheckInterval: -1, ResponseMode: ResponseAlwaysSSE}
	}
	h1 := newHarness(t, whoServer(t), opts())
	sid := h1.initialize("2025-11-25")
	seen := map[string]bool{}
	stream := func(step string, h *harness) {
		t.Helper()
		resp := h.post(sid, "2025-11-25", whoCall)
		ev, err := sse.NewDecoder(strings.NewReader(readBody(t, resp))).Next()
		name, _, _ := strings.Cut(ev.ID, "_")
		if err != nil || name == "" {
			t.Fatalf("%s: %d, first event %+v (%v)", step, resp.StatusCode, ev, err)
		}
		if seen[name] {
			t.Errorf("%s: stream id %q given again", step, name)
		}
		seen[name] = true
	}
	stream("first object", h1)
	stream("first object, again", h1)
	h1.h.lookupSession(sid).end() // this replica's object only
	stream("restored", h1)
	stream("restored, again", h1)
	_ = h1.h.Close()
	h2 := newHarness(t, whoServer(t), opts())
	stream("another handler", h2)
	stream("another handler, again", h2)
}

// The 503 of an unavailable store and the 404 of an unknown session answer a
// request whose id was readable with that id, not null.
func TestSessionErrorsCarryTheRequestID(t *testing.T) {
	store := &memSessions{}
	rs := replicas(t, 1, store, -1)
	sid := rs[0].initialize("2025-11-25")
	call := `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"who"}}`
	for _, c := range []struct {
		name   string
		sid    string
		down   bool
		status int
	}{
		{"unknown session", "no-such-session", false, http.StatusNotFound},
		{"store unavailable", sid, true, http.StatusServiceUnavailable},
	} {
		store.down.Store(c.down)
		resp := rs[0].post(c.sid, "2025-11-25", call)
		b := readBody(t, resp)
		if resp.StatusCode != c.status || !strings.Contains(b, `"id":5`) {
			t.Errorf("%s: %d %s, want %d with the request's id 5", c.name, resp.StatusCode, b, c.status)
		}
	}
	store.down.Store(false)
}
