package streamable

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// ErrEventNotFound is returned (wrapped) by EventStore.Replay when the event id is
// unknown: it was never issued in that session, or its stream has been evicted.
var ErrEventNotFound = errors.New("streamable: event not found")

// EventStore keeps the events of a session's SSE streams so that a client whose
// connection broke can resume a stream with the Last-Event-ID header and receive what
// it missed.
//
// The handler appends every message it sends on an SSE stream, and, for clients of
// protocol version 2025-11-25 or later, one empty priming event at the start of the
// stream; it deletes a session's events when the session ends. Stream ids are chosen by
// the handler and are unique within a session; event ids are chosen by the store and
// must be unique within the session, free of CR, LF and NUL, and let the store find
// the stream they belong to. An implementation backed by a shared database (Redis)
// lets any replica replay a stream; the live part of a stream always comes from the
// process that runs the session.
//
// Implementations must be safe for concurrent use. The handler calls Append for one
// stream from one goroutine at a time, in the order the events are sent.
type EventStore interface {
	// Append stores msg as the next event of the stream and returns its event id.
	// msg may be empty (a priming event). The store must copy msg: the caller reuses
	// the buffer.
	Append(ctx context.Context, sessionID, streamID string, msg []byte) (eventID string, err error)

	// Replay calls fn, in order, for every retained event of the stream that eventID
	// belongs to that came after eventID, and returns that stream's id. fn must not
	// retain msg after it returns. Events the store's retention dropped are skipped.
	// An eventID the store does not know in that session gives an error wrapping
	// ErrEventNotFound; an error from fn stops the replay and is returned.
	Replay(ctx context.Context, sessionID, eventID string, fn func(eventID string, msg []byte) error) (streamID string, err error)

	// DeleteSession forgets every event of the session. It is called when the
	// session ends; deleting an unknown session is not an error.
	DeleteSession(ctx context.Context, sessionID string) error
}

// Default retention of a MemoryEventStore.
const (
	// DefaultMaxEventsPerStream is how many of a stream's most recent events a
	// MemoryEventStore keeps.
	DefaultMaxEventsPerStream = 256
	// DefaultMaxStreamsPerSession is how many streams per session a MemoryEventStore
	// keeps; beyond it, the stream used least recently is dropped.
	DefaultMaxStreamsPerSession = 32
)

// MemoryEventStoreOptions bound what a MemoryEventStore keeps. The zero value gives
// the defaults.
type MemoryEventStoreOptions struct {
	// MaxEventsPerStream is how many of a stream's latest events are kept; older ones
	// are dropped. Zero or less means DefaultMaxEventsPerStream.
	MaxEventsPerStream int
	// MaxStreamsPerSession is how many streams are kept per session; when a new
	// stream would exceed it, the one appended to least recently is dropped. Zero or
	// less means DefaultMaxStreamsPerSession.
	MaxStreamsPerSession int
}

// MemoryEventStore is an [EventStore] that keeps events in process memory, with a
// bounded number of events per stream and of streams per session, so that a busy
// session cannot grow without limit. Event ids have the form "<streamID>_<n>", where
// n counts the stream's events from 1.
type MemoryEventStore struct {
	maxEvents  int
	maxStreams int

	mu       sync.Mutex
	sessions map[string]*memSession
}

type memSession struct {
	streams map[string]*memStream
	clock   uint64 // advances on every append; orders streams by last use
}

type memStream struct {
	events  []memEvent // oldest first, at most maxEvents
	next    uint64     // number of the next event (events are numbered from 1)
	lastUse uint64
}

type memEvent struct {
	n   uint64
	id  string
	msg []byte
}

// NewMemoryEventStore returns an empty in-memory event store. opts may be nil.
func NewMemoryEventStore(opts *MemoryEventStoreOptions) *MemoryEventStore {
	s := &MemoryEventStore{maxEvents: DefaultMaxEventsPerStream, maxStreams: DefaultMaxStreamsPerSession, sessions: make(map[string]*memSession)}
	if opts != nil {
		if opts.MaxEventsPerStream > 0 {
			s.maxEvents = opts.MaxEventsPerStream
		}
		if opts.MaxStreamsPerSession > 0 {
			s.maxStreams = opts.MaxStreamsPerSession
		}
	}
	return s
}

// eventIDSep separates the stream id from the event number. The handler's stream
// ids never contain it, but parsing splits at the last one anyway.
const eventIDSep = '_'

// Append implements EventStore.
func (s *MemoryEventStore) Append(_ context.Context, sessionID, streamID string, msg []byte) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sess := s.sessions[sessionID]
	if sess == nil {
		sess = &memSession{streams: make(map[string]*memStream)}
		s.sessions[sessionID] = sess
	}
	st := sess.streams[streamID]
	if st == nil {
		if len(sess.streams) >= s.maxStreams {
			sess.evictLeastRecent()
		}
		st = &memStream{next: 1}
		sess.streams[streamID] = st
	}
	sess.clock++
	st.lastUse = sess.clock
	n := st.next
	st.next++
	id := appendEventID(make([]byte, 0, len(streamID)+8), streamID, n)
	ev := memEvent{n: n, id: string(id)}
	if len(msg) > 0 {
		ev.msg = append([]byte(nil), msg...)
	}
	if len(st.events) == s.maxEvents {
		copy(st.events, st.events[1:])
		st.events[len(st.events)-1] = ev
	} else {
		st.events = append(st.events, ev)
	}
	return ev.id, nil
}

func appendEventID(b []byte, streamID string, n uint64) []byte {
	b = append(b, streamID...)
	b = append(b, eventIDSep)
	return strconv.AppendUint(b, n, 10)
}

func (sess *memSession) evictLeastRecent() {
	var oldest string
	var min uint64
	first := true
	for id, st := range sess.streams {
		if first || st.lastUse < min {
			oldest, min, first = id, st.lastUse, false
		}
	}
	delete(sess.streams, oldest)
}

// Replay implements EventStore.
func (s *MemoryEventStore) Replay(_ context.Context, sessionID, eventID string, fn func(eventID string, msg []byte) error) (string, error) {
	streamID, n, ok := parseEventID(eventID)
	if !ok {
		return "", fmt.Errorf("%w: malformed event id %q", ErrEventNotFound, eventID)
	}
	// Copy what is to be replayed so fn runs without the lock (it writes to the network).
	s.mu.Lock()
	var st *memStream
	if sess := s.sessions[sessionID]; sess != nil {
		st = sess.streams[streamID]
	}
	if st == nil || n >= st.next {
		s.mu.Unlock()
		return "", fmt.Errorf("%w: %q", ErrEventNotFound, eventID)
	}
	var todo []memEvent
	for i, ev := range st.events {
		if ev.n > n {
			todo = append(todo, st.events[i:]...)
			break
		}
	}
	s.mu.Unlock()
	for _, ev := range todo {
		if err := fn(ev.id, ev.msg); err != nil {
			return streamID, err
		}
	}
	return streamID, nil
}

// parseEventID splits "<streamID>_<n>".
func parseEventID(id string) (streamID string, n uint64, ok bool) {
	i := strings.LastIndexByte(id, eventIDSep)
	if i <= 0 {
		return "", 0, false
	}
	n, err := strconv.ParseUint(id[i+1:], 10, 64)
	if err != nil {
		return "", 0, false
	}
	return id[:i], n, true
}

// DeleteSession implements EventStore.
func (s *MemoryEventStore) DeleteSession(_ context.Context, sessionID string) error {
	s.mu.Lock()
	delete(s.sessions, sessionID)
	s.mu.Unlock()
	return nil
}

// sessionCount reports how many sessions hold events (for tests).
func (s *MemoryEventStore) sessionCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.sessions)
}

var _ StreamReader = (*MemoryEventStore)(nil)

// ReplayStream implements StreamReader.
func (s *MemoryEventStore) ReplayStream(_ context.Context, sessionID, streamID string, fn func(eventID string, msg []byte) error) error {
	s.mu.Lock()
	var todo []memEvent
	if sess := s.sessions[sessionID]; sess != nil {
		if st := sess.streams[streamID]; st != nil {
			todo = append(todo, st.events...)
		}
	}
	s.mu.Unlock()
	for _, ev := range todo {
		if err := fn(ev.id, ev.msg); err != nil {
			return err
		}
	}
	return nil
}
