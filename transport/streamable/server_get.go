package streamable

import (
	"net/http"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

// serveGet opens the session's standalone stream, or resumes a stream after the event
// in Last-Event-ID.
func (h *Handler) serveGet(w http.ResponseWriter, r *http.Request) {
	if h.sessionless || r.Header.Get(HeaderSessionID) == "" {
		h.methodNotAllowedNoSession(w)
		return
	}
	if !acceptsMedia(r.Header["Accept"], "text/event-stream") {
		writeError(w, http.StatusNotAcceptable, jsonrpc.CodeInvalidRequest, "not acceptable: a GET must accept text/event-stream")
		return
	}
	s, ok := h.sessionFor(w, r, jsonrpc.ID{})
	if !ok {
		return
	}
	defer s.finish()
	if err := h.limits.OpenStream(); err != nil {
		h.refuse(w, err, jsonrpc.ID{})
		return
	}
	defer h.limits.CloseStream()
	if last := r.Header.Get(HeaderLastEventID); last != "" {
		h.resume(w, r, s, last)
		return
	}
	select {
	case <-h.draining:
		writeError(w, http.StatusServiceUnavailable, jsonrpc.CodeInternalError, "the MCP server is shutting down")
		return
	default:
	}
	if s.standaloneBusy() {
		writeError(w, http.StatusConflict, jsonrpc.CodeInvalidRequest, "conflict: this session already has a GET stream open")
		return
	}
	st := newStream(s, modeSSE, 0)
	sw := h.newStreamWriter(w, st)
	st.get = true
	if h.incarnation != "" {
		st.name = h.sharedStreamName(st.seq, true)
	}
	if h.relay != nil {
		if !h.claimGet(w, r, s, false) {
			return
		}
		defer h.releaseGetClaim(s, st)
	}
	st.prime = wantsPriming(s.negotiated())
	st.writer = &sw.leave
	st.switchToSSELocked() // not yet shared: no lock needed
	s.mu.Lock()
	if old := s.standalone; old != nil {
		old.mu.Lock()
		busy := old.writer != nil
		if !busy {
			old.done = true // replaced: it can still be replayed, but gets nothing new
		}
		old.mu.Unlock()
		if busy {
			s.mu.Unlock()
			writeError(w, http.StatusConflict, jsonrpc.CodeInvalidRequest, "conflict: this session already has a GET stream open")
			return
		}
		s.streams.remove(old)
	}
	if s.ended() {
		s.mu.Unlock()
		writeError(w, http.StatusNotFound, jsonrpc.CodeInvalidRequest, "session not found")
		return
	}
	s.standalone = st
	s.streams = append(s.streams, st)
	s.mu.Unlock()
	sw.run(r.Context())
}

// standaloneBusy reports whether a writer is attached to the session's GET stream.
func (s *session) standaloneBusy() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.standalone == nil {
		return false
	}
	s.standalone.mu.Lock()
	defer s.standalone.mu.Unlock()
	return s.standalone.writer != nil
}

// resume replays the events of a stream after lastID and, if the stream is still
// live, attaches to it (taking over from a writer still attached).
func (h *Handler) resume(w http.ResponseWriter, r *http.Request, s *session, lastID string) {
	var evs []event
	seen := lastID
	collect := func(id string, msg []byte) error {
		seen = id
		if len(msg) > 0 && !isPending(msg) { // skip priming and pending events
			evs = append(evs, event{id: id, msg: append([]byte(nil), msg...)})
		}
		return nil
	}
	streamID, err := h.store.Replay(r.Context(), s.id, lastID, collect)
	if err != nil {
		h.log.Debug("streamable: cannot resume", "session", s.id, "last-event-id", lastID, "error", err)
		writeError(w, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "cannot resume: unknown or expired Last-Event-ID "+quote(lastID))
		return
	}
	if h.relay != nil && !s.hasStream(streamID) && h.resumeElsewhere(w, r, s, streamID, seen, evs) {
		return
	}
	sw := h.newStreamWriter(w, nil) // its stream is set below
	s.mu.Lock()
	st := s.streams.get(streamID)
	if st != nil {
		st.mu.Lock()
		if st.done {
			st.mu.Unlock()
			st = nil
		} else {
			// Catch up with what was stored since the first replay; the locks keep new
			// events out until this writer is attached.
			if _, err := h.store.Replay(r.Context(), s.id, seen, collect); err != nil {
				h.log.Warn("streamable: event store replay failed", "session", s.id, "error", err)
			}
			st.attachLocked(&sw.leave)
			st.mu.Unlock()
		}
	}
	s.mu.Unlock()
	sw.st = st
	if st == nil {
		// The stream is complete (or was replaced): replay and end.
		sw.writeEvents("", evs)
		sw.clearDeadline()
		return
	}
	sw.writeEvents("", evs)
	if sw.broken {
		st.detach(&sw.leave)
		sw.clearDeadline()
		return
	}
	sw.run(r.Context())
}

// serveDelete ends a session.
func (h *Handler) serveDelete(w http.ResponseWriter, r *http.Request) {
	if h.sessionless || r.Header.Get(HeaderSessionID) == "" {
		h.methodNotAllowedNoSession(w)
		return
	}
	s, ok := h.sessionFor(w, r, jsonrpc.ID{})
	if !ok {
		return
	}
	s.finish()
	if err := h.deleteShared(r.Context(), s); err != nil {
		h.storeUnavailable(w, jsonrpc.ID{}, err)
		return
	}
	s.end()
	w.WriteHeader(http.StatusNoContent)
}
