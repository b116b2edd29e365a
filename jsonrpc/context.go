package jsonrpc

import (
	"context"
	"errors"

	"github.com/mcpkit/mcpkit/internal/rpcshared"
)

// ErrClosed is returned by calls on a connection that has ended.
var ErrClosed = errors.New("jsonrpc: connection closed")

// IsClosed reports whether err means the connection ended.
func IsClosed(err error) bool { return errors.Is(err, ErrClosed) }

// RelatedRequest returns the id of the incoming request whose handler ctx belongs to
// (set by the connection engine, or by [WithRelatedRequest]).
// Transports use it to send a handler's notifications and nested requests on that
// request's own stream.
func RelatedRequest(ctx context.Context) (ID, bool) {
	if id, ok := ctx.Value(rpcshared.RelatedKey{}).(*ID); ok {
		return *id, true
	}
	return ID{}, false
}

// WithRelatedRequest returns a context marked as belonging to the incoming request id.
func WithRelatedRequest(ctx context.Context, id ID) context.Context {
	return context.WithValue(ctx, rpcshared.RelatedKey{}, &id)
}
