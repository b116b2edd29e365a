package mcp

import (
	"context"
	"errors"
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/transport"
)

// ErrStateReused is wrapped by the error a StateUse returns for a requestState
// it accepted before. The request is refused with -32602 "requestState already
// used".
var ErrStateReused = errors.New("mcp: requestState already used")

// StateUse records the requestStates a server accepted, so that each is
// accepted at most once (ServerOptions.StateUse). Replicas share one (for
// example redisstore.NewStateUse on one Redis).
type StateUse interface {
	// Use is called once per stateless request that brings a requestState,
	// after the state authenticated and matched the request and before the
	// handler reads its answers, with the time the state stays valid. It
	// returns nil the first time, an error wrapping ErrStateReused when the
	// state was accepted before, and any other error when it cannot say (its
	// backend is unavailable): the request is then refused, since accepting
	// it could accept a replay.
	Use(ctx context.Context, state string, ttl time.Duration) error
}

// stateUseSkew is added to a state's remaining life when its use is recorded:
// replicas' clocks differ a little, and a replica whose clock lags accepts the
// state a little longer than the one that checked it.
const stateUseSkew = time.Second

// useState records the use of an authenticated state that expires at exp. It
// returns nil, -32602 for a state used before, or a -32603 error marked
// unavailable (503 over HTTP) when the register cannot say.
func (s *Server) useState(ctx context.Context, state string, exp time.Time) error {
	ttl := time.Until(exp) + stateUseSkew
	err := s.opts.StateUse.Use(ctx, state, ttl)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrStateReused):
		return errorf(CodeInvalidParams, "requestState already used")
	}
	s.log.Warn("mcp: the requestState register failed; refusing the request", "error", err)
	return &jsonrpc.Error{
		Code:    CodeInternalError,
		Message: "internal error: requestState could not be checked; retry later",
		Data:    transport.UnavailableErrorData,
	}
}
