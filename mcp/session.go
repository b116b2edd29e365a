package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/mcpkit/mcpkit/internal/rpcconn"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport"
)

// ServerSession is one client's connection to a [Server] (the legacy, stateful era:
// it begins with initialize). It is safe for concurrent use. A connection that has
// not been initialized also serves stateless (2026-07-28) requests, one by one;
// their handlers see it as [Request].Session.
type ServerSession struct {
	server    *Server
	conn      rpcconn.Conn // made with the session: one allocation for both (never copied)
	transport transport.Conn

	stopCtx func() bool // stops ending the session with its context (a pushed connection's)

	state   atomic.Pointer[sessionState] // set by initialize, or preset (see presetState)
	ready   atomic.Bool                  // notifications/initialized received
	legacy  bool                         // the transport carries the legacy era only (transport.LegacyConn)
	tracked bool                         // registered in the server's sessions (not a one-request connection)

	mu            sync.Mutex
	logLevel      protocol.LoggingLevel // "" until the client sets one
	subscriptions map[string]struct{}   // resource URIs; nil until the first subscribe
	rare          *sessionRare          // nil until needed
}

// sessionRare is what few sessions need, kept out of the others: an idle
// session keeps neither. Read and written under the session's mu.
type sessionRare struct {
	applied *transport.SessionState // the shared state logLevel and subscriptions reflect (see syncSharedLocked)
	view    *sessionView            // what it was shown under a VisibleFunc (visibility.go); nil until it lists
}

// rareLocked returns the session's sessionRare, making it the first time.
// ss.mu is held.
func (ss *ServerSession) rareLocked() *sessionRare {
	if ss.rare == nil {
		ss.rare = &sessionRare{}
	}
	return ss.rare
}

// viewLocked returns what the session was shown, or nil. ss.mu is held.
func (ss *ServerSession) viewLocked() *sessionView {
	if ss.rare == nil {
		return nil
	}
	return ss.rare.view
}

// sessionState is what initialize negotiated; it never changes afterwards, so
// sessions may share one.
type sessionState struct {
	version    string
	clientInfo protocol.Implementation
	clientCaps protocol.ClientCapabilities
}

// presetStates are the states of pre-initialized (sessionless) connections, one
// per legacy version, shared by every such connection: a sessionless request
// allocates none, and a session does not carry room for one.
var presetStates = func() []*sessionState {
	var sts []*sessionState
	for _, v := range protocol.LegacyVersions() {
		sts = append(sts, &sessionState{version: v})
	}
	return sts
}()

// presetState returns the shared state of a connection pre-initialized at the
// legacy version v, or nil if v is not one.
func presetState(v string) *sessionState {
	for _, st := range presetStates {
		if st.version == v {
			return st
		}
	}
	return nil
}

func newServerSession(s *Server, conn transport.Conn) *ServerSession {
	ss := &ServerSession{server: s, transport: conn}
	_, ss.legacy = conn.(transport.LegacyConn)
	opts := rpcconn.ConnOptions{
		Handler: ss,
		Hooks:   (*sessionHooks)(ss), // no closure to allocate per session
		Logger:  s.log,
	}
	if ic, ok := conn.(transport.RequestIDConn); ok {
		opts.NewID = ic.NewRequestID // ids naming this replica (sessions shared by replicas)
	}
	rpcconn.InitConn(&ss.conn, conn, opts)
	return ss
}

// A transport's ResponseConn is what the connection engine calls as a
// ResponseStream: the two declarations must stay alike.
var _ rpcconn.ResponseStream = transport.ResponseConn(nil)

// sessionHooks are a session's rpcconn.ConnHooks.
type sessionHooks ServerSession

// AllowBatch accepts batches when the negotiated version has them (2025-03-26).
func (h *sessionHooks) AllowBatch() bool {
	return protocol.SupportsBatching((*ServerSession)(h).ProtocolVersion())
}

// CallCancelled tells the client that the server gave up on a request it sent.
func (h *sessionHooks) CallCancelled(id jsonrpc.ID, cause error) {
	(*ServerSession)(h).sendCancelled(id, cause)
}

// OnDone forgets the session once its connection has ended.
func (h *sessionHooks) OnDone() { (*ServerSession)(h).ended() }

// ended runs once the session's connection has ended.
func (ss *ServerSession) ended() {
	ss.server.forget(ss)
	if ss.stopCtx != nil {
		ss.stopCtx()
	}
}

// ProtocolVersion returns the negotiated protocol version ("" before initialize).
func (ss *ServerSession) ProtocolVersion() string {
	if st := ss.state.Load(); st != nil {
		return st.version
	}
	return ""
}

// ClientInfo returns the client's name and version as it sent them in initialize.
// Its slices are shared with other sessions of the same client: do not change
// them.
func (ss *ServerSession) ClientInfo() protocol.Implementation {
	if st := ss.state.Load(); st != nil {
		return st.clientInfo
	}
	return protocol.Implementation{}
}

// ClientCapabilities returns what the client declared in initialize. Its maps
// and pointers are shared with other sessions of the same client: do not change
// what they point to.
func (ss *ServerSession) ClientCapabilities() protocol.ClientCapabilities {
	if st := ss.state.Load(); st != nil {
		return st.clientCaps
	}
	return protocol.ClientCapabilities{}
}

func (ss *ServerSession) initialized() bool { return ss.state.Load() != nil }

// RemoteAddr returns the network address of the client when the transport knows it
// (HTTP), and "" otherwise (stdio, in-memory).
func (ss *ServerSession) RemoteAddr() string {
	if pc, ok := ss.transport.(transport.PeerConn); ok {
		return pc.RemoteAddr()
	}
	return ""
}

// Done is closed when the session has ended.
func (ss *ServerSession) Done() <-chan struct{} { return ss.conn.Done() }

// Close ends the session.
func (ss *ServerSession) Close() error { return ss.conn.Close() }

// Ping sends a ping to the client and waits for its answer.
func (ss *ServerSession) Ping(ctx context.Context) error {
	return ss.call(ctx, protocol.MethodPing, nil, nil)
}

// Handle dispatches one incoming message (it is the handler the session's JSON-RPC
// connection runs): a stateless request to the stateless engine, anything else to
// the legacy method table, through the server's [Middleware].
func (ss *ServerSession) Handle(ctx context.Context, msg *jsonrpc.Message) (any, error) {
	if !ss.initialized() && !ss.legacy && isStatelessRequest(msg) {
		return ss.handleStateless(ctx, msg)
	}
	m, ok := ss.server.methods[msg.Method]
	if !ok {
		if cm := ss.server.custom.get(msg.Method); cm != nil {
			return ss.handleCustom(ctx, msg, cm)
		}
		if msg.IsNotification() {
			return nil, nil // unknown notifications are ignored, as JSON-RPC asks
		}
		return nil, errorf(CodeMethodNotFound, "Method not found: %s", msg.Method)
	}
	if !m.beforeInit && !ss.initialized() {
		return nil, errorf(CodeInvalidRequest, "invalid request: %s before initialize", msg.Method)
	}
	if len(ss.server.opts.Middleware) == 0 {
		return m.handle(ctx, ss, msg.Params)
	}
	call := &Call{Direction: Incoming, Method: msg.Method, Params: msg.Params, Notification: msg.IsNotification(), Session: ss, fn: m.fn, ss: ss}
	return ss.server.legacyChain(ctx, call)
}

// InOrder implements jsonrpc.OrderedHandler: the requests that change the session's
// state run in arrival order, so that a client which sends initialize,
// notifications/initialized and tools/list without waiting always has all three
// accepted, and one which sends tools/list first always has it refused. Until
// initialize has run, that is every legacy request (whether it is accepted depends
// on initialize); afterwards, logging/setLevel and resources/(un)subscribe. Other
// requests, tools/call among them, and stateless requests, which need no session,
// run concurrently.
func (ss *ServerSession) InOrder(msg *jsonrpc.Message) bool {
	if !ss.initialized() {
		return ss.legacy || !isStatelessRequest(msg)
	}
	switch msg.Method {
	case protocol.MethodLoggingSetLevel, protocol.MethodResourcesSubscribe, protocol.MethodResourcesUnsubscribe:
		return true
	}
	return false
}

// call sends a request to the client through the outgoing middleware.
func (ss *ServerSession) call(ctx context.Context, method string, params, result any) error {
	if len(ss.server.opts.Middleware) == 0 {
		return ss.conn.Call(ctx, method, params, result)
	}
	return callThrough(ctx, chain(ss.server.opts.Middleware, sendInvoker(&ss.conn)), ss, method, params, result)
}

// Notify sends the notification method with params (any value encoding/json
// can encode, or a json.RawMessage) to the client, through the server's outgoing
// middleware. Called with the context of a request's handler or middleware, it
// travels with that request (on its reply stream, over HTTP). Prefer the typed
// helpers ([Request.ReportProgress], [Request.Log]); Notify is for notifications
// that are already encoded, such as a recording played back.
func (ss *ServerSession) Notify(ctx context.Context, method string, params any) error {
	return ss.notify(ctx, method, params)
}

// notify sends a notification to the client through the outgoing middleware.
func (ss *ServerSession) notify(ctx context.Context, method string, params any) error {
	if len(ss.server.opts.Middleware) == 0 {
		return ss.conn.Notify(ctx, method, params)
	}
	return notifyThrough(ctx, ss.server.opts.Middleware, &ss.conn, ss, method, params)
}

// sendCancelled tells the client to stop working on a request the server gave up on.
func (ss *ServerSession) sendCancelled(id jsonrpc.ID, cause error) {
	p := protocol.CancelledParams{RequestID: id.Raw(), Reason: fmt.Sprint(cause)}
	_ = ss.notify(context.Background(), protocol.NotificationCancelled, p)
}

// decodeParams decodes raw params into v, answering -32602 when they do not fit.
// Absent params decode as an empty object.
func decodeParams(raw json.RawMessage, v any) error {
	if len(raw) == 0 {
		return nil
	}
	// Params are a sub-slice of a message the JSON-RPC codec has validated, so a
	// type that decodes itself (the hot ones do, without reflection) is handed
	// them directly, skipping encoding/json's second validation pass.
	var err error
	if u, ok := v.(json.Unmarshaler); ok {
		err = u.UnmarshalJSON(raw)
	} else {
		err = json.Unmarshal(raw, v)
	}
	if err != nil {
		return errorf(CodeInvalidParams, "invalid params: %v", err)
	}
	return nil
}
