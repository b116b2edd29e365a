package streamable

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/transport"
)

// With a Relay, streams live across replicas (store/DESIGN.md §5.2):
//
//   - Stream ids name the replica writing them: "<replica>-<n>" for a POST's
//     stream, "<replica>-g<n>" for a GET stream, so that ids never collide
//     between replicas serving one session, and a replica resuming a stream
//     knows who writes it. n counts the streams of every session of the
//     handler, and the relay's id is new in each process, so that a session
//     restored again on a replica, or served by a restarted one, never
//     appends to a stream of its past (requests to the client are numbered
//     "<replica>.<n>" the same way). Without a Relay, shared sessions name
//     their streams the same way, with a random id per Handler.
//   - A POST stream opens with a pending event, kept in the EventStore and
//     never sent (a priming event is sent with no data instead): the ids of
//     the requests it answers. A replica resuming a stream it does not write
//     tails the store until every one is answered, and when the writer's
//     replica is gone it ends each remaining one with a -32603 error.
//   - The GET stream is claimed on the relay ("get:<session>") while a client
//     reads it: a GET without Last-Event-ID elsewhere gets 409, one with
//     Last-Event-ID takes it over (the old holder is told to let go), and a
//     request the server sends outside a handler on another replica is relayed
//     to the holder. Notifications sent outside a handler (list_changed,
//     resources/updated) reach every replica through the server's change feed,
//     and only the holder, which has the GET stream, delivers them.

// tailPoll is how often a tailing replica reads the store for new events;
// tailAliveEvery is how many polls pass between two checks of the writer.
const (
	tailPoll       = 200 * time.Millisecond
	tailAliveEvery = 5
)

// pendingPrefix begins a pending event: {"mcpkit/pending":[ids…]}.
var pendingPrefix = []byte(`{"mcpkit/pending":`)

// isPending reports whether msg is a pending event (never sent to clients).
func isPending(msg []byte) bool { return bytes.HasPrefix(msg, pendingPrefix) }

// pendingEvent encodes the ids of a stream's requests.
func pendingEvent(ids []jsonrpc.ID) []byte {
	b := append([]byte(nil), pendingPrefix...)
	b = append(b, '[')
	for i, id := range ids {
		if i > 0 {
			b = append(b, ',')
		}
		b = id.AppendJSON(b)
	}
	return append(b, ']', '}')
}

// sharedStreamName is the id of a stream of this replica when sessions are
// shared (h.incarnation is set).
func (h *Handler) sharedStreamName(seq uint64, get bool) string {
	p := h.incarnation + "-"
	if get {
		p += "g"
	}
	return p + strconv.FormatUint(seq, 10)
}

// streamOwner splits a relay stream id into its writer's replica and whether
// it is a GET stream; owner is "" for an id of another form.
func streamOwner(name string) (owner string, get bool) {
	r, n, ok := strings.Cut(name, "-")
	if !ok || r == "" || n == "" {
		return "", false
	}
	if n[0] == 'g' {
		return r, true
	}
	return r, false
}

// getClaim is the relay claim of a session's GET stream.
func getClaim(sid string) string { return "get:" + sid }

// claimGet claims the session's GET stream for this replica; it answers 409
// when another replica's client reads it, 503 when the relay fails.
func (h *Handler) claimGet(w http.ResponseWriter, r *http.Request, s *session, takeover bool) bool {
	holder, err := h.relay.Claim(r.Context(), getClaim(s.id), takeover)
	switch {
	case err != nil:
		h.storeUnavailable(w, jsonrpc.ID{}, err)
		return false
	case holder != h.relay.Replica():
		writeError(w, http.StatusConflict, jsonrpc.CodeInvalidRequest, "conflict: this session already has a GET stream open")
		return false
	}
	return true
}

// releaseGet gives up the GET claim once the stream's writer has left (a
// writer that took over locally keeps it).
func (h *Handler) releaseGetClaim(s *session, st *stream) {
	st.mu.Lock()
	attached := st.writer != nil
	st.mu.Unlock()
	if attached {
		return
	}
	ctx, cancel := context.WithTimeout(h.ctx, time.Second)
	defer cancel()
	if err := h.relay.Release(ctx, getClaim(s.id)); err != nil {
		h.log.Debug("streamable: releasing a GET stream's claim", "session", s.id, "error", err)
	}
}

// relayToGet sends a message this replica cannot deliver (no stream here can
// carry it) to the replica holding the session's GET stream. It reports
// whether one took it.
func (s *session) relayToGet(ctx context.Context, msg []byte) bool {
	h := s.h
	payload, err := json.Marshal(&relayMsg{Kind: relayGet, Session: s.id, Principal: s.principal(), Msg: msg})
	if err != nil {
		return false
	}
	holder, err := h.relay.SendToHolder(ctx, getClaim(s.id), relayTopic, payload)
	if err != nil || holder == h.relay.Replica() {
		return false
	}
	return true
}

// resumeElsewhere resumes a stream this replica does not write: it takes a
// GET stream over, or tails a POST stream. It reports false for a stream of
// this replica (resume then replays what is stored and ends).
func (h *Handler) resumeElsewhere(w http.ResponseWriter, r *http.Request, s *session, streamID, seen string, evs []event) bool {
	owner, get := streamOwner(streamID)
	if owner == "" || owner == h.relay.Replica() {
		return false
	}
	if get {
		h.takeOverGet(w, r, s, streamID, owner, seen, evs)
	} else {
		h.tail(w, r, s, streamID, owner, seen, evs)
	}
	return true
}

// takeOverGet makes this replica the holder of the session's GET stream,
// which another replica wrote: the claim moves here, the old holder is told
// to let go, and the stream continues here under its id, after what is stored.
func (h *Handler) takeOverGet(w http.ResponseWriter, r *http.Request, s *session, streamID, owner, seen string, evs []event) {
	if !h.claimGet(w, r, s, true) {
		return
	}
	defer func() {
		if st := s.getStandalone(); st != nil {
			h.releaseGetClaim(s, st)
		}
	}()
	if payload, err := json.Marshal(&relayMsg{Kind: relayRelease, Session: s.id, Principal: s.principal()}); err == nil {
		if err := h.relay.Send(r.Context(), owner, relayTopic, payload); err != nil && !errors.Is(err, transport.ErrReplicaGone) {
			h.log.Debug("streamable: telling a GET stream's old holder to let go", "session", s.id, "error", err)
		}
	}
	st := newStream(s, modeSSE, 0)
	sw := h.newStreamWriter(w, st)
	st.get = true
	st.name = streamID
	st.writer = &sw.leave
	collect := func(id string, msg []byte) error {
		if len(msg) > 0 && !isPending(msg) {
			evs = append(evs, event{id: id, msg: append([]byte(nil), msg...)})
		}
		return nil
	}
	s.mu.Lock()
	if s.ended() {
		s.mu.Unlock()
		writeError(w, http.StatusNotFound, jsonrpc.CodeInvalidRequest, "session not found")
		return
	}
	if old := s.standalone; old != nil {
		old.mu.Lock()
		old.done = true
		if old.writer != nil {
			old.writer.Close()
			old.writer = nil
		}
		old.mu.Unlock()
		s.streams.remove(old)
	}
	// What the old holder stored since the first replay; the lock keeps
	// this replica's new events out until the writer is attached.
	if _, err := h.store.Replay(r.Context(), s.id, seen, collect); err != nil {
		h.log.Debug("streamable: catching up with a GET stream taken over", "session", s.id, "error", err)
	}
	s.standalone = st
	s.streams = append(s.streams, st)
	s.mu.Unlock()
	sw.writeEvents("", evs)
	if sw.broken {
		st.detach(&sw.leave)
		sw.clearDeadline()
		return
	}
	sw.run(r.Context())
}

// getStandalone returns the session's GET stream.
func (s *session) getStandalone() *stream {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.standalone
}

// tail continues a POST stream another replica writes: what the store holds
// after seen, then what is appended, until every request of the stream is
// answered. When the writer's replica is gone, each request still pending
// gets a -32603 error, stored as the stream's next events, and the stream
// ends.
func (h *Handler) tail(w http.ResponseWriter, r *http.Request, s *session, streamID, owner, seen string, evs []event) {
	pending := h.pendingOf(r.Context(), s.id, streamID)
	sw := h.newStreamWriter(w, nil)
	defer sw.clearDeadline()
	deliver := func(q []event) bool {
		for _, ev := range q {
			if m, err := jsonrpc.Decode(ev.msg); err == nil && m.IsResponse() {
				delete(pending, m.ID)
			}
		}
		sw.writeEvents("", q)
		return !sw.broken
	}
	if !deliver(evs) {
		return
	}
	t := time.NewTicker(tailPoll)
	defer t.Stop()
	for polls := 1; pending == nil || len(pending) > 0; polls++ {
		select {
		case <-t.C:
		case <-r.Context().Done():
			return
		case <-s.done.Wait():
			return
		case <-h.done:
			return
		}
		var q []event
		_, err := h.store.Replay(r.Context(), s.id, seen, func(id string, msg []byte) error {
			seen = id
			if len(msg) > 0 && !isPending(msg) {
				q = append(q, event{id: id, msg: append([]byte(nil), msg...)})
			}
			return nil
		})
		if err != nil {
			h.log.Debug("streamable: tailing a stream", "session", s.id, "stream", streamID, "error", err)
		}
		if len(q) > 0 {
			if !deliver(q) {
				return
			}
			continue
		}
		if polls%tailAliveEvery != 0 {
			continue
		}
		if alive, err := h.relay.Alive(r.Context(), owner); err != nil || alive {
			continue
		}
		// The writer is gone, and with it the handlers of the pending requests.
		q = q[:0]
		for id := range pending {
			msg := jsonrpc.AppendError(nil, id, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the replica serving this request stopped"})
			eid, err := h.store.Append(h.ctx, s.id, streamID, msg)
			if err != nil {
				h.log.Warn("streamable: storing the error of a request whose replica stopped", "session", s.id, "error", err)
			}
			q = append(q, event{id: eid, msg: msg})
		}
		deliver(q)
		return
	}
}

// pendingOf returns the requests of a stream not answered in the store yet,
// read from its pending event; nil when the store cannot say (then the tail
// ends only when the client leaves or the writer is gone with nothing
// known to be pending).
func (h *Handler) pendingOf(ctx context.Context, sid, streamID string) map[jsonrpc.ID]struct{} {
	rd, ok := h.store.(StreamReader)
	if !ok {
		return nil
	}
	var pending map[jsonrpc.ID]struct{}
	err := rd.ReplayStream(ctx, sid, streamID, func(_ string, msg []byte) error {
		if isPending(msg) {
			var p struct {
				IDs []jsonrpc.ID `json:"mcpkit/pending"`
			}
			if json.Unmarshal(msg, &p) == nil {
				pending = make(map[jsonrpc.ID]struct{}, len(p.IDs))
				for _, id := range p.IDs {
					pending[id] = struct{}{}
				}
			}
			return nil
		}
		if m, err := jsonrpc.Decode(msg); err == nil && m.IsResponse() && pending != nil {
			delete(pending, m.ID)
		}
		return nil
	})
	if err != nil {
		h.log.Debug("streamable: reading a stream's pending requests", "session", sid, "stream", streamID, "error", err)
	}
	return pending
}

// StreamReader is an optional interface of an EventStore: it replays a
// stream from its first retained event. A Handler with a Relay uses it to
// learn which requests a stream written on another replica still owes.
type StreamReader interface {
	// ReplayStream calls fn, in order, for every retained event of the
	// stream; an error from fn stops it and is returned.
	ReplayStream(ctx context.Context, sessionID, streamID string, fn func(eventID string, msg []byte) error) error
}

// hasStream reports whether the session has a live stream of that id here.
func (s *session) hasStream(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.streams.get(id) != nil
}
