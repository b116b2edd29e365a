package streamable

import (
	"context"
	"time"
)

// SessionWatcher is implemented by a SessionStore that tells each replica when
// another replica saved or deleted a session's record (redisstore's does, on
// Pub/Sub). Without it a replica notices such a change only when it next
// checks the session, up to HandlerOptions.SessionCheckInterval later: a
// logging/setLevel or a DELETE served elsewhere takes effect here that late.
// With it, a saved session is checked again on its next request and a deleted
// one ends here at once (which closes the GET stream this replica holds for it).
// A notice still travels while the client sends its next request: see
// SessionSyncer for the store that closes that window.
type SessionWatcher interface {
	// WatchSessions calls changed with the id of every session another replica
	// saved (deleted false) or deleted, until ctx ends; then it returns. An
	// empty id means that changes may have been missed (the subscription was
	// re-established): every session is to be checked again. It reconnects
	// after failures by itself.
	WatchSessions(ctx context.Context, changed func(id string, deleted bool))
}

// SessionSyncer is implemented by a SessionWatcher whose saves can wait for
// the other replicas to apply their change notices, so that a change is seen
// by every request that follows it: a client that sends logging/setLevel to
// one replica and, once answered, tools/call to another gets its new level
// there. The Handler then saves with SaveSynced. Its WatchSessions must also
// call changed("", true) whenever it stops hearing notices (a broken
// subscription), and changed("", false) once it hears them again (and when it
// first does): meanwhile, the Handler checks the session on every request.
type SessionSyncer interface {
	SessionWatcher
	// SaveSynced is Save, then waits until the WatchSessions of every
	// replica that heard the change notice has called its changed for it, or
	// until within has passed (by then every replica checks the session on
	// its next request anyway), or ctx ends. The wait never fails the save.
	SaveSynced(ctx context.Context, id string, record []byte, ttl, within time.Duration) error
}

// sessionChanged applies one change notice (see SessionWatcher).
func (h *Handler) sessionChanged(id string, deleted bool) {
	h.changes.Add(1) // a check in flight must not mark its session checked (see markCheckedSince)
	if id == "" {
		if deleted { // notices are not heard until the next changed("", false)
			h.unwatched.Store(true)
			return
		}
		h.mu.Lock()
		all := make([]*session, 0, len(h.sessions))
		for _, s := range h.sessions {
			all = append(all, s)
		}
		h.mu.Unlock()
		for _, s := range all {
			s.markChecked(time.Time{})
		}
		h.unwatched.Store(false) // after: no request serves what it held meanwhile
		return
	}
	s := h.lookupSession(id)
	switch {
	case s == nil:
	case deleted:
		s.end() // its record and events are gone: nothing to forget here
	default:
		s.markChecked(time.Time{}) // the next request loads the new record
	}
}

// markCheckedSince marks the session checked at now, unless a change notice
// was applied since the handler's count of them was gen: that notice may
// announce a record newer than the one the check read, so the next request
// checks again.
func (s *session) markCheckedSince(now time.Time, gen uint64) {
	s.mu.Lock()
	if s.h.changes.Load() == gen {
		s.rep.checked = now
	}
	s.mu.Unlock()
}
