package redisstore_test

import (
	"context"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/store/redisstore"
	"github.com/mcpkit/mcpkit/store/redistest"
	"github.com/mcpkit/mcpkit/transport/streamable"
)

type notice struct {
	id      string
	deleted bool
}

// TestSessionWatch: a SessionStore hears the other stores' Save and Delete
// (not its own), skips foreign messages, signals every subscription with an
// empty id, and returns when its context ends.
func TestSessionWatch(t *testing.T) {
	srv := redistest.Start(t)
	c := open(t, srv)
	a, b := redisstore.NewSessionStore(c), redisstore.NewSessionStore(open(t, srv))
	ctx, cancel := context.WithCancel(t.Context())
	got := make(chan notice, 16)
	returned := make(chan struct{})
	go func() {
		defer close(returned)
		b.WatchSessions(ctx, func(id string, deleted bool) { got <- notice{id, deleted} })
	}()
	if n := testkit.Receive(t, got); n != (notice{}) {
		t.Fatalf("first notice %+v, want the subscription's empty id", n)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(a.Create(t.Context(), "S1", []byte(`{"v":"2025-06-18"}`), time.Minute))
	must(b.Save(t.Context(), "S1", []byte(`{"v":"2025-06-18","ll":"debug"}`), time.Minute)) // its own: not heard
	write(t, c, []string{"PUBLISH", "mcp:inv", "garbage"}, []string{"PUBLISH", "mcp:inv", "1 x q S1"}, []string{"PUBLISH", "mcp:inv", "1 x s a{b}"})
	must(a.Save(t.Context(), "S1", []byte(`{"v":"2025-06-18","ll":"error"}`), time.Minute))
	if n := testkit.Receive(t, got); n != (notice{"S1", false}) {
		t.Fatalf("after Save on another store: %+v", n)
	}
	must(a.Delete(t.Context(), "S1"))
	if n := testkit.Receive(t, got); n != (notice{"S1", true}) {
		t.Fatalf("after Delete on another store: %+v", n)
	}
	cancel()
	testkit.Receive(t, returned)
}

// TestDeleteEndsSessionOnEveryReplica: replica B, which checks sessions only
// once an hour, serves a session created on A; a DELETE on A ends B's GET
// stream at once and B answers 404 from then on.
func TestDeleteEndsSessionOnEveryReplica(t *testing.T) {
	srv := redistest.Start(t)
	a, b := newReplica(t, srv, time.Hour), newReplica(t, srv, time.Hour)
	resp, body := a.post(t, "", initBody)
	sid := resp.Header.Get(streamable.HeaderSessionID)
	if resp.StatusCode != http.StatusOK || sid == "" {
		t.Fatalf("initialize on a: %d %s", resp.StatusCode, body)
	}
	if resp, body := b.post(t, sid, callBody(2)); resp.StatusCode != http.StatusOK {
		t.Fatalf("call on b: %d %s", resp.StatusCode, body)
	}
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, b.url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set(streamable.HeaderSessionID, sid)
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	get, err := http.DefaultClient.Do(req)
	if err != nil || get.StatusCode != http.StatusOK {
		t.Fatalf("GET stream on b: %v %v", err, get)
	}
	defer get.Body.Close()
	ended := make(chan error, 1)
	go func() { _, err := io.Copy(io.Discard, get.Body); ended <- err }()

	del, _ := http.NewRequestWithContext(t.Context(), http.MethodDelete, a.url, nil)
	del.Header.Set(streamable.HeaderSessionID, sid)
	del.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	if resp, err := http.DefaultClient.Do(del); err != nil || resp.StatusCode/100 != 2 {
		t.Fatalf("DELETE on a: %v %v", err, resp)
	} else {
		resp.Body.Close()
	}
	if err := testkit.Receive(t, ended); err != nil {
		t.Errorf("b's GET stream ended with %v", err)
	}
	if resp, body := b.post(t, sid, callBody(3)); resp.StatusCode != http.StatusNotFound {
		t.Errorf("call on b after the DELETE on a: %d %s, want 404", resp.StatusCode, body)
	}
}
