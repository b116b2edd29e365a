package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport"
)

// ClientOptions configures a Client. The zero value is ready to use. Each handler that
// is set makes the client declare the matching capability.
type ClientOptions struct {
	// ProtocolVersion is the version asked for in initialize. Empty means the
	// newest legacy version. The client accepts any version it supports in answer.
	ProtocolVersion string
	// Capabilities, when set, are declared as they are instead of being derived
	// from the handlers below.
	Capabilities *protocol.ClientCapabilities
	// Roots, when non-nil (even empty), declares the roots capability and answers
	// roots/list. Change them later with ClientSession.SetRoots.
	Roots []protocol.Root
	// CreateMessageHandler answers sampling/createMessage.
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
	// ResourceUpdatedHandler runs when a subscribed resource changed.
	ResourceUpdatedHandler func(ctx context.Context, cs *ClientSession, p *protocol.ResourceUpdatedParams)
	// RequestTimeout bounds every request that has no other deadline. Zero means none.
	RequestTimeout time.Duration
	// Middleware wraps every incoming and outgoing method, first element outermost.
	Middleware []Middleware
	// Logger receives the client's diagnostics. Nil means slog.Default().
	Logger *slog.Logger
}

// Client connects to MCP servers. One Client may hold many sessions.
type Client struct {
	info protocol.Implementation
	opts ClientOptions
	log  *slog.Logger
}

// NewClient returns a client that introduces itself as info.
func NewClient(info protocol.Implementation, opts *ClientOptions) *Client {
	c := &Client{info: info}
	if opts != nil {
		c.opts = *opts
	}
	c.log = c.opts.Logger
	if c.log == nil {
		c.log = slog.Default()
	}
	return c
}

// ClientSession is a client's initialized connection to one server.
type ClientSession struct {
	client *Client
	conn   *jsonrpc.Conn
	init   protocol.InitializeResult

	nextToken atomic.Int64
	mu        sync.Mutex
	progress  map[any]func(*protocol.ProgressParams) // by progress token
	roots     []protocol.Root
}

// Connect performs the initialize handshake over conn and returns the session.
func (c *Client) Connect(ctx context.Context, conn transport.Conn) (*ClientSession, error) {
	cs := &ClientSession{client: c, progress: make(map[any]func(*protocol.ProgressParams)), roots: c.opts.Roots}
	cs.conn = jsonrpc.NewConn(conn, jsonrpc.ConnOptions{
		Handler:       jsonrpc.HandlerFunc(cs.handle),
		AllowBatch:    func() bool { return protocol.SupportsBatching(cs.init.ProtocolVersion) },
		CallCancelled: cs.sendCancelled,
		Logger:        c.log,
	})
	cs.conn.Start(context.WithoutCancel(ctx))
	version := c.opts.ProtocolVersion
	if version == "" {
		version = protocol.LatestLegacy
	}
	params := &protocol.InitializeParams{ProtocolVersion: version, Capabilities: c.capabilities(version), ClientInfo: c.info}
	var res protocol.InitializeResult
	if err := cs.call(ctx, protocol.MethodInitialize, params, &res); err != nil {
		_ = cs.conn.Close()
		return nil, fmt.Errorf("mcp: initialize: %w", err)
	}
	if !protocol.IsLegacy(res.ProtocolVersion) {
		_ = cs.conn.Close()
		return nil, fmt.Errorf("mcp: the server answered protocol version %q, which this client does not support", res.ProtocolVersion)
	}
	cs.init = res
	if err := cs.notify(ctx, protocol.NotificationInitialized, nil); err != nil {
		_ = cs.conn.Close()
		return nil, fmt.Errorf("mcp: sending initialized: %w", err)
	}
	return cs, nil
}

// capabilities returns what the client declares when asking for version: only what
// that version's schema knows (elicitation from 2025-06-18; its form and url modes
// and sampling with tools from 2025-11-25).
func (c *Client) capabilities(version string) protocol.ClientCapabilities {
	if c.opts.Capabilities != nil {
		return *c.opts.Capabilities
	}
	var caps protocol.ClientCapabilities
	if c.opts.Roots != nil {
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
	return caps
}

// ProtocolVersion returns the version the server chose.
func (cs *ClientSession) ProtocolVersion() string { return cs.init.ProtocolVersion }

// InitializeResult returns the server's answer to initialize: its info,
// capabilities and instructions.
func (cs *ClientSession) InitializeResult() *protocol.InitializeResult { return &cs.init }

// Close ends the session and closes the transport.
func (cs *ClientSession) Close() error { return cs.conn.Close() }

// Done is closed when the session has ended.
func (cs *ClientSession) Done() <-chan struct{} { return cs.conn.Done() }

// SetRoots replaces the client's roots and tells the server they changed.
func (cs *ClientSession) SetRoots(ctx context.Context, roots []protocol.Root) error {
	cs.mu.Lock()
	cs.roots = roots
	cs.mu.Unlock()
	return cs.notify(ctx, protocol.NotificationRootsListChanged, nil)
}

func (cs *ClientSession) call(ctx context.Context, method string, params, result any) error {
	if len(cs.client.opts.Middleware) == 0 {
		return cs.conn.Call(ctx, method, params, result)
	}
	return callThrough(ctx, cs.client.opts.Middleware, cs.conn, cs, method, params, result)
}

func (cs *ClientSession) notify(ctx context.Context, method string, params any) error {
	if len(cs.client.opts.Middleware) == 0 {
		return cs.conn.Notify(ctx, method, params)
	}
	return notifyThrough(ctx, cs.client.opts.Middleware, cs.conn, cs, method, params)
}

func (cs *ClientSession) sendCancelled(id jsonrpc.ID, cause error) {
	_ = cs.notify(context.Background(), protocol.NotificationCancelled, &protocol.CancelledParams{RequestID: id.Raw(), Reason: fmt.Sprint(cause)})
}

// handle dispatches what the server sends: requests for sampling, elicitation and
// roots, and notifications.
func (cs *ClientSession) handle(ctx context.Context, msg *jsonrpc.Message) (any, error) {
	h := cs.dispatch
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
	case protocol.NotificationToolsListChanged:
		cs.async(ctx, o.ToolListChangedHandler)
	case protocol.NotificationPromptsListChanged:
		cs.async(ctx, o.PromptListChangedHandler)
	case protocol.NotificationResourcesListChanged:
		cs.async(ctx, o.ResourceListChangedHandler)
	case protocol.NotificationResourcesUpdated:
		if o.ResourceUpdatedHandler != nil {
			var p protocol.ResourceUpdatedParams
			if decodeParams(raw, &p) == nil {
				go o.ResourceUpdatedHandler(ctx, cs, &p)
			}
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
