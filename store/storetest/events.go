// Package storetest holds contract tests for the SDK's storage seams that have
// none of their own: streamable.EventStore (RunEventStore) and mcp.ChangeFeed
// (RunChangeFeed). Every implementation, the in-memory ones included, runs them
// from its own tests. (taskstore.Store has its contract in taskstore/storetest.)
package storetest

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/mcpkit/mcpkit/transport/streamable"
)

// Limits are the retention bounds an event store under test is built with.
type Limits struct {
	// MaxEventsPerStream is how many of a stream's latest events must be kept.
	MaxEventsPerStream int
	// MaxStreamsPerSession is how many streams per session are kept; beyond
	// it, the stream appended to least recently is dropped.
	MaxStreamsPerSession int
}

// EventStores makes the stores a test uses. New returns a new, empty store with
// the given limits; a store shared by replicas returns, on each call of Replica,
// another handle (another connection, as another process would have) on the
// store New made last, and an in-process store returns that same store.
type EventStores struct {
	New     func(t *testing.T, l Limits) streamable.EventStore
	Replica func(t *testing.T) streamable.EventStore
	// TrimSlack is how many events beyond MaxEventsPerStream the store may keep
	// (0 for exact trimming; Redis's approximate MAXLEN ~ keeps up to one
	// stream node more).
	TrimSlack int
}

// RunEventStore runs the EventStore contract against the stores es makes.
func RunEventStore(t *testing.T, es EventStores) {
	tests := []struct {
		name string
		fn   func(*testing.T, EventStores)
	}{
		{"AppendReplay", testAppendReplay},
		{"ReplayOnAnotherReplica", testReplayOnReplica},
		{"UnknownIDs", testUnknownIDs},
		{"DeleteSession", testDeleteSession},
		{"EventRetention", testEventRetention},
		{"StreamRetention", testStreamRetention},
		{"ReplayStopsOnError", testReplayError},
		{"ConcurrentStreams", testConcurrentStreams},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, es) })
	}
}

var defaultLimits = Limits{MaxEventsPerStream: 256, MaxStreamsPerSession: 32}

type replayed struct {
	ids  []string
	msgs []string
}

func replay(t *testing.T, s streamable.EventStore, session, after string) (string, replayed, error) {
	t.Helper()
	var r replayed
	stream, err := s.Replay(t.Context(), session, after, func(id string, msg []byte) error {
		r.ids = append(r.ids, id)
		r.msgs = append(r.msgs, string(msg))
		return nil
	})
	return stream, r, err
}

func mustAppend(t *testing.T, s streamable.EventStore, session, stream, msg string) string {
	t.Helper()
	id, err := s.Append(t.Context(), session, stream, []byte(msg))
	if err != nil {
		t.Fatalf("Append(%s, %s): %v", session, stream, err)
	}
	if id == "" || strings.ContainsAny(id, "\r\n\x00") {
		t.Fatalf("event id %q cannot be an SSE id", id)
	}
	return id
}

func testAppendReplay(t *testing.T, es EventStores) {
	s := es.New(t, defaultLimits)
	buf := []byte("first")
	first, err := s.Append(t.Context(), "s1", "7", buf)
	if err != nil {
		t.Fatal(err)
	}
	copy(buf, "XXXXX") // the store must have copied it
	prime := mustAppend(t, s, "s1", "7", "")
	mustAppend(t, s, "s1", "7", "second")
	other := mustAppend(t, s, "s1", "8", "elsewhere")
	mustAppend(t, s, "s2", "7", "other session")

	stream, r, err := replay(t, s, "s1", first)
	if err != nil || stream != "7" {
		t.Fatalf("replay: %q %v", stream, err)
	}
	if fmt.Sprint(r.msgs) != "[ second]" || r.ids[0] != prime {
		t.Fatalf("replayed %q %q, want the priming event then second", r.ids, r.msgs)
	}
	// From the start again: the first event's bytes were copied at Append.
	stream, r, err = replay(t, s, "s1", prime)
	if err != nil || stream != "7" || fmt.Sprint(r.msgs) != "[second]" {
		t.Fatalf("replay after the priming event: %q %q %v", stream, r.msgs, err)
	}
	// Only the stream of the id: never another stream's events.
	stream, r, err = replay(t, s, "s1", other)
	if err != nil || stream != "8" || len(r.msgs) != 0 {
		t.Fatalf("replay after the last event of 8: %q %v %v", stream, r.msgs, err)
	}
	// Ids belong to their session.
	if _, _, err := replay(t, s, "s2", other); !errors.Is(err, streamable.ErrEventNotFound) {
		t.Fatalf("another session's id: %v", err)
	}
}

// testReplayOnReplica appends through one handle and replays through another,
// as a replica other than the one that wrote a stream does.
func testReplayOnReplica(t *testing.T, es EventStores) {
	a := es.New(t, defaultLimits)
	b := es.Replica(t)
	first := mustAppend(t, a, "s", "1", "one")
	mustAppend(t, a, "s", "1", "two")
	stream, r, err := replay(t, b, "s", first)
	if err != nil || stream != "1" || fmt.Sprint(r.msgs) != "[two]" {
		t.Fatalf("replay on another replica: %q %q %v", stream, r.msgs, err)
	}
	// And the other way round, continuing the same stream.
	third := mustAppend(t, b, "s", "1", "three")
	if _, r, err = replay(t, a, "s", first); err != nil || fmt.Sprint(r.msgs) != "[two three]" || r.ids[1] != third {
		t.Fatalf("replay after an append on the other replica: %q %q %v", r.ids, r.msgs, err)
	}
}

func testUnknownIDs(t *testing.T, es EventStores) {
	s := es.New(t, defaultLimits)
	mustAppend(t, s, "s1", "7", "x")
	for _, bad := range []string{"", "7", "_1", "7_x", "7_", "nope_1", "7_1_", "\x00", "7_" + strings.Repeat("9", 40)} {
		if _, _, err := replay(t, s, "s1", bad); !errors.Is(err, streamable.ErrEventNotFound) {
			t.Errorf("Replay(%q): %v, want ErrEventNotFound", bad, err)
		}
	}
	if _, _, err := replay(t, s, "never", "7_1"); !errors.Is(err, streamable.ErrEventNotFound) {
		t.Errorf("Replay in an unknown session: %v, want ErrEventNotFound", err)
	}
}

func testDeleteSession(t *testing.T, es EventStores) {
	s := es.New(t, defaultLimits)
	a := mustAppend(t, s, "s1", "1", "a")
	b := mustAppend(t, s, "s1", "2", "b")
	kept := mustAppend(t, s, "s2", "1", "kept")
	if err := s.DeleteSession(t.Context(), "s1"); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{a, b} {
		if _, _, err := replay(t, s, "s1", id); !errors.Is(err, streamable.ErrEventNotFound) {
			t.Fatalf("after DeleteSession, Replay(%q): %v", id, err)
		}
	}
	if _, _, err := replay(t, s, "s2", kept); err != nil {
		t.Fatalf("DeleteSession of s1 touched s2: %v", err)
	}
	if err := s.DeleteSession(t.Context(), "unknown"); err != nil {
		t.Fatalf("deleting an unknown session: %v", err)
	}
	// The session id may be used again from scratch.
	again := mustAppend(t, s, "s1", "1", "again")
	if _, r, err := replay(t, s, "s1", again); err != nil || len(r.msgs) != 0 {
		t.Fatalf("a new stream after DeleteSession: %q %v", r.msgs, err)
	}
}

func testEventRetention(t *testing.T, es EventStores) {
	const max = 3
	n := max + es.TrimSlack + 50 // enough that even approximate trimming must drop some
	s := es.New(t, Limits{MaxEventsPerStream: max, MaxStreamsPerSession: 4})
	var ids []string
	for i := range n {
		ids = append(ids, mustAppend(t, s, "s", "a", strconv.Itoa(i)))
	}
	_, r, err := replay(t, s, "s", ids[0])
	if err != nil {
		t.Fatalf("replay after a dropped event: %v", err)
	}
	// What is kept is the newest events, in order, without gaps.
	if len(r.msgs) < max || len(r.msgs) > max+es.TrimSlack {
		t.Fatalf("%d events kept, want %d to %d", len(r.msgs), max, max+es.TrimSlack)
	}
	for i, m := range r.msgs {
		if want := strconv.Itoa(n - len(r.msgs) + i); m != want || r.ids[i] != ids[n-len(r.msgs)+i] {
			t.Fatalf("kept event %d is %q (%s), want %s (%s)", i, m, r.ids[i], want, ids[n-len(r.msgs)+i])
		}
	}
	if _, r, err = replay(t, s, "s", ids[n-2]); err != nil || fmt.Sprint(r.msgs) != fmt.Sprintf("[%d]", n-1) {
		t.Fatalf("after the second-to-last: %v %v", r.msgs, err)
	}
}

func testStreamRetention(t *testing.T, es EventStores) {
	s := es.New(t, Limits{MaxEventsPerStream: 10, MaxStreamsPerSession: 2})
	a := mustAppend(t, s, "s", "a", "a0")
	b := mustAppend(t, s, "s", "b", "b0")
	mustAppend(t, s, "s", "a", "a1") // a is now the most recently used
	mustAppend(t, s, "s", "c", "c0") // evicts b, the least recently used
	if _, _, err := replay(t, s, "s", b); !errors.Is(err, streamable.ErrEventNotFound) {
		t.Fatalf("evicted stream: %v", err)
	}
	if _, r, err := replay(t, s, "s", a); err != nil || fmt.Sprint(r.msgs) != "[a1]" {
		t.Fatalf("kept stream: %v %v", r.msgs, err)
	}
}

func testReplayError(t *testing.T, es EventStores) {
	s := es.New(t, defaultLimits)
	first := mustAppend(t, s, "s", "a", "1")
	mustAppend(t, s, "s", "a", "2")
	mustAppend(t, s, "s", "a", "3")
	stop := errors.New("stop")
	n := 0
	_, err := s.Replay(context.WithoutCancel(t.Context()), "s", first, func(string, []byte) error {
		n++
		return stop
	})
	if !errors.Is(err, stop) || n != 1 {
		t.Fatalf("Replay: %v after %d calls", err, n)
	}
}

func testConcurrentStreams(t *testing.T, es EventStores) {
	s := es.New(t, Limits{MaxEventsPerStream: 1000, MaxStreamsPerSession: 32})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			stream := strconv.Itoa(g)
			id, err := s.Append(t.Context(), "s", stream, []byte("0"))
			if err != nil {
				t.Error(err)
				return
			}
			for i := 1; i < 100; i++ {
				if _, err := s.Append(t.Context(), "s", stream, []byte(strconv.Itoa(i))); err != nil {
					t.Error(err)
					return
				}
			}
			var got []string
			_, err = s.Replay(t.Context(), "s", id, func(_ string, msg []byte) error {
				got = append(got, string(msg))
				return nil
			})
			if err != nil || len(got) != 99 || got[98] != "99" {
				t.Errorf("stream %s: %d events, %v", stream, len(got), err)
			}
		}()
	}
	wg.Wait()
}
