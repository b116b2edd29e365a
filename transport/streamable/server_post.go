package streamable

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"

	"github.com/mcpkit/mcpkit/internal/httpguard"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport"
)

// incoming is the parsed body of a POST: one message, or a 2025-03-26 batch.
type incoming struct {
	body     []byte
	single   *jsonrpc.Message   // the message, when the body is not a batch
	batch    []*jsonrpc.Message // the elements of a batch
	requests int                // how many of the messages are requests
	hasInit  bool               // an initialize request is among them
}

// replyID is the id an error answering the whole POST carries: the id of a
// single request, absent (null) for a batch or a notification.
func (in *incoming) replyID() jsonrpc.ID {
	if in.single != nil && in.single.IsRequest() {
		return in.single.ID
	}
	return jsonrpc.ID{}
}

// each calls fn with every message until fn returns false.
func (in *incoming) each(fn func(m *jsonrpc.Message) bool) {
	if in.single != nil {
		fn(in.single)
		return
	}
	for _, m := range in.batch {
		if !fn(m) {
			return
		}
	}
}

// sessionInboxSize is how many client messages a stateful session buffers for its
// server's read loop, which takes them quickly (requests run on their own goroutines).
const sessionInboxSize = 16

// servePost answers a POST: one JSON-RPC message or a batch.
func (h *Handler) servePost(w http.ResponseWriter, r *http.Request) {
	accept := r.Header["Accept"]
	if !acceptsMedia(accept, "application/json") || !acceptsMedia(accept, "text/event-stream") {
		writeError(w, http.StatusNotAcceptable, jsonrpc.CodeInvalidRequest, "not acceptable: the Accept header must allow both application/json and text/event-stream")
		return
	}
	if !isJSONContentType(r.Header.Get("Content-Type")) {
		writeError(w, http.StatusUnsupportedMediaType, jsonrpc.CodeInvalidRequest, "unsupported media type: the body must be application/json")
		return
	}
	var in incoming
	if !h.readBody(w, r, &in) || !parseBody(w, &in) {
		return
	}
	created := r.Header.Get(HeaderSessionID) == ""
	// A session id names a legacy session, except for a sessionless handler, which
	// has none and ignores it as 2026-07-28 asks.
	if created || h.sessionless {
		if era := detectEra(r, &in); era.stateless {
			h.postStateless(w, r, &in, &era)
			return
		}
	}
	if h.sessionless {
		h.postSessionless(w, r, &in)
		return
	}
	var s *session
	if created {
		if in.single == nil || !in.hasInit {
			writeError(w, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "bad request: missing "+HeaderSessionID+" header")
			return
		}
		if s = h.startSession(w, r, in.single.ID); s == nil {
			return
		}
	} else {
		var ok bool
		if s, ok = h.sessionFor(w, r, in.replyID()); !ok {
			return
		}
	}
	defer s.finish()
	if h.forwardAnswer(w, r, s, &in) {
		return
	}
	var prime bool
	switch {
	case in.hasInit && in.batch != nil:
		writeError(w, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "invalid request: initialize must not be part of a batch")
		return
	case created:
		prime = wantsPriming(requestedVersion(in.single))
	default:
		// An initialize in an existing session goes to the server, which refuses it.
		v := s.negotiated()
		prime = wantsPriming(v)
		if in.batch != nil && !protocol.SupportsBatching(versionOf(v, r)) {
			writeError(w, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "invalid request: JSON-RPC batches are not supported by protocol version "+versionOf(v, r))
			return
		}
	}
	st := h.answer(w, r, s, &in, answerOptions{init: created, prime: prime})
	if created && st != nil {
		st.mu.Lock()
		failed := st.failed
		st.mu.Unlock()
		if failed {
			// The handshake failed: the session id is never valid.
			if err := h.deleteShared(h.ctx, s); err != nil {
				h.log.Warn("streamable: forgetting a session whose initialize failed", "error", err)
			}
			s.end()
		}
	}
}

// versionOf is the version a session's request speaks: the negotiated one, else the
// MCP-Protocol-Version header, else DefaultProtocolVersion.
func versionOf(negotiated string, r *http.Request) string {
	if negotiated != "" {
		return negotiated
	}
	if v := r.Header.Get(HeaderProtocolVersion); v != "" {
		return v
	}
	return DefaultProtocolVersion
}

// requestedVersion returns the protocolVersion an initialize request asks for.
func requestedVersion(m *jsonrpc.Message) string {
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	_ = json.Unmarshal(m.Params, &p)
	return p.ProtocolVersion
}

// readBody reads the POST body into in.body, bounded by MaxBodyBytes.
func (h *Handler) readBody(w http.ResponseWriter, r *http.Request, in *incoming) bool {
	tooLarge := func() bool {
		writeError(w, http.StatusRequestEntityTooLarge, jsonrpc.CodeInvalidRequest,
			"request body too large: the limit is "+strconv.FormatInt(h.maxBody, 10)+" bytes")
		return false
	}
	if r.ContentLength > h.maxBody {
		return tooLarge()
	}
	var err error
	if h.bodyTimeout > 0 { // ServeHTTP set the deadline (httpguard.BoundBody)
		defer httpguard.ClearBodyDeadline(w)
	}
	if r.ContentLength > 0 {
		in.body = make([]byte, r.ContentLength)
		_, err = io.ReadFull(r.Body, in.body)
	} else {
		in.body, err = io.ReadAll(io.LimitReader(r.Body, h.maxBody+1))
		if err == nil && int64(len(in.body)) > h.maxBody {
			return tooLarge()
		}
	}
	if err != nil {
		if httpguard.IsTimeout(err) {
			httpguard.WriteBodyTimeout(w, h.bodyTimeout)
			return false
		}
		writeError(w, http.StatusBadRequest, jsonrpc.CodeParseError, "parse error: reading the body: "+err.Error())
		return false
	}
	return true
}

// parseBody decodes in.body and counts its requests. A body that is not valid JSON
// is answered with 400 and a -32700 error; valid JSON that is not JSON-RPC with 400
// and -32600.
func parseBody(w http.ResponseWriter, in *incoming) bool {
	fail := func(id jsonrpc.ID, err error) bool {
		var e *jsonrpc.Error
		if !errors.As(err, &e) {
			e = &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: err.Error()}
		}
		writeErrorID(w, http.StatusBadRequest, id, e.Code, e.Message)
		return false
	}
	if jsonrpc.IsBatch(in.body) {
		msgs, errs, err := jsonrpc.DecodeBatch(in.body)
		if err != nil {
			return fail(jsonrpc.ID{}, err)
		}
		for i, e := range errs {
			if e != nil {
				id := jsonrpc.ID{}
				if msgs[i] != nil && msgs[i].ID.IsValid() {
					id = msgs[i].ID
				}
				return fail(id, e)
			}
		}
		in.batch = msgs
	} else {
		m, err := jsonrpc.Decode(in.body)
		if err != nil {
			id := jsonrpc.ID{}
			if m != nil && m.ID.IsValid() {
				id = m.ID
			}
			return fail(id, err)
		}
		in.single = m
	}
	in.each(func(m *jsonrpc.Message) bool {
		if m.IsRequest() {
			in.requests++
			if m.Method == protocol.MethodInitialize {
				in.hasInit = true
			}
		}
		return true
	})
	return true
}

// sessionFor finds the session a request names and counts the request on it. It
// answers 400 for a missing id, an unsupported MCP-Protocol-Version or one of
// 2025-06-18 or later that contradicts the version the session negotiated
// (2025-06-18 asks for 400 on an invalid one; a missing header is accepted), and
// 404 for a session that does not exist (any more); those errors carry reqID,
// the id of the request (absent for a batch).
func (h *Handler) sessionFor(w http.ResponseWriter, r *http.Request, reqID jsonrpc.ID) (*session, bool) {
	id := r.Header.Get(HeaderSessionID)
	if id == "" {
		writeErrorID(w, http.StatusBadRequest, reqID, jsonrpc.CodeInvalidRequest, "bad request: missing "+HeaderSessionID+" header")
		return nil, false
	}
	v := r.Header.Get(HeaderProtocolVersion)
	if v != "" && !protocol.IsLegacy(v) {
		writeErrorID(w, http.StatusBadRequest, reqID, jsonrpc.CodeInvalidRequest, "bad request: unsupported "+HeaderProtocolVersion+" "+quote(v))
		return nil, false
	}
	s := h.lookupSession(id)
	if h.shared != nil {
		var ok bool
		if s, ok = h.sharedSession(w, r, id, s, reqID); !ok {
			return nil, false
		}
	}
	if s == nil {
		writeErrorID(w, http.StatusNotFound, reqID, jsonrpc.CodeInvalidRequest, "session not found")
		return nil, false
	}
	negotiated, ok := s.begin(r.RemoteAddr)
	if !ok {
		writeErrorID(w, http.StatusNotFound, reqID, jsonrpc.CodeInvalidRequest, "session not found")
		return nil, false
	}
	// Only a version that defines the header can contradict the session: one from
	// before it (2024-11-05, 2025-03-26) says no more than a missing header, and
	// is taken the same way (the official conformance suite sends 2025-03-26 in
	// sessions of any version).
	if v != negotiated && negotiated != "" && protocol.HasProtocolVersionHeader(v) {
		s.finish()
		writeErrorID(w, http.StatusBadRequest, reqID, jsonrpc.CodeInvalidRequest,
			"bad request: "+HeaderProtocolVersion+" "+quote(v)+" contradicts the session's negotiated version "+quote(negotiated))
		return nil, false
	}
	return s, true
}

// startSession creates the session of an initialize POST (whose request id is
// id) and hands its Conn to the server. A session beyond the handler's limits
// is refused with 503 or 429.
func (h *Handler) startSession(w http.ResponseWriter, r *http.Request, id jsonrpc.ID) *session {
	if err := h.limits.OpenSession(r.RemoteAddr); err != nil {
		h.refuse(w, err, id)
		return nil
	}
	s := h.newSession(newSessionID(), r.RemoteAddr, sessionInboxSize)
	s.owner = r.RemoteAddr
	if !h.createShared(w, r, s, id) {
		h.limits.CloseSession(r.RemoteAddr)
		return nil
	}
	if !h.addSession(s) {
		h.limits.CloseSession(r.RemoteAddr)
		writeError(w, http.StatusServiceUnavailable, jsonrpc.CodeInternalError, "the MCP server is shutting down")
		return nil
	}
	if err := h.srv.Accept(context.Background(), h.acceptConn(s)); err != nil {
		h.log.Error("streamable: the server refused a session", "error", err)
		s.end()
		writeError(w, http.StatusInternalServerError, jsonrpc.CodeInternalError, "internal error: the server cannot start a session")
		return nil
	}
	return s
}

// postSessionless answers a POST of a sessionless handler with a session of its own.
func (h *Handler) postSessionless(w http.ResponseWriter, r *http.Request, in *incoming) {
	v := r.Header.Get(HeaderProtocolVersion)
	if v == "" {
		v = DefaultProtocolVersion
	} else if !protocol.IsLegacy(v) {
		writeError(w, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "bad request: unsupported "+HeaderProtocolVersion+" "+quote(v))
		return
	}
	if in.batch != nil && (in.hasInit || !protocol.SupportsBatching(v)) {
		writeError(w, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "invalid request: this batch is not allowed with protocol version "+v)
		return
	}
	if in.requests == 0 {
		// Notifications and responses have no session to go to.
		w.WriteHeader(http.StatusAccepted)
		return
	}
	n := 1
	if in.batch != nil {
		n = len(in.batch)
	}
	one := h.newOneShot(r.RemoteAddr, n)
	s := &one.s
	s.version = v // before the session is shared: sessionlessConn.ProtocolVersion
	var conn transport.Conn = &s.conn
	if in.hasInit {
		conn = &s.conn.sessionConn // a real handshake, not a pre-initialized session
	}
	if !h.addOneShot(s) {
		writeError(w, http.StatusServiceUnavailable, jsonrpc.CodeInternalError, "the MCP server is shutting down")
		return
	}
	defer h.endOneShot(s) // the connection ends with the POST
	if err := h.srv.Accept(context.Background(), conn); err != nil {
		h.log.Error("streamable: the server refused a sessionless connection", "error", err)
		writeError(w, http.StatusInternalServerError, jsonrpc.CodeInternalError, "internal error: the server cannot serve this request")
		return
	}
	h.answer(w, r, s, in, answerOptions{init: in.hasInit, oneShot: one})
}

// answerOptions describe the stream that answers a POST.
type answerOptions struct {
	init        bool // the POST carries the initialize that starts the session
	prime       bool // its client expects priming events
	stateless   bool // a 2026-07-28 request (see stream)
	missingMeta bool // ... lacking required _meta fields
	listen      bool // ... of subscriptions/listen

	// oneShot, for a one-request session made by newOneShot, holds the
	// stream and the writer of its POST; nil otherwise.
	oneShot *oneShotSession
}

// answer forwards a POST's messages to the session's server and, if they include
// requests, writes their answers on a stream described by o. It returns the stream
// of the answers (nil if there were no requests).
func (h *Handler) answer(w http.ResponseWriter, r *http.Request, s *session, in *incoming, o answerOptions) *stream {
	ctx := r.Context()
	if !s.oneShot {
		// A session's request outlives its POST: the client may resume its
		// stream, and cancels it with notifications/cancelled. A one-request
		// session's request ends with its POST.
		ctx = context.WithoutCancel(ctx)
	}
	if in.requests == 0 {
		h.forward(ctx, s, in)
		w.WriteHeader(http.StatusAccepted)
		return nil
	}
	var st *stream
	if o.oneShot != nil {
		st = &o.oneShot.st
		initStream(st, s, modeUndecided, in.requests)
	} else {
		st = newStream(s, modeUndecided, in.requests)
	}
	st.init = o.init
	st.batch = in.batch != nil
	st.prime = o.prime
	st.stateless, st.missingMeta, st.listen = o.stateless, o.missingMeta, o.listen
	if h.relay != nil && st.seq != 0 {
		ids := make([]jsonrpc.ID, 0, in.requests)
		in.each(func(m *jsonrpc.Message) bool {
			if m.IsRequest() {
				ids = append(ids, m.ID)
			}
			return true
		})
		st.ids = &ids
	}
	var sw *streamWriter
	if o.oneShot != nil {
		sw = h.streamWriterIn(&o.oneShot.sw, w, st)
	} else {
		sw = h.newStreamWriter(w, st)
	}
	st.writer = &sw.leave
	switch {
	case h.mode == ResponseAlwaysSSE && st.stateless:
		// SSE from the first message on, unless the response comes first with an
		// error whose HTTP status the specification sets.
		st.sseFinal = true
	case h.mode == ResponseAlwaysSSE:
		st.switchToSSELocked() // not yet shared: no lock needed
	case h.mode == ResponseAlwaysJSON && !st.listen:
		// (A listen stream carries nothing but notifications: it streams anyway.)
		st.mode = modeJSON
	}
	if dup, ok := s.addRoutes(in, st); !ok {
		if dup.IsAbsent() {
			writeErrorID(w, http.StatusNotFound, in.replyID(), jsonrpc.CodeInvalidRequest, "session not found")
		} else {
			writeErrorID(w, http.StatusBadRequest, dup, jsonrpc.CodeInvalidRequest, "invalid request: id "+dup.String()+" is already in use by a request in progress")
		}
		return nil
	}
	if st.init && !s.oneShot {
		sw.sessionHeader = s.id
	}
	if s.recv == nil {
		h.forward(ctx, s, in)
		sw.run(r.Context())
		return st
	}
	// The server answers on this goroutine (forward returns with the answers
	// queued), and this goroutine then writes them: no hand-off for a quick
	// answer. Meanwhile the writer waits, ready to start on a goroutine of its
	// own as soon as there is something to stream (see stream.startWriterLocked).
	sw.ctx = r.Context()
	st.mu.Lock()
	st.idleWriter = sw
	st.mu.Unlock()
	h.clock.watch(st)
	h.forward(ctx, s, in)
	h.clock.unwatch(st)
	st.mu.Lock()
	started := st.idleWriter == nil
	st.idleWriter = nil
	st.mu.Unlock()
	if started {
		<-sw.finished
	} else {
		sw.run(r.Context())
	}
	return st
}

// addRoutes routes the responses to in's requests to st. It fails, registering
// nothing, if a request id is in use (and returns it) or if the session ended (and
// returns an absent id).
func (s *session) addRoutes(in *incoming, st *stream) (jsonrpc.ID, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended() {
		return jsonrpc.ID{}, false
	}
	var dup jsonrpc.ID
	in.each(func(m *jsonrpc.Message) bool {
		if m.IsRequest() && s.routes.get(m.ID) != nil {
			dup = m.ID
			return false
		}
		return true
	})
	if !dup.IsAbsent() {
		return dup, false
	}
	in.each(func(m *jsonrpc.Message) bool {
		if m.IsRequest() {
			s.routes.set(m.ID, st)
		}
		return true
	})
	if st.seq != 0 {
		s.streams = append(s.streams, st)
	}
	return jsonrpc.ID{}, true
}

// forward hands in's messages to the session's server, in order. A request that
// cannot be delivered (the session ended) will get no response: its route is dropped.
//
// A server that bound the session (see sessionConn.Bind) handles each message on
// this goroutine, so forward returns once the requests are answered; ctx is their
// parent context. Otherwise the messages queue for the server's Read.
func (h *Handler) forward(ctx context.Context, s *session, in *incoming) {
	if s.recv != nil {
		in.each(func(m *jsonrpc.Message) bool {
			s.recv.Receive(ctx, m)
			if isCancel(m) {
				s.cancelRequest(m.Params)
			}
			return true
		})
		return
	}
	var failed error
	in.each(func(m *jsonrpc.Message) bool {
		if failed == nil {
			raw := in.body
			if in.single == nil {
				raw = jsonrpc.Encode(m) // a batch element, forwarded on its own
			}
			failed = s.deliver(context.Background(), raw)
			if failed == nil && isCancel(m) {
				s.cancelRequest(m.Params)
			}
		}
		if failed != nil && m.IsRequest() {
			s.dropRoute(m.ID)
		}
		return true
	})
}
