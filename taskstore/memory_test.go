package taskstore_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/taskstore"
	"github.com/mcpkit/mcpkit/taskstore/storetest"
)

func TestMemoryContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T, now func() time.Time) taskstore.Store {
		return taskstore.NewMemory(&taskstore.MemoryOptions{Now: now})
	})
}

// TestMemoryDropsExpiredTasks checks that expired tasks leave memory as the store
// is used, not only when they are looked up.
func TestMemoryDropsExpiredTasks(t *testing.T) {
	clock := storetest.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	m := taskstore.NewMemory(&taskstore.MemoryOptions{Now: clock.Now})
	ctx := context.Background()
	for i := range 100 {
		rec := &taskstore.Record{ID: fmt.Sprint(i), Owner: "o", Status: protocol.TaskStatusWorking, CreatedAt: clock.Now(), TTL: time.Duration(i+1) * time.Second}
		if err := m.Create(ctx, rec, 0); err != nil {
			t.Fatal(err)
		}
	}
	clock.Advance(50 * time.Second)
	if _, err := m.Get(ctx, "nothing"); !errors.Is(err, taskstore.ErrNotFound) {
		t.Fatal(err)
	}
	if n := m.Len(); n != 50 {
		t.Errorf("after 50 s, %d tasks held; want the 50 whose TTL exceeds 50 s", n)
	}
}

// TestMemoryUpdateTTL checks that a changed TTL moves the task's expiry.
func TestMemoryUpdateTTL(t *testing.T) {
	clock := storetest.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	m := taskstore.NewMemory(&taskstore.MemoryOptions{Now: clock.Now})
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(m.Create(ctx, &taskstore.Record{ID: "a", CreatedAt: clock.Now(), TTL: time.Minute}, 0))
	_, err := m.Update(ctx, "a", func(r *taskstore.Record) error { r.TTL = time.Hour; return nil })
	must(err)
	clock.Advance(2 * time.Minute)
	_, err = m.Get(ctx, "a")
	must(err)
	_, err = m.Update(ctx, "a", func(r *taskstore.Record) error { r.TTL = 0; return nil })
	must(err)
	clock.Advance(2 * time.Hour)
	_, err = m.Get(ctx, "a")
	must(err)
	// A TTL shortened into the past ends the task at once.
	if _, err := m.Update(ctx, "a", func(r *taskstore.Record) error { r.TTL = time.Second; return nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Get(ctx, "a"); !errors.Is(err, taskstore.ErrNotFound) {
		t.Errorf("Get after the TTL was shortened into the past = %v", err)
	}
}

func FuzzMemoryListCursor(f *testing.F) {
	for _, s := range []string{"", "1", "z", "zzzzzzzzzzzzzz", "-1", "0", "ä", "1 2"} {
		f.Add(s)
	}
	m := taskstore.NewMemory(nil)
	ctx := context.Background()
	for i := range 5 {
		_ = m.Create(ctx, &taskstore.Record{ID: strconv.Itoa(i), Owner: "o", CreatedAt: time.Now()}, 0)
	}
	f.Fuzz(func(t *testing.T, cursor string) {
		recs, next, err := m.List(ctx, "o", cursor, 2)
		if err != nil {
			if !errors.Is(err, taskstore.ErrInvalidCursor) {
				t.Fatalf("List(%q) = %v, want nil or ErrInvalidCursor", cursor, err)
			}
			return
		}
		if len(recs) > 2 {
			t.Fatalf("List(%q) gave %d records, limit 2", cursor, len(recs))
		}
		if next != "" {
			if _, _, err := m.List(ctx, "o", next, 2); err != nil {
				t.Fatalf("the store refused its own cursor %q: %v", next, err)
			}
		}
	})
}

func BenchmarkMemoryGet(b *testing.B) {
	m := taskstore.NewMemory(nil)
	ctx := context.Background()
	for i := range 1000 {
		_ = m.Create(ctx, &taskstore.Record{ID: strconv.Itoa(i), Owner: "o", Status: protocol.TaskStatusWorking, CreatedAt: time.Now(), TTL: time.Hour}, 0)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.Get(ctx, "500"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMemoryUpdate(b *testing.B) {
	m := taskstore.NewMemory(nil)
	ctx := context.Background()
	_ = m.Create(ctx, &taskstore.Record{ID: "a", Owner: "o", Status: protocol.TaskStatusWorking, CreatedAt: time.Now(), TTL: time.Hour}, 0)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.Update(ctx, "a", func(r *taskstore.Record) error { r.StatusMessage = "x"; return nil }); err != nil {
			b.Fatal(err)
		}
	}
}
