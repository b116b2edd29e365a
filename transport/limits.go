package transport

import (
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"time"
)

// DefaultClientMaxMessageSize is the largest message a client transport
// (streamable, legacysse, the stdio command client) accepts from a server when
// its options set no bound: 32 MiB, above the 20 MiB that the TypeScript and Go
// SDKs' clients accept over HTTP, so that a result other clients can read does
// not fail in mcpkit's. A server's limits on what clients send are separate
// and smaller (MaxBodyBytes).
const DefaultClientMaxMessageSize = 32 << 20

// Defaults of Limits.
const (
	// DefaultMaxSessions is the most sessions open at once: an idle legacy
	// session costs a few KiB, so 10,000 of them hold tens of MB, not an
	// out-of-memory kill.
	DefaultMaxSessions = 10_000
	// DefaultClientShare is the divisor of MaxSessions that gives the default
	// per-client cap: one client address may hold a tenth of the sessions.
	DefaultClientShare = 10
	// DefaultMaxStreams is the most SSE streams open at once that wait for
	// messages (see Limits.MaxStreams). Each holds a connection: keep it below
	// the server's connection cap so that streams cannot take every connection.
	DefaultMaxStreams = 1_000
	// DefaultRetryAfter is the Retry-After of a refusal: sessions and streams
	// free up when clients leave or idle sessions expire, not at a known time.
	DefaultRetryAfter = 10 * time.Second
)

// Limits is a budget of sessions and open streams that the clients of one or
// more HTTP handlers draw from, so that a flood of initialize requests or of
// SSE streams is refused with an HTTP error instead of holding memory and
// connections without bound. A session or stream beyond the budget gets 503
// (the server is full) or 429 (this client's share is used), both with a
// Retry-After header and a JSON-RPC error body. Give the same *Limits to
// several handlers to share one budget (mcpkit.NewHTTPHandler gives one to
// both of its transports); a handler given none makes its own with the
// defaults.
//
// Set the fields before the first use and do not change them afterwards; the
// methods are safe for concurrent use. A nil *Limits limits nothing.
type Limits struct {
	// MaxSessions caps the sessions open at once: Streamable HTTP sessions
	// (one-request sessions, sessionless or 2026-07-28, are not counted: they
	// end with their POST) and HTTP+SSE sessions. Zero means
	// DefaultMaxSessions; a negative value sets no cap.
	MaxSessions int

	// MaxSessionsPerClient caps the sessions of one client address (an IPv4
	// address, or an IPv6 /64, which one host usually owns whole). Zero means
	// MaxSessions / DefaultClientShare (at least 1); a negative value sets no
	// per-client cap. Behind a reverse proxy every client has the proxy's
	// address: there, set it negative and let the proxy limit its clients.
	MaxSessionsPerClient int

	// MaxStreams caps the SSE streams open at once that wait for messages
	// rather than answer a request: Streamable HTTP GET streams (new or
	// resumed), 2026-07-28 subscriptions/listen requests, and the stream of
	// every HTTP+SSE session. (The SSE answer of an ordinary POST lives as
	// long as its request, which the server's connection cap bounds.) Zero
	// means DefaultMaxStreams; a negative value sets no cap.
	MaxStreams int

	// RetryAfter is the delay a refusal's Retry-After header suggests. Zero or
	// less means DefaultRetryAfter.
	RetryAfter time.Duration

	once      sync.Once
	maxSess   int // resolved caps; 0 = none
	perClient int
	maxStream int

	mu        sync.Mutex
	sessions  int
	byClient  map[string]int
	streams   int
	retryText string // RetryAfter in whole seconds, for the header
}

// LimitError is the error of a session or stream that Limits refused.
type LimitError struct {
	// Status is the HTTP status of the refusal: 503 when the server is full,
	// 429 when the client's share is used.
	Status int
	// RetryAfter is the delay the Retry-After header suggests, in whole
	// seconds as that header states it.
	RetryAfter string
	// Reason says what was refused and why, for the client to read.
	Reason string
}

// Error returns the reason.
func (e *LimitError) Error() string { return e.Reason }

// init resolves the caps from the fields, once.
func (l *Limits) init() {
	l.once.Do(func() {
		l.maxSess = resolveCap(l.MaxSessions, DefaultMaxSessions)
		switch {
		case l.MaxSessionsPerClient > 0:
			l.perClient = l.MaxSessionsPerClient
		case l.MaxSessionsPerClient == 0 && l.maxSess > 0:
			l.perClient = max(l.maxSess/DefaultClientShare, 1)
		}
		l.maxStream = resolveCap(l.MaxStreams, DefaultMaxStreams)
		retry := l.RetryAfter
		if retry <= 0 {
			retry = DefaultRetryAfter
		}
		l.retryText = strconv.FormatInt(int64((retry+time.Second-1)/time.Second), 10)
		l.byClient = make(map[string]int)
	})
}

// resolveCap turns a field's value into a cap: 0 (none) for a negative value,
// def for zero.
func resolveCap(v, def int) int {
	switch {
	case v < 0:
		return 0
	case v == 0:
		return def
	}
	return v
}

// OpenSession counts a new session of the client at remoteAddr (an
// http.Request's RemoteAddr), or refuses it with a *LimitError. Every
// successful call must be matched by one CloseSession with the same address.
func (l *Limits) OpenSession(remoteAddr string) error {
	if l == nil {
		return nil
	}
	l.init()
	client := clientKey(remoteAddr)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.maxSess > 0 && l.sessions >= l.maxSess {
		return &LimitError{Status: http.StatusServiceUnavailable, RetryAfter: l.retryText,
			Reason: "server full: " + strconv.Itoa(l.sessions) + " sessions are open, the most this server allows; retry later"}
	}
	n := l.byClient[client]
	if l.perClient > 0 && n >= l.perClient {
		return &LimitError{Status: http.StatusTooManyRequests, RetryAfter: l.retryText,
			Reason: "too many sessions: this client address holds " + strconv.Itoa(n) + " sessions, its share of this server; end some (DELETE) or retry later"}
	}
	l.sessions++
	l.byClient[client] = n + 1
	return nil
}

// CloseSession releases a session counted by OpenSession.
func (l *Limits) CloseSession(remoteAddr string) {
	if l == nil {
		return
	}
	client := clientKey(remoteAddr)
	l.mu.Lock()
	defer l.mu.Unlock()
	n, ok := l.byClient[client]
	if !ok {
		return // not counted
	}
	l.sessions--
	if n <= 1 {
		delete(l.byClient, client)
	} else {
		l.byClient[client] = n - 1
	}
}

// OpenStream counts a new waiting stream, or refuses it with a *LimitError.
// Every successful call must be matched by one CloseStream.
func (l *Limits) OpenStream() error {
	if l == nil {
		return nil
	}
	l.init()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.maxStream > 0 && l.streams >= l.maxStream {
		return &LimitError{Status: http.StatusServiceUnavailable, RetryAfter: l.retryText,
			Reason: "server full: " + strconv.Itoa(l.streams) + " streams are open, the most this server allows; retry later"}
	}
	l.streams++
	return nil
}

// CloseStream releases a stream counted by OpenStream.
func (l *Limits) CloseStream() {
	if l == nil {
		return
	}
	l.mu.Lock()
	if l.streams > 0 {
		l.streams--
	}
	l.mu.Unlock()
}

// Open returns the sessions and the streams counted now.
func (l *Limits) Open() (sessions, streams int) {
	if l == nil {
		return 0, 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.sessions, l.streams
}

// clientKey returns the client a remote address ("host:port") belongs to for
// MaxSessionsPerClient: its IP address, or for IPv6 its /64 network. An
// address that is not an IP (a Unix socket's, or none) is returned as it is.
func clientKey(remoteAddr string) string {
	host, _, err := net.SplitHostPort(remoteAddr)
	if err != nil {
		return remoteAddr
	}
	ip, err := netip.ParseAddr(host)
	if err != nil || ip.Is4() || ip.Is4In6() {
		return host
	}
	p, err := ip.Prefix(64)
	if err != nil {
		return host
	}
	return p.String()
}
