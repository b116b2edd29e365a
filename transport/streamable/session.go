package streamable

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpkit/mcpkit/internal/lazydone"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport"
)

// errSessionEnded is returned by writes on the Conn of a session that has ended.
var errSessionEnded = errors.New("streamable: session ended")

// errRequestEnded ends the Conn of a one-request session when its POST has ended:
// the answers are written or the client has left, so nothing sent later can reach
// the client. It wraps context.Canceled rather than being io.EOF, which a reader
// takes for a peer that stopped sending but still listens (and lets running
// handlers finish): here the handlers still running are cancelled at once, as the
// 2026-07-28 specification requires of a closed response ("Closing the SSE
// response stream MUST be treated by the server as cancellation of that
// request").
var errRequestEnded = fmt.Errorf("streamable: the HTTP request ended: %w", context.Canceled)

// errStatelessRequest is returned when the server sends a request to the client of
// a 2026-07-28 request: that protocol has no server-to-client requests (the
// server returns an InputRequiredResult instead).
var errStatelessRequest = errors.New("streamable: protocol version 2026-07-28 carries no requests from the server to the client")

// errNoStream is returned when the server sends a request that belongs to no open
// stream: outside any handler (or from a handler whose response mode cannot carry
// it) while the client has no GET stream.
var errNoStream = errors.New("streamable: no stream to the client can carry this request; the client has no GET stream open")

// session is one MCP session served over HTTP: the Conn handed to the server, the
// routes from incoming request ids to the POST streams that answer them, and the
// client's GET (standalone) stream. A request to a sessionless handler, and a
// 2026-07-28 request, gets a session of its own that lives for one POST.
type session struct {
	h         *Handler
	id        string          // "" for a one-request session
	owner     string          // the address of the client that started a stateful session
	oneShot   bool            // lives for one POST (sessionless or 2026-07-28)
	stateless bool            // serves one 2026-07-28 request
	inboxSize int32           // capacity of inbox
	conn      sessionlessConn // handed to the server (&conn, &conn.sessionConn, or as a statelessConn)
	// recv takes the client's messages when the server bound the Conn as a
	// transport.PushConn (an *mcp.Server does): set by Bind during Accept,
	// read-only afterwards. Otherwise they queue in inbox for conn.Read.
	recv    transport.Receiver
	done    lazydone.Done // closed when the session ends; a channel only for those who wait
	endOnce sync.Once

	mu         sync.Mutex
	open       int32       // HTTP requests in progress on this session
	remote     string      // the network address of the client's latest request
	inbox      chan []byte // client messages for conn.Read; made at first use
	version    string      // negotiated protocol version; "" until known (a one-request session's: from its headers)
	routes     routeTable  // request id → the stream owing its response
	streams    streamSet   // resumable streams still expecting events
	standalone *stream     // the GET stream, once the client opened one
	nextStream uint64
	lastActive time.Time // when a request ended, or the server last wrote while none was open

	// rep is set, before the session is shared, when the handler keeps its
	// sessions in a SessionStore (HandlerOptions.Sessions): a session kept in
	// memory alone carries none of that.
	rep *replicaState
}

// replicaState is what a session kept in a SessionStore adds.
type replicaState struct {
	shared    atomic.Pointer[transport.SessionState] // the latest state read from or saved to the store
	principal string                                 // digest of the principal that created the session; set before it is shared
	checked   time.Time                              // when the store last confirmed the session (under the session's mu)
	purge     bool                                   // ending the session forgets its events (under the session's mu)
}

// principal returns the digest of the principal that created the session ("" for
// a session kept in memory alone).
func (s *session) principal() string {
	if s.rep == nil {
		return ""
	}
	return s.rep.principal
}

// sessionConn is the transport.Conn (and transport.PeerConn) of a session.
type sessionConn struct{ s *session }

// sessionlessConn adds transport.SessionlessConn to a sessionConn. Its
// protocol version is its session's version, set before the session is shared.
type sessionlessConn struct {
	sessionConn
	header http.Header // the POST's headers (a stateless request's)
}

// statelessConn is the transport.Conn of one 2026-07-28 request: a
// transport.SessionlessConn that is not pre-initialized (each request carries its
// protocol version and capabilities in _meta), a transport.HeaderConn and a
// transport.PeerConn. It shares sessionlessConn's layout, so a session's conn
// converts to it without an allocation.
type statelessConn sessionlessConn

// ProtocolVersion returns protocol.Version20260728: the server reads each
// request's own version from its _meta.
func (c *statelessConn) ProtocolVersion() string { return protocol.Version20260728 }

// Header returns the headers of the POST that carries the request.
func (c *statelessConn) Header() http.Header { return c.header }

var (
	_ transport.SessionlessConn = (*sessionlessConn)(nil)
	_ transport.HeaderConn      = (*statelessConn)(nil)
	_ transport.SessionlessConn = (*statelessConn)(nil)
	_ transport.PeerConn        = (*statelessConn)(nil)
)

// Bind implements transport.PushConn: from now on the session hands the
// client's messages to r on the goroutine of the POST that carries them, and
// ends r when it ends. The server must call it before Accept returns, and then
// not call Read.
func (c *sessionConn) Bind(r transport.Receiver) { c.s.recv = r }

// Read returns the client's next message. Once a session has ended it returns
// io.EOF; once the POST of a one-request session (sessionless or 2026-07-28) has
// ended, errRequestEnded.
func (c *sessionConn) Read(ctx context.Context) ([]byte, error) {
	select {
	case m := <-c.s.inboxChan():
		return m, nil
	case <-c.s.done.Wait():
		if c.s.oneShot {
			return nil, errRequestEnded
		}
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Write routes one message from the server to the stream it belongs to.
func (c *sessionConn) Write(ctx context.Context, msg []byte) error { return c.s.write(ctx, msg) }

// WriteResponse sends a success response the server encoded for the request
// id (transport.ResponseConn): it goes to the stream of that request, with no
// second reading of the message.
func (c *sessionConn) WriteResponse(_ context.Context, id jsonrpc.ID, msg []byte) error {
	return c.s.writeResponse(id, msg)
}

var _ transport.ResponseConn = (*sessionConn)(nil) // relayedConn has it too, embedding it

// Close ends the session, as a DELETE would.
func (c *sessionConn) Close() error {
	c.s.end()
	return nil
}

// RemoteAddr returns the network address of the client's most recent request.
func (c *sessionConn) RemoteAddr() string {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	return c.s.remote
}

// ProtocolVersion returns the version of a sessionless request: its
// MCP-Protocol-Version header, or DefaultProtocolVersion. It is the session's
// version, set when the session was made and not changed afterwards (only an
// initialize changes it, and a POST that carries one is served as a plain
// sessionConn).
func (c *sessionlessConn) ProtocolVersion() string { return c.s.version }

// newSessionID returns a fresh, cryptographically random session id: 26 characters
// of base32 (A-Z, 2-7), 130 bits of randomness, all visible ASCII as the
// specification requires.
func newSessionID() string { return rand.Text() }

// newSession returns a session whose first request (counted in open) is the caller's.
func (h *Handler) newSession(id, remote string, inboxSize int) *session {
	s := new(session)
	h.initSession(s, id, remote, inboxSize)
	return s
}

// initSession makes s, a zero session, what newSession returns.
func (h *Handler) initSession(s *session, id, remote string, inboxSize int) {
	s.h = h
	s.id = id
	s.oneShot = id == ""
	s.inboxSize = int32(min(inboxSize, math.MaxInt32))
	s.open = 1
	s.lastActive = h.now()
	if h.shared != nil && id != "" {
		s.rep = &replicaState{}
	}
	s.conn.s = s
	s.remote = remote
}

// oneShotSession is a one-request session (sessionless, or a 2026-07-28
// request) with the stream and the writer that answer its POST: all three
// live as long as the POST, so they are made in one allocation instead of
// three (see answerOptions.oneShot).
type oneShotSession struct {
	s  session
	st stream
	sw streamWriter
}

// newOneShot returns a one-request session, as newSession("", ...) does, with
// room for its POST's stream and writer.
func (h *Handler) newOneShot(remote string, inboxSize int) *oneShotSession {
	o := new(oneShotSession)
	h.initSession(&o.s, "", remote, inboxSize)
	return o
}

// begin records the start of an HTTP request on the session and returns the
// negotiated protocol version ("" if not known yet). It reports false if the session
// has ended.
func (s *session) begin(remote string) (version string, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done.IsClosed() {
		return "", false
	}
	s.open++ // not idle while open: finish records the time
	s.remote = remote
	return s.version, true
}

// finish records the end of an HTTP request begun with begin or newSession.
func (s *session) finish() {
	s.mu.Lock()
	s.open--
	s.lastActive = s.h.now()
	s.mu.Unlock()
}

// idle reports whether the session has had no request open, no request in flight and
// no message from the server for at least timeout.
func (s *session) idle(now time.Time, timeout time.Duration) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.open == 0 && s.routes.len() == 0 && now.Sub(s.lastActive) >= timeout
}

// negotiated returns the protocol version initialize negotiated ("" if unknown).
func (s *session) negotiated() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.version
}

// inboxChan returns the queue of client messages for the server's Read, making
// it the first time: a session whose server binds it (see Bind) never needs one.
func (s *session) inboxChan() chan []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.inbox == nil {
		s.inbox = make(chan []byte, int(s.inboxSize))
	}
	return s.inbox
}

// deliver hands one client message to the server's Read.
func (s *session) deliver(ctx context.Context, msg []byte) error {
	select {
	case s.inboxChan() <- msg:
		return nil
	case <-s.done.Wait():
		return errSessionEnded
	case <-ctx.Done():
		return ctx.Err()
	}
}

// end ends the session: Read returns io.EOF, streams end after what they hold, the
// events are forgotten and the id is answered with 404 from now on.
func (s *session) end() {
	s.endOnce.Do(func() {
		s.done.Close()
		s.mu.Lock()
		s.routes.clear()
		s.streams = nil
		s.standalone = nil
		s.mu.Unlock()
		if s.recv != nil {
			s.recv.End(nil)
		}
		if s.id != "" {
			s.h.removeSession(s)
			s.mu.Lock()
			purge := s.rep == nil || s.rep.purge // a shared session may live on elsewhere
			s.mu.Unlock()
			if !purge {
				return
			}
			if err := s.h.store.DeleteSession(s.h.ctx, s.id); err != nil {
				s.h.log.Warn("streamable: deleting the events of an ended session", "session", s.id, "error", err)
			}
		}
	})
}

// ended reports whether the session has ended.
func (s *session) ended() bool { return s.done.IsClosed() }

// newStreamSeqLocked returns a stream number unique within the session (never
// 0): with shared sessions, unique within the handler. s.mu is held.
func (s *session) newStreamSeqLocked() uint64 {
	if s.h.incarnation != "" {
		return s.h.seq.Add(1)
	}
	s.nextStream++
	return s.nextStream
}

// write routes a message from the server. A response goes to the POST stream of its
// request. A notification or request sent while handling a request goes to that
// request's stream if it can carry it (an SSE stream, or a stream in ResponseAuto
// mode that has not answered yet, which then turns into SSE); otherwise, like every
// message sent outside a handler, it goes to the GET stream. Without a GET stream a
// notification is dropped and a request fails with errNoStream. A message is only
// ever sent on one stream.
func (s *session) write(ctx context.Context, msg []byte) error {
	var decoded jsonrpc.Message // read in place: the message is queued as the bytes it is
	m := &decoded
	if err := jsonrpc.DecodeInto(msg, m); err != nil {
		return fmt.Errorf("streamable: server wrote an invalid message: %w", err)
	}
	isResponse := m.IsResponse()
	if s.stateless && m.IsRequest() {
		return fmt.Errorf("sending %s: %w", m.Method, errStatelessRequest)
	}
	id, related := jsonrpc.RelatedRequest(ctx)
	if !related && isResponse {
		id = m.ID // e.g. a response written without its request's context
	}

	if isResponse {
		return s.deliverResponse(id, msg, m)
	}
	s.mu.Lock()
	if s.ended() {
		s.mu.Unlock()
		return errSessionEnded
	}
	s.noteActivity()
	var st *stream
	if related {
		st = s.routes.get(id)
	}
	s.mu.Unlock()

	if st != nil && st.deliverInterim(msg) {
		return nil
	}
	s.mu.Lock()
	sa := s.standalone
	s.mu.Unlock()
	if sa == nil || !sa.deliverInterim(msg) {
		if s.h.relay != nil && s.id != "" && (m.IsRequest() || related) && s.relayToGet(ctx, msg) {
			// The GET stream is on another replica. (A notification sent
			// outside a handler is not relayed: every replica hears of the
			// change that caused it, and the holder sends it.)
			return nil
		}
		if m.IsRequest() {
			return fmt.Errorf("sending %s: %w", m.Method, errNoStream)
		}
		s.h.log.Debug("streamable: dropping a notification: the client has no stream open", "session", s.id, "method", m.Method)
	}
	return nil
}

// writeResponse is write for a success response the connection engine encoded
// for the request id (see transport.ResponseConn): routed by id, the message
// is read only for an initialize, whose result names the session's version.
func (s *session) writeResponse(id jsonrpc.ID, msg []byte) error {
	return s.deliverResponse(id, msg, nil)
}

// deliverResponse hands msg, the response to the request id, to the stream
// waiting for it. m is msg decoded, or nil for a success response not read
// yet.
func (s *session) deliverResponse(id jsonrpc.ID, msg []byte, m *jsonrpc.Message) error {
	s.mu.Lock()
	if s.ended() {
		s.mu.Unlock()
		return errSessionEnded
	}
	s.noteActivity()
	st := s.routes.take(id)
	s.mu.Unlock()
	if st == nil {
		// Its request was cancelled (notifications/cancelled), or the session ended.
		s.h.log.Debug("streamable: dropping a response no stream is waiting for", "session", s.id, "id", id)
		return nil
	}
	failed := false
	if st.init {
		if m == nil {
			m = new(jsonrpc.Message)
			if err := jsonrpc.DecodeInto(msg, m); err != nil {
				return fmt.Errorf("streamable: server wrote an invalid message: %w", err)
			}
		}
		failed = s.noteInitialize(m)
	}
	status := 0
	if st.stateless && m != nil && m.Error != nil {
		status = statelessErrorStatus(m.Error, st.missingMeta)
	}
	st.deliverResponse(msg, failed, status)
	return nil
}

// noteActivity records the time of a message sent outside any POST (finish
// records the time of those). s.mu is held.
func (s *session) noteActivity() {
	if s.open == 0 {
		s.lastActive = s.h.now()
	}
}

// noteInitialize records the version an initialize response negotiated. It reports
// whether the initialize failed (the POST handler then ends the session).
func (s *session) noteInitialize(m *jsonrpc.Message) (failed bool) {
	if m.Error != nil {
		return true
	}
	var res struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if err := json.Unmarshal(m.Result, &res); err != nil || res.ProtocolVersion == "" {
		return false
	}
	s.mu.Lock()
	s.version = knownVersion(res.ProtocolVersion)
	s.mu.Unlock()
	return false
}

// knownVersions are the versions knownVersion returns.
var knownVersions = protocol.SupportedVersions()

// knownVersion returns v, as a constant of package protocol when it is one: a
// session keeps no copy of the version it decoded.
func knownVersion(v string) string {
	for _, k := range knownVersions {
		if k == v {
			return k
		}
	}
	return v
}

// cancelRequest forgets the route of a request the client cancelled: the server sends
// no response to it, so its stream must not wait for one.
func (s *session) cancelRequest(params json.RawMessage) {
	var p struct {
		RequestID jsonrpc.ID `json:"requestId"`
	}
	if err := json.Unmarshal(params, &p); err != nil || !p.RequestID.IsValid() {
		return
	}
	s.dropRoute(p.RequestID)
}

// dropRoute forgets the route of a request whose response will never come.
func (s *session) dropRoute(id jsonrpc.ID) {
	s.mu.Lock()
	st := s.routes.take(id)
	s.mu.Unlock()
	if st != nil {
		st.deliverResponse(nil, false, 0)
	}
}

// isCancel reports whether m is the MCP cancellation notification.
func isCancel(m *jsonrpc.Message) bool {
	return m.IsNotification() && m.Method == protocol.NotificationCancelled
}

// sweep ends the sessions that have been idle for the idle timeout and returns how
// many it ended.
func (h *Handler) sweep() int {
	if h.idleTimeout <= 0 {
		return 0
	}
	now := h.now()
	var idle []*session
	h.mu.Lock()
	for _, s := range h.sessions {
		if s.idle(now, h.idleTimeout) {
			idle = append(idle, s)
		}
	}
	h.mu.Unlock()
	for _, s := range idle {
		h.log.Debug("streamable: ending an idle session", "session", s.id)
		s.end()
	}
	if h.shared != nil {
		h.touchBusy()
	}
	return len(idle)
}

// janitor ends idle sessions periodically until the handler closes.
func (h *Handler) janitor() {
	every := h.idleTimeout / 4
	every = min(max(every, time.Second), time.Minute)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			h.sweep()
		case <-h.done:
			return
		}
	}
}
