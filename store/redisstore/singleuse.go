package redisstore

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"time"
)

// ErrAlreadyUsed is returned by SingleUse.Use for a value that was used before.
var ErrAlreadyUsed = errors.New("redisstore: already used")

// SingleUseOptions configures NewSingleUse. The zero value is ready to use.
type SingleUseOptions struct {
	// Namespace separates independent uses (different servers or purposes)
	// of one Redis; empty means "rs" (requestState).
	Namespace string
}

// SingleUse records which values (sealed requestState strings, for example)
// were used already, across every replica, for as long as each could still
// be accepted. Use is one SET NX PX: one round trip.
//
// Key: <prefix><namespace>:used:{<base64url(sha256(value)[:16])>}. The value
// itself is never stored, only a digest: a state may carry a sealed payload
// and is a bearer secret until it expires.
type SingleUse struct {
	c     *Client
	space string
}

// NewSingleUse returns a single-use register on c. opts may be nil.
func NewSingleUse(c *Client, opts *SingleUseOptions) *SingleUse {
	s := &SingleUse{c: c, space: "rs"}
	if opts != nil && opts.Namespace != "" {
		s.space = opts.Namespace
	}
	return s
}

// Use marks value as used for ttl (at least a millisecond; pass the longest
// time the value could still be accepted, such as the requestState TTL). It
// returns nil the first time, an error wrapping ErrAlreadyUsed after that,
// and an error wrapping store.ErrUnavailable when Redis cannot say (the
// caller must then refuse the value: accepting it could accept a replay).
func (s *SingleUse) Use(ctx context.Context, value string, ttl time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	sum := sha256.Sum256([]byte(value))
	key := s.c.prefix + s.space + ":used:{" + base64.RawURLEncoding.EncodeToString(sum[:16]) + "}"
	ms := max(ttl.Milliseconds(), 1)
	reply, err := s.c.do(ctx, s.c.rc.B().Set().Key(key).Value("1").Nx().PxMilliseconds(ms).Build())
	if err != nil {
		return fmt.Errorf("redisstore: recording a single use: %w", err)
	}
	if reply.IsNil() {
		return ErrAlreadyUsed
	}
	return nil
}
