package redisstore

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/rueidis"

	"github.com/mcpkit/mcpkit/transport/streamable"
)

var _ streamable.SessionSyncer = (*SessionStore)(nil)

// The session change notices (channel <prefix>inv): "1 <origin> s <id>" after
// a Save, "1 <origin> d <id>" after a Delete. The origin is the SessionStore
// that wrote it, which skips its own notices. A SaveSynced writes its origin
// as "<origin>.<seq>": every store that hears it (its writer's included)
// answers, once it has applied it, with the message "<seq>" on the writer's
// channel <prefix>ack.<origin>. (A store that predates the acks reads such an
// origin as a foreign one and applies the notice without answering.)
const invFormat = "1"

// invChannel is the Pub/Sub channel of session change notices.
func (s *SessionStore) invChannel() string { return s.c.prefix + "inv" }

// ackChannel is the channel of the answers to this store's notices.
func (s *SessionStore) ackChannel() string { return s.c.prefix + "ack." + s.origin }

// notice returns the PUBLISH of a change notice for session id (op "s" or "d")
// from origin; it is pipelined with the write it announces, so it costs no
// round trip.
func (s *SessionStore) notice(origin, op, id string) rueidis.Completed {
	return s.c.rc.B().Publish().Channel(s.invChannel()).Message(invFormat + " " + origin + " " + op + " " + id).Build()
}

// acks is the state of a store's synced saves: the answers awaited, and
// whether its WatchSessions can hear them.
type acks struct {
	seq     atomic.Uint64
	mu      sync.Mutex
	heard   chan struct{} // closed while the ack channel is subscribed
	waiting map[uint64]*ackWait
	send    chan ack // answers to publish (WatchSessions's sender drains it)
}

// hearing returns a channel that is closed while the store hears answers.
func (a *acks) hearing() <-chan struct{} {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.heard == nil {
		a.heard = make(chan struct{})
	}
	return a.heard
}

// setHearing records whether the ack channel is subscribed.
func (a *acks) setHearing(on bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.heard == nil {
		a.heard = make(chan struct{})
	}
	select {
	case <-a.heard:
		if !on {
			a.heard = make(chan struct{})
		}
	default:
		if on {
			close(a.heard)
		}
	}
}

// heardNow reports whether the store hears answers.
func (a *acks) heardNow() bool {
	select {
	case <-a.hearing():
		return true
	default:
		return false
	}
}

// ackWait counts the answers to one notice.
type ackWait struct {
	n    atomic.Int64
	more chan struct{} // signalled at each answer
}

// ack is one answer to publish: seq on channel.
type ack struct{ channel, seq string }

// SaveSynced implements streamable.SessionSyncer: Save, then wait until every
// SessionStore subscribed to the change notices (PUBLISH counts them) has
// applied this one, for at most within. A store that is not hearing the
// answers (WatchSessions is not running, or lost its subscription) waits the
// whole of within (after waiting up to within for it to subscribe, as just
// after it started). On a Redis Cluster, PUBLISH counts only the subscribers of
// the node that took it, so a replica subscribed elsewhere may still be
// applying the notice when SaveSynced returns.
func (s *SessionStore) SaveSynced(ctx context.Context, id string, record []byte, ttl, within time.Duration) error {
	if within <= 0 {
		return s.Save(ctx, id, record, ttl)
	}
	key, ok := s.key(id)
	if !ok {
		return fmt.Errorf("redisstore: session id %q: %w", id, streamable.ErrSessionNotFound)
	}
	t := time.NewTimer(within)
	defer t.Stop()
	select {
	case <-s.acks.hearing():
	case <-t.C:
		t.Reset(within)
	case <-ctx.Done():
		return ctx.Err()
	}
	seq := s.acks.seq.Add(1)
	w := &ackWait{more: make(chan struct{}, 1)}
	s.acks.mu.Lock()
	if s.acks.waiting == nil {
		s.acks.waiting = make(map[uint64]*ackWait)
	}
	s.acks.waiting[seq] = w
	s.acks.mu.Unlock()
	defer func() {
		s.acks.mu.Lock()
		delete(s.acks.waiting, seq)
		s.acks.mu.Unlock()
	}()
	res := s.c.rc.DoMulti(ctx, s.setCmd(key, record, ttl, false), s.notice(s.origin+"."+strconv.FormatUint(seq, 10), "s", id))
	reply, err := s.c.result(ctx, res[0])
	if err != nil {
		return fmt.Errorf("redisstore: saving session %s: %w", id, err)
	}
	if reply.IsNil() {
		return fmt.Errorf("redisstore: saving session %s: %w", id, streamable.ErrSessionNotFound)
	}
	need, err := res[1].AsInt64()
	if err != nil || !s.acks.heardNow() {
		need = -1 // unknown, or unheard: wait it out
	}
	if s.waiting != nil {
		s.waiting()
	}
	for need < 0 || w.n.Load() < need {
		select {
		case <-w.more:
		case <-t.C:
			return nil
		case <-ctx.Done():
			return nil // saved; the client is gone
		}
	}
	return nil
}

// answered counts an answer on the ack channel.
func (s *SessionStore) answered(msg string) {
	seq, err := strconv.ParseUint(msg, 10, 64)
	if err != nil {
		return
	}
	s.acks.mu.Lock()
	w := s.acks.waiting[seq]
	s.acks.mu.Unlock()
	if w == nil {
		return
	}
	w.n.Add(1)
	select {
	case w.more <- struct{}{}:
	default:
	}
}

// answer queues the answer to a notice that asks for one; a full queue drops
// it (its writer then waits out its bound).
func (s *SessionStore) answer(a ack) {
	select {
	case s.acks.send <- a:
	default:
	}
}

// sendAnswers publishes the queued answers until ctx ends. It runs apart from
// the subscription's callbacks, which must not wait for Redis.
func (s *SessionStore) sendAnswers(ctx context.Context) {
	for {
		select {
		case a := <-s.acks.send:
			_, _ = s.c.do(ctx, s.c.rc.B().Publish().Channel(a.channel).Message(a.seq).Build())
		case <-ctx.Done():
			return
		}
	}
}

// WatchSessions implements streamable.SessionWatcher: it subscribes to the
// change notices of the other replicas' SessionStores and calls changed for
// each, until ctx ends. After every (re)subscription it calls changed("",
// false), since notices published meanwhile are lost (Pub/Sub keeps nothing),
// and when the subscription breaks, changed("", true) (see
// streamable.SessionSyncer). It answers the notices of SaveSynced once
// changed has returned, and hears the answers to its own.
func (s *SessionStore) WatchSessions(ctx context.Context, changed func(id string, deleted bool)) {
	var back backoff
	var up atomic.Bool
	s.acks.mu.Lock()
	if s.acks.send == nil {
		s.acks.send = make(chan ack, 1024)
	}
	s.acks.mu.Unlock()
	go s.sendAnswers(ctx)
	inv, ackCh := s.invChannel(), s.ackChannel()
	hook := rueidis.WithOnSubscriptionHook(ctx, func(e rueidis.PubSubSubscription) {
		if e.Kind != "subscribe" {
			return
		}
		switch e.Channel {
		case inv:
			up.Store(true)
			changed("", false)
		case ackCh:
			s.acks.setHearing(true)
		}
	})
	onMessage := func(m rueidis.PubSubMessage) {
		if m.Channel == ackCh {
			s.answered(m.Message)
			return
		}
		n, ok := s.decodeNotice(m.Message)
		if !ok {
			return
		}
		if !n.own {
			if s.hold != nil {
				s.hold(n.id)
			}
			changed(n.id, n.deleted)
		}
		if n.replyTo != "" {
			s.answer(ack{channel: s.c.prefix + "ack." + n.replyTo, seq: n.seq})
		}
	}
	for {
		err := s.c.rc.Receive(hook, s.c.rc.B().Subscribe().Channel(inv, ackCh).Build(), onMessage)
		s.acks.setHearing(false)
		if ctx.Err() != nil {
			return
		}
		changed("", true)
		if up.Swap(false) {
			back.reset()
		}
		if back.n == 0 {
			slog.Warn("redisstore: session change notices lost; resubscribing", "channel", inv, "error", err)
		}
		if !back.wait(ctx) {
			return
		}
	}
}

// decoded is a change notice: own is set for this store's own (nothing to
// apply), replyTo and seq for one whose writer awaits an answer.
type decoded struct {
	origin, id   string
	deleted, own bool
	replyTo, seq string
}

// maxSeqLen caps the sequence number a notice asks to be answered with (a
// uint64 has at most 20 digits).
const maxSeqLen = 20

// decodeNotice reads a change notice; anything malformed gives ok false.
func (s *SessionStore) decodeNotice(msg string) (n decoded, ok bool) {
	parts := strings.SplitN(msg, " ", 4)
	if len(parts) != 4 || parts[0] != invFormat || parts[1] == "" || parts[3] == "" || strings.ContainsAny(parts[3], "{} ") {
		return decoded{}, false
	}
	n.origin = parts[1]
	if o, seq, synced := strings.Cut(n.origin, "."); synced {
		if o == "" || seq == "" || len(seq) > maxSeqLen || strings.ContainsAny(seq, "{}.") {
			return decoded{}, false
		}
		n.origin, n.replyTo, n.seq = o, o, seq
	}
	n.own = n.origin == s.origin
	n.id = parts[3]
	switch parts[2] {
	case "s":
	case "d":
		n.deleted = true
	default:
		return decoded{}, false
	}
	return n, true
}
