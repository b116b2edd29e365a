package rpcconn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpkit/mcpkit/internal/lazydone"
	"github.com/mcpkit/mcpkit/internal/rpcshared"
	"github.com/mcpkit/mcpkit/jsonrpc"
)

// Stream carries framed JSON-RPC messages; transport.Conn satisfies it. Write must not
// retain its argument after returning.
type Stream interface {
	Read(ctx context.Context) ([]byte, error)
	Write(ctx context.Context, msg []byte) error
	Close() error
}

// ResponseStream is a Stream that takes a success response together with the
// id of its request, so that it can route the response without reading it
// again (transport.ResponseConn satisfies it). The connection calls it for the
// responses it encodes itself; every other message goes to Write.
type ResponseStream interface {
	Stream
	WriteResponse(ctx context.Context, id jsonrpc.ID, msg []byte) error
}

// RequestStream is a Stream that takes a request together with its id,
// method and params, so that it can send it without reading it again
// (transport.RequestConn satisfies it). The connection calls it for the
// requests of CallCheckedJSON, whose params the caller vouches for; every
// other message goes to Write.
type RequestStream interface {
	Stream
	WriteRequest(ctx context.Context, id jsonrpc.ID, method string, params json.RawMessage, msg []byte) error
}

// Handler answers incoming requests and notifications. For a notification the
// result is ignored. A returned *jsonrpc.Error reaches the peer as is; any other error becomes
// jsonrpc.CodeInternalError with the error's text.
type Handler interface {
	Handle(ctx context.Context, msg *jsonrpc.Message) (result any, err error)
}

// OrderedHandler is a Handler some of whose requests change what later messages
// of the connection mean (MCP's initialize, for one), so that they must take effect
// in arrival order. The read loop asks InOrder about every request it reads, before
// it reads the next message; a request for which it reports true runs on the read
// loop, like a notification, and has finished (its answer written) before the next
// message is handled. Such a handler must not make calls on the same connection and
// wait for their answers. Every other request runs concurrently as usual. Requests
// inside a batch, and requests pushed with Receive, are not asked about.
type OrderedHandler interface {
	Handler
	// InOrder reports whether msg, a request, must run in arrival order. It is
	// called on the read loop and should be quick.
	InOrder(msg *jsonrpc.Message) bool
}

// HandlerFunc adapts a function to Handler.
type HandlerFunc func(ctx context.Context, msg *jsonrpc.Message) (any, error)

// Handle calls f.
func (f HandlerFunc) Handle(ctx context.Context, msg *jsonrpc.Message) (any, error) {
	return f(ctx, msg)
}

// ConnOptions configures a Conn. The zero value is usable: it rejects every incoming
// request with CodeMethodNotFound and every batch with CodeInvalidRequest.
type ConnOptions struct {
	// Handler answers incoming requests and notifications. Requests run concurrently,
	// each on its own goroutine (goroutines are reused from one request to the next);
	// notifications run one at a time, in arrival order, on
	// the connection's read loop (so they must not make calls on the same connection
	// and wait for the answer), as do the requests an OrderedHandler wants run in
	// arrival order. On a connection started with StartPush, both run on
	// the goroutine that called Receive (see Receive).
	Handler Handler
	// AllowBatch reports whether an incoming JSON array (a batch) is accepted now.
	AllowBatch func() bool
	// CallCancelled is called when the context of an outgoing Call ends before its
	// response arrives, e.g. to tell the peer to stop working on it.
	CallCancelled func(id jsonrpc.ID, cause error)
	// Logger receives protocol problems (unmatched responses, failed writes). Nil
	// means slog.Default().
	Logger *slog.Logger
	// OnDone, if set, runs once when the connection has ended, on the read
	// loop's goroutine, just before Done is closed (so whoever waits on Done sees
	// its effects) — an owner needs no goroutine of its own parked on Done to
	// clean up after the connection. It must not call Close.
	OnDone func()
	// Hooks, if set, stands for AllowBatch, CallCancelled and OnDone where they
	// are nil: one value whose methods the connection calls, where three closures
	// would cost three allocations for every connection.
	Hooks ConnHooks
	// NewID, if set, makes the id of each outgoing call (it must never repeat
	// on the connection). Nil numbers them 1, 2, 3… (a counter, no
	// allocation). A transport shared by replicas uses ids that name the
	// replica, so that an answer landing on another replica finds its way back.
	NewID func() jsonrpc.ID
}

// ConnHooks is ConnOptions' AllowBatch, CallCancelled and OnDone as methods.
type ConnHooks interface {
	AllowBatch() bool
	CallCancelled(id jsonrpc.ID, cause error)
	OnDone()
}

// Conn is one JSON-RPC connection: it reads messages from a Stream, matches responses
// to outgoing calls and runs the handler for incoming requests.
type Conn struct {
	stream Stream
	opts   ConnOptions // opts.Logger is never nil

	nextID  atomic.Int64
	mu      sync.Mutex
	pending map[jsonrpc.ID]chan *jsonrpc.Message // outgoing calls awaiting a response
	running inflight                             // incoming requests being handled
	cause   error                                // what the stream said of its end, beyond a bare io.EOF; set with closed
	closed  bool
	closing atomic.Bool // Close was called: an end of stream is ours, not the peer's
	// readEnded is set when the read loop has stopped reading: a handler goroutine
	// that finishes then exits instead of waiting for work (a connection that served
	// a single request, as in stateless HTTP, arms no idle timer).
	readEnded atomic.Bool

	handlers sync.WaitGroup // incoming requests running
	loop     *readLoop      // made by Start: a pushed connection has none

	done lazydone.Done // closed when the connection has ended; a channel only for those who wait
	err  error         // why the read loop ended; set before done is closed

	push pushState // see StartPush
}

// readLoop is what a connection started with Start adds: the base context of
// its handlers and the handler goroutines its read loop hands requests to. A
// pushed connection (an idle HTTP session) does without.
type readLoop struct {
	cancel  context.CancelFunc // cancels the handlers' base context
	ordered OrderedHandler     // opts.Handler, when it has requests to run in arrival order
	workers sync.WaitGroup     // handler goroutines, running a request or waiting for one
	// idle hands a request to a handler goroutine waiting for work. The read loop
	// alone uses these two fields: it makes the channel at the second request, so a
	// connection that serves one request keeps no goroutine waiting.
	idle     chan func()
	requests int
}

// NewConn returns a connection over s. Call Start to begin reading.
func NewConn(s Stream, opts ConnOptions) *Conn {
	c := new(Conn)
	InitConn(c, s, opts)
	return c
}

// InitConn makes c, a zero Conn, a connection over s, as NewConn does: for a
// Conn kept inside a larger value, so that both take one allocation (a server
// session made for each stateless request). c must not be copied afterwards.
func InitConn(c *Conn, s Stream, opts ConnOptions) {
	c.stream, c.opts = s, opts
	if c.opts.Logger == nil {
		c.opts.Logger = slog.Default()
	}
}

// Start begins reading in a goroutine owned by the connection (or see StartPush). Handlers receive
// contexts derived from ctx. The connection ends when the stream does, or on Close.
func (c *Conn) Start(ctx context.Context) {
	l := &readLoop{}
	ctx, l.cancel = context.WithCancel(ctx)
	l.ordered, _ = c.opts.Handler.(OrderedHandler)
	c.loop = l
	if s, ok := c.stream.(DecodedReplyStream); ok {
		s.SetDecodedReplyHandler(c.takeDecoded)
	} else if s, ok := c.stream.(ReplyStream); ok {
		s.SetReplyHandler(c.takeReply)
	}
	go c.readLoop(ctx)
}

// ReplyStream is a Stream that can hand the reply to a request straight to the
// connection, on the goroutine that wrote the request, instead of through Read
// and the read loop (streamable.ClientConn does, for a JSON reply).
type ReplyStream interface {
	Stream
	// SetReplyHandler sets the function that receives such a reply; it reports
	// whether it took the message (a response), and otherwise the stream
	// delivers it through Read. It is set once, before the first Write.
	SetReplyHandler(func(msg []byte) bool)
}

// DecodedReplyStream is a ReplyStream that hands the reply over decoded (it
// decodes it anyway, to match it to its request), sparing a second decode.
type DecodedReplyStream interface {
	Stream
	// SetDecodedReplyHandler is SetReplyHandler for a handler that takes the
	// decoded response, which it may keep.
	SetDecodedReplyHandler(func(m *jsonrpc.Message) bool)
}

// takeDecoded is the decoded reply handler: it delivers a response to its
// waiting call.
func (c *Conn) takeDecoded(m *jsonrpc.Message) bool {
	if !m.IsResponse() {
		return false
	}
	c.deliver(m)
	return true
}

// takeReply is the reply handler: it delivers a response to its waiting call.
func (c *Conn) takeReply(data []byte) bool {
	if jsonrpc.IsBatch(data) {
		return false
	}
	msg, err := jsonrpc.Decode(data)
	if err != nil || !msg.IsResponse() {
		return false
	}
	c.deliver(msg)
	return true
}

// Done is closed when the connection has ended.
func (c *Conn) Done() <-chan struct{} { return c.done.Wait() }

// Err returns why the connection ended: nil for a clean end of stream or Close, the
// read error otherwise. It is meaningful once Done is closed.
func (c *Conn) Err() error {
	if c.done.IsClosed() {
		return c.err
	}
	return nil
}

// handlerGrace bounds how long Close waits for handlers to return after their
// contexts were cancelled.
const handlerGrace = 5 * time.Second

// Close closes the stream, waits for the read loop to stop, and waits (at most a few
// seconds) for running handlers, whose contexts are cancelled, to return. A handler
// that ignores its context is left behind rather than blocking Close.
func (c *Conn) Close() error {
	c.closing.Store(true)
	err := c.stream.Close()
	if c.push.on {
		c.End(nil) // the transport may already have
	}
	<-c.done.Wait()
	if !c.waitHandlers() {
		c.opts.Logger.Warn("jsonrpc: Close gave up waiting for handlers that ignore their context")
		return err
	}
	if c.loop != nil {
		c.loop.workers.Wait() // idle handler goroutines leave as soon as done is closed
	}
	return err
}

func (c *Conn) readLoop(ctx context.Context) {
	var err error
	for {
		var data []byte
		data, err = c.stream.Read(ctx)
		if err != nil {
			if errors.Is(err, jsonrpc.ErrMessageTooLarge) {
				c.rejectTooLarge(ctx, err)
				continue
			}
			break
		}
		if jsonrpc.IsBatch(data) {
			c.handleBatch(ctx, data)
			continue
		}
		msg, derr := jsonrpc.Decode(data)
		if derr != nil {
			c.replyDecodeError(ctx, msg, derr)
			continue
		}
		c.dispatch(ctx, msg, nil)
	}
	c.readEnded.Store(true) // no request can come any more: handler goroutines need not wait
	if errors.Is(err, io.EOF) && !c.closing.Load() {
		// The peer has finished sending, not necessarily reading: answer what
		// it asked before going (stdio clients often close stdin right after
		// their last request). Calls of ours can get no reply any more; they
		// learn what the stream said of its end, if more than io.EOF (a stdio
		// server's clean exit and its last stderr lines).
		cause := err
		if cause == io.EOF {
			cause = nil
		}
		c.failPending(cause)
		c.waitHandlers()
	}
	if errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) {
		err = nil
	}
	c.shutdown(err)
}

// failPending ends every call waiting for a reply, and every later one, with
// jsonrpc.ErrClosed, joined with cause (what the stream said of its end) when it is not nil.
func (c *Conn) failPending(cause error) {
	c.mu.Lock()
	if !c.closed {
		c.closed, c.cause = true, cause
	}
	for id, ch := range c.pending {
		delete(c.pending, id)
		close(ch)
	}
	c.mu.Unlock()
}

// waitHandlers waits, at most handlerGrace, for running handlers to return.
func (c *Conn) waitHandlers() bool {
	finished := make(chan struct{})
	go func() { c.handlers.Wait(); close(finished) }()
	t := time.NewTimer(handlerGrace)
	defer t.Stop()
	select {
	case <-finished:
		return true
	case <-t.C:
		return false
	}
}

// rejectTooLarge answers a message the transport dropped for its size: a request gets
// an error with its own id when the transport kept enough of it to read the id, and
// the peer is told with a null id otherwise. A dropped response fails its call.
func (c *Conn) rejectTooLarge(ctx context.Context, err error) {
	e := &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "invalid request: " + err.Error()}
	var tl *jsonrpc.TooLargeError
	if !errors.As(err, &tl) {
		c.writeError(ctx, jsonrpc.NullID(), e)
		return
	}
	id, isResponse := tl.ID()
	switch {
	case isResponse && id.IsValid():
		c.deliver(&jsonrpc.Message{ID: id, Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the response was dropped: " + err.Error()}})
	case id.IsValid():
		c.writeError(ctx, id, e)
	default:
		// No id before the cut: a notification, or a request whose id comes late.
		c.opts.Logger.Warn("jsonrpc: dropped an oversized message", "error", err)
		c.writeError(ctx, jsonrpc.NullID(), e)
	}
}

// closedErrorLocked is what a call of method returns once the connection has
// ended: jsonrpc.ErrClosed, and why (a stdio server's exit status, say). c.mu is held.
func (c *Conn) closedErrorLocked(method string) error {
	if c.cause != nil {
		return fmt.Errorf("calling %s: %w: %w", method, jsonrpc.ErrClosed, c.cause)
	}
	return fmt.Errorf("calling %s: %w", method, jsonrpc.ErrClosed)
}

func (c *Conn) shutdown(err error) {
	c.failPending(err)
	if c.loop != nil {
		c.loop.cancel()
	}
	c.err = err
	if c.opts.OnDone != nil {
		c.opts.OnDone()
	} else if c.opts.Hooks != nil {
		c.opts.Hooks.OnDone()
	}
	c.done.Close()
}

func (c *Conn) replyDecodeError(ctx context.Context, msg *jsonrpc.Message, err error) {
	var e *jsonrpc.Error
	if !errors.As(err, &e) {
		e = &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: err.Error()}
	}
	id := jsonrpc.NullID()
	if msg != nil {
		if msg.IsResponse() {
			c.opts.Logger.Warn("jsonrpc: dropping malformed response", "id", msg.ID, "error", e.Message)
			return
		}
		if msg.ID.IsValid() {
			id = msg.ID
		}
	}
	c.writeError(ctx, id, e)
}

// dispatch routes one decoded message. For a request inside a batch, collect receives
// the response instead of the stream.
func (c *Conn) dispatch(ctx context.Context, msg *jsonrpc.Message, collect func(*jsonrpc.Message)) {
	switch {
	case msg.IsResponse():
		c.deliver(msg)
	case msg.IsNotification():
		if _, err := c.invoke(ctx, msg); err != nil {
			c.opts.Logger.Debug("jsonrpc: notification handler failed", "method", msg.Method, "error", err)
		}
	default:
		// A request that must take effect in arrival order runs here, on the read
		// loop, before the next message is read.
		inOrder := collect == nil && c.loop != nil && c.loop.ordered != nil && c.loop.ordered.InOrder(msg)
		c.startRequest(ctx, msg, collect, inOrder)
	}
}

func (c *Conn) deliver(msg *jsonrpc.Message) {
	c.mu.Lock()
	ch, ok := c.pending[msg.ID]
	delete(c.pending, msg.ID)
	c.mu.Unlock()
	if !ok {
		c.opts.Logger.Warn("jsonrpc: response to no pending call", "id", msg.ID)
		return
	}
	ch <- msg
}

// errCancelledByPeer is the cause of a handler context the peer cancelled; its
// response is not sent.
var errCancelledByPeer = errors.New("jsonrpc: request cancelled by the peer")

// startRequest runs the handler of one incoming request: on a handler goroutine
// (the read loop's requests), on the caller's goroutine (sync: a pushed
// request, see Receive, or one the read loop runs in arrival order, see
// OrderedHandler), or in place for a batch element (collect set).
func (c *Conn) startRequest(ctx context.Context, msg *jsonrpc.Message, collect func(*jsonrpc.Message), sync bool) {
	// The context points at the message's own id: no copy of it to allocate.
	replyCtx := context.WithValue(ctx, rpcshared.RelatedKey{}, &msg.ID)
	hctx, cancel := context.WithCancelCause(replyCtx)
	c.mu.Lock()
	if sync && c.closed {
		// Pushed after the connection ended: nobody can receive an answer.
		c.mu.Unlock()
		cancel(nil)
		return
	}
	if c.running.find(msg.ID) >= 0 {
		c.mu.Unlock()
		cancel(nil)
		e := &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: fmt.Sprintf("invalid request: id %v is already in use by a request in progress", msg.ID)}
		c.respond(replyCtx, msg.ID, nil, e, collect)
		return
	}
	c.running.add(msg.ID, cancel)
	c.handlers.Add(1)
	c.mu.Unlock()
	run := func() {
		result, err := c.invoke(hctx, msg)
		// The id is free again before the answer goes out: a peer may reuse it as
		// soon as it has the answer.
		c.mu.Lock()
		c.running.remove(msg.ID)
		c.mu.Unlock()
		peerCancelled := errors.Is(context.Cause(hctx), errCancelledByPeer)
		cancel(nil)
		if collect != nil || !peerCancelled { // a request the peer cancelled gets no answer
			c.respond(replyCtx, msg.ID, result, err, collect)
		}
	}
	if collect != nil || sync {
		run() // batch elements are already on their own goroutines
		c.handlers.Done()
		return
	}
	c.goHandler(run)
}

// handlerIdleTimeout is how long a handler goroutine waits for another request
// after finishing one before it exits.
const handlerIdleTimeout = time.Second

// goHandler runs run on a handler goroutine: one waiting for work if there is
// one, a new one otherwise. Reusing goroutines keeps their stacks, which handlers
// (JSON decoding, reflection) grow on almost every request: growing a fresh 8 KiB
// stack costs more than the rest of the goroutine's start.
// It is called by the read loop only.
func (c *Conn) goHandler(run func()) {
	l := c.loop
	l.requests++
	if l.idle == nil && l.requests > 1 {
		l.idle = make(chan func())
	}
	select {
	case l.idle <- run: // never ready while idle is nil
	default:
		l.workers.Add(1)
		go c.handlerLoop(run, l.idle)
	}
}

// handlerLoop runs requests, taking the next from idle, until none comes for
// handlerIdleTimeout or the connection ends. With a nil idle it runs one request.
func (c *Conn) handlerLoop(run func(), idle chan func()) {
	defer c.loop.workers.Done()
	var t *time.Timer
	for {
		run()
		c.handlers.Done()
		if idle == nil || c.readEnded.Load() {
			return
		}
		if t == nil {
			t = time.NewTimer(handlerIdleTimeout)
		} else {
			t.Reset(handlerIdleTimeout)
		}
		select {
		case run = <-idle:
		case <-t.C:
			return
		case <-c.done.Wait():
			t.Stop()
			return
		}
	}
}

// CancelIncoming cancels the context of the incoming request id, if it is still
// running; its response will not be sent. It reports whether such a request existed.
func (c *Conn) CancelIncoming(id jsonrpc.ID) bool {
	c.mu.Lock()
	cancel, ok := c.running.get(id)
	c.mu.Unlock()
	if ok {
		cancel(errCancelledByPeer)
	}
	return ok
}
