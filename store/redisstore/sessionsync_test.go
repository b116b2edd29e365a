package redisstore_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/store/redisstore"
	"github.com/mcpkit/mcpkit/store/redistest"
	"github.com/mcpkit/mcpkit/transport/streamable"
)

// loggingReplica is a replica whose tool "log" logs at debug level; hold and
// waiting are handed to its SessionStore (see redisstore.HoldNotices).
func loggingReplica(t *testing.T, srv *redistest.Server, hold func(string), waiting func()) *replica {
	t.Helper()
	c := open(t, srv)
	s := mcp.NewServer(protocol.Implementation{Name: "r", Version: "1"}, nil)
	if err := mcp.AddTool(s, &protocol.Tool{Name: "log"}, func(ctx context.Context, req *mcp.ToolRequest, _ struct{}) (string, error) {
		return "done", req.Log(ctx, protocol.LevelDebug, "t", "a debug line")
	}); err != nil {
		t.Fatal(err)
	}
	ss := redisstore.NewSessionStore(c)
	redisstore.HoldNotices(ss, hold, waiting)
	h := streamable.NewHandler(s, &streamable.HandlerOptions{
		Sessions:             ss,
		EventStore:           redisstore.NewEventStore(c, nil),
		SessionCheckInterval: time.Hour, // only the change notices bring news
		Logger:               slog.New(slog.DiscardHandler),
	})
	hs := httptest.NewServer(h)
	t.Cleanup(func() { hs.Close(); _ = h.Close() })
	return &replica{c: c, url: hs.URL}
}

// TestSetLevelSeenByTheNextRequestElsewhere reproduces the race of the
// conformance scenario tools-call-with-logging behind a balancer: the client
// sends logging/setLevel to replica A and, once answered, tools/call to
// replica B, whose change notice from A is held back. The answer to setLevel
// must wait until B has applied the notice, so that B's tool logs at the new
// level; before SaveSynced, A answered at once and B served the call with the
// level it held (none: no log line).
func TestSetLevelSeenByTheNextRequestElsewhere(t *testing.T) {
	srv := redistest.Start(t)
	arrived, release := make(chan string, 1), make(chan struct{})
	var armed atomic.Bool
	hold := func(id string) { // holds the first notice once armed
		if armed.CompareAndSwap(true, false) {
			arrived <- id
			<-release
		}
	}
	waiting := make(chan struct{}, 4)
	a := loggingReplica(t, srv, nil, func() { waiting <- struct{}{} })
	b := loggingReplica(t, srv, hold, nil)

	resp, body := a.post(t, "", initBody)
	sid := resp.Header.Get(streamable.HeaderSessionID)
	if resp.StatusCode != http.StatusOK || sid == "" {
		t.Fatalf("initialize on a: %d %s", resp.StatusCode, body)
	}
	logCall := func(id int) string {
		t.Helper()
		resp, body := b.post(t, sid, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"log","arguments":{}}}`, id))
		if resp.StatusCode != http.StatusOK || !strings.Contains(body, `"done"`) {
			t.Fatalf("tools/call on b: %d %s", resp.StatusCode, body)
		}
		return body
	}
	if body := logCall(2); strings.Contains(body, "notifications/message") {
		t.Fatalf("b logged before any logging/setLevel: %s", body)
	}

	for len(waiting) > 0 { // the saves of initialize
		<-waiting
	}
	armed.Store(true)
	done := make(chan string, 1)
	go func() {
		done <- postRaw(a.url, sid, `{"jsonrpc":"2.0","id":3,"method":"logging/setLevel","params":{"level":"debug"}}`)
	}()
	if id := testkit.Receive(t, arrived); id != sid {
		t.Fatalf("b heard a notice for %q, want %q", id, sid)
	}
	// b holds the notice. Either a answers setLevel now (the race), or it
	// waits for b's answer.
	select {
	case body := <-done:
		stale := logCall(5) // b still holds the notice
		close(release)
		t.Fatalf("logging/setLevel on a was answered (%s) while b had not applied its notice; tools/call on b then: %s", body, stale)
	case <-waiting:
	}
	close(release)
	if body := testkit.Receive(t, done); !strings.Contains(body, `"result"`) {
		t.Fatalf("logging/setLevel on a: %s", body)
	}
	if body := logCall(4); !strings.Contains(body, "notifications/message") || !strings.Contains(body, "a debug line") {
		t.Errorf("tools/call on b after logging/setLevel debug on a: no log line: %s", body)
	}
}

// postRaw posts body on session sid from any goroutine and returns the answer
// (or what went wrong, as text).
func postRaw(url, sid, body string) string {
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return err.Error()
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set(streamable.HeaderSessionID, sid)
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		return fmt.Sprintf("status %d: %s %v", resp.StatusCode, b, err)
	}
	return string(b)
}

// TestSaveSyncedWaits: SaveSynced returns once every watching store (its own
// included) has applied the notice, without waiting out its bound; a store
// that does not answer (stuck, or one that predates the answers) makes it
// wait the whole bound, and no longer.
func TestSaveSyncedWaits(t *testing.T) {
	srv := redistest.Start(t)
	a, b := redisstore.NewSessionStore(open(t, srv)), redisstore.NewSessionStore(open(t, srv))
	stuck := redisstore.NewSessionStore(open(t, srv))
	release := make(chan struct{})
	redisstore.HoldNotices(stuck, func(string) { <-release }, nil)
	t.Cleanup(func() { close(release) })
	applied := make(chan string, 8)
	watch := func(s *redisstore.SessionStore, changed func(string, bool)) {
		up := make(chan struct{}, 1)
		go s.WatchSessions(t.Context(), func(id string, deleted bool) {
			if id == "" && !deleted {
				up <- struct{}{}
			}
			changed(id, deleted)
		})
		testkit.Receive(t, up)
	}
	watch(a, func(string, bool) {})
	watch(b, func(id string, _ bool) {
		if id != "" {
			applied <- id
		}
	})
	if err := a.Create(t.Context(), "S", []byte(`{}`), time.Minute); err != nil {
		t.Fatal(err)
	}
	saved := make(chan error, 1)
	save := func(within time.Duration) {
		go func() {
			saved <- a.SaveSynced(context.Background(), "S", []byte(`{"ll":"debug"}`), time.Minute, within)
		}()
	}
	save(time.Hour)
	if err := testkit.Receive(t, saved); err != nil {
		t.Fatal(err)
	}
	select {
	case id := <-applied:
		if id != "S" {
			t.Fatalf("b applied %q", id)
		}
	default:
		t.Fatal("SaveSynced returned before b applied the notice")
	}

	watch(stuck, func(string, bool) {})
	const bound = 200 * time.Millisecond
	start := time.Now()
	save(bound)
	if err := testkit.Receive(t, saved); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < bound {
		t.Errorf("SaveSynced returned after %v although a store had not answered; want its bound %v", took, bound)
	}
}
