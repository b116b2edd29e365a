package redisstore_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/store/redisstore"
	"github.com/mcpkit/mcpkit/store/redistest"
	"github.com/mcpkit/mcpkit/taskstore"
)

// TestRoundTrips counts the Redis round trips of each operation on warm
// scripts (the first run of a script costs one more: EVALSHA, then EVAL after
// NOSCRIPT). These are the figures store/DESIGN.md states.
func TestRoundTrips(t *testing.T) {
	srv := redistest.Start(t)
	c := open(t, srv)
	n := redisstore.CountRoundTrips(c)
	events := redisstore.NewEventStore(c, nil)
	oneStream := redisstore.NewEventStore(c, &redisstore.EventStoreOptions{MaxStreamsPerSession: 1})
	evicting := 0
	tasks := redisstore.NewTaskStore(c, nil)
	once := redisstore.NewSingleUse(c, nil)
	now := time.Now()
	var first string
	seq := 0
	ops := []struct {
		name string
		want int64
		run  func(ctx context.Context) error
	}{
		{"EventStore.Append", 1, func(ctx context.Context) (err error) {
			first, err = events.Append(ctx, "s", "1", []byte("m"))
			return err
		}},
		{"EventStore.Replay", 1, func(ctx context.Context) error {
			_, err := events.Replay(ctx, "s", first, func(string, []byte) error { return nil })
			return err
		}},
		{"EventStore.DeleteSession", 2, func(ctx context.Context) error { return events.DeleteSession(ctx, "s") }},
		{"EventStore.Append evicting a stream", 2, func(ctx context.Context) error {
			evicting++ // a new stream each time: the one before is evicted (but in round 0)
			_, err := oneStream.Append(ctx, "e", strconv.Itoa(evicting), []byte("m"))
			return err
		}},
		{"TaskStore.Create", 2, func(ctx context.Context) error {
			seq++
			return tasks.Create(ctx, &taskstore.Record{ID: "t" + strconv.Itoa(seq), Owner: "o", Status: protocol.TaskStatusWorking, CreatedAt: now, TTL: time.Hour}, 10)
		}},
		{"TaskStore.Get", 1, func(ctx context.Context) error { _, err := tasks.Get(ctx, "t1"); return err }},
		{"TaskStore.Update", 2, func(ctx context.Context) error {
			_, err := tasks.Update(ctx, "t1", func(r *taskstore.Record) error { r.StatusMessage = "step"; return nil })
			return err
		}},
		{"TaskStore.Update to a final status", 3, func(ctx context.Context) error {
			_, err := tasks.Update(ctx, "t"+strconv.Itoa(seq), func(r *taskstore.Record) error { r.Status = protocol.TaskStatusCompleted; return nil })
			return err
		}},
		{"TaskStore.List", 2, func(ctx context.Context) error { _, _, err := tasks.List(ctx, "o", "", 10); return err }},
		{"TaskStore.Wait (already newer)", 2, func(ctx context.Context) error { _, err := tasks.Wait(ctx, "t1", 0); return err }},
		{"TaskStore.Delete", 2, func(ctx context.Context) error { return tasks.Delete(ctx, "t1") }},
		{"SingleUse.Use", 1, func(ctx context.Context) error { return once.Use(ctx, "x"+strconv.Itoa(seq), time.Minute) }},
	}
	for round := range 2 {
		if round == 1 {
			// Recreate what round 0 consumed.
			if err := tasks.Create(t.Context(), &taskstore.Record{ID: "t1", Owner: "o", Status: protocol.TaskStatusWorking, CreatedAt: now, TTL: time.Hour}, 0); err != nil {
				t.Fatal(err)
			}
		}
		for _, o := range ops {
			before := n.Load()
			if err := o.run(t.Context()); err != nil {
				t.Fatalf("%s: %v", o.name, err)
			}
			if got := n.Load() - before; round == 1 && got != o.want {
				t.Errorf("%s: %d round trips, want %d", o.name, got, o.want)
			}
		}
	}
}
