package streamable

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/transport"
)

// relayTopic is the Handler's topic on a transport.Relay.
const relayTopic = "streamable"

// relayMsg is what one replica's Handler sends another through the relay.
type relayMsg struct {
	Kind      string          `json:"k"`           // relayAnswer, relayGet, relayRelease
	Session   string          `json:"s"`           // the session id
	Principal string          `json:"p,omitempty"` // digest of the principal the sender checked
	Msg       json.RawMessage `json:"m,omitempty"` // the JSON-RPC message
}

// Kinds of relayMsg.
const (
	// relayAnswer: a client's answer to a request this replica sent it.
	relayAnswer = "a"
	// relayGet: a message for the session's GET stream, which this replica holds.
	relayGet = "g"
	// relayRelease: another replica took the session's GET stream over.
	relayRelease = "r"
)

// relayedConn is the Conn of a session whose handler shares sessions: it adds
// transport.RequestIDConn, so that the ids of the server's requests name this
// replica (with a Relay, where the client's answer must be sent) and are
// never given again, not even by a later object for the same session.
type relayedConn struct{ *sessionConn }

var _ transport.RequestIDConn = relayedConn{}

// NewRequestID implements transport.RequestIDConn: "<replica>.<n>".
func (c relayedConn) NewRequestID() jsonrpc.ID {
	h := c.s.h
	return jsonrpc.StringID(h.incarnation + "." + strconv.FormatUint(h.seq.Add(1), 10))
}

// acceptConn is the Conn handed to the server for a stateful session.
func (h *Handler) acceptConn(s *session) transport.Conn {
	if h.incarnation != "" {
		return relayedConn{&s.conn.sessionConn}
	}
	return &s.conn.sessionConn
}

// ownerOf returns the replica named by the id of a server-to-client request
// ("<replica>.<n>"), or "".
func ownerOf(id jsonrpc.ID) string {
	raw, ok := id.Raw().(string)
	if !ok {
		return ""
	}
	r, n, ok := strings.Cut(raw, ".")
	if !ok || r == "" || n == "" {
		return ""
	}
	return r
}

// forwardAnswer sends a client's answer to a request another replica made to
// that replica, and answers the POST: 202 when it went (or its replica is
// gone: the client can do nothing else), 503 when the relay failed. It
// reports false when the answer is this replica's to handle.
func (h *Handler) forwardAnswer(w http.ResponseWriter, r *http.Request, s *session, in *incoming) bool {
	if h.relay == nil || in.single == nil || !in.single.IsResponse() {
		return false
	}
	owner := ownerOf(in.single.ID)
	if owner == "" || owner == h.relay.Replica() {
		return false
	}
	payload, err := json.Marshal(&relayMsg{Kind: relayAnswer, Session: s.id, Principal: s.principal(), Msg: in.body})
	if err == nil {
		err = h.relay.Send(r.Context(), owner, relayTopic, payload)
	}
	switch {
	case err == nil:
	case errors.Is(err, transport.ErrReplicaGone):
		h.log.Debug("streamable: dropping an answer for a replica that is gone", "session", s.id, "replica", owner)
	default:
		h.storeUnavailable(w, jsonrpc.ID{}, err)
		return true
	}
	w.WriteHeader(http.StatusAccepted)
	return true
}

// onRelay handles a message another replica sent this one. It runs on the
// relay's goroutine: nothing here waits.
func (h *Handler) onRelay(payload []byte) {
	var m relayMsg
	if err := json.Unmarshal(payload, &m); err != nil {
		if h.relayJunk.Allow() {
			h.log.Warn("streamable: ignoring an unreadable relay message (logged once a minute)", "error", err)
		}
		return
	}
	s := h.lookupSession(m.Session)
	if s == nil || s.principal() != m.Principal {
		h.log.Debug("streamable: a relay message for a session this replica does not hold", "session", m.Session, "kind", m.Kind)
		return
	}
	switch m.Kind {
	case relayAnswer:
		s.receiveRelayed(m.Msg)
	case relayGet:
		s.deliverToGet(m.Msg)
	case relayRelease:
		s.releaseGet()
	}
}

// receiveRelayed hands the server an answer to one of its requests that the
// client posted to another replica.
func (s *session) receiveRelayed(raw []byte) {
	msg, err := jsonrpc.Decode(raw)
	if err != nil || !msg.IsResponse() {
		s.h.log.Warn("streamable: a relayed answer is not a JSON-RPC response", "session", s.id, "error", err)
		return
	}
	if s.recv != nil {
		s.recv.Receive(s.h.ctx, msg) // a response resolves its call at once
		return
	}
	select {
	case s.inboxChan() <- raw:
	default:
		s.h.log.Warn("streamable: dropping a relayed answer: the session's inbox is full", "session", s.id)
	}
}

// startRelay registers the handler's receiver on its relay.
func (h *Handler) startRelay() {
	if h.relay != nil {
		h.relay.Handle(relayTopic, h.onRelay)
	}
}

// deliverToGet puts a message another replica produced for the session's GET
// stream on it, if this replica still holds it.
func (s *session) deliverToGet(raw []byte) {
	s.mu.Lock()
	sa := s.standalone
	s.mu.Unlock()
	if sa == nil || !sa.deliverInterim(raw) {
		s.h.log.Debug("streamable: dropping a relayed message: this replica holds no GET stream for the session", "session", s.id)
	}
}

// releaseGet ends the session's GET stream here: another replica took it
// over (a GET with Last-Event-ID landed there).
func (s *session) releaseGet() {
	s.mu.Lock()
	sa := s.standalone
	s.standalone = nil
	if sa != nil {
		s.streams.remove(sa)
	}
	s.mu.Unlock()
	if sa == nil {
		return
	}
	sa.mu.Lock()
	sa.done = true
	if sa.writer != nil {
		sa.writer.Close()
		sa.writer = nil
	}
	sa.mu.Unlock()
}
