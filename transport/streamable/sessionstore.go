package streamable

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/transport"
)

// SessionStore shares legacy sessions between replicas of a server (see
// HandlerOptions.Sessions). It stores one small opaque record per session id,
// which expires when the session has been idle for its TTL. A TTL of zero or
// less means no expiry. Implementations must be safe for concurrent use.
//
// An error that does not wrap [ErrSessionNotFound] means the store cannot
// answer (it is unreachable, say): the Handler then answers 503 with a
// Retry-After header, never 404, since a 404 would make the client start a
// new session.
type SessionStore interface {
	// Create stores the record of a new session. It fails if the id exists.
	Create(ctx context.Context, id string, record []byte, ttl time.Duration) error
	// Load returns a session's record and restarts its TTL; it returns an
	// error wrapping ErrSessionNotFound when there is none.
	Load(ctx context.Context, id string, ttl time.Duration) ([]byte, error)
	// Save replaces the record of an existing session and restarts its TTL;
	// it returns an error wrapping ErrSessionNotFound when there is none.
	Save(ctx context.Context, id string, record []byte, ttl time.Duration) error
	// Delete removes a session's record; deleting an absent one is no error.
	Delete(ctx context.Context, id string) error
}

// ErrSessionNotFound is returned (wrapped) by a SessionStore for a session it
// does not hold: it never existed, was deleted, or expired.
var ErrSessionNotFound = errors.New("streamable: session not found")

// DefaultSessionCheckInterval is the default of HandlerOptions.SessionCheckInterval.
const DefaultSessionCheckInterval = 2 * time.Second

// maxCheckFraction caps SessionCheckInterval at SessionIdleTimeout divided by
// it: a replica serving a session from memory must restart the record's TTL
// well before it lapses.
const maxCheckFraction = 10

// storeRetryAfter is the Retry-After, in seconds, of a request refused because
// the session store cannot be reached.
var storeRetryAfter = []string{"2"}

// sessionRecord is what a SessionStore holds for a session: its state and a
// digest of the principal that created it (see transport.WithPrincipal).
type sessionRecord struct {
	transport.SessionState
	Principal string `json:"p,omitempty"`
}

// principalDigest is the form in which a principal is stored.
func principalDigest(principal string) string { return transport.PrincipalDigest(principal) }

// storeTTL is the TTL of the records: the idle timeout, or none.
func (h *Handler) storeTTL() time.Duration { return max(h.idleTimeout, 0) }

// RestoredState implements transport.StatefulConn: the state of a session this
// replica took over from the session store, or nil.
func (c *sessionConn) RestoredState() *transport.SessionState {
	if c.s.rep == nil {
		return nil
	}
	return c.s.rep.shared.Load()
}

// SaveState implements transport.StatefulConn: it writes the session's state to
// the handler's SessionStore, if it has one.
func (c *sessionConn) SaveState(ctx context.Context, st *transport.SessionState) error {
	s := c.s
	if s.id == "" || s.h.shared == nil {
		return nil
	}
	rec, err := json.Marshal(&sessionRecord{SessionState: *st, Principal: s.principal()})
	if err != nil {
		return fmt.Errorf("streamable: encoding a session's record: %w", err)
	}
	if sy := s.h.syncer; sy != nil && s.h.checkEvery > 0 {
		err = sy.SaveSynced(ctx, s.id, rec, s.h.storeTTL(), s.h.checkEvery)
	} else {
		err = s.h.shared.Save(ctx, s.id, rec, s.h.storeTTL())
	}
	if err != nil {
		return fmt.Errorf("streamable: saving session %s: %w", s.id, err)
	}
	saved := *st
	s.rep.shared.Store(&saved)
	return nil
}

var _ transport.StatefulConn = (*sessionConn)(nil)

// createShared stores the record of a new session before its initialize is
// served; it answers 503 and returns false when the store fails.
func (h *Handler) createShared(w http.ResponseWriter, r *http.Request, s *session, reqID jsonrpc.ID) bool {
	if h.shared == nil {
		return true
	}
	s.rep.principal = principalDigest(transport.PrincipalFrom(r.Context()))
	s.rep.checked = h.now()
	rec, err := json.Marshal(&sessionRecord{Principal: s.rep.principal})
	if err == nil {
		err = h.shared.Create(r.Context(), s.id, rec, h.storeTTL())
	}
	if err != nil {
		h.storeUnavailable(w, reqID, err)
		return false
	}
	return true
}

// storeUnavailable answers a request that needs the session store when the
// store failed: 503 with Retry-After.
func (h *Handler) storeUnavailable(w http.ResponseWriter, id jsonrpc.ID, err error) {
	if h.refusals.Allow() {
		h.log.Warn("streamable: the session store is unavailable (logged once a minute)", "error", err)
	}
	w.Header()["Retry-After"] = storeRetryAfter
	writeErrorID(w, http.StatusServiceUnavailable, id, jsonrpc.CodeInternalError, "the session store is unavailable; retry later")
}

// sharedSession finds the session id names when sessions are shared: local is
// this replica's object for it, if any. A session this replica knows and
// checked within SessionCheckInterval is served without asking the store
// (unless a SessionSyncer's notices are not heard: then the store is asked,
// and its failure to answer is no error);
// otherwise the store says whether it still exists (and restarts its TTL),
// and a session created on another replica is restored here. It answers 404
// for a session that does not exist or belongs to another principal, and 503
// when the store fails; the errors carry reqID, the request's id.
func (h *Handler) sharedSession(w http.ResponseWriter, r *http.Request, id string, local *session, reqID jsonrpc.ID) (*session, bool) {
	principal := principalDigest(transport.PrincipalFrom(r.Context()))
	now := h.now()
	fresh := false
	if local != nil {
		if local.principal() != principal {
			writeErrorID(w, http.StatusNotFound, reqID, jsonrpc.CodeInvalidRequest, "session not found")
			return nil, false
		}
		if !local.checkDue(now, h.checkEvery) {
			if !h.unwatched.Load() {
				return local, true
			}
			fresh = true // but unwatched: check whether another replica changed it
		}
	}
	gen := h.changes.Load()
	raw, err := h.shared.Load(r.Context(), id, h.storeTTL())
	if errors.Is(err, ErrSessionNotFound) {
		if local != nil {
			local.end() // deleted or expired elsewhere
		}
		writeErrorID(w, http.StatusNotFound, reqID, jsonrpc.CodeInvalidRequest, "session not found")
		return nil, false
	}
	if err != nil {
		if fresh {
			return local, true // a store that cannot answer takes no change from another replica either
		}
		h.storeUnavailable(w, reqID, err)
		return nil, false
	}
	var rec sessionRecord
	if err := json.Unmarshal(raw, &rec); err != nil || rec.ProtocolVersion == "" {
		if err == nil {
			err = errors.New("no protocol version (the session never completed initialize)")
		}
		h.log.Warn("streamable: a session's stored record is unusable", "session", id, "error", err)
		writeErrorID(w, http.StatusNotFound, reqID, jsonrpc.CodeInvalidRequest, "session not found")
		return nil, false
	}
	if rec.Principal != principal {
		writeErrorID(w, http.StatusNotFound, reqID, jsonrpc.CodeInvalidRequest, "session not found")
		return nil, false
	}
	if local != nil {
		local.rep.shared.Store(&rec.SessionState) // another replica may have changed it
		local.markCheckedSince(now, gen)
		return local, true
	}
	return h.restoreSession(w, r, id, &rec, now, gen)
}

// restoreSession builds this replica's object for a session another replica
// created, and hands it to the server with the stored state. Two requests
// restoring one session at once get one object. gen is the count of change
// notices applied before rec was read (see markCheckedSince).
func (h *Handler) restoreSession(w http.ResponseWriter, r *http.Request, id string, rec *sessionRecord, now time.Time, gen uint64) (*session, bool) {
	if err := h.limits.OpenSession(r.RemoteAddr); err != nil {
		h.refuse(w, err, jsonrpc.ID{})
		return nil, false
	}
	s := h.newSession(id, r.RemoteAddr, sessionInboxSize)
	s.open = 0 // the caller begins the request
	s.owner = r.RemoteAddr
	s.version = rec.ProtocolVersion
	s.rep.shared.Store(&rec.SessionState)
	s.rep.principal = rec.Principal
	s.rep.checked = now
	existing, added := h.addSessionIfAbsent(s)
	if !added {
		h.limits.CloseSession(r.RemoteAddr)
		if existing == nil {
			writeError(w, http.StatusServiceUnavailable, jsonrpc.CodeInternalError, "the MCP server is shutting down")
			return nil, false
		}
		return existing, true
	}
	if h.changes.Load() != gen {
		s.markChecked(time.Time{}) // a notice for it may have found no session yet
	}
	if err := h.srv.Accept(context.Background(), h.acceptConn(s)); err != nil {
		h.log.Warn("streamable: the server cannot restore a stored session", "session", id, "error", err)
		s.end()
		writeError(w, http.StatusNotFound, jsonrpc.CodeInvalidRequest, "session not found")
		return nil, false
	}
	return s, true
}

// addSessionIfAbsent registers s unless a session with its id exists, which it
// returns. It returns (nil, false) if the handler is shutting down.
func (h *Handler) addSessionIfAbsent(s *session) (*session, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if old, ok := h.sessions[s.id]; ok {
		return old, false
	}
	if !h.addSessionLocked(s) {
		return nil, false
	}
	return s, true
}

// checkDue reports whether the session must be confirmed with the store.
func (s *session) checkDue(now time.Time, every time.Duration) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return now.Sub(s.rep.checked) >= every
}

func (s *session) markChecked(now time.Time) {
	if s.rep == nil {
		return // not kept in a store
	}
	s.mu.Lock()
	s.rep.checked = now
	s.mu.Unlock()
}

// deleteShared removes a session from the store (a DELETE, or a failed
// initialize) and marks it so that ending it also forgets its events.
func (h *Handler) deleteShared(ctx context.Context, s *session) error {
	if h.shared != nil {
		if err := h.shared.Delete(ctx, s.id); err != nil {
			return fmt.Errorf("streamable: deleting session %s: %w", s.id, err)
		}
	}
	if s.rep != nil { // a session kept in memory alone forgets its events anyway
		s.mu.Lock()
		s.rep.purge = true
		s.mu.Unlock()
	}
	return nil
}

// touchBusy restarts the store's TTL of the sessions that have a request open
// here (a GET stream held for a long time, say) and have not been checked for
// a quarter of the idle timeout: no request reaches the store for them, and
// their records must not expire under the client. A session the store no
// longer has is ended here. The janitor calls it.
func (h *Handler) touchBusy() {
	now := h.now()
	due := h.idleTimeout / 4
	var busy []*session
	h.mu.Lock()
	for _, s := range h.sessions {
		s.mu.Lock()
		if s.open > 0 && s.rep != nil && now.Sub(s.rep.checked) >= due {
			busy = append(busy, s)
		}
		s.mu.Unlock()
	}
	h.mu.Unlock()
	for _, s := range busy {
		_, err := h.shared.Load(h.ctx, s.id, h.storeTTL())
		switch {
		case errors.Is(err, ErrSessionNotFound):
			s.end()
		case err != nil:
			h.log.Debug("streamable: restarting a busy session's TTL", "session", s.id, "error", err)
		default:
			s.markChecked(now)
		}
	}
}
