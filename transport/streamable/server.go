package streamable

import (
	"context"
	"crypto/rand"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpkit/mcpkit/internal/httpguard"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/transport"
)

// Handler serves an MCP server over the Streamable HTTP transport. It is an
// [http.Handler] to mount at the MCP endpoint; see the package documentation and
// [NewHandler].
type Handler struct {
	srv         transport.Server
	mode        ResponseMode
	sessionless bool
	maxBody     int64
	bodyTimeout time.Duration
	limits      *transport.Limits
	idleTimeout time.Duration
	keepAlive   time.Duration
	clock       *keepAliveClock // one keep-alive tick for every stream
	retry       time.Duration
	store       EventStore
	shared      SessionStore    // nil unless sessions are shared between replicas
	relay       transport.Relay // nil unless replicas relay messages to each other
	checkEvery  time.Duration   // see HandlerOptions.SessionCheckInterval
	syncer      SessionSyncer   // shared, when it is one
	// changes counts the change notices applied (sessionwatch.go); unwatched
	// is set while a SessionSyncer hears none: every request checks its session.
	changes   atomic.Uint64
	unwatched atomic.Bool
	// incarnation names this handler in the ids of its streams and of the
	// server's requests when sessions are shared ("" otherwise): the relay's
	// id, or random. seq numbers both, for every session: a session this
	// replica restores again must not reuse an id of its previous object.
	incarnation string
	seq         atomic.Uint64
	guard       httpguard.Policy
	log         *slog.Logger
	refusals    httpguard.Throttle // of the warning that limits refuse clients
	relayJunk   httpguard.Throttle // of the warning about unreadable relay messages
	now         func() time.Time   // the clock of idle timeouts; tests replace it
	// endListens ends the server's listen streams with their final result, if
	// the server can (see Shutdown); nil otherwise.
	endListens func()

	ctx    context.Context // the sessions' context, cancelled by Close
	cancel context.CancelFunc

	mu          sync.Mutex
	sessions    map[string]*session
	oneShots    map[*session]struct{} // the one-request sessions of the POSTs in progress
	active      int                   // ServeHTTP calls in progress
	idleCh      chan struct{}         // closed when active drops to zero
	janitorOnce sync.Once

	drainOnce sync.Once
	draining  chan struct{} // closed when Shutdown begins: no new sessions or GET streams
	doneOnce  sync.Once
	done      chan struct{} // closed when everything ends
}

// NewHandler returns a [Handler] that hands every new session to srv (an
// *mcp.Server, for instance) through [transport.Server.Accept]. opts may be nil
// (see [HandlerOptions]).
//
// Stateful (the default): an initialize POST starts a session, whose Mcp-Session-Id
// (26 random base32 characters from crypto/rand) the response carries; later requests
// must carry it (400 without, 404 once the session ended: after DELETE, after
// SessionIdleTimeout without activity, or when the server closed it). The
// MCP-Protocol-Version header of later requests may name any version negotiable by
// initialize (2024-11-05 to 2025-11-25); another value is answered with 400, and
// without it the negotiated version applies.
//
// Each POST carrying requests is answered in JSON or SSE (see ResponseMode). What a
// handler sends while serving a request (progress, log messages, requests to the
// client) goes on that request's SSE stream; everything else (list_changed
// notifications, requests made outside a handler) goes on the session's GET stream.
// While the client's GET connection is broken, those messages are kept for it to
// resume; if it never opened one, notifications are dropped and requests fail at
// once. No message is ever sent on two streams. A session has one GET stream at a
// time: a second GET is answered with 409.
//
// Every SSE event of a session has an id naming its stream and is kept in the
// EventStore, so a GET with Last-Event-ID replays a broken stream, POST streams
// included, and continues it live if it is still open (taking over from a connection
// the server still believes open). A client that disconnects does not cancel its
// request (the specification asks for an explicit notifications/cancelled): the
// answer waits in the store. Clients of 2025-11-25 and later get a priming event (an
// id and empty data) with a retry field at the start of every stream, so that they
// can resume even before the first message.
//
// Every open SSE stream carries keep-alive comments. Each write to it must complete
// within 30 seconds: that rolling deadline replaces the http.Server's WriteTimeout
// for the stream, and a client that stops reading is cut (it may resume). A client
// that lets 1024 events pile up is cut too, rather than buffered without limit.
//
// The stateless protocol (2026-07-28) is served on the same endpoint, stateful or
// not: a POST without Mcp-Session-Id whose request carries the per-request _meta
// (io.modelcontextprotocol/protocolVersion) is one, as is one that sends Mcp-Method
// or a 2026-07-28 MCP-Protocol-Version header and is not an initialize. Its
// MCP-Protocol-Version, Mcp-Method and Mcp-Name headers must match the body
// (otherwise 400 with JSON-RPC error -32020); it is served on a connection of its
// own (a [transport.SessionlessConn] that is not pre-initialized, and a
// [transport.HeaderConn] through which the server checks Mcp-Param-* headers) that
// ends with the POST, so closing the response cancels the request. Such a request
// never gets a session id, a priming event or event ids, and the server cannot
// send it requests; a JSON error answer carries the HTTP status the specification
// ties to its code (404 for -32601; 400 for -32020, -32021, -32022, and -32602 when
// the request lacks required _meta fields). A batch, or a JSON-RPC response, in
// such a POST is answered with 400; a notification with 202 (it is dropped). A GET
// or DELETE without Mcp-Session-Id is answered with 405 and "Allow: POST".
//
// A server that binds its connections ([transport.PushConn]; *mcp.Server does)
// handles each client message on the goroutine of the POST that carries it: a
// quick answer is written by the goroutine that computed it, an SSE stream gets
// a goroutine of its own only once it has something to stream, and an open
// session keeps no goroutine at all. The handler's context carries the HTTP
// request's values (what an authenticating middleware put there, for
// instance); it is cancelled with the HTTP request only for one-request
// sessions.
//
// Requests are checked against DNS rebinding first (Host and Origin headers; see
// HandlerOptions.AllowedHosts and AllowedOrigins). CORS is left to a wrapping
// handler.
//
// Call Close or Shutdown when done: they end the streams and sessions and stop the
// goroutine that ends idle sessions.
func NewHandler(srv transport.Server, opts *HandlerOptions) *Handler {
	var o HandlerOptions
	if opts != nil {
		o = *opts
	}
	h := &Handler{
		srv:         srv,
		mode:        o.ResponseMode,
		sessionless: o.Sessionless,
		maxBody:     o.MaxBodyBytes,
		bodyTimeout: o.BodyReadTimeout,
		limits:      o.Limits,
		idleTimeout: o.SessionIdleTimeout,
		keepAlive:   o.KeepAlive,
		retry:       o.RetryInterval,
		store:       o.EventStore,
		shared:      o.Sessions,
		relay:       o.Relay,
		checkEvery:  o.SessionCheckInterval,
		guard:       httpguard.Policy{AllowedOrigins: o.AllowedOrigins, AllowedHosts: o.AllowedHosts},
		log:         o.Logger,
		now:         time.Now,
		sessions:    make(map[string]*session),
		oneShots:    make(map[*session]struct{}),
		draining:    make(chan struct{}),
		done:        make(chan struct{}),
	}
	if h.maxBody <= 0 {
		h.maxBody = DefaultMaxBodyBytes
	}
	if h.bodyTimeout == 0 {
		h.bodyTimeout = DefaultBodyReadTimeout
	}
	if h.limits == nil {
		h.limits = &transport.Limits{}
	}
	if h.idleTimeout == 0 {
		h.idleTimeout = DefaultSessionIdleTimeout
	}
	if h.keepAlive == 0 {
		h.keepAlive = DefaultKeepAlive
	}
	h.clock = &keepAliveClock{every: h.keepAlive, done: h.done}
	if h.retry == 0 {
		h.retry = DefaultRetryInterval
	}
	if h.checkEvery == 0 {
		h.checkEvery = DefaultSessionCheckInterval
	}
	if h.idleTimeout > 0 {
		h.checkEvery = min(h.checkEvery, h.idleTimeout/maxCheckFraction)
	}
	if h.store == nil {
		h.store = NewMemoryEventStore(nil)
	}
	switch {
	case h.relay != nil:
		h.incarnation = h.relay.Replica()
	case h.shared != nil:
		h.incarnation = rand.Text()[:10]
	}
	if h.log == nil {
		h.log = slog.Default()
	}
	if e, ok := srv.(subscriptionEnder); ok {
		h.endListens = e.EndSubscriptions
	}
	h.ctx, h.cancel = context.WithCancel(context.Background())
	if w, ok := h.shared.(SessionWatcher); ok {
		if sy, ok := w.(SessionSyncer); ok {
			h.syncer = sy
			h.unwatched.Store(true) // until it hears notices
		}
		go w.WatchSessions(h.ctx, h.sessionChanged) // until Close or Shutdown
	}
	h.startRelay()
	return h
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	httpguard.BoundBody(w, r, h.bodyTimeout) // whatever answers the request, its body has a deadline
	if !h.enter() {
		writeError(w, http.StatusServiceUnavailable, jsonrpc.CodeInternalError, "the MCP server is shutting down")
		return
	}
	defer h.leave()
	if err := h.guard.Check(r); err != nil {
		writeError(w, http.StatusForbidden, jsonrpc.CodeInvalidRequest, err.Error())
		return
	}
	switch r.Method {
	case http.MethodPost:
		h.servePost(w, r)
	case http.MethodGet:
		h.serveGet(w, r)
	case http.MethodDelete:
		h.serveDelete(w, r)
	default:
		h.methodNotAllowed(w)
	}
}

// methodNotAllowedNoSession answers a GET or DELETE that names no session: only
// POST serves such a client. The 2026-07-28 specification requires 405 for both
// ("Backward Compatibility": "HTTP GET or DELETE to the MCP endpoint: respond with
// 405 Method Not Allowed"), and earlier versions allow it for a GET.
func (h *Handler) methodNotAllowedNoSession(w http.ResponseWriter) {
	w.Header()["Allow"] = hdrAllowSessionless
	writeError(w, http.StatusMethodNotAllowed, jsonrpc.CodeInvalidRequest, "method not allowed: only POST serves a client without a session")
}

func (h *Handler) methodNotAllowed(w http.ResponseWriter) {
	if h.sessionless {
		w.Header()["Allow"] = hdrAllowSessionless
	} else {
		w.Header()["Allow"] = hdrAllowStateful
	}
	writeError(w, http.StatusMethodNotAllowed, jsonrpc.CodeInvalidRequest, "method not allowed")
}

// Sessions returns the number of sessions that are open.
func (h *Handler) Sessions() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.sessions)
}

// enter counts a ServeHTTP call; it reports false once the handler has closed.
func (h *Handler) enter() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	select {
	case <-h.done:
		return false
	default:
	}
	h.active++
	return true
}

func (h *Handler) leave() {
	h.mu.Lock()
	h.active--
	if h.active == 0 && h.idleCh != nil {
		close(h.idleCh)
		h.idleCh = nil
	}
	h.mu.Unlock()
}

// waitIdle waits until no ServeHTTP call is in progress, or ctx ends.
func (h *Handler) waitIdle(ctx context.Context) error {
	h.mu.Lock()
	if h.active == 0 {
		h.mu.Unlock()
		return nil
	}
	if h.idleCh == nil {
		h.idleCh = make(chan struct{})
	}
	ch := h.idleCh
	h.mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// addSession registers a new stateful session. It reports false if the handler is
// shutting down.
func (h *Handler) addSession(s *session) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.addSessionLocked(s)
}

// addSessionLocked is addSession with h.mu held.
func (h *Handler) addSessionLocked(s *session) bool {
	select {
	case <-h.draining:
		return false
	default:
	}
	h.sessions[s.id] = s
	if h.idleTimeout > 0 {
		h.janitorOnce.Do(func() { go h.janitor() })
	}

	return true
}

// addOneShot registers the one-request session of a POST (sessionless or
// 2026-07-28), so that Close can end it. It reports false if the handler has
// closed.
func (h *Handler) addOneShot(s *session) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	select {
	case <-h.done:
		return false
	default:
	}
	h.oneShots[s] = struct{}{}
	return true
}

// endOneShot ends a one-request session when its POST ends: the server's Read
// fails with errRequestEnded (or, for a server that bound the session, its
// Receiver ends), so anything still running for it is cancelled.
func (h *Handler) endOneShot(s *session) {
	h.mu.Lock()
	delete(h.oneShots, s)
	h.mu.Unlock()
	s.end()
}

func (h *Handler) lookupSession(id string) *session {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.sessions[id]
}

// removeSession forgets an ended session and releases its place in the limits.
func (h *Handler) removeSession(s *session) {
	h.mu.Lock()
	_, ok := h.sessions[s.id]
	delete(h.sessions, s.id)
	h.mu.Unlock()
	if ok {
		h.limits.CloseSession(s.owner)
	}
}

// Shutdown ends the handler gracefully. It stops accepting new sessions, GET
// streams and 2026-07-28 subscriptions/listen requests, and ends the open GET
// streams at once, after what they hold. It ends the open listen streams too: with
// their final result when the server can end them gracefully (an *mcp.Server, by
// its EndSubscriptions, which Shutdown calls), at once otherwise. Requests in
// flight may finish, and
// their clients may still post (to answer a request from the server, for example),
// until they are all answered or ctx ends. Then every session ends (its Conn's Read
// returns io.EOF), every stream ends after flushing what it holds, and Shutdown waits,
// until ctx ends, for the handler's ServeHTTP calls to return. Later requests are
// answered with 503. It returns ctx's error if ctx ended first.
func (h *Handler) Shutdown(ctx context.Context) error {
	h.drainOnce.Do(func() { close(h.draining) })
	if h.endListens != nil {
		h.endListens()
	}
	err := h.waitIdle(ctx)
	h.endAll()
	if err != nil {
		return err
	}
	return h.waitIdle(ctx)
}

// Close ends the handler at once: every session ends (its Conn's Read returns
// io.EOF), every stream ends after flushing what it holds (a POST stream whose
// response has not come ends without it), and later requests are answered with 503.
// Close waits a few seconds at most for the streams to be flushed. It is safe to call
// more than once, also after Shutdown.
func (h *Handler) Close() error {
	h.drainOnce.Do(func() { close(h.draining) })
	h.endAll()
	ctx, cancel := context.WithTimeout(context.Background(), closeWait)
	defer cancel()
	if err := h.waitIdle(ctx); err != nil {
		h.log.Warn("streamable: some streams did not end in time", "error", err)
	}
	return nil
}

// endAll ends every session and stream.
func (h *Handler) endAll() {
	h.doneOnce.Do(func() {
		h.mu.Lock()
		close(h.done)
		all := make([]*session, 0, len(h.sessions)+len(h.oneShots))
		for _, s := range h.sessions {
			all = append(all, s)
		}
		for s := range h.oneShots {
			all = append(all, s)
		}
		h.mu.Unlock()
		for _, s := range all {
			s.end()
		}
		h.cancel()
	})
}

// subscriptionEnder is implemented by a server that can end its
// subscriptions/listen streams gracefully, each with its final result
// (*mcp.Server does).
type subscriptionEnder interface{ EndSubscriptions() }
