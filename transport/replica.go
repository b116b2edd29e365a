package transport

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
)

// This file holds what the replicas of a server behind a load balancer share
// through a transport: the relay between them, the state of a legacy session,
// the form in which a principal is shared, and the error data of an
// unavailable shared backend.

// Relay carries messages between the replicas of a server behind a load
// balancer: each replica has an inbox, and holds named claims (the session
// whose stream it holds, for instance) that the others can address. A
// transport uses it for what must reach the replica holding a client's
// stream (the answer to a server-to-client request, a message for a GET or
// HTTP+SSE stream) when the client's POST lands elsewhere. Delivery is at
// most once: a message for a replica that just died is lost, so the
// transports use it only where the client would be lost with that replica
// anyway, or where it can resume from the event store.
//
// Implementations must be safe for concurrent use; redisstore.Relay is one
// (Redis Pub/Sub, with liveness keys).
type Relay interface {
	// Replica returns this replica's id: letters and digits only, unique
	// among the replicas sharing the relay, and never used again by another
	// relay (a process restarted under the same name gets a new one): the
	// transports put it in the ids of streams and of requests to clients,
	// which must never repeat.
	Replica() string
	// Handle sets the receiver of the messages sent to this replica under
	// topic (one per transport). fn runs on the relay's goroutine, one
	// message at a time: it must not block. Set it before sending anything.
	Handle(topic string, fn func(payload []byte))
	// Send delivers payload to replica's handler of topic. It fails with an
	// error wrapping ErrReplicaGone when that replica is not alive.
	Send(ctx context.Context, replica, topic string, payload []byte) error
	// Claim makes this replica the holder of name, unless another live
	// replica holds it and takeover is false; it returns the holder (this
	// replica's id when the claim succeeded). A claim lasts until Release, or
	// until its holder dies (the relay renews the claims of a live replica).
	Claim(ctx context.Context, name string, takeover bool) (holder string, err error)
	// Release gives up a claim if this replica still holds it.
	Release(ctx context.Context, name string) error
	// SendToHolder delivers payload to the handler of topic on the replica
	// holding name, and returns that replica's id. It fails with an error
	// wrapping ErrNotClaimed when no live replica holds name.
	SendToHolder(ctx context.Context, name, topic string, payload []byte) (holder string, err error)
	// Alive reports whether replica is alive.
	Alive(ctx context.Context, replica string) (bool, error)
}

// ErrReplicaGone is returned (wrapped) by Relay.Send for a replica that is
// not alive.
var ErrReplicaGone = errors.New("transport: the replica is gone")

// ErrNotClaimed is returned (wrapped) by Relay.SendToHolder when nobody holds
// the claim.
var ErrNotClaimed = errors.New("transport: nobody holds the claim")

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

// UnavailableErrorData is the data member of the -32603 error a server answers
// when a backend shared by replicas (such as the register of used requestStates,
// mcp.ServerOptions.StateUse) cannot answer for now. An HTTP transport answers
// such an error to a 2026-07-28 request with 503 and Retry-After, as it answers
// an unavailable session store, so that a client or balancer retries instead of
// giving up.
var UnavailableErrorData = json.RawMessage(`{"unavailable":true}`)
