package redisstore

import (
	"context"
	"sync/atomic"

	"github.com/redis/rueidis"
)

// Do runs a raw command on c's connection (tests use it to pause Redis or to
// write what another program would).
func Do(ctx context.Context, c *Client, args ...string) error {
	_, err := c.do(ctx, c.rc.B().Arbitrary(args...).Build())
	return err
}

// countingClient counts the round trips made through it: one per Do,
// DoMulti (one node) or Receive.
type countingClient struct {
	rueidis.Client
	n *atomic.Int64
}

func (c countingClient) Do(ctx context.Context, cmd rueidis.Completed) rueidis.RedisResult {
	c.n.Add(1)
	return c.Client.Do(ctx, cmd)
}

func (c countingClient) DoMulti(ctx context.Context, cmds ...rueidis.Completed) []rueidis.RedisResult {
	c.n.Add(1)
	return c.Client.DoMulti(ctx, cmds...)
}

func (c countingClient) Receive(ctx context.Context, cmd rueidis.Completed, fn func(rueidis.PubSubMessage)) error {
	c.n.Add(1)
	return c.Client.Receive(ctx, cmd, fn)
}

// CountRoundTrips makes c count its round trips from now on, in the returned
// counter. Call it before building stores on c.
func CountRoundTrips(c *Client) *atomic.Int64 {
	n := new(atomic.Int64)
	c.rc = countingClient{Client: c.rc, n: n}
	return n
}

// DoInt runs a raw command whose reply is an integer (PTTL, MEMORY USAGE).
func DoInt(ctx context.Context, c *Client, args ...string) (int64, error) {
	reply, err := c.do(ctx, c.rc.B().Arbitrary(args...).Build())
	if err != nil {
		return 0, err
	}
	return reply.AsInt64()
}

// IsCluster reports whether c talks to a Redis Cluster (rueidis found one).
func IsCluster(c *Client) bool { return c.rc.Mode() == rueidis.ClientModeCluster }

// HoldNotices makes s call hold with the session id of every foreign change
// notice before applying it, and waiting when a SaveSynced starts waiting for
// answers (either may be nil). Call it before WatchSessions starts.
func HoldNotices(s *SessionStore, hold func(id string), waiting func()) {
	s.hold, s.waiting = hold, waiting
}
