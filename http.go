package mcpkit

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mcpkit/mcpkit/internal/httpguard"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/transport"
	"github.com/mcpkit/mcpkit/transport/legacysse"
	"github.com/mcpkit/mcpkit/transport/streamable"
)

// Default paths of an HTTPHandler.
const (
	// DefaultMCPPath is the Streamable HTTP endpoint.
	DefaultMCPPath = "/mcp"
	// DefaultSSEPath is where an HTTP+SSE client opens its event stream.
	DefaultSSEPath = legacysse.DefaultSSEPath
	// DefaultMessagePath is where an HTTP+SSE client posts its messages.
	DefaultMessagePath = legacysse.DefaultMessagePath
)

// HTTPOptions configures NewHTTPHandler, Serve and ListenAndServe. The zero
// value (and nil) serves both transports with every limit at its default:
// see the README's "Limits" section for the list.
type HTTPOptions struct {
	// Sessionless serves Streamable HTTP without sessions: every POST stands
	// alone (see streamable.HandlerOptions.Sessionless). 2026-07-28 requests
	// are served statelessly either way.
	Sessionless bool

	// AllowedOrigins lists the browser origins accepted besides the loopback
	// ones a loopback-bound server accepts; "*" accepts any. AllowedHosts lists
	// the accepted Host headers; empty means loopback hosts on a loopback
	// server and any host otherwise. Both guard against DNS rebinding; see
	// streamable.HandlerOptions.
	AllowedOrigins []string
	AllowedHosts   []string

	// Logger receives the handlers' diagnostics. Nil means slog.Default().
	Logger *slog.Logger

	// MCPPath, SSEPath and MessagePath are where the handler serves Streamable
	// HTTP and HTTP+SSE's stream and messages. Empty means DefaultMCPPath,
	// DefaultSSEPath and DefaultMessagePath. PathPrefix is the prefix under
	// which the handler is mounted with http.StripPrefix, if any: HTTP+SSE
	// tells its clients where to post with it.
	MCPPath, SSEPath, MessagePath, PathPrefix string

	// MaxBodyBytes bounds a POST's body (413 beyond). Zero means
	// streamable.DefaultMaxBodyBytes (4 MiB).
	MaxBodyBytes int64

	// BodyReadTimeout bounds the reading of a POST's body (408 beyond), so that
	// trickled bodies cannot hold connections. Zero means 30 seconds; negative,
	// no bound.
	BodyReadTimeout time.Duration

	// SessionIdleTimeout ends a Streamable HTTP session left idle this long.
	// Zero means streamable.DefaultSessionIdleTimeout (30 minutes); negative,
	// never. (An HTTP+SSE session lasts as long as its stream.)
	SessionIdleTimeout time.Duration

	// KeepAlive is the interval of the comments sent on open SSE streams so
	// that proxies do not cut them. Zero means 15 seconds; negative, none.
	KeepAlive time.Duration

	// MaxSessions, MaxSessionsPerClient and MaxStreams cap the sessions (in
	// total, and of one client address) and the waiting SSE streams of both
	// transports together, with the defaults and meaning of the fields of
	// transport.Limits: 10,000 sessions, a tenth of them per client, 1,000
	// streams. Beyond them a client gets 503 or 429 with Retry-After.
	MaxSessions          int
	MaxSessionsPerClient int
	MaxStreams           int

	// MaxConnections caps the connections Serve and ListenAndServe hold open at
	// once: beyond it they wait in the kernel's accept queue until one closes,
	// so that a flood cannot exhaust the process's file descriptors. Zero means
	// DefaultMaxConnections, lowered to fit the process's descriptor limit;
	// negative, no cap.
	MaxConnections int

	// ReadHeaderTimeout and ConnIdleTimeout are the http.Server settings
	// Serve and ListenAndServe use (see NewHTTPServer): the time to read a
	// request's header, and how long a kept-alive connection may wait for its
	// next request. Zero means DefaultReadHeaderTimeout and
	// DefaultConnIdleTimeout; negative, no bound.
	ReadHeaderTimeout, ConnIdleTimeout time.Duration

	// Sessions and EventStore share Streamable HTTP's legacy sessions and SSE
	// events between replicas (see streamable.HandlerOptions.Sessions and
	// EventStore; package store/redisstore implements both on Redis). Nil
	// keeps them in this process.
	Sessions   streamable.SessionStore
	EventStore streamable.EventStore
	// Relay carries messages between the replicas (see
	// streamable.HandlerOptions.Relay and legacysse.HandlerOptions.Relay;
	// redisstore.Relay implements it): answers to the server's requests that
	// land on another replica, the session's GET stream held elsewhere, and
	// HTTP+SSE sessions served by any replica. Nil: none.
	Relay transport.Relay

	// Ready, when set, is the readiness check of GET /readyz: while it fails
	// (something only this replica lacks), the probe answers 503 so that the
	// balancer takes the replica out of rotation without restarting it. It
	// gets a context bounded to under a second. /readyz also answers 503 once
	// Shutdown began; GET /healthz answers 200 as long as the process serves.
	// HealthPath and ReadyPath move the probes (empty: DefaultHealthPath and
	// DefaultReadyPath; "-": not served). Serve answers them before
	// Middleware, so probes need no credentials.
	Ready                 func(ctx context.Context) error
	HealthPath, ReadyPath string

	// Checks are named checks of what the server depends on (for the shared
	// store: "redis", a ping) that do not decide readiness: a dependency all
	// replicas share being down is no reason to take every replica out of
	// rotation, when each still serves what does not need it (the stateless
	// protocol) and answers the rest with 503 and Retry-After itself. Both
	// probes list them with ?verbose ("[+]redis ok", "[-]redis failed: …",
	// Kubernetes' format), each bounded to under a second, without changing
	// their status.
	Checks map[string]func(ctx context.Context) error

	// Handlers serves more endpoints beside the transports and the probes,
	// by exact path: a gateway's status page, for example. They get the
	// transports' Host and Origin checks (AllowedHosts, AllowedOrigins; 403
	// when a check fails) and, under Serve, Middleware. A path the transports
	// or the probes use is theirs.
	Handlers map[string]http.Handler

	// ShutdownTimeout bounds the graceful shutdown of Serve and ListenAndServe
	// once their context ends; then what remains is closed. Zero means
	// DefaultShutdownTimeout.
	ShutdownTimeout time.Duration

	// Middleware, when set, wraps the handler Serve and ListenAndServe serve:
	// for example auth/resource.Middleware, to require access tokens.
	// (NewHTTPHandler does not use it: wrap its handler yourself.)
	Middleware func(http.Handler) http.Handler
}

// HTTPHandler serves an mcp.Server over both HTTP transports: Streamable HTTP
// and the older HTTP+SSE (2024-11-05). Make it with NewHTTPHandler, mount it
// at the root of an http.Server (NewHTTPServer has the recommended settings),
// and call Shutdown when done.
type HTTPHandler struct {
	srv                       *mcp.Server
	mcpPath, ssePath, msgPath string
	streamable                *streamable.Handler
	sse                       *legacysse.Handler

	extra                 map[string]http.Handler                    // HTTPOptions.Handlers
	guard                 httpguard.Policy                           // of the extra handlers
	healthPath, readyPath string                                     // "" when not served
	ready                 func(ctx context.Context) error            // HTTPOptions.Ready
	checks                map[string]func(ctx context.Context) error // HTTPOptions.Checks
	draining              atomic.Bool                                // Shutdown began: /readyz answers 503
	refusals              httpguard.Throttle                         // of the "not ready" warning
	log                   *slog.Logger
	bodyTimeout           time.Duration // HTTPOptions.BodyReadTimeout, the default applied
}

// NewHTTPHandler returns an HTTPHandler serving srv: Streamable HTTP at
// /mcp, HTTP+SSE at /sse (the stream) and /messages (the client's posts),
// with the limits of opts (nil for the defaults). Other paths get 404.
func NewHTTPHandler(srv *mcp.Server, opts *HTTPOptions) *HTTPHandler {
	var o HTTPOptions
	if opts != nil {
		o = *opts
	}
	h := &HTTPHandler{
		srv:         srv,
		mcpPath:     path(o.MCPPath, DefaultMCPPath),
		ssePath:     path(o.SSEPath, DefaultSSEPath),
		msgPath:     path(o.MessagePath, DefaultMessagePath),
		healthPath:  probePath(o.HealthPath, DefaultHealthPath),
		readyPath:   probePath(o.ReadyPath, DefaultReadyPath),
		ready:       o.Ready,
		checks:      o.Checks,
		extra:       o.Handlers,
		guard:       httpguard.Policy{AllowedOrigins: o.AllowedOrigins, AllowedHosts: o.AllowedHosts},
		log:         o.Logger,
		bodyTimeout: o.BodyReadTimeout,
	}
	if h.bodyTimeout == 0 {
		h.bodyTimeout = streamable.DefaultBodyReadTimeout
	}
	if h.log == nil {
		h.log = slog.Default()
	}
	// One budget for both transports.
	limits := &transport.Limits{MaxSessions: o.MaxSessions, MaxSessionsPerClient: o.MaxSessionsPerClient, MaxStreams: o.MaxStreams}
	h.streamable = streamable.NewHandler(srv, &streamable.HandlerOptions{
		Sessionless:        o.Sessionless,
		MaxBodyBytes:       o.MaxBodyBytes,
		BodyReadTimeout:    o.BodyReadTimeout,
		SessionIdleTimeout: o.SessionIdleTimeout,
		KeepAlive:          o.KeepAlive,
		AllowedOrigins:     o.AllowedOrigins,
		AllowedHosts:       o.AllowedHosts,
		Limits:             limits,
		Logger:             o.Logger,
		Sessions:           o.Sessions,
		EventStore:         o.EventStore,
		Relay:              o.Relay,
	})
	h.sse = legacysse.NewHandler(srv, &legacysse.HandlerOptions{
		SSEPath:         h.ssePath,
		MessagePath:     h.msgPath,
		PathPrefix:      o.PathPrefix,
		KeepAlive:       o.KeepAlive,
		MaxBodySize:     o.MaxBodyBytes,
		BodyReadTimeout: o.BodyReadTimeout,
		AllowedOrigins:  o.AllowedOrigins,
		AllowedHosts:    o.AllowedHosts,
		Limits:          limits,
		Logger:          o.Logger,
		Relay:           o.Relay,
	})
	return h
}

// path returns p with a leading slash, or def if p is empty.
func path(p, def string) string {
	switch {
	case p == "":
		return def
	case !strings.HasPrefix(p, "/"):
		return "/" + p
	}
	return p
}

// probePath is path for a probe, with "-" meaning not served ("").
func probePath(p, def string) string {
	if p == "-" {
		return ""
	}
	return path(p, def)
}

// ServeHTTP routes a request by its path to the transport serving it, to
// the probes (GET /healthz, GET /readyz), or to one of HTTPOptions.Handlers.
func (h *HTTPHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case h.mcpPath:
		h.streamable.ServeHTTP(w, r)
	case h.ssePath, h.msgPath:
		h.sse.ServeHTTP(w, r)
	default:
		httpguard.BoundBody(w, r, h.bodyTimeout) // a 404 leaves the body unread: bound it
		if h.probe(w, r) {
			return
		}
		if next, ok := h.extra[r.URL.Path]; ok {
			if err := h.guard.Check(r); err != nil {
				http.Error(w, err.Error(), http.StatusForbidden)
				return
			}
			next.ServeHTTP(w, r)
			return
		}
		http.NotFound(w, r)
	}
}

// withProbes answers the probes itself and hands every other request to next
// (h wrapped in middleware): probes carry no credentials.
func (h *HTTPHandler) withProbes(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p := r.URL.Path; p == h.mcpPath || p == h.ssePath || p == h.msgPath || !h.probe(w, r) {
			next.ServeHTTP(w, r)
		}
	})
}

// Shutdown stops serving, gracefully and in order: the server's
// subscriptions/listen streams end with their final result, its running
// tasks are stopped, the Streamable HTTP handler stops taking new sessions
// and streams and waits (until ctx ends) for the requests in flight before
// ending its sessions, and then the HTTP+SSE sessions end after their queued
// messages. Later requests get 503, and so does GET /readyz from the start.
// Call it before the http.Server's own
// Shutdown, which would otherwise wait for the open streams. It returns the
// errors of the steps that did not finish before ctx ended.
func (h *HTTPHandler) Shutdown(ctx context.Context) error {
	h.draining.Store(true)
	h.srv.EndSubscriptions()
	tasksErr := h.srv.ShutdownTasks(ctx)
	streamableErr := h.streamable.Shutdown(ctx)
	sseErr := h.sse.Shutdown(ctx)
	return errors.Join(tasksErr, streamableErr, sseErr)
}
