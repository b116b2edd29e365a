package transport

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// SessionState is what a server keeps of a legacy session between requests:
// enough for another replica to serve the session's next request without a
// new initialize. A transport that shares sessions between replicas stores it
// (see [StatefulConn]); it is small (a few hundred bytes), and changes only on
// initialize, notifications/initialized, logging/setLevel and
// resources/subscribe or unsubscribe.
type SessionState struct {
	// ProtocolVersion is the version initialize negotiated.
	ProtocolVersion string `json:"v"`
	// ClientInfo and ClientCapabilities are the client's initialize params of
	// those names, as JSON.
	ClientInfo         json.RawMessage `json:"ci,omitempty"`
	ClientCapabilities json.RawMessage `json:"cc,omitempty"`
	// Initialized reports that notifications/initialized arrived.
	Initialized bool `json:"i,omitempty"`
	// LogLevel is the level the client set with logging/setLevel ("" if none).
	LogLevel string `json:"ll,omitempty"`
	// Subscriptions are the resource URIs the client subscribed to.
	Subscriptions []string `json:"rs,omitempty"`
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

type principalKey struct{}

// WithPrincipal returns a context that names the authenticated caller. HTTP
// authentication middleware (auth/resource) sets it on the request's context,
// and the HTTP handlers pass the request's values on to the handler's context.
// A transport that shares sessions between replicas binds each session to the
// principal that created it; the mcp server binds every requestState it seals
// to it, so a state minted for one caller is refused for another, and owns
// tasks by it. [PrincipalFrom] reads it; it is the one door for the principal.
func WithPrincipal(ctx context.Context, principal string) context.Context {
	return context.WithValue(ctx, principalKey{}, principal)
}

// PrincipalDigest is the form in which a transport shares a principal with
// other replicas (in a session record, a relayed message): a hex SHA-256
// prefix, so that the shared store does not hold who the callers are. It is
// "" for "".
func PrincipalDigest(principal string) string {
	if principal == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(principal))
	return hex.EncodeToString(sum[:16])
}

// PrincipalFrom returns the principal set by WithPrincipal ("" when none).
func PrincipalFrom(ctx context.Context) string {
	p, _ := ctx.Value(principalKey{}).(string)
	return p
}

// UnavailableErrorData is the data member of the -32603 error a server answers
// when a backend shared by replicas (such as the register of used requestStates,
// mcp.ServerOptions.StateUse) cannot answer for now. An HTTP transport answers
// such an error to a 2026-07-28 request with 503 and Retry-After, as it answers
// an unavailable session store, so that a client or balancer retries instead of
// giving up.
var UnavailableErrorData = json.RawMessage(`{"unavailable":true}`)
