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

// syncedSessions is a watchedSessions that is a SessionSyncer: it records the
// bound of each SaveSynced, and calls duringLoad (when set) inside Load.
type syncedSessions struct {
	*watchedSessions
	within     chan time.Duration
	duringLoad func()
}

func (s *syncedSessions) SaveSynced(ctx context.Context, id string, rec []byte, ttl, within time.Duration) error {
	s.within <- within
	return s.Save(ctx, id, rec, ttl)
}

func (s *syncedSessions) Load(ctx context.Context, id string, ttl time.Duration) ([]byte, error) {
	rec, err := s.memSessions.Load(ctx, id, ttl)
	if f := s.duringLoad; f != nil {
		s.duringLoad = nil
		f()
	}
	return rec, err
}

// TestSessionSyncer: with a SessionSyncer, state changes are saved with
// SaveSynced bounded by the check interval; while the store says it hears no
// notices (changed("", true), and before its first changed("", false)) every
// request checks its session, and a store that cannot answer then is no
// error; a notice applied while a check reads the record leaves the session
// due for another check.
func TestSessionSyncer(t *testing.T) {
	store := &memSessions{}
	var hs []*harness
	var notify []func(string, bool)
	var synced []*syncedSessions
	for range 2 {
		w := &syncedSessions{
			watchedSessions: &watchedSessions{memSessions: store, callbacks: make(chan func(string, bool), 1)},
			within:          make(chan time.Duration, 8),
		}
		hs = append(hs, newHarness(t, whoServer(t), &HandlerOptions{Sessions: w, SessionCheckInterval: time.Minute}))
		notify = append(notify, testkit.Receive(t, w.callbacks))
		synced = append(synced, w)
	}
	sid := hs[0].initialize("2025-06-18")
	if got := testkit.Receive(t, synced[0].within); got != hs[0].h.checkEvery || got <= 0 {
		t.Errorf("SaveSynced after initialize: within %v, want the check interval %v", got, hs[0].h.checkEvery)
	}
	calls := func(n int, want int64) {
		t.Helper()
		before := store.calls.Load()
		for range n {
			resp := hs[1].post(sid, "2025-06-18", whoCall)
			if b := readBody(t, resp); resp.StatusCode != http.StatusOK {
				t.Fatalf("call on replica 1: %d %s", resp.StatusCode, b)
			}
		}
		if got := store.calls.Load() - before; got != want {
			t.Errorf("%d calls cost %d store operations, want %d", n, got, want)
		}
	}
	calls(2, 2) // not hearing notices yet: every call checks
	notify[1]("", false)
	calls(2, 1) // one reload, then from memory
	notify[1]("", true)
	calls(2, 2)
	store.down.Store(true)
	calls(1, 1) // the failed check serves what it holds
	store.down.Store(false)
	notify[1]("", false)
	calls(2, 1)

	notify[1](sid, false)
	synced[1].duringLoad = func() { notify[1](sid, false) } // a newer save announced during the reload
	calls(1, 1)
	calls(2, 1) // checked again, then from memory
}
