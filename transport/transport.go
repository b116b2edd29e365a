// Package transport defines the one interface every MCP transport implements: a
// bidirectional stream of framed JSON-RPC messages, the [Conn].
//
// A transport moves bytes; it knows nothing of MCP features. Subpackages hold the
// implementations: stdio (a server on standard input and output, and a client that
// runs a subprocess), memory (an in-process pair for tests), streamable (Streamable
// HTTP) and legacysse (the 2024-11-05 HTTP+SSE transport).
//
// A multi-session transport (an HTTP handler) hands each new session to a [Server]
// (an *mcp.Server is one). A Conn tells the server more through optional
// interfaces, all declared in this file:
//
//	interface        implemented by the Conn of              the server uses it to
//	SessionlessConn  sessionless Streamable HTTP, or one     serve it without initialize,
//	                 2026-07-28 request                      at ProtocolVersion
//	PeerConn         an HTTP transport                       know the client's address
//	HeaderConn       one 2026-07-28 HTTP request             check the Mcp-Param-* headers
//	EndpointConn     a client (a URL, a command line)        remember a server's era
//	PushConn         an HTTP transport                       take each message on the POST's
//	                                                         goroutine (a Receiver)
//	StatefulConn     a legacy session shared by replicas     restore and save its SessionState
//	RequestIDConn    a transport shared by replicas          make server-to-client request ids
//	LegacyConn       HTTP+SSE (2024-11-05)                   refuse the stateless era there
//	ResponseConn     Streamable HTTP                         hand over a success response with its
//	                                                         id, so it is routed without being read
//	RequestConn      a Streamable HTTP client                (the client, likewise) hand over a
//	                                                         request it wrote with its id, method
//	                                                         and params, so it is sent unread
//
// See [SessionlessConn], [PeerConn], [HeaderConn], [EndpointConn], [PushConn],
// [StatefulConn], [RequestIDConn], [LegacyConn], [ResponseConn] and [RequestConn].
//
// Context values cross the layers in both directions: [WithHeader] lets the
// layer above add HTTP headers to one message, and [WithPrincipal] names the
// authenticated caller (set by HTTP middleware, read with [PrincipalFrom]).
// [Limits] is the budget of sessions and streams the HTTP handlers share.
// What replicas behind a load balancer share — the [Relay] between them, the
// [SessionState] of a legacy session, [PrincipalDigest], [UnavailableErrorData]
// — is in replica.go.
package transport

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

// Conn is one end of a connection that carries JSON-RPC messages.
//
// Each message is one complete JSON value: an object, or (for 2025-03-26 batches) an
// array. Read returns the next message; it returns io.EOF when the peer has closed the
// connection cleanly. A Read error wrapping [jsonrpc.ErrMessageTooLarge] is not fatal:
// the transport dropped one oversized message and the next Read continues with the
// following one.
//
// Write sends one message. Its context may carry the id of the incoming request the
// message belongs to (see [jsonrpc.RelatedRequest]), so that transports with
// per-request streams can route progress and the final response to the right place.
//
// Write must not retain msg after it returns: callers reuse the buffer.
//
// Read is called from one goroutine; Write may be called from many at once. Close
// unblocks pending Reads and Writes and may be called more than once.
type Conn interface {
	Read(ctx context.Context) ([]byte, error)
	Write(ctx context.Context, msg []byte) error
	Close() error
}

// Server is what a multi-session transport (an HTTP handler) hands each new session
// to, as a [Conn]. *mcp.Server implements it.
type Server interface {
	// Accept starts serving one client session over conn and returns at once; the
	// session lasts until conn's Read returns an error (io.EOF when it ends
	// cleanly) or, for a conn the server binds as a PushConn, until the transport
	// ends the Receiver.
	Accept(ctx context.Context, conn Conn) error
}

// SessionlessConn is implemented by a Conn that carries a session with no initialize
// handshake: sessionless Streamable HTTP, where every POST stands alone. The server
// serves it as if initialize had negotiated ProtocolVersion with a client that
// declared no capabilities. (A connection that carries one 2026-07-28 request
// implements it too, with that version: each request then declares itself in
// its _meta.)
type SessionlessConn interface {
	Conn
	ProtocolVersion() string
}

// PeerConn is implemented by a Conn that knows the network address of its peer
// (an HTTP transport: the client's remote address).
type PeerConn interface {
	Conn
	RemoteAddr() string
}

// HeaderConn is implemented by a Conn that carries exactly one HTTP request of
// the stateless protocol (2026-07-28): the server reads the request's headers
// through it, to check headers that mirror body fields (the Mcp-Param-* headers
// of tools/call).
type HeaderConn interface {
	Conn
	Header() http.Header
}

// LegacyConn is implemented by a server Conn whose transport carries the legacy
// era only: the HTTP+SSE transport of 2024-11-05, on which the stateless
// protocol (2026-07-28), defined over Streamable HTTP and stdio, has no
// place. The server answers server/discover there as a server of that era
// does — -32601, method not found — so that a dual-era client falls back to
// initialize, and serves no request that names a stateless version.
type LegacyConn interface {
	Conn
	LegacyOnly()
}

// EndpointConn is implemented by a client Conn that can name the server it
// reaches — the URL of an HTTP endpoint, the command line of a subprocess — so a
// client can remember what it learned about that server (such as its protocol
// era) across connections.
type EndpointConn interface {
	Conn
	Endpoint() string
}

// Receiver takes the messages of a [PushConn]. mcp.Server's sessions implement it
// (the connection engine, once started in push mode).
type Receiver interface {
	// Receive handles one incoming message on the caller's goroutine and returns
	// when it has been handled: a request once its response has been written to
	// the Conn (or the request was cancelled), a notification once its handler
	// has returned, a response at once. ctx is the parent of a request's
	// context: the transport cancels it to cancel the request (a closed HTTP
	// response, for a request that cannot outlive it), and its values (an HTTP
	// request's, such as an authenticated principal) reach the handler.
	// msg and the bytes it refers to must not change afterwards.
	Receive(ctx context.Context, msg *jsonrpc.Message)
	// End tells the receiver that no message will come any more; err is nil
	// for a clean end (the session was closed or expired). Requests still
	// running are cancelled. It may be called more than once.
	End(err error)
}

// PushConn is implemented by a [Conn] whose transport delivers incoming messages
// by calling a [Receiver] on the goroutine each message arrived on (an HTTP POST's),
// instead of being Read: the server then keeps no goroutine waiting on the
// connection, and a request is handled where it arrived, with no hand-off
// between goroutines. A server calls Bind once, before the connection carries
// anything, and never calls Read afterwards; the transport calls the Receiver's
// End when the connection ends (Close included).
type PushConn interface {
	Conn
	Bind(r Receiver)
}

// StatefulConn is implemented by the Conn of a legacy session whose transport
// shares sessions between replicas (Streamable HTTP with a session store).
// The server restores the session from RestoredState when it accepts the
// connection, and calls SaveState each time the state changes.
type StatefulConn interface {
	Conn
	// RestoredState returns the latest state of the session the transport
	// read from (or saved to) its store: when the server accepts the
	// connection, that of a session created on another replica, or nil for a
	// new session. Another replica may change the state later (a
	// logging/setLevel served there); the server compares the pointer with
	// the one it last applied where it reads the log level and subscriptions.
	// The returned state must not be modified.
	RestoredState() *SessionState
	// SaveState stores the session's state; the server calls it, with the
	// context of the request that changed it, before answering that request.
	// An error fails the request.
	SaveState(ctx context.Context, s *SessionState) error
}

// RequestIDConn is implemented by a Conn whose transport makes the ids of the
// requests the server sends to the client (sampling, elicitation, roots/list):
// a transport shared by replicas gives ids that name the replica waiting for
// the answer. The server uses NewRequestID for every such request; without
// it, ids count from 1.
type RequestIDConn interface {
	Conn
	// NewRequestID returns a fresh id, never returned before on this Conn.
	NewRequestID() jsonrpc.ID
}

// ResponseConn is implemented by a Conn whose transport routes each response by
// the id of its request (Streamable HTTP: to the POST that carried the request).
// Its Write must read a message to learn that; the server's connection engine
// calls WriteResponse instead for a success response it encoded itself, msg
// being {"jsonrpc":"2.0","id":…,"result":…} with id the request's (the id
// [jsonrpc.RelatedRequest] finds in ctx). The transport routes it by id without
// reading it again. Error responses and every other message still go to Write.
// As with Write, msg must not be retained after WriteResponse returns.
type ResponseConn interface {
	Conn
	WriteResponse(ctx context.Context, id jsonrpc.ID, msg []byte) error
}

// RequestConn is implemented by a Conn that reads each outgoing message to
// learn what it is (a Streamable HTTP client: a request's id routes its
// reply, its method and params make a 2026-07-28 POST's headers). A client's
// connection engine calls WriteRequest instead of Write for a request it
// encoded itself from params it wrote or checked: msg is
// {"jsonrpc":"2.0","id":…,"method":…,"params":…} with id and method as given,
// well-formed, and params the value of its params member, a JSON object or
// array (a slice of msg; nil when msg has none). The transport takes it as it is, without reading it
// again. Every other message still goes to Write. As with Write, msg (and so
// params) must not be retained after WriteRequest returns.
type RequestConn interface {
	Conn
	WriteRequest(ctx context.Context, id jsonrpc.ID, method string, params json.RawMessage, msg []byte) error
}
