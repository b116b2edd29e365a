package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/store"
	"github.com/mcpkit/mcpkit/store/redisstore"
	"github.com/mcpkit/mcpkit/store/redistest"
	"github.com/mcpkit/mcpkit/transport/streamable"
)

func TestSessionStore(t *testing.T) {
	srv := redistest.Start(t)
	c := open(t, srv)
	s := redisstore.NewSessionStore(c)
	ctx := t.Context()
	if _, err := s.Load(ctx, "A", time.Minute); !errors.Is(err, streamable.ErrSessionNotFound) {
		t.Fatalf("Load of an absent session: %v", err)
	}
	if err := s.Save(ctx, "A", []byte(`{}`), time.Minute); !errors.Is(err, streamable.ErrSessionNotFound) {
		t.Fatalf("Save of an absent session: %v", err)
	}
	if err := s.Create(ctx, "A", []byte(`{"v":""}`), time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := s.Create(ctx, "A", []byte(`{}`), time.Minute); err == nil {
		t.Fatal("Create of an existing id succeeded")
	}
	if err := s.Save(ctx, "A", []byte(`{"v":"2025-06-18"}`), time.Hour); err != nil {
		t.Fatal(err)
	}
	// Load restarts the TTL.
	if err := redisstore.Do(ctx, c, "PEXPIRE", "mcp:{A}:s", "1000"); err != nil {
		t.Fatal(err)
	}
	b, err := s.Load(ctx, "A", time.Hour)
	if err != nil || string(b) != `{"v":"2025-06-18"}` {
		t.Fatalf("Load: %q, %v", b, err)
	}
	if ttl, err := redisstore.DoInt(ctx, c, "PTTL", "mcp:{A}:s"); err != nil || ttl < 59*60*1000 {
		t.Errorf("PTTL after Load: %d, %v; want the TTL restarted to an hour", ttl, err)
	}
	if err := s.Delete(ctx, "A"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Load(ctx, "A", time.Minute); !errors.Is(err, streamable.ErrSessionNotFound) {
		t.Fatalf("Load after Delete: %v", err)
	}
	if _, err := s.Load(ctx, "a}b", time.Minute); !errors.Is(err, streamable.ErrSessionNotFound) {
		t.Errorf("Load of an id with a brace: %v", err)
	}
	// A key of another type, written by another program: corrupt, and no session.
	write(t, c, []string{"RPUSH", "mcp:{L}:s", "x"})
	_, err = s.Load(ctx, "L", time.Minute)
	if !errors.Is(err, store.ErrCorrupt) || !errors.Is(err, streamable.ErrSessionNotFound) {
		t.Errorf("Load of a list: %v", err)
	}
	// Redis gone: unavailable, never "not found".
	srv.Stop()
	_, err = s.Load(ctx, "A", time.Minute)
	if !errors.Is(err, store.ErrUnavailable) || errors.Is(err, streamable.ErrSessionNotFound) {
		t.Errorf("Load with Redis stopped: %v", err)
	}
	if err := s.Create(ctx, "B", []byte(`{}`), time.Minute); !errors.Is(err, store.ErrUnavailable) {
		t.Errorf("Create with Redis stopped: %v", err)
	}
}

// replica is one server behind a Streamable HTTP handler that shares its
// sessions and events on Redis through its own client.
type replica struct {
	c   *redisstore.Client
	url string
}

func newReplica(t *testing.T, srv *redistest.Server, check time.Duration) *replica {
	t.Helper()
	c := open(t, srv)
	return newReplicaOn(t, c, check)
}

func newReplicaOn(t *testing.T, c *redisstore.Client, check time.Duration) *replica {
	t.Helper()
	return newReplicaWith(t, c, streamable.HandlerOptions{SessionCheckInterval: check})
}

// newReplicaWith is newReplicaOn with handler options o (its Sessions,
// EventStore and Logger are set here).
func newReplicaWith(t *testing.T, c *redisstore.Client, o streamable.HandlerOptions) *replica {
	t.Helper()
	s := mcp.NewServer(protocol.Implementation{Name: "r", Version: "1"}, nil)
	if err := mcp.AddTool(s, &protocol.Tool{Name: "who"}, func(ctx context.Context, req *mcp.ToolRequest, _ struct{}) (string, error) {
		return "client=" + req.Session.ClientInfo().Name, nil
	}); err != nil {
		t.Fatal(err)
	}
	o.Sessions = redisstore.NewSessionStore(c)
	o.EventStore = redisstore.NewEventStore(c, nil)
	o.Logger = slog.New(slog.DiscardHandler)
	h := streamable.NewHandler(s, &o)
	hs := httptest.NewServer(h)
	t.Cleanup(func() { hs.Close(); _ = h.Close() })
	return &replica{c: c, url: hs.URL}
}

func (r *replica) post(t *testing.T, sid, body string) (*http.Response, string) {
	t.Helper()
	hdr := map[string]string{}
	if sid != "" {
		hdr[streamable.HeaderSessionID] = sid
	}
	return testkit.PostMCP(t, t.Context(), r.url, hdr, body)
}

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"sampling":{},"elicitation":{},"roots":{"listChanged":true}},"clientInfo":{"name":"a-client-with-a-rather-long-name","title":"A title","version":"1.2.3"}}}`

func callBody(id int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"who","arguments":{}}}`, id)
}

// TestSessionsAcrossReplicasOnRedis serves one session from three replicas
// on a real Redis: the record stays under 1 KB, a tools/call costs at most
// one round trip, none on a replica that checked the session recently, and
// stopping Redis gives 503 for sessions while the record survives a restart.
func TestSessionsAcrossReplicasOnRedis(t *testing.T) {
	srv := redistest.Start(t)
	counted := open(t, srv)
	n := redisstore.CountRoundTrips(counted)
	strict := newReplicaOn(t, counted, -1) // checks the store on every request
	warm := newReplica(t, srv, time.Hour)  // checks once
	other := newReplica(t, srv, -1)        // restores the session
	resp, body := warm.post(t, "", initBody)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("initialize: %d %s", resp.StatusCode, body)
	}
	sid := resp.Header.Get(streamable.HeaderSessionID)
	if resp, body := other.post(t, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("initialized on another replica: %d %s", resp.StatusCode, body)
	}
	size, err := redisstore.DoInt(t.Context(), counted, "MEMORY", "USAGE", "mcp:{"+sid+"}:s")
	if err != nil || size <= 0 || size > 1024 {
		t.Errorf("MEMORY USAGE of the session record: %d, %v; want at most 1024", size, err)
	}
	for i, r := range []*replica{strict, warm, other, strict, warm, other} {
		before := n.Load()
		resp, body := r.post(t, sid, callBody(10+i))
		if resp.StatusCode != http.StatusOK || !strings.Contains(body, "client=a-client-with-a-rather-long-name") {
			t.Fatalf("call %d: %d %s", i, resp.StatusCode, body)
		}
		if r == strict {
			if got := n.Load() - before; got != 1 {
				t.Errorf("call %d on a replica that checks every request: %d round trips, want 1", i, got)
			}
		}
	}
	srv.Stop()
	if resp, body := other.post(t, sid, callBody(20)); resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Errorf("call with Redis stopped: %d %q %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	if resp, body := other.post(t, "", initBody); resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("initialize with Redis stopped: %d %s", resp.StatusCode, body)
	}
	// The warm replica checked recently: it keeps serving what it knows.
	if resp, body := warm.post(t, sid, callBody(21)); resp.StatusCode != http.StatusOK {
		t.Errorf("call on the warm replica with Redis stopped: %d %s", resp.StatusCode, body)
	}
	srv.Restart() // redistest keeps nothing across restarts (no persistence)
	if resp, body := other.post(t, sid, callBody(22)); resp.StatusCode != http.StatusNotFound {
		t.Errorf("call after Redis lost its data: %d %s", resp.StatusCode, body)
	}
	resp, body = other.post(t, "", initBody)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("initialize after Redis came back: %d %s", resp.StatusCode, body)
	}
	sid = resp.Header.Get(streamable.HeaderSessionID)
	if resp, body := strict.post(t, sid, callBody(23)); resp.StatusCode != http.StatusOK {
		t.Errorf("call in a new session after Redis came back: %d %s", resp.StatusCode, body)
	}
}
