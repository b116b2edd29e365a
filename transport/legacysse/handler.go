package legacysse

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/mcpkit/mcpkit/internal/httpguard"
	"github.com/mcpkit/mcpkit/internal/jsonscan"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/transport"
)

// Defaults of HandlerOptions.
const (
	// DefaultSSEPath is where a client opens the event stream.
	DefaultSSEPath = "/sse"
	// DefaultMessagePath is where a client POSTs its messages.
	DefaultMessagePath = "/messages"
	// DefaultKeepAlive is the interval between keep-alive comments on an idle stream.
	DefaultKeepAlive = 15 * time.Second
	// DefaultWriteTimeout bounds each write to a stream.
	DefaultWriteTimeout = 30 * time.Second
	// DefaultMaxBodySize bounds the body of one POSTed message.
	DefaultMaxBodySize = 4 << 20
	// DefaultBodyReadTimeout bounds the reading of one POSTed message.
	DefaultBodyReadTimeout = 30 * time.Second
)

// SessionParam is the query parameter of the message URL that names the session.
const SessionParam = "sessionId"

// HandlerOptions configures a Handler. The zero value (and nil) gives the defaults.
type HandlerOptions struct {
	// SSEPath is the path, relative to where the handler is mounted, on which a GET
	// opens a session's event stream. Empty means DefaultSSEPath.
	SSEPath string

	// MessagePath is the path, relative to where the handler is mounted, to which
	// clients POST messages with ?sessionId=<id>. Empty means DefaultMessagePath. It
	// may equal SSEPath: the method tells the two routes apart.
	MessagePath string

	// PathPrefix is prepended to MessagePath in the endpoint event, so that clients
	// reach the handler when it is mounted under a sub-path (with http.StripPrefix) or
	// served behind a proxy that strips a prefix: with PathPrefix "/mcp" the endpoint
	// event says "/mcp/messages?sessionId=...". A trailing slash is ignored.
	PathPrefix string

	// KeepAlive is the interval at which an idle stream gets a comment line, so that
	// proxies do not cut it. Zero means DefaultKeepAlive; negative disables them.
	KeepAlive time.Duration

	// WriteTimeout bounds each write of events to a stream (where the server
	// supports write deadlines). A client that stops reading loses its session when it
	// expires, instead of holding a goroutine forever. The deadline is armed for each
	// write and cleared after it, so an http.Server WriteTimeout does not cut streams
	// that outlive it. Zero means DefaultWriteTimeout; negative disables the bound
	// (then an http.Server WriteTimeout applies to the whole stream).
	WriteTimeout time.Duration

	// MaxBodySize bounds the body of a POSTed message, in bytes; a longer body is
	// refused with 413. Zero or less means DefaultMaxBodySize.
	MaxBodySize int64

	// BodyReadTimeout bounds the reading of a POSTed message's body, from when the
	// handler starts reading it: a client that sends it slower is answered with
	// 408 and its connection closed. The bound is a read deadline on the
	// connection, lifted once the body is read. Zero means DefaultBodyReadTimeout;
	// a negative value sets none.
	BodyReadTimeout time.Duration

	// Limits caps the sessions (in total and per client address; each session
	// is also one open stream, counted against MaxStreams): a GET beyond them is
	// answered with 503 or 429, a Retry-After header and a JSON-RPC error. Share
	// one *Limits with a Streamable HTTP handler to give both one budget. Nil
	// means a budget of this handler's own with the defaults of
	// transport.Limits.
	Limits *transport.Limits

	// AllowedOrigins lists the browser origins ("https://app.example.com") allowed to
	// use the handler besides the default: requests carrying an Origin header are
	// refused with 403 unless the origin is listed here, or the request arrived on a
	// loopback address and the origin is a loopback one (localhost, 127.0.0.0/8, ::1,
	// any port). This guards local servers against DNS rebinding. "*" allows every
	// origin. Requests without an Origin header (non-browser clients) are always
	// allowed. The rules are the Streamable HTTP handler's.
	AllowedOrigins []string

	// AllowedHosts lists the accepted values of the Host header, with or without a
	// port ("mcp.example.com", "localhost:8080"); "*" accepts any. When empty, a
	// request that arrived on a loopback address must name a loopback host, and other
	// requests are not checked. A request whose host is not accepted gets 403.
	AllowedHosts []string

	// Logger receives the handler's diagnostics. Nil means slog.Default().
	Logger *slog.Logger

	// Relay lets replicas behind a load balancer serve each other's sessions
	// (nil: none). The replica holding a session's stream claims the session
	// on the relay; a POST for a session another replica holds is forwarded
	// there (one relay round trip) and answered 202, one for a session no
	// replica holds gets 404, and one that finds the relay failing gets 503
	// with Retry-After (a new stream too). The session's messages and its
	// server state stay where its stream is: the 2024-11-05 transport has no
	// other way back to the client.
	Relay transport.Relay
}

// Handler is an http.Handler that serves a transport.Server over the 2024-11-05
// HTTP+SSE transport: each GET on the SSE path starts one session, which lasts until
// that request ends, and POSTs on the message path deliver the client's messages.
//
// Create it with NewHandler; mount it directly or under a sub-path with
// http.StripPrefix (then set HandlerOptions.PathPrefix). Close ends every session.
type Handler struct {
	srv          transport.Server
	opts         HandlerOptions
	log          *slog.Logger
	endpointBase string // PathPrefix + MessagePath + "?sessionId="
	guard        httpguard.Policy
	refusals     httpguard.Throttle // of the warning that limits refuse clients

	mu       sync.Mutex
	sessions map[string]*session
	closed   bool
	streams  sync.WaitGroup // one per open stream; Close waits for them
}

// NewHandler returns a Handler that gives each new session to srv.Accept.
func NewHandler(srv transport.Server, opts *HandlerOptions) *Handler {
	var o HandlerOptions
	if opts != nil {
		o = *opts
	}
	o.SSEPath = cleanPath(o.SSEPath, DefaultSSEPath)
	o.MessagePath = cleanPath(o.MessagePath, DefaultMessagePath)
	o.PathPrefix = strings.TrimRight(o.PathPrefix, "/")
	if o.PathPrefix != "" && !strings.HasPrefix(o.PathPrefix, "/") {
		o.PathPrefix = "/" + o.PathPrefix
	}
	if o.KeepAlive == 0 {
		o.KeepAlive = DefaultKeepAlive
	}
	if o.WriteTimeout == 0 {
		o.WriteTimeout = DefaultWriteTimeout
	}
	if o.MaxBodySize <= 0 {
		o.MaxBodySize = DefaultMaxBodySize
	}
	if o.BodyReadTimeout == 0 {
		o.BodyReadTimeout = DefaultBodyReadTimeout
	}
	if o.Limits == nil {
		o.Limits = &transport.Limits{}
	}
	h := &Handler{
		srv:          srv,
		opts:         o,
		log:          o.Logger,
		endpointBase: o.PathPrefix + o.MessagePath + "?" + SessionParam + "=",
		guard:        httpguard.Policy{AllowedOrigins: o.AllowedOrigins, AllowedHosts: o.AllowedHosts},
		sessions:     make(map[string]*session),
	}
	if h.log == nil {
		h.log = slog.Default()
	}
	if o.Relay != nil {
		o.Relay.Handle(relayTopic, h.onRelay)
	}
	return h
}

// cleanPath returns p with a leading slash, or def if p is empty.
func cleanPath(p, def string) string {
	if p == "" {
		return def
	}
	if !strings.HasPrefix(p, "/") {
		return "/" + p
	}
	return p
}

// ServeHTTP routes a request: GET on the SSE path opens a stream, POST on the message
// path delivers a message. Other paths get 404 and other methods 405.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	httpguard.BoundBody(w, r, h.opts.BodyReadTimeout) // whatever answers the request, its body has a deadline
	isStream := r.URL.Path == h.opts.SSEPath
	isMessage := r.URL.Path == h.opts.MessagePath
	if !isStream && !isMessage {
		http.NotFound(w, r)
		return
	}
	if err := h.guard.Check(r); err != nil {
		http.Error(w, err.Error(), http.StatusForbidden)
		return
	}
	switch {
	case isStream && r.Method == http.MethodGet:
		h.serveStream(w, r)
	case isMessage && r.Method == http.MethodPost:
		h.serveMessage(w, r)
	default:
		allow := http.MethodGet
		if isMessage {
			allow = http.MethodPost
			if isStream {
				allow = "GET, POST"
			}
		}
		w.Header().Set("Allow", allow)
		http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
	}
}

// SessionCount returns how many sessions are open now.
func (h *Handler) SessionCount() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.sessions)
}

// Shutdown ends every session, as Close does, and waits until ctx ends at most
// for their streams to send what is queued for them: it returns ctx's error
// when some did not finish in time (they still end, bounded by WriteTimeout).
// An HTTP+SSE session has no requests of its own to drain: its answers travel on
// the stream, so ending the stream is the end of the session. Later streams are
// refused with 503. It may be called more than once, also after Close.
func (h *Handler) Shutdown(ctx context.Context) error {
	h.endSessions()
	done := make(chan struct{})
	go func() {
		h.streams.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("legacysse: streams still open: %w", context.Cause(ctx))
	}
}

// Close ends every session: each stream sends the messages already queued for it and
// then ends, and the sessions' Conns read io.EOF. New streams are refused with 503.
// Close waits for the streams to finish, which WriteTimeout bounds. It returns nil and
// may be called more than once.
func (h *Handler) Close() error {
	h.endSessions()
	h.streams.Wait()
	return nil
}

// endSessions refuses new streams and ends every open session.
func (h *Handler) endSessions() {
	h.mu.Lock()
	h.closed = true
	open := make([]*session, 0, len(h.sessions))
	for _, s := range h.sessions {
		open = append(open, s)
	}
	h.mu.Unlock()
	for _, s := range open {
		_ = s.Close()
	}
}

// register adds s to the open sessions, unless the handler is closed.
func (h *Handler) register(s *session) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return false
	}
	h.sessions[s.id] = s
	h.streams.Add(1) // under mu, so that Close's Wait never races with an Add
	return true
}

func (h *Handler) unregister(s *session) {
	h.mu.Lock()
	delete(h.sessions, s.id)
	h.mu.Unlock()
	h.streams.Done()
}

func (h *Handler) lookup(id string) *session {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.sessions[id]
}

// serveStream runs one session: it registers it, hands it to the server, and writes
// its events until the client goes away or the session is closed.
func (h *Handler) serveStream(w http.ResponseWriter, r *http.Request) {
	limits := h.opts.Limits
	if err := limits.OpenSession(r.RemoteAddr); err != nil {
		h.refuse(w, err)
		return
	}
	defer limits.CloseSession(r.RemoteAddr)
	if err := limits.OpenStream(); err != nil {
		h.refuse(w, err)
		return
	}
	defer limits.CloseStream()
	s := newSession(rand.Text(), r.RemoteAddr)
	s.principal = transport.PrincipalDigest(transport.PrincipalFrom(r.Context()))
	if !h.claim(w, r, s) {
		return
	}
	defer h.release(s)
	if !h.register(s) {
		http.Error(w, "Service Unavailable: the server is shutting down", http.StatusServiceUnavailable)
		return
	}
	defer h.unregister(s)
	defer s.Close()
	if err := h.srv.Accept(r.Context(), s); err != nil {
		h.log.Error("legacysse: starting a session", "session", s.id, "error", err)
		http.Error(w, "Internal Server Error: the session could not start", http.StatusInternalServerError)
		return
	}
	hdr := w.Header()
	hdr.Set("Content-Type", "text/event-stream")
	hdr.Set("Cache-Control", "no-cache")
	hdr.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	st := newStream(w, h.opts.WriteTimeout)
	if err := st.run(r.Context(), s, h.endpointBase+s.id, h.opts.KeepAlive); err != nil {
		h.log.Debug("legacysse: stream ended", "session", s.id, "error", err)
	}
}

// serveMessage delivers one POSTed message to its session.
func (h *Handler) serveMessage(w http.ResponseWriter, r *http.Request) {
	id := queryValue(r.URL.RawQuery, SessionParam)
	if id == "" {
		http.Error(w, "Bad Request: missing "+SessionParam, http.StatusBadRequest)
		return
	}
	s := h.lookup(id)
	if s == nil && h.opts.Relay == nil {
		http.Error(w, "Not Found: no such session", http.StatusNotFound)
		return
	}
	if h.opts.BodyReadTimeout > 0 { // ServeHTTP set the deadline (httpguard.BoundBody)
		defer httpguard.ClearBodyDeadline(w)
	}
	body, err := readBody(r.Body, r.ContentLength, h.opts.MaxBodySize)
	switch {
	case httpguard.IsTimeout(err):
		httpguard.WriteBodyTimeout(w, h.opts.BodyReadTimeout)
		return
	case errors.Is(err, errBodyTooLarge):
		http.Error(w, fmt.Sprintf("Request Entity Too Large: the limit is %d bytes", h.opts.MaxBodySize), http.StatusRequestEntityTooLarge)
		return
	case err != nil:
		http.Error(w, "Bad Request: reading the body failed", http.StatusBadRequest)
		return
	}
	if !jsonscan.Valid(body) {
		writeParseError(w)
		return
	}
	if s == nil {
		h.forward(w, r, id, body) // held by another replica, if any
		return
	}
	if err := s.deliver(r.Context(), body); err != nil {
		if errors.Is(err, io.ErrClosedPipe) {
			http.Error(w, "Not Found: the session has ended", http.StatusNotFound)
		}
		return // otherwise the client gave up on the request
	}
	w.WriteHeader(http.StatusAccepted)
}

// refuse answers a GET that the limits refused (err is a *transport.LimitError)
// with its status, Retry-After and a JSON-RPC error, and warns (at most once a
// minute) that the server is turning clients away.
func (h *Handler) refuse(w http.ResponseWriter, err error) {
	var le *transport.LimitError
	if !errors.As(err, &le) {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	if h.refusals.Allow() {
		h.log.Warn("legacysse: refusing sessions beyond the limits (logged once a minute)", "status", le.Status, "reason", le.Reason)
	}
	httpguard.WriteRefusal(w, le, jsonrpc.NullID())
}

// writeParseError answers 400 with a JSON-RPC parse error, as a client that posted
// something other than JSON can read it.
func writeParseError(w http.ResponseWriter) {
	body := jsonrpc.AppendError(nil, jsonrpc.NullID(), &jsonrpc.Error{
		Code:    jsonrpc.CodeParseError,
		Message: "parse error: the body is not valid JSON",
	})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	_, _ = w.Write(body)
}

var errBodyTooLarge = errors.New("legacysse: message body too large")

// readBody reads a request body of at most limit bytes into a buffer sized from its
// declared length, so that a body of known length is read without regrowing.
func readBody(body io.Reader, declared, limit int64) ([]byte, error) {
	if declared > limit {
		return nil, errBodyTooLarge
	}
	size := int64(512)
	if declared >= 0 {
		size = declared + 1 // room to see EOF without growing
	}
	buf := make([]byte, 0, size)
	lr := io.LimitedReader{R: body, N: limit + 1}
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := lr.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("legacysse: reading message body: %w", err)
		}
	}
	if int64(len(buf)) > limit {
		return nil, errBodyTooLarge
	}
	return buf, nil
}

// queryValue returns the first value of key in a raw query string, unescaped, or ""
// when it is absent or malformed. It does not allocate when nothing needs unescaping.
func queryValue(rawQuery, key string) string {
	for rawQuery != "" {
		var pair string
		pair, rawQuery, _ = strings.Cut(rawQuery, "&")
		k, v, _ := strings.Cut(pair, "=")
		if k != key {
			if !strings.ContainsAny(k, "%+") {
				continue
			}
			if uk, err := url.QueryUnescape(k); err != nil || uk != key {
				continue
			}
		}
		if !strings.ContainsAny(v, "%+") {
			return v
		}
		uv, err := url.QueryUnescape(v)
		if err != nil {
			return ""
		}
		return uv
	}
	return ""
}
