package tap

import (
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpkit/mcpkit/internal/httpguard"
	"github.com/mcpkit/mcpkit/tap/capture"
)

// DefaultMaxMessage is how much of one message the taps keep for the capture by
// default; the relay always carries all of it.
const DefaultMaxMessage = 128 << 20

// DefaultMaxBody bounds a request body the HTTP tap takes from a client by
// default: eight times the 4 MiB that mcpkit's and the TypeScript SDK's servers
// accept, so that the tap refuses nothing its server would have taken, while one
// request cannot make it hold more than this.
const DefaultMaxBody = 32 << 20

// HTTPOptions configures an HTTP tap.
type HTTPOptions struct {
	// Upstream is the server's MCP endpoint (http or https). The tap serves the
	// same paths on its own listener: a client uses the tap's address with the
	// upstream URL's path.
	Upstream *url.URL
	// Recorder receives the records; nil records nothing.
	Recorder *capture.Recorder
	// AllowedOrigins and AllowedHosts are the Host/Origin check of the tap's
	// listener (DNS-rebinding defence): the same rules, and the same defaults, as
	// `mcpkit serve` (a loopback listener accepts only loopback hosts and
	// origins; "*" accepts any).
	AllowedOrigins []string
	AllowedHosts   []string
	// NoRedact keeps secrets (credentials, cookies, tokens in queries) in the
	// capture.
	NoRedact bool
	// TLSConfig is used for an https upstream; nil uses the system's roots.
	TLSConfig *tls.Config
	// DialTimeout bounds connecting to the upstream (default 10s).
	DialTimeout time.Duration
	// MaxMessage bounds what is kept of one message for the capture (default
	// DefaultMaxMessage).
	MaxMessage int
	// MaxBody bounds a request's body (default DefaultMaxBody). The tap holds a
	// request body whole before relaying it (to record it, and to send it again
	// when the upstream asks for authorization), so a larger one is answered
	// with 413 and not relayed: checked against Content-Length before anything
	// is read, against the chunk sizes as they come.
	MaxBody int64
	// Logger hears what the tap refuses (an oversized body), at most once a
	// minute; nil logs nothing. The capture records every refusal.
	Logger *slog.Logger
	// Authorizer, when set, makes the tap authorize to the upstream itself
	// (see Authorizer): the client's Authorization and DPoP fields are not
	// relayed, the tap's own credentials are, and a request the upstream
	// challenges is sent again with new ones. The capture holds the client's
	// requests and the upstream's answers, never the tap's credentials.
	// Without it the tap relays the client's fields as they are.
	Authorizer Authorizer
	// ReadHeaderTimeout, IdleTimeout and MaxConnections bound the clients of
	// the tap's listener; the defaults are those of an mcpkit server
	// ([github.com/mcpkit/mcpkit.DefaultReadHeaderTimeout],
	// [github.com/mcpkit/mcpkit.DefaultConnIdleTimeout] and
	// [github.com/mcpkit/mcpkit.DefaultMaxConnections]); negative: no bound.
	ReadHeaderTimeout time.Duration
	IdleTimeout       time.Duration
	MaxConnections    int
}

// HTTPTap is a reverse proxy for MCP's HTTP transports that records what passes.
// It is invisible to both sides: each client connection gets its own connection to
// the upstream, requests and responses are relayed with their header lines as they
// came (hop-by-hop fields aside), bodies byte for byte, event streams event by
// event as they arrive. It changes only what it must: the Host header (the
// upstream's), Accept-Encoding (removed, so that the upstream answers in the clear
// and the tap can read what it relays), the framing (a request body is sent with
// Content-Length; a stream is relayed chunked), the URL of an HTTP+SSE endpoint
// event that names the upstream's own origin (it names the tap's instead, so the
// client posts back through the tap), and, with an Authorizer, the credentials
// (see Authorizer). An upstream that cannot be reached gets the client a 502 with
// a body that says why.
type HTTPTap struct {
	opts     HTTPOptions
	policy   httpguard.Policy // the listener's Host/Origin check
	upHost   string           // the Host header for the upstream
	dialAddr string           // host:port
	useTLS   bool
	maxKeep  int
	maxBody  int64

	refusals httpguard.Throttle // of the warnings logged about refused requests

	exchanges atomic.Uint64
	conns     atomic.Uint64

	mu          sync.Mutex
	ln          net.Listener
	active      map[*proxyConn]struct{}
	closed      bool
	sseSessions map[string]struct{} // HTTP+SSE session ids seen in endpoint events
	sseQueue    []string            // the same, oldest first, to bound the map
	wg          sync.WaitGroup
	shutdown    atomic.Bool
}

// maxSSESessions bounds how many HTTP+SSE session ids the tap remembers.
const maxSSESessions = 10000

// NewHTTPTap returns a tap relaying to opts.Upstream. Serve starts it.
func NewHTTPTap(opts HTTPOptions) (*HTTPTap, error) {
	u := opts.Upstream
	if u == nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("tap: the upstream must be an http:// or https:// URL, not %q", u)
	}
	if opts.DialTimeout <= 0 {
		opts.DialTimeout = 10 * time.Second
	}
	if opts.MaxMessage <= 0 {
		opts.MaxMessage = DefaultMaxMessage
	}
	if opts.MaxBody <= 0 {
		opts.MaxBody = DefaultMaxBody
	}
	if opts.ReadHeaderTimeout == 0 {
		opts.ReadHeaderTimeout = httpguard.DefaultReadHeaderTimeout
	}
	if opts.IdleTimeout == 0 {
		opts.IdleTimeout = httpguard.DefaultConnIdleTimeout
	}
	if opts.MaxConnections == 0 {
		opts.MaxConnections = httpguard.DefaultMaxConnections
	}
	p := &HTTPTap{
		opts:        opts,
		policy:      httpguard.Policy{AllowedOrigins: opts.AllowedOrigins, AllowedHosts: opts.AllowedHosts},
		upHost:      u.Host,
		useTLS:      u.Scheme == "https",
		maxKeep:     opts.MaxMessage,
		maxBody:     opts.MaxBody,
		active:      map[*proxyConn]struct{}{},
		sseSessions: map[string]struct{}{},
	}
	p.dialAddr = u.Host
	if u.Port() == "" {
		port := "80"
		if p.useTLS {
			port = "443"
		}
		p.dialAddr = net.JoinHostPort(u.Hostname(), port)
	}
	return p, nil
}

// Serve accepts connections on ln and relays them until Close, at most
// HTTPOptions.MaxConnections at once. It returns nil after Close, or the error
// that stopped the listener.
func (p *HTTPTap) Serve(ln net.Listener) error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return errors.New("tap: serve after close")
	}
	if p.opts.MaxConnections > 0 {
		ln = httpguard.LimitListener(ln, p.opts.MaxConnections)
	}
	p.ln = ln
	p.wg.Add(1) // this loop
	p.mu.Unlock()
	defer p.wg.Done()
	var delay time.Duration
	for {
		conn, err := ln.Accept() // waits for a free slot under the cap
		if err != nil {
			if p.shutdown.Load() {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				// Out of descriptors or the like: back off, as net/http does.
				delay = min(max(2*delay, 5*time.Millisecond), time.Second)
				time.Sleep(delay)
				continue
			}
			return err
		}
		delay = 0
		c := p.newConn(conn)
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			_ = conn.Close() // frees its slot
			continue
		}
		p.active[c] = struct{}{}
		p.wg.Add(1)
		p.mu.Unlock()
		go func() {
			defer p.wg.Done()
			c.serve() // closes conn, which frees its slot
			p.mu.Lock()
			delete(p.active, c)
			p.mu.Unlock()
		}()
	}
}

// Close stops the tap: the listener and every connection (streams in progress end,
// recorded as such), and waits until every goroutine of the tap has returned.
func (p *HTTPTap) Close() error {
	p.mu.Lock()
	p.closed = true
	p.shutdown.Store(true)
	ln := p.ln
	conns := make([]*proxyConn, 0, len(p.active))
	for c := range p.active {
		conns = append(conns, c)
	}
	p.mu.Unlock()
	var err error
	if ln != nil {
		err = ln.Close()
	}
	for _, c := range conns {
		c.abort()
	}
	p.wg.Wait()
	return err
}

// record hands r to the recorder, if any.
func (p *HTTPTap) record(r *capture.Record) {
	if p.opts.Recorder != nil {
		p.opts.Recorder.Record(r)
	}
}

// learnSSESession remembers an HTTP+SSE session id from an endpoint event, so
// that the client's posts to it are recognised.
func (p *HTTPTap) learnSSESession(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.sseSessions[id]; ok {
		return
	}
	p.sseSessions[id] = struct{}{}
	p.sseQueue = append(p.sseQueue, id)
	if len(p.sseQueue) > maxSSESessions {
		delete(p.sseSessions, p.sseQueue[0])
		p.sseQueue = p.sseQueue[1:]
	}
}

// sseSession returns the HTTP+SSE session a request target posts to, if its
// query names one the tap saw in an endpoint event.
func (p *HTTPTap) sseSession(target string) (string, bool) {
	_, query, ok := strings.Cut(target, "?")
	if !ok {
		return "", false
	}
	id := sessionFromQuery(query)
	if id == "" {
		return "", false
	}
	p.mu.Lock()
	_, known := p.sseSessions[id]
	p.mu.Unlock()
	return id, known
}

// sessionFromQuery returns the value of the first query parameter whose name
// mentions a session (sessionId, session_id, ...), else the whole query.
func sessionFromQuery(query string) string {
	for _, kv := range strings.Split(query, "&") {
		name, value, _ := strings.Cut(kv, "=")
		if strings.Contains(strings.ToLower(name), "session") {
			if v, err := url.QueryUnescape(value); err == nil {
				return v
			}
			return value
		}
	}
	return query
}

// rewriteEndpoint returns the endpoint URL to relay in place of data, an HTTP+SSE
// endpoint event's, for a client that reached the tap as clientHost, and the
// session id the URL names. A relative URL is kept (the tap serves the upstream's
// paths, so it resolves to the tap already); an absolute one naming the upstream's
// origin is pointed at the tap, keeping its path and query byte for byte; one
// naming another origin is kept, and note says so.
func (p *HTTPTap) rewriteEndpoint(data, clientHost string) (rewritten string, changed bool, session, note string) {
	u, err := url.Parse(data)
	if err != nil {
		return data, false, "", "the endpoint is not a URL: not rewritten"
	}
	session = sessionFromQuery(u.RawQuery)
	if u.Host == "" {
		return data, false, session, ""
	}
	cmp := *u
	if cmp.Scheme == "" {
		cmp.Scheme = p.opts.Upstream.Scheme // a scheme-relative URL
	}
	if !sameHostPort(&cmp, p.opts.Upstream) {
		return data, false, session, "the endpoint names another origin than the upstream's: not rewritten"
	}
	// Keep everything after the authority as it was sent.
	rest := data
	if i := strings.Index(rest, "//"); i >= 0 {
		rest = rest[i+2:]
	}
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[i:]
	} else {
		rest = ""
	}
	prefix := "http://"
	if u.Scheme == "" {
		prefix = "//"
	}
	return prefix + clientHost + rest, true, session, ""
}

// sameHostPort compares two URLs' hosts with default ports filled in.
func sameHostPort(a, b *url.URL) bool {
	port := func(u *url.URL) string {
		if p := u.Port(); p != "" {
			return p
		}
		if u.Scheme == "https" {
			return "443"
		}
		return "80"
	}
	return strings.EqualFold(a.Hostname(), b.Hostname()) && port(a) == port(b)
}

// connID names a connection without a session.
func connID(n uint64) string { return "conn-" + strconv.FormatUint(n, 10) }
