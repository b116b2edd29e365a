package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpkit/mcpkit/internal/rpcconn"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport"
)

// ClientOptions configures a Client. The zero value is ready to use. Each handler that
// is set makes the client declare the matching capability.
type ClientOptions struct {
	// ProtocolVersion chooses the protocol. Empty (the default) detects the
	// server's era: Connect probes with server/discover at the newest stateless
	// version (2026-07-28), and falls back to initialize at the newest legacy
	// version when the server answers with anything but a DiscoverResult or a
	// recognized 2026-07-28 error, or not within ProbeTimeout. A legacy version
	// (2025-11-25 and older) skips the probe and is asked for in initialize; the
	// client accepts any legacy version it supports in answer. A stateless
	// version speaks only that era: Connect fails if the server does not. A
	// caller that remembers a server's era (ClientSession.ProtocolVersion) can
	// pass it here on later connections to skip the detection.
	ProtocolVersion string
	// ProbeTimeout bounds the server/discover probe of era detection: a server
	// that has not answered by then is taken for a legacy server (some stay
	// silent until initialize). Zero means DefaultProbeTimeout.
	ProbeTimeout time.Duration
	// MaxInputRounds bounds how many times one stateless request is retried to
	// answer the server's input requests (sampling, elicitation, roots). Zero
	// means DefaultMaxInputRounds.
	MaxInputRounds int
	// DisableCache turns off the stateless era's result cache. By default the
	// results of server/discover, the list methods and resources/read are kept
	// for the ttlMs the server gave them, per session (one authorization
	// context, so "private" results may be kept too), and dropped early when a
	// list_changed or resources/updated notification arrives.
	DisableCache bool
	// Capabilities, when set, are declared as they are instead of being derived
	// from the handlers below.
	Capabilities *protocol.ClientCapabilities
	// Roots, when non-nil (even empty), declares the roots capability and answers
	// roots/list. Change them later with ClientSession.SetRoots.
	Roots []protocol.Root
	// RootsHandler, when set, declares the roots capability and answers
	// roots/list instead of Roots: for a client whose roots are not its own
	// (a gateway asks its own clients). ClientSession.SetRoots still tells a
	// legacy server that they changed.
	RootsHandler func(ctx context.Context, cs *ClientSession) (*protocol.ListRootsResult, error)
	// CreateMessageHandler answers sampling/createMessage. This handler,
	// ElicitationHandler and Roots answer the server in both eras: a legacy
	// server sends its requests over the connection; a stateless server asks for
	// the same inside an input_required result, which the client answers through
	// them before retrying its request.
	CreateMessageHandler func(ctx context.Context, cs *ClientSession, p *protocol.CreateMessageParams) (*protocol.CreateMessageResult, error)
	// SamplingWithTools declares that CreateMessageHandler accepts tools (2025-11-25).
	SamplingWithTools bool
	// ElicitationHandler answers elicitation/create.
	ElicitationHandler func(ctx context.Context, cs *ClientSession, p *protocol.ElicitParams) (*protocol.ElicitResult, error)
	// URLElicitation declares that ElicitationHandler handles url mode (2025-11-25).
	URLElicitation bool
	// LoggingMessageHandler receives notifications/message.
	LoggingMessageHandler func(ctx context.Context, cs *ClientSession, p *protocol.LoggingMessageParams)
	// ToolListChangedHandler, PromptListChangedHandler and
	// ResourceListChangedHandler run when the server says a list changed.
	ToolListChangedHandler     func(ctx context.Context, cs *ClientSession)
	PromptListChangedHandler   func(ctx context.Context, cs *ClientSession)
	ResourceListChangedHandler func(ctx context.Context, cs *ClientSession)
	// ResourceUpdatedHandler runs when a subscribed resource changed. It and the
	// list_changed handlers above also receive the notifications of
	// subscriptions/listen streams (ClientSession.Listen) in the stateless era.
	ResourceUpdatedHandler func(ctx context.Context, cs *ClientSession, p *protocol.ResourceUpdatedParams)
	// RequestTimeout bounds every request that has no other deadline. Zero means none.
	RequestTimeout time.Duration
	// Middleware wraps every incoming and outgoing method, first element outermost.
	Middleware []Middleware
	// Logger receives the client's diagnostics. Nil means slog.Default().
	Logger *slog.Logger
	// SkipOutputValidation turns off the check of tool results against the
	// outputSchema of tools the session has listed (see [OutputError]);
	// [SkipOutputValidation] turns it off for one call.
	SkipOutputValidation bool
	// Extensions declares extensions (by identifier, with their settings; nil
	// settings are sent as {}) in capabilities.extensions, in both eras, next
	// to the capabilities the handlers above make the client declare (or next
	// to Capabilities, when set). ClientSession.ServerExtension reads what the
	// server declared.
	Extensions map[string]map[string]any
}

// Client connects to MCP servers. One Client may hold many sessions: each
// [Client.Connect] opens a [ClientSession] over a [transport.Conn].
type Client struct {
	info protocol.Implementation
	opts ClientOptions
	log  *slog.Logger
	now  func() time.Time // the clock of the result cache
	eras sync.Map         // endpoint → protocol version it was found to speak

	custom customMethods // custom methods the server may call (extensions_client.go)
}

// NewClient returns a client that introduces itself as info, configured by opts
// (nil for the defaults; see [ClientOptions]).
func NewClient(info protocol.Implementation, opts *ClientOptions) *Client {
	c := &Client{info: info, now: time.Now}
	if opts != nil {
		c.opts = *opts
	}
	c.log = c.opts.Logger
	if c.log == nil {
		c.log = slog.Default()
	}
	return c
}

// ClientSession is a client's connection to one server: an initialized legacy
// session, or ([ClientSession.IsStateless]) a 2026-07-28 connection where every
// request carries the client's version and capabilities.
type ClientSession struct {
	client    *Client
	conn      *rpcconn.Conn
	init      protocol.InitializeResult      // legacy: the server's answer; stateless: built from discover
	stateless *statelessState                // non-nil in the stateless era; set before Connect returns
	live      atomic.Pointer[statelessState] // the same, for the read loop, which runs during Connect

	nextToken atomic.Int64
	probing   atomic.Bool // the era probe is in flight: do not cancel it on the wire
	mu        sync.Mutex
	progress  map[any]func(*protocol.ProgressParams) // by progress token
	roots     []protocol.Root
	listens   map[int64]*Subscription // open subscriptions/listen streams, by request id
	outputs   outputChecks            // the listed tools' output schemas (client_output.go)
	send      Invoker                 // the outgoing middleware around the connection; nil without middleware
}

// Connect opens a session over conn — after detecting the server's era, unless
// [ClientOptions].ProtocolVersion chose it — and returns it: a legacy session has
// done the initialize handshake ([ClientSession.InitializeResult]); a stateless
// one has the server's [protocol.DiscoverResult] ([ClientSession.DiscoverResult]).
// A conn that names its server ([transport.EndpointConn]) lets the client
// remember the era it found for the next connection.
func (c *Client) Connect(ctx context.Context, conn transport.Conn) (*ClientSession, error) {
	cs := &ClientSession{client: c, progress: make(map[any]func(*protocol.ProgressParams)), roots: c.opts.Roots}
	cs.conn = rpcconn.NewConn(&idConn{Conn: conn}, rpcconn.ConnOptions{
		Handler:       rpcconn.HandlerFunc(cs.handle),
		AllowBatch:    func() bool { return cs.live.Load() == nil && protocol.SupportsBatching(cs.init.ProtocolVersion) },
		CallCancelled: cs.sendCancelled,
		Logger:        c.log,
	})
	if mws := c.opts.Middleware; len(mws) > 0 {
		cs.send = chain(mws, sendInvoker(cs.conn)) // once: a call pays only for running it
	}
	cs.conn.Start(context.WithoutCancel(ctx))
	var endpoint string
	if ec, ok := conn.(transport.EndpointConn); ok {
		endpoint = ec.Endpoint()
	}
	if err := cs.open(ctx, endpoint); err != nil {
		_ = cs.conn.Close()
		return nil, err
	}
	return cs, nil
}

// initialize performs the legacy handshake, asking for version.
func (cs *ClientSession) initialize(ctx context.Context, version string) error {
	c := cs.client
	params := &protocol.InitializeParams{ProtocolVersion: version, Capabilities: c.capabilities(version), ClientInfo: c.info}
	var res protocol.InitializeResult
	if err := cs.call(ctx, protocol.MethodInitialize, params, &res); err != nil {
		return fmt.Errorf("mcp: initialize: %w", err)
	}
	if !protocol.IsLegacy(res.ProtocolVersion) {
		return fmt.Errorf("mcp: the server answered protocol version %q, which this client does not support", res.ProtocolVersion)
	}
	cs.init = res
	if err := cs.notify(ctx, protocol.NotificationInitialized, nil); err != nil {
		return fmt.Errorf("mcp: sending initialized: %w", err)
	}
	return nil
}

// capabilities returns what the client declares when asking for version: only what
// that version's schema knows (elicitation from 2025-06-18; its form and url modes
// and sampling with tools from 2025-11-25).
func (c *Client) capabilities(version string) protocol.ClientCapabilities {
	if c.opts.Capabilities != nil {
		return c.withExtensions(*c.opts.Capabilities)
	}
	var caps protocol.ClientCapabilities
	if c.opts.Roots != nil || c.opts.RootsHandler != nil {
		caps.Roots = &protocol.RootsCapability{ListChanged: true}
	}
	if c.opts.CreateMessageHandler != nil {
		caps.Sampling = &protocol.SamplingCapability{}
		if c.opts.SamplingWithTools && protocol.HasSamplingTools(version) {
			caps.Sampling.Tools = &protocol.Supported{}
		}
	}
	if c.opts.ElicitationHandler != nil && protocol.HasElicitation(version) {
		caps.Elicitation = &protocol.ElicitationCapability{}
		if protocol.HasURLElicitation(version) {
			caps.Elicitation.Form = &protocol.Supported{}
			if c.opts.URLElicitation {
				caps.Elicitation.URL = &protocol.Supported{}
			}
		}
	}
	return c.withExtensions(caps)
}

// ProtocolVersion returns the protocol version in use: the one the server chose in
// initialize, or the stateless version the session's requests carry.
func (cs *ClientSession) ProtocolVersion() string {
	if m := cs.live.Load(); m != nil {
		return m.currentVersion()
	}
	return cs.init.ProtocolVersion
}

// IsStateless reports whether the session speaks a stateless version
// (2026-07-28): no initialize, the client's capabilities in every request.
func (cs *ClientSession) IsStateless() bool { return cs.live.Load() != nil }

// InitializeResult returns the server's info, capabilities and instructions: its
// answer to initialize, or, in the stateless era, the same fields taken from its
// DiscoverResult (with ProtocolVersion set to the session's version at Connect).
func (cs *ClientSession) InitializeResult() *protocol.InitializeResult { return &cs.init }

// DiscoverResult returns the server's answer to server/discover in the stateless
// era, and nil for a legacy session.
func (cs *ClientSession) DiscoverResult() *protocol.DiscoverResult {
	m := cs.stateless
	if m == nil {
		return nil
	}
	return &m.discover
}

// Close ends the session and closes the transport.
func (cs *ClientSession) Close() error { return cs.conn.Close() }

// Done is closed when the session has ended.
func (cs *ClientSession) Done() <-chan struct{} { return cs.conn.Done() }

// Err returns why the session ended, once Done is closed: nil after Close or a
// clean end of the server's stream, the transport's error otherwise (for a stdio
// server that exited, a *stdio.ExitError with its status and last stderr lines).
// Before the session ends it returns nil.
func (cs *ClientSession) Err() error { return cs.conn.Err() }

// SetRoots replaces the client's roots and, in the legacy era, tells the server
// they changed. (A stateless server asks for the roots when it needs them.)
func (cs *ClientSession) SetRoots(ctx context.Context, roots []protocol.Root) error {
	cs.mu.Lock()
	cs.roots = roots
	cs.mu.Unlock()
	if cs.stateless != nil {
		return nil
	}
	return cs.notify(ctx, protocol.NotificationRootsListChanged, nil)
}

func (cs *ClientSession) call(ctx context.Context, method string, params, result any) error {
	if cs.send == nil {
		return cs.conn.Call(ctx, method, params, result)
	}
	return callThrough(ctx, cs.send, cs, method, params, result)
}

// callRaw is call with the result kept raw; env, when not empty, is members
// the params get ahead of their own (rpcconn.Enveloped).
func (cs *ClientSession) callRaw(ctx context.Context, method string, params any, env []byte) (json.RawMessage, error) {
	if cs.send == nil {
		if len(env) > 0 {
			return cs.conn.CallEnveloped(ctx, method, params, env)
		}
		return cs.conn.CallRaw(ctx, method, params)
	}
	if len(env) > 0 {
		params = &rpcconn.Enveloped{Params: params, Members: env}
	}
	var raw json.RawMessage
	err := callThrough(ctx, cs.send, cs, method, params, &raw)
	return raw, err
}

func (cs *ClientSession) notify(ctx context.Context, method string, params any) error {
	if len(cs.client.opts.Middleware) == 0 {
		return cs.conn.Notify(ctx, method, params)
	}
	return notifyThrough(ctx, cs.client.opts.Middleware, cs.conn, cs, method, params)
}

func (cs *ClientSession) sendCancelled(id jsonrpc.ID, cause error) {
	if cs.probing.Load() {
		return // a server that did not answer the probe is legacy and has no use for it
	}
	_ = cs.notify(context.Background(), protocol.NotificationCancelled, &protocol.CancelledParams{RequestID: id.Raw(), Reason: fmt.Sprint(cause)})
}

// handle dispatches what the server sends: requests for sampling, elicitation and
// roots, and notifications.
func (cs *ClientSession) handle(ctx context.Context, msg *jsonrpc.Message) (any, error) {
	h := cs.dispatch
	if cm := cs.client.custom.get(msg.Method); cm != nil {
		h = cs.customHandler(cm, msg.IsNotification())
	}
	if mws := cs.client.opts.Middleware; len(mws) > 0 {
		call := &Call{Direction: Incoming, Method: msg.Method, Params: msg.Params, Notification: msg.IsNotification(), Session: cs}
		return chain(mws, func(ctx context.Context, c *Call) (any, error) { return h(ctx, c.Method, c.Params) })(ctx, call)
	}
	return h(ctx, msg.Method, msg.Params)
}

func (cs *ClientSession) dispatch(ctx context.Context, method string, raw json.RawMessage) (any, error) {
	o := &cs.client.opts
	switch method {
	case protocol.MethodPing:
		return &protocol.EmptyResult{}, nil
	case protocol.MethodSamplingCreateMessage:
		if o.CreateMessageHandler == nil {
			return nil, errorf(CodeMethodNotFound, "Method not found: %s (this client does not offer sampling)", method)
		}
		var p protocol.CreateMessageParams
		if err := decodeParams(raw, &p); err != nil {
			return nil, err
		}
		return o.CreateMessageHandler(ctx, cs, &p)
	case protocol.MethodElicitationCreate:
		if o.ElicitationHandler == nil {
			return nil, errorf(CodeMethodNotFound, "Method not found: %s (this client does not offer elicitation)", method)
		}
		var p protocol.ElicitParams
		if err := decodeParams(raw, &p); err != nil {
			return nil, err
		}
		return o.ElicitationHandler(ctx, cs, &p)
	case protocol.MethodRootsList:
		if o.RootsHandler != nil {
			return o.RootsHandler(ctx, cs)
		}
		cs.mu.Lock()
		roots := cs.roots
		cs.mu.Unlock()
		if roots == nil && o.Roots == nil {
			return nil, errorf(CodeMethodNotFound, "Method not found: %s (this client does not offer roots)", method)
		}
		if roots == nil {
			roots = []protocol.Root{}
		}
		return &protocol.ListRootsResult{Roots: roots}, nil
	case protocol.NotificationProgress:
		var p protocol.ProgressParams
		if decodeParams(raw, &p) == nil {
			if token, ok := protocol.NormalizeID(p.ProgressToken); ok {
				cs.mu.Lock()
				f := cs.progress[token]
				cs.mu.Unlock()
				if f != nil {
					f(&p)
				}
			}
		}
	case protocol.NotificationMessage:
		if o.LoggingMessageHandler != nil {
			var p protocol.LoggingMessageParams
			if decodeParams(raw, &p) == nil {
				o.LoggingMessageHandler(ctx, cs, &p)
			}
		}
	case protocol.NotificationCancelled:
		var p protocol.CancelledParams
		if decodeParams(raw, &p) == nil {
			switch id := p.RequestID.(type) {
			case string:
				cs.conn.CancelIncoming(jsonrpc.StringID(id))
			case int64:
				cs.conn.CancelIncoming(jsonrpc.Int64ID(id))
			}
		}
	// The handlers below run on their own goroutine: they typically call back
	// (list again, read again), which must not block the connection's read loop.
	// A change notification first drops the cached results it makes stale.
	case protocol.NotificationToolsListChanged:
		cs.invalidate(protocol.MethodToolsList)
		cs.forgetTools()
		cs.async(ctx, o.ToolListChangedHandler)
	case protocol.NotificationPromptsListChanged:
		cs.invalidate(protocol.MethodPromptsList)
		cs.async(ctx, o.PromptListChangedHandler)
	case protocol.NotificationResourcesListChanged:
		cs.invalidate(protocol.MethodResourcesList)
		cs.invalidate(protocol.MethodResourcesTemplatesList)
		cs.async(ctx, o.ResourceListChangedHandler)
	case protocol.NotificationResourcesUpdated:
		var p protocol.ResourceUpdatedParams
		if decodeParams(raw, &p) == nil {
			cs.invalidateRead(p.URI)
			if o.ResourceUpdatedHandler != nil {
				go o.ResourceUpdatedHandler(ctx, cs, &p)
			}
		}
	case protocol.NotificationSubscriptionsAcknowledged:
		var p protocol.SubscriptionsAcknowledgedParams
		if decodeParams(raw, &p) == nil {
			cs.acknowledged(&p)
		}
	default:
		// For a notification the connection drops this error, as JSON-RPC asks.
		return nil, errorf(CodeMethodNotFound, "Method not found: %s", method)
	}
	return nil, nil
}

func (cs *ClientSession) async(ctx context.Context, f func(context.Context, *ClientSession)) {
	if f != nil {
		go f(ctx, cs)
	}
}
