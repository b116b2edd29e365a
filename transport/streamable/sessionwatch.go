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
type SessionWatcher interface {
	// WatchSessions calls changed with the id of every session another replica
	// saved (deleted false) or deleted, until ctx ends; then it returns. An
	// empty id means that changes may have been missed (the subscription was
	// re-established): every session is to be checked again. It reconnects
	// after failures by itself.
	WatchSessions(ctx context.Context, changed func(id string, deleted bool))
}

// sessionChanged applies one change notice (see SessionWatcher).
func (h *Handler) sessionChanged(id string, deleted bool) {
	if id == "" {
		h.mu.Lock()
		all := make([]*session, 0, len(h.sessions))
		for _, s := range h.sessions {
			all = append(all, s)
		}
		h.mu.Unlock()
		for _, s := range all {
			s.markChecked(time.Time{})
		}
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
