package streamable

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/testkit"
)

// watchedSessions is one replica's view of a shared memSessions that is also a
// SessionWatcher: the handler's callback is handed to the test.
type watchedSessions struct {
	*memSessions
	callbacks chan func(id string, deleted bool)
}

func (w *watchedSessions) WatchSessions(ctx context.Context, changed func(id string, deleted bool)) {
	w.callbacks <- changed
	<-ctx.Done()
}

// TestSessionWatcherInvalidates: with a SessionWatcher, a replica that would
// not check a session for an hour reloads it after a "saved" notice, rechecks
// every session after an empty one, and ends it at once on a "deleted" one.
func TestSessionWatcherInvalidates(t *testing.T) {
	store := &memSessions{}
	var hs []*harness
	var notify []func(string, bool)
	for range 2 {
		w := &watchedSessions{memSessions: store, callbacks: make(chan func(string, bool), 1)}
		hs = append(hs, newHarness(t, whoServer(t), &HandlerOptions{Sessions: w, SessionCheckInterval: time.Hour}))
		notify = append(notify, testkit.Receive(t, w.callbacks))
	}
	sid := hs[0].initialize("2025-06-18")
	call := func(want int) {
		t.Helper()
		resp := hs[1].post(sid, "2025-06-18", whoCall)
		if b := readBody(t, resp); resp.StatusCode != want {
			t.Fatalf("call on replica 1: %d %s, want %d", resp.StatusCode, b, want)
		}
	}
	call(http.StatusOK) // restores the session: one Load
	before := store.calls.Load()
	call(http.StatusOK)
	if n := store.calls.Load() - before; n != 0 {
		t.Fatalf("a checked session cost %d store operations", n)
	}
	for _, id := range []string{sid, ""} {
		notify[1](id, false)
		before = store.calls.Load()
		call(http.StatusOK)
		call(http.StatusOK)
		if n := store.calls.Load() - before; n != 1 {
			t.Errorf("after the notice %q: %d store operations for 2 calls, want 1 (one reload)", id, n)
		}
	}
	if err := store.Delete(t.Context(), sid); err != nil {
		t.Fatal(err)
	}
	notify[1](sid, true)
	if hs[1].h.lookupSession(sid) != nil {
		t.Error("the session outlived a deleted notice")
	}
	call(http.StatusNotFound)
}
