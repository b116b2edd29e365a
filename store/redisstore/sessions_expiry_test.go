package redisstore_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/store/redistest"
	"github.com/mcpkit/mcpkit/transport/streamable"
)

// TestIdleSessionExpiresOnEveryReplica: with a short SessionIdleTimeout (and
// a SessionCheckInterval longer than it, which the handler caps), a session
// created on A stays alive while its client keeps calling A for longer than
// the timeout (A restarts the record's TTL, so C, which never saw it, still
// serves it), and once the client stops, its record expires in Redis and A,
// B and C answer 404, although A and B served it from memory a moment ago.
func TestIdleSessionExpiresOnEveryReplica(t *testing.T) {
	const idle = time.Second
	srv := redistest.Start(t)
	expired := srv.Expired()
	opts := streamable.HandlerOptions{SessionIdleTimeout: idle, SessionCheckInterval: 10 * time.Second}
	a := newReplicaWith(t, open(t, srv), opts)
	b := newReplicaWith(t, open(t, srv), opts)
	c := newReplicaWith(t, open(t, srv), opts)
	sid := startSession(t, a, b, initBody)
	key := "mcp:{" + sid + "}:s"

	// Busy on A for one and a half idle timeouts.
	tick := time.NewTicker(idle / 20)
	defer tick.Stop()
	for end := time.Now().Add(idle * 3 / 2); time.Now().Before(end); <-tick.C {
		if resp, body := a.post(t, sid, callBody(2)); resp.StatusCode != http.StatusOK {
			t.Fatalf("a call on A while the client is busy: %d %s", resp.StatusCode, body)
		}
	}
	tick.Stop()
	for name, r := range map[string]*replica{"B": b, "C": c} {
		if resp, body := r.post(t, sid, callBody(3)); resp.StatusCode != http.StatusOK {
			t.Fatalf("a call on %s after %v of calls on A: %d %s; the session expired while its client was busy", name, idle*3/2, resp.StatusCode, body)
		}
	}

	// Idle: the record expires in Redis.
	for k := testkit.Receive(t, expired); k != key; k = testkit.Receive(t, expired) {
	}
	for name, r := range map[string]*replica{"A": a, "B": b, "C": c} {
		if resp, body := r.post(t, sid, callBody(4)); resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s after the record expired: %d %s; want 404", name, resp.StatusCode, body)
		}
	}
}
