package streamable

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
)

type replayed struct {
	ids  []string
	msgs []string
}

func replay(t *testing.T, s EventStore, session, after string) (string, replayed, error) {
	t.Helper()
	var r replayed
	stream, err := s.Replay(context.Background(), session, after, func(id string, msg []byte) error {
		r.ids = append(r.ids, id)
		r.msgs = append(r.msgs, string(msg))
		return nil
	})
	return stream, r, err
}

func mustAppend(t *testing.T, s EventStore, session, stream, msg string) string {
	t.Helper()
	id, err := s.Append(context.Background(), session, stream, []byte(msg))
	if err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(id, "\r\n\x00") || id == "" {
		t.Fatalf("event id %q cannot be an SSE id", id)
	}
	return id
}

// The behaviour every EventStore shares (append, replay after an id, unknown ids,
// deleting a session) is the contract in store/storetest, which runs against the
// memory store too (TestMemoryEventStoreContract); these tests cover what is the
// memory store's own: its retention, errors from the replay callback, and
// concurrent use.

func TestMemoryStoreRetention(t *testing.T) {
	s := NewMemoryEventStore(&MemoryEventStoreOptions{MaxEventsPerStream: 3, MaxStreamsPerSession: 2})
	var ids []string
	for i := range 5 {
		ids = append(ids, mustAppend(t, s, "s", "a", fmt.Sprint(i)))
	}
	// Events 0 and 1 were dropped; replaying after 0 gives what is kept.
	_, r, err := replay(t, s, "s", ids[0])
	if err != nil || fmt.Sprint(r.msgs) != "[2 3 4]" {
		t.Fatalf("after retention: %v %v", r.msgs, err)
	}
	_, r, _ = replay(t, s, "s", ids[3])
	if fmt.Sprint(r.msgs) != "[4]" {
		t.Fatalf("after 3: %v", r.msgs)
	}
	b := mustAppend(t, s, "s", "b", "b0")
	mustAppend(t, s, "s", "a", "5")  // a is now the most recently used
	mustAppend(t, s, "s", "c", "c0") // evicts b, the least recently used
	if _, _, err := replay(t, s, "s", b); !errors.Is(err, ErrEventNotFound) {
		t.Fatalf("evicted stream: %v", err)
	}
	if _, r, err = replay(t, s, "s", ids[4]); err != nil || fmt.Sprint(r.msgs) != "[5]" {
		t.Fatalf("kept stream: %v %v", r.msgs, err)
	}
}

func TestMemoryStoreReplayError(t *testing.T) {
	s := NewMemoryEventStore(nil)
	first := mustAppend(t, s, "s", "a", "1")
	mustAppend(t, s, "s", "a", "2")
	mustAppend(t, s, "s", "a", "3")
	stop := errors.New("stop")
	n := 0
	_, err := s.Replay(context.Background(), "s", first, func(string, []byte) error {
		n++
		return stop
	})
	if !errors.Is(err, stop) || n != 1 {
		t.Fatalf("Replay: %v after %d calls", err, n)
	}
}

func TestMemoryStoreConcurrent(t *testing.T) {
	s := NewMemoryEventStore(&MemoryEventStoreOptions{MaxEventsPerStream: 1000})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			stream := fmt.Sprint(g)
			first := mustAppend(t, s, "s", stream, "0")
			for i := 1; i < 100; i++ {
				mustAppend(t, s, "s", stream, fmt.Sprint(i))
			}
			_, r, err := replay(t, s, "s", first)
			if err != nil || len(r.msgs) != 99 || r.msgs[98] != "99" {
				t.Errorf("stream %s: %d events, %v", stream, len(r.msgs), err)
			}
		}()
	}
	wg.Wait()
}

func FuzzParseEventID(f *testing.F) {
	for _, s := range []string{"1_1", "a_b_3", "_", "x_", "12_18446744073709551615", "1_-1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		stream, n, ok := parseEventID(id)
		if !ok {
			return
		}
		again, m, ok := parseEventID(string(appendEventID(nil, stream, n)))
		if !ok || again != stream || m != n {
			t.Fatalf("parseEventID(%q) = %q, %d, which does not format and parse back", id, stream, n)
		}
		if stream == "" {
			t.Fatalf("parseEventID(%q) accepted an empty stream id", id)
		}
	})
}
