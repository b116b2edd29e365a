package redisstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mcpkit/mcpkit/mcp"
)

// StateUse is a SingleUse made an mcp.StateUse: set it as
// mcp.ServerOptions.StateUse on every replica to accept each requestState of
// a stateless input-required round once across them all. It costs one round
// trip (SET NX PX) per request that brings a state, none on other requests.
type StateUse struct {
	s *SingleUse
}

// NewStateUse returns the requestState register on c (SingleUse namespace
// "rs").
func NewStateUse(c *Client) *StateUse {
	return &StateUse{s: NewSingleUse(c, nil)}
}

// Use records state for ttl. A state used before gives an error wrapping
// both mcp.ErrStateReused and ErrAlreadyUsed; Redis unavailable gives one
// wrapping store.ErrUnavailable, which the server answers with -32603 (503
// over HTTP): the request is refused, never accepted unchecked.
func (u *StateUse) Use(ctx context.Context, state string, ttl time.Duration) error {
	err := u.s.Use(ctx, state, ttl)
	if errors.Is(err, ErrAlreadyUsed) {
		return fmt.Errorf("%w (%w)", mcp.ErrStateReused, err)
	}
	return err
}

var _ mcp.StateUse = (*StateUse)(nil)
