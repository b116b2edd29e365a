package redisstore

import (
	"context"
	"log/slog"
	"strings"
	"sync/atomic"

	"github.com/redis/rueidis"

	"github.com/mcpkit/mcpkit/transport/streamable"
)

var _ streamable.SessionWatcher = (*SessionStore)(nil)

// The session change notices (channel <prefix>inv): "1 <origin> s <id>" after
// a Save, "1 <origin> d <id>" after a Delete. The origin is the SessionStore
// that wrote it, which skips its own notices.
const invFormat = "1"

// invChannel is the Pub/Sub channel of session change notices.
func (s *SessionStore) invChannel() string { return s.c.prefix + "inv" }

// notice returns the PUBLISH of a change notice for session id (op "s" or "d");
// it is pipelined with the write it announces, so it costs no round trip.
func (s *SessionStore) notice(op, id string) rueidis.Completed {
	return s.c.rc.B().Publish().Channel(s.invChannel()).Message(invFormat + " " + s.origin + " " + op + " " + id).Build()
}

// WatchSessions implements streamable.SessionWatcher: it subscribes to the
// change notices of the other replicas' SessionStores and calls changed for
// each, until ctx ends. After every (re)subscription it calls changed("",
// false), since notices published meanwhile are lost (Pub/Sub keeps nothing).
func (s *SessionStore) WatchSessions(ctx context.Context, changed func(id string, deleted bool)) {
	var back backoff
	var up atomic.Bool
	hook := rueidis.WithOnSubscriptionHook(ctx, func(e rueidis.PubSubSubscription) {
		if e.Kind == "subscribe" {
			up.Store(true)
			changed("", false)
		}
	})
	onMessage := func(m rueidis.PubSubMessage) {
		if id, deleted, ok := s.decodeNotice(m.Message); ok {
			changed(id, deleted)
		}
	}
	for {
		err := s.c.rc.Receive(hook, s.c.rc.B().Subscribe().Channel(s.invChannel()).Build(), onMessage)
		if ctx.Err() != nil {
			return
		}
		if up.Swap(false) {
			back.reset()
		}
		if back.n == 0 {
			slog.Warn("redisstore: session change notices lost; resubscribing", "channel", s.invChannel(), "error", err)
		}
		if !back.wait(ctx) {
			return
		}
	}
}

// decodeNotice reads a change notice of another SessionStore; its own and
// anything malformed give ok false.
func (s *SessionStore) decodeNotice(msg string) (id string, deleted, ok bool) {
	parts := strings.SplitN(msg, " ", 4)
	if len(parts) != 4 || parts[0] != invFormat || parts[1] == s.origin || parts[3] == "" || strings.ContainsAny(parts[3], "{} ") {
		return "", false, false
	}
	switch parts[2] {
	case "s":
		return parts[3], false, true
	case "d":
		return parts[3], true, true
	}
	return "", false, false
}
