package redisstore_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/store"
	"github.com/mcpkit/mcpkit/store/redisstore"
	"github.com/mcpkit/mcpkit/store/redistest"
	"github.com/mcpkit/mcpkit/taskstore"
)

// op is one store operation, run against a Redis that may be away.
type op struct {
	name string
	run  func(ctx context.Context) error
}

// storeOps returns one of each operation of the stores built on c.
func storeOps(c *redisstore.Client) []op {
	events := redisstore.NewEventStore(c, nil)
	tasks := redisstore.NewTaskStore(c, nil)
	once := redisstore.NewSingleUse(c, nil)
	noop := func(string, []byte) error { return nil }
	return []op{
		{"Ping", c.Ping},
		{"EventStore.Append", func(ctx context.Context) error { _, err := events.Append(ctx, "s", "1", []byte("m")); return err }},
		{"EventStore.Replay", func(ctx context.Context) error { _, err := events.Replay(ctx, "s", "1_1-0", noop); return err }},
		{"EventStore.DeleteSession", func(ctx context.Context) error { return events.DeleteSession(ctx, "s") }},
		{"TaskStore.Create", func(ctx context.Context) error {
			return tasks.Create(ctx, &taskstore.Record{ID: "t", Owner: "o", Status: protocol.TaskStatusWorking, CreatedAt: time.Now(), TTL: time.Minute}, 0)
		}},
		{"TaskStore.Get", func(ctx context.Context) error { _, err := tasks.Get(ctx, "t"); return err }},
		{"TaskStore.Update", func(ctx context.Context) error {
			_, err := tasks.Update(ctx, "t", func(*taskstore.Record) error { return nil })
			return err
		}},
		{"TaskStore.List", func(ctx context.Context) error { _, _, err := tasks.List(ctx, "o", "", 10); return err }},
		{"TaskStore.Wait", func(ctx context.Context) error { _, err := tasks.Wait(ctx, "t", 0); return err }},
		{"TaskStore.Delete", func(ctx context.Context) error { return tasks.Delete(ctx, "t") }},
		{"SingleUse.Use", func(ctx context.Context) error { return once.Use(ctx, "state", time.Minute) }},
	}
}

// checkUnavailable runs every operation with a context that never ends and
// checks that each fails with an error wrapping store.ErrUnavailable.
func checkUnavailable(t *testing.T, ops []op) {
	t.Helper()
	for _, o := range ops {
		err := o.run(context.Background())
		if !errors.Is(err, store.ErrUnavailable) {
			t.Errorf("%s with Redis away: %v, want an error wrapping store.ErrUnavailable", o.name, err)
		}
	}
}

// TestUnavailableWhenStopped stops redis-server under a client: every
// operation fails at once with store.ErrUnavailable (no retry loop, no wait
// for a context that never ends), and works again once Redis is back.
func TestUnavailableWhenStopped(t *testing.T) {
	srv := redistest.Start(t)
	c := open(t, srv)
	ops := storeOps(c)
	srv.Stop()
	checkUnavailable(t, ops)
	srv.Restart()
	for _, o := range ops {
		err := o.run(context.Background())
		if errors.Is(err, store.ErrUnavailable) {
			t.Errorf("%s after Redis came back: %v", o.name, err)
		}
	}
}

// TestUnavailableWhenHung freezes redis-server (it accepts nothing new and
// answers nothing): every operation fails after the client's Timeout with
// store.ErrUnavailable instead of hanging.
func TestUnavailableWhenHung(t *testing.T) {
	srv := redistest.Start(t)
	c, err := redisstore.Open(t.Context(), srv.URL(), &redisstore.Options{Timeout: 300 * time.Millisecond, DialTimeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ops := storeOps(c)
	srv.Freeze()
	defer srv.Thaw()
	checkUnavailable(t, ops)
}

// TestOpenUnavailable: a Redis that is not there at start is reported as
// unavailable too (an operator's readiness probe keeps the replica out of
// rotation).
func TestOpenUnavailable(t *testing.T) {
	srv := redistest.Start(t)
	srv.Stop()
	_, err := redisstore.Open(t.Context(), srv.URL(), nil)
	if !errors.Is(err, store.ErrUnavailable) {
		t.Fatalf("Open with Redis stopped: %v, want store.ErrUnavailable", err)
	}
	if _, err := redisstore.Open(t.Context(), "http://nope", nil); err == nil || errors.Is(err, store.ErrUnavailable) {
		t.Fatalf("Open with a bad URL: %v, want a plain error", err)
	}
}

// TestCallerCancellationIsNotUnavailability: a request whose own context ended
// gets the context's error, not store.ErrUnavailable (which would turn a
// client's disconnect into a 503).
func TestCallerCancellationIsNotUnavailability(t *testing.T) {
	srv := redistest.Start(t)
	ops := storeOps(open(t, srv))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	for _, o := range ops {
		if err := o.run(ctx); !errors.Is(err, context.Canceled) || errors.Is(err, store.ErrUnavailable) {
			t.Errorf("%s with a cancelled context: %v, want context.Canceled", o.name, err)
		}
	}
}
