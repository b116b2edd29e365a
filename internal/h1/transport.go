// Package h1 is a synchronous HTTP/1.1 client transport: an http.RoundTripper
// that does each request on the caller's goroutine. It takes an idle keep-alive
// connection of the host from a small pool (or dials), writes the request from a
// pooled buffer, reads the status line and headers, and returns a response whose
// Body reads from the connection and gives it back to the pool at its end or at
// Close.
//
// net/http's client runs two goroutines per connection (a read loop and a write
// loop) and hands every request to them and the response back: two goroutine
// switches per request, plus the header maps, wrappers and channels around
// them. For a client that sends small requests one after the other on a few
// connections, as an MCP client does, that is most of its CPU. This transport
// does the same wire work without them.
//
// It speaks plain http:// only and does not use proxies: anything else (https,
// a proxied URL) goes to its Fallback, net/http by default. It does not ask for
// compression, reports only WroteRequest to an httptrace.ClientTrace, and
// rejects obsolete line folding and 101 Switching Protocols.
package h1

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults of Options.
const (
	DefaultDialTimeout            = 30 * time.Second
	DefaultIdleTimeout            = 90 * time.Second
	DefaultMaxIdleConnsPerHost    = 16
	DefaultMaxResponseHeaderBytes = 1 << 20
	DefaultMaxResponseHeaders     = 256
)

// Options configures a Transport. Zero values mean the defaults above.
type Options struct {
	// DialTimeout bounds connecting to a host.
	DialTimeout time.Duration
	// IdleTimeout is how long a connection may stay idle in the pool before it
	// is closed.
	IdleTimeout time.Duration
	// MaxIdleConnsPerHost caps the idle connections kept per host; more are
	// closed when given back.
	MaxIdleConnsPerHost int
	// MaxResponseHeaderBytes bounds the status lines and headers of one response,
	// interim (1xx) responses included.
	MaxResponseHeaderBytes int
	// MaxResponseHeaders bounds the header lines of one response.
	MaxResponseHeaders int
	// Fallback receives the requests this transport does not do: other schemes
	// than http, and URLs Proxy gives a proxy for. Nil means
	// http.DefaultTransport.
	Fallback http.RoundTripper
	// Proxy, if set, is asked for each request (as http.Transport.Proxy is); a
	// request with a proxy goes to Fallback.
	Proxy func(*http.Request) (*url.URL, error)
}

// Transport is the synchronous HTTP/1.1 round tripper. It is safe for concurrent
// use; make it with New.
type Transport struct {
	o      Options
	dialer net.Dialer

	mu     sync.Mutex
	idle   map[string][]*conn // most recently used last
	nidle  int
	timer  *time.Timer // closes connections idle for too long; one per Transport
	armed  bool
	closed bool // Close was called: connections given back are closed

	noPeek bool // tests: reuse idle connections without checking them

	last atomic.Pointer[target] // the last URL's request URI: see requestURI
}

var _ http.RoundTripper = (*Transport)(nil)

// New returns a Transport with the options o (nil: the defaults).
func New(o *Options) *Transport {
	t := &Transport{idle: make(map[string][]*conn)}
	if o != nil {
		t.o = *o
	}
	if t.o.DialTimeout <= 0 {
		t.o.DialTimeout = DefaultDialTimeout
	}
	if t.o.IdleTimeout <= 0 {
		t.o.IdleTimeout = DefaultIdleTimeout
	}
	if t.o.MaxIdleConnsPerHost <= 0 {
		t.o.MaxIdleConnsPerHost = DefaultMaxIdleConnsPerHost
	}
	if t.o.MaxResponseHeaderBytes <= 0 {
		t.o.MaxResponseHeaderBytes = DefaultMaxResponseHeaderBytes
	}
	if t.o.MaxResponseHeaders <= 0 {
		t.o.MaxResponseHeaders = DefaultMaxResponseHeaders
	}
	if t.o.Fallback == nil {
		t.o.Fallback = http.DefaultTransport
	}
	t.dialer = net.Dialer{Timeout: t.o.DialTimeout, KeepAlive: 30 * time.Second}
	return t
}

// RoundTrip sends req and returns the response once its headers are read; see
// the package documentation.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL == nil {
		closeBody(req)
		return nil, errors.New("h1: request without a URL")
	}
	if req.URL.Scheme != "http" || t.proxied(req) {
		return t.o.Fallback.RoundTrip(req)
	}
	if req.URL.Host == "" {
		closeBody(req)
		return nil, errors.New("h1: request URL without a host")
	}
	ctx := req.Context()
	if err := ctx.Err(); err != nil {
		closeBody(req)
		return nil, err
	}
	w, err := t.encode(req)
	if err != nil {
		closeBody(req)
		return nil, err
	}
	defer w.free()
	key := hostKey(req.URL)
	for attempt := 0; ; attempt++ {
		c, err := t.get(ctx, key, attempt > 0)
		if err != nil {
			w.closeStream()
			closeBody(req)
			return nil, err
		}
		resp, retry, err := c.roundTrip(ctx, req, w)
		if err == nil {
			w.closeStream()
			return resp, nil
		}
		// A connection from the pool that the server had closed: nothing of a
		// response came. Send it once more on a new connection (see retryable).
		if attempt == 0 && retry && ctx.Err() == nil && w.rewind(req) {
			continue
		}
		w.closeStream()
		closeBody(req)
		return nil, err
	}
}

// proxied reports whether the Proxy function names a proxy for req.
func (t *Transport) proxied(req *http.Request) bool {
	if t.o.Proxy == nil {
		return false
	}
	u, err := t.o.Proxy(req)
	return err != nil || u != nil
}

// hostKey is the pool key: host and port.
func hostKey(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	return net.JoinHostPort(u.Hostname(), "80")
}

func closeBody(req *http.Request) {
	if req.Body != nil {
		_ = req.Body.Close()
	}
}

// peekAfter is how long a connection must have been idle for get to check it
// with a peek before reuse. One given back more recently is reused unchecked:
// a server closes a keep-alive connection when it has been idle for seconds
// (or at once, answering with Connection: close, which is not kept), and in
// the rare case that one crosses a request anyway the failure is the one that
// RoundTrip retries on a new connection (see conn.retryable): not one byte of a
// response arrived on a reused connection. The peek (a system call) is most of
// what reuse costs beyond the write and read. What goes unseen in that second:
// bytes a server sends unasked on an idle connection arriving after it was
// given back (with none buffered then) are read as the next response: that
// call fails with the stray response's status (a 408, say), or, for a JSON
// body, the JSON-RPC layer refuses a reply whose id matches no request.
const peekAfter = time.Second

// get returns an idle connection of key that is still open, or dials a new one
// (always, when fresh), watching ctx (see watch).
func (t *Transport) get(ctx context.Context, key string, fresh bool) (*conn, error) {
	if !fresh {
		now := time.Now()
		for {
			t.mu.Lock()
			list := t.idle[key]
			if len(list) == 0 {
				t.mu.Unlock()
				break
			}
			c := list[len(list)-1]
			list[len(list)-1] = nil
			t.idle[key] = list[:len(list)-1]
			t.nidle--
			t.mu.Unlock()
			idle := now.Sub(c.idleAt)
			if idle < t.o.IdleTimeout && c.br.Buffered() == 0 && (t.noPeek || idle < peekAfter || c.alive()) && c.watchContext(ctx) {
				c.reused = true
				return c, nil
			}
			c.close()
		}
	}
	nc, err := t.dialer.DialContext(ctx, "tcp", key)
	if err != nil {
		return nil, fmt.Errorf("h1: dial %s: %w", key, err)
	}
	c := newConn(t, key, nc)
	c.watchContext(ctx) // true: c has no earlier registration
	return c, nil
}

// put keeps an idle connection, or closes it when the host has enough.
func (t *Transport) put(c *conn) {
	c.idleAt = time.Now()
	t.mu.Lock()
	list := t.idle[c.key]
	if t.closed || len(list) >= t.o.MaxIdleConnsPerHost {
		t.mu.Unlock()
		c.close()
		return
	}
	t.idle[c.key] = append(list, c)
	t.nidle++
	if !t.armed {
		t.armed = true
		if t.timer == nil {
			t.timer = time.AfterFunc(t.o.IdleTimeout, t.sweep)
		} else {
			t.timer.Reset(t.o.IdleTimeout)
		}
	}
	t.mu.Unlock()
}

// sweep closes the connections idle for IdleTimeout and sets the timer for the
// next one to expire.
func (t *Transport) sweep() {
	now := time.Now()
	var expired []*conn
	var next time.Time
	t.mu.Lock()
	for key, list := range t.idle {
		kept := list[:0]
		for _, c := range list {
			if now.Sub(c.idleAt) >= t.o.IdleTimeout {
				expired = append(expired, c)
				continue
			}
			if next.IsZero() || c.idleAt.Before(next) {
				next = c.idleAt
			}
			kept = append(kept, c)
		}
		clear(list[len(kept):])
		if len(kept) == 0 {
			delete(t.idle, key)
		} else {
			t.idle[key] = kept
		}
	}
	t.nidle -= len(expired)
	t.armed = !next.IsZero()
	if t.armed {
		t.timer.Reset(next.Add(t.o.IdleTimeout).Sub(now))
	}
	t.mu.Unlock()
	for _, c := range expired {
		c.close()
	}
}

// CloseIdleConnections closes every idle connection. Connections in use are
// given back (and kept) as usual when their responses end.
func (t *Transport) CloseIdleConnections() {
	t.mu.Lock()
	var all []*conn
	for key, list := range t.idle {
		all = append(all, list...)
		delete(t.idle, key)
	}
	t.nidle = 0
	if t.timer != nil {
		t.timer.Stop()
	}
	t.armed = false
	t.mu.Unlock()
	for _, c := range all {
		c.close()
	}
	if cl, ok := t.o.Fallback.(interface{ CloseIdleConnections() }); ok && t.o.Fallback != http.DefaultTransport {
		cl.CloseIdleConnections()
	}
}

// Close closes the idle connections, and those in use when their responses
// end: nothing stays open once they have. Requests may still be sent; their
// connections are closed after them.
func (t *Transport) Close() {
	t.mu.Lock()
	t.closed = true
	t.mu.Unlock()
	t.CloseIdleConnections()
}

// IdleConns returns how many idle connections the pool holds.
func (t *Transport) IdleConns() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.nidle
}
