package legacysse

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/mcpkit/mcpkit/transport"
)

// relayTopic is the Handler's topic on a transport.Relay.
const relayTopic = "legacysse"

// relayWait bounds how long a relayed message waits for room in its
// session's queue: the relay's goroutine serves every replica's messages.
const relayWait = 100 * time.Millisecond

// relayRetryAfter is the Retry-After, in seconds, of a POST refused because
// the relay failed.
const relayRetryAfter = "2"

// relayed is a client's message posted to a replica that does not hold its
// session's stream, on its way to the one that does.
type relayed struct {
	Session   string          `json:"s"`
	Principal string          `json:"p,omitempty"` // digest of the POST's principal
	Msg       json.RawMessage `json:"m"`
}

// claimName is the relay claim of a session: the replica holding its stream.
func claimName(id string) string { return "sse:" + id }

// claim records, before the endpoint event is sent, that this replica holds
// the session's stream; it answers 503 and returns false when the relay
// fails.
func (h *Handler) claim(w http.ResponseWriter, r *http.Request, s *session) bool {
	if h.opts.Relay == nil {
		return true
	}
	if _, err := h.opts.Relay.Claim(r.Context(), claimName(s.id), true); err != nil {
		h.relayUnavailable(w, err)
		return false
	}
	return true
}

// release gives the claim up when the stream ends.
func (h *Handler) release(s *session) {
	if h.opts.Relay == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := h.opts.Relay.Release(ctx, claimName(s.id)); err != nil {
		h.log.Debug("legacysse: releasing a session's claim", "session", s.id, "error", err)
	}
}

// forward sends a message for a session this replica does not hold to the
// replica holding its stream: 202 when it went, 404 when no replica holds
// the session, 503 with Retry-After when the relay failed.
func (h *Handler) forward(w http.ResponseWriter, r *http.Request, id string, body []byte) {
	payload, err := json.Marshal(&relayed{Session: id, Principal: transport.PrincipalDigest(transport.PrincipalFrom(r.Context())), Msg: body})
	if err == nil {
		_, err = h.opts.Relay.SendToHolder(r.Context(), claimName(id), relayTopic, payload)
	}
	switch {
	case err == nil:
		w.WriteHeader(http.StatusAccepted)
	case errors.Is(err, transport.ErrNotClaimed):
		http.Error(w, "Not Found: no such session", http.StatusNotFound)
	case r.Context().Err() != nil:
		// The client gave up on the request.
	default:
		h.relayUnavailable(w, err)
	}
}

// relayUnavailable answers 503 with Retry-After: the relay (Redis) failed.
func (h *Handler) relayUnavailable(w http.ResponseWriter, err error) {
	if h.refusals.Allow() {
		h.log.Warn("legacysse: the relay between replicas is unavailable (logged once a minute)", "error", err)
	}
	w.Header().Set("Retry-After", relayRetryAfter)
	http.Error(w, "Service Unavailable: the sessions' shared state is unavailable; retry later", http.StatusServiceUnavailable)
}

// onRelay hands a message another replica forwarded to the session it names.
// It runs on the relay's goroutine, so it waits relayWait at most.
func (h *Handler) onRelay(payload []byte) {
	var m relayed
	if err := json.Unmarshal(payload, &m); err != nil || !json.Valid(m.Msg) {
		h.log.Warn("legacysse: ignoring a relay message", "error", err)
		return
	}
	s := h.lookup(m.Session)
	if s == nil || s.principal != m.Principal {
		h.log.Debug("legacysse: a relayed message for a session this replica does not hold", "session", m.Session)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), relayWait)
	defer cancel()
	if err := s.deliver(ctx, []byte(m.Msg)); err != nil {
		h.log.Warn("legacysse: dropping a relayed message", "session", m.Session, "error", err)
	}
}
