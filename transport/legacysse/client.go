package legacysse

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/mcpkit/mcpkit/internal/sse"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/transport"
)

// DefaultEndpointTimeout bounds how long NewClientConn waits for the endpoint event.
const DefaultEndpointTimeout = 10 * time.Second

// closeTimeout bounds how long Close waits for the stream reader to stop once the
// stream's request has been cancelled (it normally stops at once).
const closeTimeout = 5 * time.Second

// ClientOptions configures [NewClientConn]. The zero value (and nil) gives the defaults.
type ClientOptions struct {
	// HTTPClient sends the stream's GET and the message POSTs. Nil means
	// http.DefaultClient. Its Timeout, if any, must not be shorter than the session:
	// it would cut the stream.
	HTTPClient *http.Client

	// Header is added to every request (the GET and each POST), for example an
	// Authorization header.
	Header http.Header

	// EndpointTimeout bounds the wait for the endpoint event, connection included.
	// Zero means DefaultEndpointTimeout.
	EndpointTimeout time.Duration

	// MaxMessageSize bounds one message received on the stream, in bytes; a larger one
	// is dropped and Read returns an error wrapping jsonrpc.ErrMessageTooLarge (the
	// connection goes on). Zero means transport.DefaultClientMaxMessageSize (32 MiB).
	MaxMessageSize int

	// AllowCrossOriginEndpoint lets the endpoint event name a URL on another scheme,
	// host or port than the stream's. By default NewClientConn refuses it, so that a server
	// cannot make the client send its messages (and Header) elsewhere.
	AllowCrossOriginEndpoint bool

	// Logger receives the connection's diagnostics. Nil means slog.Default().
	Logger *slog.Logger
}

// StatusError reports an HTTP response with an unexpected status code.
type StatusError struct {
	Method     string // "GET" for the stream, "POST" for a message
	StatusCode int
	Status     string // as the server sent it, such as "404 Not Found"
	Body       string // the start of the response body, for diagnostics
}

// Error implements the error interface.
func (e *StatusError) Error() string {
	msg := fmt.Sprintf("legacysse: %s answered %s", e.Method, e.Status)
	if e.Body != "" {
		msg += ": " + e.Body
	}
	return msg
}

// maxErrorBody is how much of an error response's body is kept in a StatusError.
const maxErrorBody = 512

func newStatusError(method string, resp *http.Response) *StatusError {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	return &StatusError{Method: method, StatusCode: resp.StatusCode, Status: resp.Status, Body: strings.TrimSpace(string(body))}
}

// ErrEndpointTimeout is wrapped by the error NewClientConn returns when the endpoint event
// did not arrive within ClientOptions.EndpointTimeout.
var ErrEndpointTimeout = errors.New("legacysse: timed out waiting for the endpoint event")

var errConnClosed = errors.New("legacysse: connection closed")

// NewClientConn opens the event stream at streamURL, waits for the server's endpoint
// event, and returns a connection that reads the stream's "message" events and POSTs each
// written message to the endpoint.
//
// ctx bounds only the connection attempt; the connection lasts until Close or until
// the server ends the stream. The endpoint event's data is resolved as a URL
// relative to the stream's URL (after redirects), so an endpoint such as
// "messages?session=abc" or "/mcp/messages?sessionId=abc" keeps its own query.
//
// A POST answered with a status other than 2xx fails the requests it carried, not
// the connection: Write returns nil and Read returns a JSON-RPC error response for
// each of them (code -32603, with the status in the error's data). For a
// notification or a response, Write returns a *StatusError instead.
func NewClientConn(ctx context.Context, streamURL string, opts *ClientOptions) (*ClientConn, error) {
	var o ClientOptions
	if opts != nil {
		o = *opts
	}
	if o.HTTPClient == nil {
		o.HTTPClient = http.DefaultClient
	}
	if o.EndpointTimeout <= 0 {
		o.EndpointTimeout = DefaultEndpointTimeout
	}
	if o.MaxMessageSize <= 0 {
		o.MaxMessageSize = transport.DefaultClientMaxMessageSize
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	// The stream outlives ctx: it keeps ctx's values but is cancelled only by Close,
	// or, until the endpoint arrives, by ctx or the endpoint timeout.
	streamCtx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	timer := time.AfterFunc(o.EndpointTimeout, func() { cancel(ErrEndpointTimeout) })
	stopCtx := context.AfterFunc(ctx, func() { cancel(context.Cause(ctx)) })

	resp, dec, endpoint, err := openStream(streamCtx, streamURL, &o)
	timerStopped, ctxStopped := timer.Stop(), stopCtx()
	var cause error
	switch {
	case !timerStopped:
		cause = ErrEndpointTimeout
	case !ctxStopped:
		cause = context.Cause(ctx)
	}
	if cause != nil {
		// The handshake was cut short, or its deadline struck just as it succeeded
		// (the stream is being cancelled, so it cannot be used).
		err = fmt.Errorf("legacysse: connecting to %s: %w", streamURL, cause)
	}
	if err != nil {
		cancel(errConnClosed)
		if resp != nil {
			_ = resp.Body.Close()
		}
		return nil, err
	}
	c := &ClientConn{
		client:     o.HTTPClient,
		header:     o.Header,
		endpoint:   endpoint,
		log:        o.Logger,
		ctx:        streamCtx,
		cancel:     cancel,
		incoming:   make(chan readResult, outgoingQueue),
		synthetic:  make(chan []byte, 1),
		closed:     make(chan struct{}),
		readerDone: make(chan struct{}),
	}
	go c.readLoop(resp.Body, dec)
	return c, nil
}

// openStream sends the GET and reads events up to the endpoint event. It returns the
// response (for its body) whenever it got one, and the resolved endpoint URL.
func openStream(ctx context.Context, rawURL string, o *ClientOptions) (*http.Response, *sse.Decoder, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, nil, "", fmt.Errorf("legacysse: %w", err)
	}
	for k, v := range o.Header {
		req.Header[k] = v
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Cache-Control", "no-cache")
	resp, err := o.HTTPClient.Do(req)
	if err != nil {
		return nil, nil, "", fmt.Errorf("legacysse: opening the event stream: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return resp, nil, "", newStatusError(http.MethodGet, resp)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "" {
		if mt, _, _ := mime.ParseMediaType(ct); mt != "text/event-stream" {
			return resp, nil, "", fmt.Errorf("legacysse: the stream has content type %q, not text/event-stream", ct)
		}
	}
	dec := sse.NewDecoderWithOptions(resp.Body, sse.DecoderOptions{MaxEventSize: o.MaxMessageSize})
	for {
		ev, err := dec.Next()
		if err != nil {
			return resp, nil, "", fmt.Errorf("legacysse: waiting for the endpoint event: %w", err)
		}
		if ev.Type != "endpoint" {
			o.Logger.Warn("legacysse: dropping an event received before the endpoint event", "type", ev.Type)
			continue
		}
		endpoint, err := resolveEndpoint(resp.Request.URL, string(ev.Data), o.AllowCrossOriginEndpoint)
		if err != nil {
			return resp, nil, "", err
		}
		return resp, dec, endpoint, nil
	}
}

// resolveEndpoint resolves the endpoint event's data against the stream's URL.
func resolveEndpoint(base *url.URL, data string, crossOrigin bool) (string, error) {
	ref, err := url.Parse(strings.TrimSpace(data))
	if err != nil {
		return "", fmt.Errorf("legacysse: the endpoint event is not a URL: %w", err)
	}
	u := base.ResolveReference(ref)
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("legacysse: the endpoint %q is not an http URL", u.Redacted())
	}
	if !crossOrigin && (!strings.EqualFold(u.Scheme, base.Scheme) || !strings.EqualFold(u.Host, base.Host)) {
		return "", fmt.Errorf("legacysse: the endpoint %q is not on the stream's origin %s://%s", u.Redacted(), base.Scheme, base.Host)
	}
	u.Fragment, u.RawFragment = "", ""
	if u.Path == "" && u.RawPath == "" {
		u.Path = "/" // "//host:port" names the origin's root
	}
	return u.String(), nil
}

// readResult is one item of the stream: a message, or a non-fatal error.
type readResult struct {
	data []byte
	err  error
}

var _ transport.Conn = (*ClientConn)(nil)

// ClientConn is a client's connection over HTTP+SSE, the [transport.Conn]
// NewClientConn returns: Read returns the stream's "message" events, Write POSTs
// each message to the endpoint the server named.
type ClientConn struct {
	client   *http.Client
	header   http.Header
	endpoint string
	log      *slog.Logger
	ctx      context.Context // the stream's; cancelled by Close
	cancel   context.CancelCauseFunc

	incoming chan readResult // from readLoop, in stream order

	mu         sync.Mutex
	pending    [][]byte    // synthesized error responses not yet read
	synthetic  chan []byte // capacity 1: a token saying pending is not empty
	closeOnce  sync.Once
	closed     chan struct{}
	readerDone chan struct{} // closed when readLoop returns
	readErr    error         // why readLoop returned; set before readerDone closes
}

// readLoop decodes the stream until it ends or the connection is closed.
func (c *ClientConn) readLoop(body io.ReadCloser, dec *sse.Decoder) {
	defer close(c.readerDone)
	defer body.Close()
	for {
		ev, err := dec.Next()
		if errors.Is(err, sse.ErrEventTooLarge) {
			err = fmt.Errorf("legacysse: %w: %w", jsonrpc.ErrMessageTooLarge, err)
			if !c.push(readResult{err: err}) {
				return
			}
			continue
		}
		if err != nil {
			c.readErr = io.EOF
			if err != io.EOF && c.ctx.Err() == nil {
				c.readErr = fmt.Errorf("legacysse: reading the event stream: %w", err)
			}
			return
		}
		if ev.Type != "message" {
			c.log.Debug("legacysse: ignoring an event", "type", ev.Type)
			continue
		}
		if !c.push(readResult{data: ev.Data}) {
			return
		}
	}
}

func (c *ClientConn) push(r readResult) bool {
	select {
	case c.incoming <- r:
		return true
	case <-c.closed:
		return false
	}
}

// Read returns the next message from the stream, or a synthesized error response for
// a request the server refused. It returns io.EOF after Close or once the server has
// ended the stream and everything it sent has been read.
func (c *ClientConn) Read(ctx context.Context) ([]byte, error) {
	for {
		select {
		case <-c.closed:
			return nil, io.EOF
		default:
		}
		if msg := c.popSynthetic(); msg != nil {
			return msg, nil
		}
		select {
		case r := <-c.incoming:
			return r.data, r.err
		case <-c.synthetic:
		case <-c.closed:
			return nil, io.EOF
		case <-c.readerDone:
			select {
			case r := <-c.incoming:
				return r.data, r.err
			default:
			}
			if msg := c.popSynthetic(); msg != nil {
				return msg, nil
			}
			return nil, c.readErr
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

func (c *ClientConn) popSynthetic() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.pending) == 0 {
		return nil
	}
	msg := c.pending[0]
	c.pending[0] = nil
	c.pending = c.pending[1:]
	return msg
}

func (c *ClientConn) pushSynthetic(msgs [][]byte) {
	c.mu.Lock()
	c.pending = append(c.pending, msgs...)
	c.mu.Unlock()
	select {
	case c.synthetic <- nil:
	default:
	}
}

// Write POSTs msg to the endpoint. See NewClientConn for how a refused POST is reported.
func (c *ClientConn) Write(ctx context.Context, msg []byte) error {
	select {
	case <-c.closed:
		return fmt.Errorf("legacysse: write on a closed connection: %w", io.ErrClosedPipe)
	default:
	}
	// The HTTP client may still read a request body after Do returns (when the
	// server answered early), so the body must not be the caller's buffer.
	body := bytes.Clone(msg)
	reqCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(c.ctx, cancel)() // Close abandons pending POSTs
	req, err := http.NewRequestWithContext(reqCtx, http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("legacysse: %w", err)
	}
	req.Header = c.header.Clone()
	if req.Header == nil {
		req.Header = make(http.Header, 1)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.client.Do(req)
	if err != nil {
		if c.ctx.Err() != nil && ctx.Err() == nil {
			return fmt.Errorf("legacysse: write on a closed connection: %w", io.ErrClosedPipe)
		}
		return fmt.Errorf("legacysse: posting a message: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		_, _ = io.CopyN(io.Discard, resp.Body, maxErrorBody) // lets the connection be reused
		return nil
	}
	serr := newStatusError(http.MethodPost, resp)
	if replies := refusalReplies(body, serr); len(replies) > 0 {
		c.log.Warn("legacysse: the server refused a message", "status", serr.Status)
		c.pushSynthetic(replies)
		return nil
	}
	return serr
}

// refusalReplies returns a JSON-RPC error response for each request in msg (a message
// or a batch), reporting that the server refused the POST that carried it.
func refusalReplies(msg []byte, serr *StatusError) [][]byte {
	var msgs []*jsonrpc.Message
	if jsonrpc.IsBatch(msg) {
		msgs, _, _ = jsonrpc.DecodeBatch(msg)
	} else if m, err := jsonrpc.Decode(msg); err == nil {
		msgs = []*jsonrpc.Message{m}
	}
	e := (&jsonrpc.Error{
		Code:    jsonrpc.CodeInternalError,
		Message: "the server refused the message: HTTP " + serr.Status,
	}).WithData(map[string]any{"httpStatus": serr.StatusCode, "body": serr.Body})
	var out [][]byte
	for _, m := range msgs {
		if m != nil && m.IsRequest() {
			out = append(out, jsonrpc.AppendError(nil, m.ID, e))
		}
	}
	return out
}

// Close cancels the stream and POSTs in progress, and waits (boundedly) for the
// stream reader to stop. Read then returns io.EOF and Write fails. It returns nil
// and may be called more than once.
func (c *ClientConn) Close() error {
	c.closeOnce.Do(func() {
		close(c.closed)
		c.cancel(errConnClosed)
		t := time.NewTimer(closeTimeout)
		defer t.Stop()
		select {
		case <-c.readerDone:
		case <-t.C:
			c.log.Warn("legacysse: the stream reader did not stop in time")
		}
	})
	return nil
}
