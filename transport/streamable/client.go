package streamable

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpkit/mcpkit/internal/h1"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/transport"
)

// Defaults of ClientOptions.
const (
	clientDefaultMaxReconnects     = 5
	clientDefaultReconnectDelay    = time.Second
	clientDefaultMaxReconnectDelay = 30 * time.Second
	clientDefaultCloseTimeout      = 5 * time.Second
	clientDefaultMaxMessageSize    = transport.DefaultClientMaxMessageSize
	clientQueueSize                = 16 // messages read and not yet taken by Read; each slot costs every session 24 bytes
)

// ClientOptions configures [NewClientConn]. The zero value (and nil) is usable.
type ClientOptions struct {
	// HTTPClient sends every request. Its Timeout, if any, must allow for SSE
	// streams that stay open as long as a tool runs.
	//
	// Nil means the client's own synchronous HTTP/1.1 transport for an http://
	// URL that no proxy from the environment (http.ProxyFromEnvironment) applies
	// to: each request is written and its response read on the calling goroutine,
	// over a small pool of keep-alive connections of this ClientConn that Close
	// closes; a redirect, and any https:// or proxied request, goes through
	// net/http. A call then costs about 0.7 of the client CPU it costs on
	// net/http's transport (bench/RESULTS.md, "Client path, part 3"). For any
	// other URL, nil means http.DefaultClient. To keep net/http for every request
	// (its HTTP/2, compression, every httptrace hook, connections shared between
	// clients), pass http.DefaultClient or a client of your own.
	HTTPClient *http.Client

	// Header is added to every request (POST, GET and DELETE), for example an
	// Authorization header. It cannot replace the headers the transport sets itself:
	// Accept, Content-Type, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-Id,
	// Mcp-Method and Mcp-Name. NewClientConn copies it. Headers that depend on the
	// message (Mcp-Param-{Name}) come from the context of each Write instead: see
	// transport.WithHeader.
	Header http.Header

	// Logger receives diagnostics: a missing GET stream (debug), streams that are
	// resumed or given up (debug, warn), session expiry (warn). Nil means
	// slog.Default().
	Logger *slog.Logger

	// MaxReconnects is how many reconnection attempts in a row may fail before the
	// client gives up on a stream: a request whose SSE stream it was resuming then
	// fails with a JSON-RPC error, and the standalone GET stream stops until the
	// next re-initialization. An attempt fails when it gets no connection, an error
	// status, or a stream that ends without progress (no message, no new event id;
	// for the standalone stream, only one that breaks). Zero means 5; negative
	// disables resumption.
	MaxReconnects int

	// ReconnectDelay is the wait before reconnecting a stream whose server sent no
	// retry field; it doubles after each failed attempt, up to MaxReconnectDelay. A
	// retry field from the server replaces it. Zero means one second.
	ReconnectDelay time.Duration

	// MaxReconnectDelay caps the doubling of ReconnectDelay. Zero means 30 seconds.
	MaxReconnectDelay time.Duration

	// MaxMessageSize bounds one message: a JSON reply body or one SSE event. A
	// request whose response is larger fails saying so (an error wrapping
	// jsonrpc.ErrMessageTooLarge). Zero means
	// transport.DefaultClientMaxMessageSize (32 MiB).
	MaxMessageSize int

	// CloseTimeout bounds the DELETE that Close sends to end the session. Zero means
	// five seconds.
	CloseTimeout time.Duration

	// DisableStandaloneStream stops the client from opening the GET stream on which a
	// server sends requests and notifications unrelated to any client request.
	DisableStandaloneStream bool

	// OnSessionExpired is called after the server answered 404 for the session and
	// the client tried to start a new one (see ClientConn): newSessionID is the new
	// session (empty if the server issues none) and err is nil if re-initialization
	// succeeded. It runs on the goroutine of the request that met the 404, outside
	// any lock, and may use the connection; it must return promptly, since Close
	// waits for it. Whatever the server kept for the old session (subscriptions, log
	// level) is gone: this is the place to set it up again.
	OnSessionExpired func(oldSessionID, newSessionID string, err error)

	// Fallback, if set, is called when the server answers the first initialize
	// request with 400, 404 or 405 before any POST has succeeded: the rule by which
	// the MCP specification recognizes a server that only speaks the older HTTP+SSE
	// transport (2024-11-05). The client writes that initialize request to the Conn
	// Fallback returns and from then on passes every Read, Write and Close to it.
	// ctx is the context of the Write carrying the initialize request: it bounds
	// connecting only, and the returned Conn must outlive it.
	Fallback func(ctx context.Context) (transport.Conn, error)
}

// ClientConn is the client end of a Streamable HTTP connection (MCP 2025-03-26 and
// later). It implements transport.Conn on top of HTTP requests to one MCP endpoint.
//
// Writing: each Write is one POST. For a single request, the POST runs on the
// Write's goroutine: a JSON reply is read before Write returns, and a reply that is
// an SSE stream is read in the background once its headers arrived; every message
// in a reply reaches Read in order. If the Write's context ends while it waits, the
// POST is abandoned and Write returns nil when the request went out (the caller then
// cancels it as MCP says, with notifications/cancelled). A batch of requests is sent
// in the background and its Write returns as soon as it has been written to the
// network. An initialize request waits for the response status, so that a refusal
// is returned by Write, or leads to ClientOptions.Fallback. For
// notifications and responses Write waits for the status and returns an error for
// anything but 2xx; a body the server sends anyway (a C# server answers
// notifications/initialized with an event stream) is read in the background.
//
// Reading: messages from the server arrive through Read. A JSON array (a batch)
// is split into its messages, each read on its own, so that the JSON-RPC layer sees
// responses even when batching was not negotiated. A response is delivered only if
// its request is pending, so duplicates and replays are dropped, as are late answers
// to a request the caller cancelled by writing notifications/cancelled (which also
// stops reading that request's stream).
//
// Failures: every request written gets exactly one response through Read. A request
// that cannot be completed after its Write returned (network error, 5xx, an SSE
// stream that broke and could not be resumed) gets a JSON-RPC error response with its
// id (code -32603, or the server's own JSON-RPC error when an error status carried
// one): one failure fails one call, and the connection stays usable.
//
// Sessions: the Mcp-Session-Id returned with the InitializeResult, and the protocol
// version the result names (Mcp-Protocol-Version), are sent on every later request.
// When the server answers 404 to a request carrying the session id, the session is
// gone, and ClientConn starts a new one on its own: it POSTs the client's last
// initialize request again (without session headers), takes the new session id,
// sends notifications/initialized, retries the request that met the 404 once, logs a
// warning and calls ClientOptions.OnSessionExpired. Concurrent requests that meet the
// same 404 share one re-initialization; a notification is retried the same way; a
// response (to a request of the old session) fails with ErrSessionExpired. If
// re-initialization fails, the request fails, and the next one tries again.
//
// Stateless requests (2026-07-28): a request whose params carry
// io.modelcontextprotocol/protocolVersion in _meta is sent without session headers
// and with the request metadata headers: MCP-Protocol-Version (the _meta version),
// Mcp-Method, and Mcp-Name (encoded as the specification says) for tools/call,
// prompts/get, resources/read and the task methods. Headers the writer puts in the
// Write's context with transport.WithHeader (the Mcp-Param-{Name} headers of a
// tools/call) are added to the POST, to any message. Such a request's event stream
// is never resumed, and a notifications/cancelled naming it is not posted: the
// client closes the request's stream instead, which is how the stateless protocol
// cancels over HTTP. A session never starts without an initialize, so a client
// speaking only the stateless protocol opens no GET stream and sends no DELETE.
//
// Streams: after notifications/initialized the client opens the standalone GET stream
// for server-initiated messages; a server that answers it with a 4xx status (405, as
// many do) has none, which is fine. A request's stream that ends before its response
// is resumed with a GET carrying Last-Event-Id after the server's retry interval, and
// so is the standalone stream (see ClientOptions.MaxReconnects).
type ClientConn struct {
	url  string
	u    *url.URL // url parsed, shared by every request (read only)
	hc   *http.Client
	h1   *h1.Transport // the default transport, when it applies: see ClientOptions.HTTPClient
	hdr  http.Header
	log  *slog.Logger
	opts ClientOptions // defaults applied

	ctx    context.Context // cancelled by Close: ends every background goroutine
	cancel context.CancelFunc
	wg     sync.WaitGroup

	incoming chan []byte                                   // messages for Read
	reply    atomic.Pointer[func(msg []byte) bool]         // see SetReplyHandler
	replyMsg atomic.Pointer[func(m *jsonrpc.Message) bool] // see SetDecodedReplyHandler
	switched chan struct{}                                 // closed when a fallback Conn takes over
	fallback atomic.Pointer[clientFallback]

	reinitMu sync.Mutex // serializes re-initializations

	mu          sync.Mutex
	closed      bool
	session     clientSession
	initMsg     []byte     // the first initialize request, replayed on session expiry
	initID      jsonrpc.ID // its id
	pending     map[jsonrpc.ID]*clientCall
	answered    bool // some POST got a 2xx status: no fallback any more
	initialized bool // notifications/initialized went through
	standalone  bool // the GET stream goroutine is running

	closeOnce sync.Once
	closeErr  error
}

var _ transport.Conn = (*ClientConn)(nil)

// clientFallback holds the Conn that replaced the HTTP transport.
type clientFallback struct{ conn transport.Conn }

// clientSession is the session state sent with each request, with the header values
// prebuilt so that requests share them.
type clientSession struct {
	id            string
	version       string
	gen           uint64 // incremented by each re-initialization
	idHeader      []string
	versionHeader []string
}

func (s *clientSession) setID(id string) {
	s.id, s.idHeader = id, nil
	if id != "" {
		s.idHeader = []string{id}
	}
}

func (s *clientSession) setVersion(v string) {
	s.version, s.versionHeader = v, nil
	if v != "" {
		s.versionHeader = []string{v}
	}
}

// clientProxy finds the proxy of a URL; a variable for the tests.
var clientProxy = http.ProxyFromEnvironment

// errClientClosed is returned by Write after Close.
var errClientClosed = fmt.Errorf("streamable: connection closed: %w", net.ErrClosed)

// NewClientConn returns a connection to the MCP endpoint at rawURL (http or https);
// see [ClientConn] for how it behaves. It does no I/O: the first Write, normally the
// client's initialize request, is the first POST. ctx is checked before anything
// else; its values (not its cancellation) are passed to background requests. Call
// [ClientConn.Close] when done.
func NewClientConn(ctx context.Context, rawURL string, opts *ClientOptions) (*ClientConn, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("streamable: connecting to %s: %w", rawURL, err)
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("streamable: invalid URL: %w", err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("streamable: invalid URL %q: want an absolute http or https URL", rawURL)
	}
	var o ClientOptions
	if opts != nil {
		o = *opts
	}
	switch {
	case o.MaxReconnects == 0:
		o.MaxReconnects = clientDefaultMaxReconnects
	case o.MaxReconnects < 0:
		o.MaxReconnects = 0
	}
	if o.ReconnectDelay <= 0 {
		o.ReconnectDelay = clientDefaultReconnectDelay
	}
	if o.MaxReconnectDelay <= 0 {
		o.MaxReconnectDelay = clientDefaultMaxReconnectDelay
	}
	if o.MaxMessageSize <= 0 {
		o.MaxMessageSize = clientDefaultMaxMessageSize
	}
	if o.CloseTimeout <= 0 {
		o.CloseTimeout = clientDefaultCloseTimeout
	}
	c := &ClientConn{
		url:      u.String(),
		hc:       o.HTTPClient,
		hdr:      clientCustomHeader(o.Header),
		log:      o.Logger,
		opts:     o,
		incoming: make(chan []byte, clientQueueSize),
		switched: make(chan struct{}),
		pending:  make(map[jsonrpc.ID]*clientCall),
	}
	if c.hc == nil {
		c.hc = http.DefaultClient
		if u.Scheme == "http" {
			if p, err := clientProxy(&http.Request{URL: u}); err == nil && p == nil {
				c.h1 = h1.New(nil)
				c.hc = &http.Client{Transport: c.h1}
			}
		}
	}
	if c.log == nil {
		c.log = slog.Default()
	}
	if c.u, err = url.Parse(c.url); err != nil {
		return nil, fmt.Errorf("streamable: invalid URL: %w", err)
	}
	c.ctx, c.cancel = context.WithCancel(context.WithoutCancel(ctx))
	return c, nil
}

// clientCustomHeader copies h with canonical keys, leaving out the headers the
// transport sets itself.
func clientCustomHeader(h http.Header) http.Header {
	out := make(http.Header, len(h))
	for k, v := range h {
		if k = http.CanonicalHeaderKey(k); !clientReservedHeader(k) {
			out[k] = append(out[k], v...)
		}
	}
	return out
}

// SessionID returns the current session id: empty before initialization, or when the
// server uses no sessions.
func (c *ClientConn) SessionID() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.session.id
}

// ProtocolVersion returns the protocol version named by the InitializeResult, which
// the client sends in the Mcp-Protocol-Version header; empty before initialization.
func (c *ClientConn) ProtocolVersion() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.session.version
}

func (c *ClientConn) fallbackConn() transport.Conn {
	if f := c.fallback.Load(); f != nil {
		return f.conn
	}
	return nil
}

// Read returns the next message from the server: from a POST's reply, from the
// standalone GET stream, or a synthesized error response for a request that failed.
// After Close it returns io.EOF.
func (c *ClientConn) Read(ctx context.Context) ([]byte, error) {
	for {
		if fb := c.fallbackConn(); fb != nil {
			return fb.Read(ctx)
		}
		if c.ctx.Err() != nil {
			return nil, io.EOF
		}
		select {
		case msg := <-c.incoming:
			return msg, nil
		case <-c.switched:
		case <-c.ctx.Done():
			return nil, io.EOF
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// Write sends one message (or a 2025-03-26 batch) in a POST. See ClientConn for what
// it waits for and how failures are reported. msg is not retained.
func (c *ClientConn) Write(ctx context.Context, msg []byte) error {
	if fb := c.fallbackConn(); fb != nil {
		return fb.Write(ctx, msg)
	}
	if c.ctx.Err() != nil {
		return errClientClosed
	}
	out, err := clientClassify(msg)
	if err != nil {
		return fmt.Errorf("streamable: not sending a malformed message: %w", err)
	}
	if out.nrequests > 0 {
		return c.writeRequest(ctx, msg, &out)
	}
	if c.cancelStateless(&out) {
		return nil
	}
	return c.writeOneWay(ctx, msg, &out)
}

// WriteRequest implements transport.RequestConn: Write for a request whose
// id, method and params its writer gave, so that it is not read again.
func (c *ClientConn) WriteRequest(ctx context.Context, id jsonrpc.ID, method string, params json.RawMessage, msg []byte) error {
	if fb := c.fallbackConn(); fb != nil {
		return fb.Write(ctx, msg)
	}
	if c.ctx.Err() != nil {
		return errClientClosed
	}
	out := clientRequest(id, method, params)
	return c.writeRequest(ctx, msg, &out)
}

// Close ends the connection: it stops the background streams, makes pending and
// later Reads return io.EOF, and sends DELETE for the session (a 405 answer is fine),
// waiting at most ClientOptions.CloseTimeout for it. After a fallback it closes the
// fallback Conn instead. It returns the DELETE's failure, if any; later calls return
// the same result.
func (c *ClientConn) Close() error {
	c.closeOnce.Do(func() {
		c.mu.Lock()
		c.closed = true
		sess := c.session
		var inline []context.CancelFunc // requests exchanged on their Write's goroutine
		for _, k := range c.pending {
			if k.inline && k.cancel != nil {
				inline = append(inline, k.cancel)
			}
			if k.abort != nil { // under c.mu: the call still holds its connection
				k.abort()
			}
		}
		c.mu.Unlock()
		c.cancel()
		for _, cancel := range inline {
			cancel()
		}
		if fb := c.fallbackConn(); fb != nil {
			c.closeErr = fb.Close()
		} else if sess.id != "" {
			c.closeErr = c.deleteSession(sess)
		}
		c.wg.Wait()
		if c.h1 != nil {
			c.h1.Close()
		}
	})
	return c.closeErr
}

func (c *ClientConn) deleteSession(sess clientSession) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(c.ctx), c.opts.CloseTimeout)
	defer cancel()
	req, err := c.newRequest(ctx, http.MethodDelete, nil, sess)
	if err != nil {
		return err
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return fmt.Errorf("streamable: ending the session: %w", err)
	}
	switch {
	case clientIs2xx(resp.StatusCode), resp.StatusCode == http.StatusNotFound,
		resp.StatusCode == http.StatusMethodNotAllowed:
		clientDiscard(resp)
		return nil
	}
	return fmt.Errorf("streamable: ending the session: %w", clientStatusError(resp, c.opts.MaxMessageSize))
}

// goBackground runs f on a goroutine that Close waits for; it reports false, without
// running f, once the connection is closed.
func (c *ClientConn) goBackground(f func()) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return false
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		f()
	}()
	return true
}

// enqueue hands msg to Read; it reports false if the connection closed first.
func (c *ClientConn) enqueue(msg []byte) bool {
	select {
	case c.incoming <- msg:
		return true
	case <-c.ctx.Done():
		return false
	}
}

// sleep waits d; it reports false if the connection closed first.
func (c *ClientConn) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-c.ctx.Done():
		return false
	}
}

// StatusError is an HTTP response with a status the client could not accept.
type StatusError struct {
	// Method is the HTTP method of the request (POST, GET or DELETE).
	Method string
	// StatusCode is the response's status code.
	StatusCode int
	// Body holds the start of the response body (at most 1 KiB), for diagnostics.
	Body string
	// RPCError is the JSON-RPC error the body carried, if it was one.
	RPCError *jsonrpc.Error
}

// Error implements the error interface.
func (e *StatusError) Error() string {
	s := fmt.Sprintf("%s answered %d %s", e.Method, e.StatusCode, http.StatusText(e.StatusCode))
	switch {
	case e.RPCError != nil:
		s += ": " + e.RPCError.Message
	case e.Body != "":
		s += ": " + e.Body
	}
	return s
}

// Unwrap returns RPCError, so that errors.As finds the server's JSON-RPC error.
func (e *StatusError) Unwrap() error {
	if e.RPCError == nil {
		return nil
	}
	return e.RPCError
}

// ErrSessionExpired is wrapped by the errors of messages that met a 404 for their
// session when the client could not start a new one (or, for a response to a server
// request, did not try: the request belonged to the old session).
var ErrSessionExpired = errors.New("streamable: the server no longer knows the session (404 Not Found): session expired")

// Endpoint returns the URL of the MCP endpoint (transport.EndpointConn).
func (c *ClientConn) Endpoint() string { return c.url }
