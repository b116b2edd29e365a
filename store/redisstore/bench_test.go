package redisstore_test

import (
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/store/redisstore"
	"github.com/mcpkit/mcpkit/store/redistest"
	"github.com/mcpkit/mcpkit/taskstore"
	"github.com/mcpkit/mcpkit/transport/streamable"
)

// event is a typical progress notification, the most frequent SSE event.
var event = []byte(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"abc","progress":3,"total":10}}`)

// parallel runs op from 16 goroutines; each gets its own number.
func parallel(b *testing.B, op func(g int64) error) {
	var n atomic.Int64
	b.ReportAllocs()
	b.SetParallelism(8)
	b.RunParallel(func(pb *testing.PB) {
		g := n.Add(1)
		for pb.Next() {
			if err := op(g); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkEventStoreAppend runs Append against the in-memory store and the Redis store,
// serially and from 16 goroutines (each on its own session and stream).
func BenchmarkEventStoreAppend(b *testing.B) {
	srv := redistest.Start(b)
	stores := []struct {
		name string
		s    streamable.EventStore
	}{
		{"memory", streamable.NewMemoryEventStore(nil)},
		{"redis", redisstore.NewEventStore(open(b, srv), nil)},
	}
	for _, st := range stores {
		b.Run(st.name+"/serial", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := st.s.Append(b.Context(), "session", "1", event); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(st.name+"/parallel", func(b *testing.B) {
			parallel(b, func(g int64) error {
				_, err := st.s.Append(b.Context(), "s"+strconv.FormatInt(g, 10), "1", event)
				return err
			})
		})
	}
}

// BenchmarkTaskStore measures the task store's hot operations: Get (what
// every tasks/get poll costs) and Update (every status change), in memory and
// on Redis, from 16 goroutines over 64 tasks.
func BenchmarkTaskStore(b *testing.B) {
	srv := redistest.Start(b)
	stores := []struct {
		name string
		s    taskstore.Store
	}{
		{"memory", taskstore.NewMemory(nil)},
		{"redis", redisstore.NewTaskStore(open(b, srv), nil)},
	}
	for _, st := range stores {
		for i := range 64 {
			rec := &taskstore.Record{ID: "t" + strconv.Itoa(i), Owner: "o", Method: "tools/call", Name: "slow",
				ProtocolVersion: protocol.Version20260728, Status: protocol.TaskStatusWorking, CreatedAt: time.Now(), TTL: time.Hour}
			if err := st.s.Create(b.Context(), rec, 0); err != nil {
				b.Fatal(err)
			}
		}
		b.Run(st.name+"/Get", func(b *testing.B) {
			parallel(b, func(g int64) error {
				_, err := st.s.Get(b.Context(), "t"+strconv.FormatInt(g%64, 10))
				return err
			})
		})
		b.Run(st.name+"/Update", func(b *testing.B) {
			parallel(b, func(g int64) error {
				_, err := st.s.Update(b.Context(), "t"+strconv.FormatInt(g%64, 10), func(r *taskstore.Record) error { r.StatusMessage = "step"; return nil })
				return err
			})
		})
	}
}

// BenchmarkSessionSave measures what a session state change (logging/setLevel,
// resources/subscribe) costs its replica: Save, and SaveSynced, which also
// waits for the two other watching replicas (and its own watcher) to apply
// the notice.
func BenchmarkSessionSave(b *testing.B) {
	srv := redistest.Start(b)
	stores := make([]*redisstore.SessionStore, 3)
	for i := range stores {
		stores[i] = redisstore.NewSessionStore(open(b, srv))
		up := make(chan struct{}, 1)
		go stores[i].WatchSessions(b.Context(), func(id string, deleted bool) {
			if id == "" && !deleted {
				select {
				case up <- struct{}{}:
				default:
				}
			}
		})
		testkit.Receive(b, up)
	}
	s := stores[0]
	rec := []byte(`{"v":"2025-06-18","ll":"debug"}`)
	if err := s.Create(b.Context(), "S", rec, time.Hour); err != nil {
		b.Fatal(err)
	}
	b.Run("Save", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := s.Save(b.Context(), "S", rec, time.Hour); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("SaveSynced", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := s.SaveSynced(b.Context(), "S", rec, time.Hour, time.Minute); err != nil {
				b.Fatal(err)
			}
		}
	})
}
