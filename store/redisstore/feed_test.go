package redisstore_test

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/store/redisstore"
	"github.com/mcpkit/mcpkit/store/redistest"
	"github.com/mcpkit/mcpkit/store/storetest"
)

// feed starts a change feed on its own client (a replica) and waits until it
// is subscribed. Each later (re)subscription is signalled on the returned
// channel.
func feed(t *testing.T, srv *redistest.Server, opts *redisstore.ChangeFeedOptions) (*redisstore.ChangeFeed, <-chan struct{}) {
	t.Helper()
	return feedOn(t, open(t, srv), opts)
}

// feedOn is feed on client c.
func feedOn(t *testing.T, c *redisstore.Client, opts *redisstore.ChangeFeedOptions) (*redisstore.ChangeFeed, <-chan struct{}) {
	t.Helper()
	subscribed := make(chan struct{}, 16)
	var o redisstore.ChangeFeedOptions
	if opts != nil {
		o = *opts
	}
	o.Logger = slog.New(slog.DiscardHandler)
	o.OnSubscribed = func() { subscribed <- struct{}{} }
	f := redisstore.NewChangeFeed(c, &o)
	t.Cleanup(f.Close)
	waitSignal(t, subscribed, "the feed's subscription")
	return f, subscribed
}

// waitSignal waits for one value on ch, failing after a generous bound.
func waitSignal(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(15 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
}

// TestChangeFeedContract runs the ChangeFeed contract with two replicas,
// each a feed on its own Redis client.
func TestChangeFeedContract(t *testing.T) { changeFeedContract(t, newRedis) }

// changeFeedContract runs the ChangeFeed contract on a Redis from redis, one
// per subtest.
func changeFeedContract(t *testing.T, redis func(testing.TB) clients) {
	storetest.RunChangeFeed(t, func(t *testing.T) (mcp.ChangeFeed, mcp.ChangeFeed) {
		replica := redis(t)
		a, _ := feedOn(t, replica(t), nil)
		b, _ := feedOn(t, replica(t), nil)
		return a, b
	})
}

// TestChangeFeedPublishNeverWaitsForRedis freezes redis-server (SIGSTOP: the
// connections stay open and nothing is answered, as with a hung Redis) and
// checks that Publish still returns at once and reaches this replica's
// listeners; that a queue that overflows reports ErrFeedFull instead of
// blocking; and that what was queued reaches the other replica, in order, once
// Redis answers again.
func TestChangeFeedPublishNeverWaitsForRedis(t *testing.T) {
	srv := redistest.Start(t)
	a, _ := feed(t, srv, &redisstore.ChangeFeedOptions{Queue: 8})
	b, _ := feed(t, srv, nil)
	ra, rb := storetest.NewRecorder(), storetest.NewRecorder()
	defer a.Subscribe(ra.Deliver)()
	defer b.Subscribe(rb.Deliver)()

	srv.Freeze()
	full := 0
	for i := range 100 {
		if err := a.Publish(t.Context(), mcp.Change{Kind: mcp.TaskUpdated, TaskID: strconv.Itoa(i)}); errors.Is(err, redisstore.ErrFeedFull) {
			full++
		} else if err != nil {
			t.Fatal(err)
		}
	}
	// All 100 Publish calls returned while Redis answers nothing, and this
	// replica's listener has every change.
	if got := ra.Changes(); len(got) != 100 {
		t.Fatalf("the local listener got %d changes, want 100", len(got))
	}
	// Nothing can leave while Redis is frozen: the queue (8) and at most one
	// batch in flight (8) were taken, the rest reported as overflow.
	if full < 100-16 {
		t.Fatalf("%d Publish calls reported a full queue, want at least %d", full, 100-16)
	}
	srv.Thaw()
	got := rb.WaitFor(t, mcp.Change{Kind: mcp.TaskUpdated, TaskID: "7"})
	// Delivery is at least once (a batch whose reply timed out is sent again),
	// in order of first arrival.
	var first []string
	seen := map[string]bool{}
	for _, c := range got {
		if !seen[c.TaskID] {
			seen[c.TaskID] = true
			first = append(first, c.TaskID)
		}
	}
	for i := range 8 {
		if first[i] != strconv.Itoa(i) {
			t.Fatalf("the other replica got %+v, want tasks 0 to 7 in order", got)
		}
	}
}

// TestChangeFeedReconnects stops Redis under two subscribed feeds and starts
// it again: both subscribe again by themselves, their listeners are told every
// list changed (what was published meanwhile is lost), and changes flow again.
func TestChangeFeedReconnects(t *testing.T) {
	srv := redistest.Start(t)
	a, subA := feed(t, srv, nil)
	b, subB := feed(t, srv, nil)
	rb := storetest.NewRecorder()
	defer b.Subscribe(rb.Deliver)()

	srv.Stop()
	// Publishing while Redis is down neither blocks nor fails.
	if err := a.Publish(t.Context(), mcp.Change{Kind: mcp.ResourceUpdated, URI: "while-down"}); err != nil {
		t.Fatal(err)
	}
	srv.Restart()
	waitSignal(t, subA, "a's new subscription")
	waitSignal(t, subB, "b's new subscription")
	got := rb.WaitFor(t, mcp.Change{Kind: mcp.ResourcesChanged})
	if got[0] != (mcp.Change{Kind: mcp.ToolsChanged}) {
		t.Fatalf("after reconnecting, b's listener got %+v, want list changes first", got)
	}
	if err := a.Publish(t.Context(), mcp.Change{Kind: mcp.ResourceUpdated, URI: "after"}); err != nil {
		t.Fatal(err)
	}
	rb.WaitFor(t, mcp.Change{Kind: mcp.ResourceUpdated, URI: "after"})
}

// TestChangeFeedIgnoresForeignMessages publishes garbage on the feed's channel
// (another program using it) and checks the feed survives and still works.
func TestChangeFeedIgnoresForeignMessages(t *testing.T) {
	srv := redistest.Start(t)
	a, _ := feed(t, srv, nil)
	b, _ := feed(t, srv, nil)
	rb := storetest.NewRecorder()
	defer b.Subscribe(rb.Deliver)()
	admin := open(t, srv)
	for _, junk := range []string{"", "hello", "1 x 9 y", "1 x 1 extra", "1  1 ", "2 x 1 ", "1 x -1 ", "1 x 01 ", "\x00\xff"} {
		if err := redisstore.Do(t.Context(), admin, "PUBLISH", "mcp:changes", junk); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Publish(t.Context(), mcp.Change{Kind: mcp.PromptsChanged}); err != nil {
		t.Fatal(err)
	}
	if got := rb.WaitFor(t, mcp.Change{Kind: mcp.PromptsChanged}); len(got) != 1 {
		t.Fatalf("garbage on the channel was delivered: %+v", got)
	}
}

// TestChangeFeedJunkLogsOnce: a flood of garbage on the feed's channel logs
// one warning (with the count), not one per message.
func TestChangeFeedJunkLogsOnce(t *testing.T) {
	srv := redistest.Start(t)
	var lines countingHandler
	subscribed := make(chan struct{}, 4)
	a := redisstore.NewChangeFeed(open(t, srv), &redisstore.ChangeFeedOptions{Logger: slog.New(&lines), OnSubscribed: func() { subscribed <- struct{}{} }})
	t.Cleanup(a.Close)
	waitSignal(t, subscribed, "the feed's subscription")
	b, _ := feed(t, srv, nil)
	ra := storetest.NewRecorder()
	defer a.Subscribe(ra.Deliver)()
	admin := open(t, srv)
	for i := range 200 {
		if err := redisstore.Do(t.Context(), admin, "PUBLISH", "mcp:changes", "junk "+strconv.Itoa(i)); err != nil {
			t.Fatal(err)
		}
	}
	// Pub/Sub keeps the order: once b's change reached a, so did the junk.
	if err := b.Publish(t.Context(), mcp.Change{Kind: mcp.PromptsChanged}); err != nil {
		t.Fatal(err)
	}
	ra.WaitFor(t, mcp.Change{Kind: mcp.PromptsChanged})
	if n := lines.warnings.Load(); n != 1 {
		t.Fatalf("200 garbage messages logged %d warnings, want 1", n)
	}
}

// countingHandler is a slog.Handler that counts the warnings it gets.
type countingHandler struct{ warnings atomic.Int64 }

func (h *countingHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *countingHandler) Handle(_ context.Context, r slog.Record) error {
	if r.Level == slog.LevelWarn {
		h.warnings.Add(1)
	}
	return nil
}
func (h *countingHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *countingHandler) WithGroup(string) slog.Handler      { return h }
