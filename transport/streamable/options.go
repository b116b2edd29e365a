package streamable

import (
	"log/slog"
	"time"

	"github.com/mcpkit/mcpkit/transport"
)

// ResponseMode chooses how the Handler answers a POST that carries requests.
type ResponseMode uint8

const (
	// ResponseAuto answers with one application/json body when the response is the
	// first thing the server sends for the request, and switches to a
	// text/event-stream as soon as the handler sends something before its response (a
	// progress notification, a log message, a request to the client), or when the
	// response has not come within HandlerOptions.KeepAlive, so that keep-alive
	// comments can flow and (for 2025-11-25 clients) the stream can be resumed. Fast
	// requests cost no SSE framing; slow and chatty ones stream.
	ResponseAuto ResponseMode = iota
	// ResponseAlwaysSSE answers every request with a text/event-stream; a
	// 2026-07-28 request whose first message is an error response with an HTTP
	// status of its own (see NewHandler) is answered in JSON with that status.
	ResponseAlwaysSSE
	// ResponseAlwaysJSON answers every request with one application/json body. What a
	// handler sends before its response (progress, log messages, requests to the
	// client) goes to the session's GET stream if the client opened one, and is
	// otherwise dropped (a notification) or fails (a request). A 2026-07-28
	// subscriptions/listen request, which answers with nothing but notifications,
	// is streamed as in ResponseAuto.
	ResponseAlwaysJSON
)

// Defaults of HandlerOptions.
const (
	// DefaultMaxBodyBytes bounds the body of a POST.
	DefaultMaxBodyBytes = 4 << 20
	// DefaultSessionIdleTimeout is how long a session may go without any activity
	// before it is ended. It is long enough to outlast a user's pause between two
	// prompts (clients that stay quiet longer usually hold a GET stream open, which
	// keeps the session alive), and short enough that abandoned sessions, whose
	// clients never send DELETE, do not pile up.
	DefaultSessionIdleTimeout = 30 * time.Minute
	// DefaultKeepAlive is the interval of SSE keep-alive comments: below the idle
	// timeouts of common proxies and load balancers (often 30 to 60 s).
	DefaultKeepAlive = 15 * time.Second
	// DefaultRetryInterval is the reconnection delay announced to 2025-11-25 clients.
	DefaultRetryInterval = time.Second
	// DefaultBodyReadTimeout bounds the reading of a POST's body: time for a
	// body of MaxBodyBytes on a slow link, not for a client that trickles it.
	DefaultBodyReadTimeout = 30 * time.Second
	// closeWait bounds how long Close waits for the streams it ended to be flushed.
	closeWait = 5 * time.Second
)

// HandlerOptions configures a Handler. The zero value gives a stateful handler with
// the defaults.
type HandlerOptions struct {
	// Sessionless serves every POST on its own, with no session: no Mcp-Session-Id, no
	// GET stream, no DELETE (both answer 405), no resumption. An initialize request is
	// answered by a fresh session that ends with the response; any other request is
	// served by a fresh connection that implements transport.SessionlessConn (its
	// version is the MCP-Protocol-Version header, or DefaultProtocolVersion), which
	// the server treats as already initialized. When the client disconnects, the
	// request is cancelled, since nothing could ever deliver its answer. Requests the
	// server sends to the client cannot be answered in this mode. (2026-07-28
	// requests are served the same way in both modes; see NewHandler.)
	Sessionless bool

	// ResponseMode chooses between JSON and SSE answers; see ResponseMode.
	ResponseMode ResponseMode

	// MaxBodyBytes bounds the body of a POST; a larger one is answered with 413.
	// Zero or less means DefaultMaxBodyBytes.
	MaxBodyBytes int64

	// BodyReadTimeout bounds the reading of a POST's body, from when the handler
	// starts reading it: a client that sends it slower is answered with 408 and
	// its connection closed. The bound is a read deadline on the connection,
	// lifted once the body is read, so it never cuts a long answer. Zero means
	// DefaultBodyReadTimeout; a negative value sets none.
	BodyReadTimeout time.Duration

	// SessionIdleTimeout ends a session that has had no request open, no request in
	// flight and no message from the server for this long. Zero means
	// DefaultSessionIdleTimeout; a negative value never ends idle sessions (then only
	// DELETE, the server, or Close end them).
	SessionIdleTimeout time.Duration

	// Limits caps the sessions (in total and per client address) and the
	// waiting SSE streams (GET streams and 2026-07-28 subscriptions/listen
	// requests); a new session or stream beyond them is answered with 503 or
	// 429 and a Retry-After header. Share one *Limits between handlers to give
	// them one budget. Nil means a budget of this handler's own with the
	// defaults of transport.Limits.
	Limits *transport.Limits

	// KeepAlive is the interval of the comment lines sent on every open SSE stream so
	// that proxies do not cut it. Zero means DefaultKeepAlive; a negative value sends
	// none.
	KeepAlive time.Duration

	// RetryInterval is sent as the SSE retry field with the priming event that opens
	// every stream of a client of protocol version 2025-11-25 or later. Zero means
	// DefaultRetryInterval; a negative value sends no retry field.
	RetryInterval time.Duration

	// EventStore keeps the SSE events so that clients can resume a broken stream
	// with Last-Event-ID. Nil means a MemoryEventStore with the default retention.
	EventStore EventStore

	// AllowedOrigins lists the values of the Origin header that are accepted, such
	// as "https://app.example.com"; "*" accepts any origin. A request without an
	// Origin header (a client that is not a browser) is always accepted. Otherwise
	// the origin must be listed, or, when the request came in on a loopback address,
	// be a loopback origin (localhost, 127.0.0.1, [::1], any port). Every other
	// origin is answered with 403, as the specification requires against DNS
	// rebinding.
	AllowedOrigins []string

	// AllowedHosts lists the accepted values of the Host header, with or without a
	// port ("mcp.example.com", "localhost:8080"); "*" accepts any. When empty, a
	// request that came in on a loopback address must name a loopback host
	// (localhost, 127.0.0.1, [::1]) and other requests are not checked. A request
	// whose host is not accepted is answered with 403.
	AllowedHosts []string

	// Logger receives the handler's diagnostics. Nil means slog.Default().
	Logger *slog.Logger

	// Sessions shares the legacy sessions between the replicas of a server
	// (behind a load balancer without stickiness): every session is recorded
	// there when it starts and whenever its state changes (see
	// transport.StatefulConn), and a request naming a session this replica
	// does not know restores it from the store, so any replica serves any
	// session. The record's TTL is SessionIdleTimeout, restarted when a
	// replica checks the session; a DELETE on any replica removes it. The
	// session is bound to the principal that created it
	// (transport.WithPrincipal): another principal gets 404. When the store
	// fails, requests that need it (a new session, a session this replica does
	// not know, a check that is due, DELETE) are answered with 503 and
	// Retry-After; 2026-07-28 requests never need it. Ending a session on one
	// replica for any other reason (idle, Close, Shutdown) leaves it to the
	// others. Nil keeps sessions in this process only. Share the EventStore
	// too, so that streams resume on any replica.
	Sessions SessionStore

	// SessionCheckInterval is how long a replica serves a session it knows
	// without asking Sessions whether it still exists (and restarting its
	// TTL, and taking the log level and subscriptions another replica may
	// have changed): a DELETE on another replica takes effect here within it,
	// or at once when Sessions is also a SessionWatcher (NewHandler then
	// listens to it until Close or Shutdown); with a SessionSyncer, the
	// replica that saves a change waits up to this interval for the others to
	// apply it before answering, so the client's next request sees it
	// anywhere. Zero means DefaultSessionCheckInterval; a negative value asks
	// on every request.
	// It is at most a tenth of SessionIdleTimeout: the record's TTL restarts
	// only when a replica checks it, so a client busy on one replica keeps
	// its session everywhere, and one idle for the timeout loses it on every
	// replica, within a tenth of it.
	SessionCheckInterval time.Duration

	// Relay carries messages between the replicas sharing Sessions (nil:
	// none). With it, the server's requests to a client get ids that name
	// this replica ("<replica>.<n>"), and a client's answer posted to another
	// replica is forwarded here (that POST gets 202); the session's GET
	// stream is claimed across replicas (a second GET on any replica gets
	// 409; a GET with Last-Event-ID takes it over), and what another replica
	// sends outside a request reaches the replica holding it; a stream
	// resumed on a replica other than its writer's is continued live from
	// the EventStore, and ends with a -32603 error for each request still
	// pending when its writer's replica dies. It needs Sessions and a shared
	// EventStore. Give each Handler a Relay of its own: the ids of its
	// streams and requests count from 1 after the relay's id.
	Relay transport.Relay
}
