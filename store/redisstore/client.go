// Package redisstore implements mcpkit's storage seams on Redis, so that
// several replicas of a server behind a load balancer share their state:
//
//   - EventStore is a streamable.EventStore: the events of a session's SSE
//     streams, in one Redis Stream per SSE stream, bounded and expiring, so a
//     client resumes with Last-Event-ID on any replica.
//   - TaskStore is a taskstore.Store: tasks that any replica can answer for.
//   - ChangeFeed is an mcp.ChangeFeed over Redis Pub/Sub: a change made on one
//     replica reaches the subscriptions/listen streams held by the others.
//   - SingleUse records which requestState values were already used, for the
//     places where a state must be consumed at most once.
//
// Every key of one session (and of one task) carries a hash tag, so a Redis
// Cluster keeps them in one slot and the Lua scripts that touch several of them
// run there; a script touches only the keys it declares. Errors from an unreachable or failing Redis wrap
// store.ErrUnavailable (an HTTP layer answers them with 503 and Retry-After); a
// stored value this package did not write gives an error wrapping
// store.ErrCorrupt, never a panic. The client is rueidis, chosen by measurement
// (see ../DESIGN.md).
package redisstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/redis/rueidis"

	"github.com/mcpkit/mcpkit/store"
)

// DefaultPrefix begins every key and channel name unless Options.Prefix says
// otherwise.
const DefaultPrefix = "mcp:"

// Default timeouts of a Client.
const (
	// DefaultDialTimeout bounds connecting to Redis.
	DefaultDialTimeout = time.Second
	// DefaultTimeout bounds waiting for a reply on an established connection.
	DefaultTimeout = 3 * time.Second
)

// Options configures Open. The zero value gives the defaults.
type Options struct {
	// Prefix begins every key and channel name, so that several servers can
	// share one Redis. Empty means DefaultPrefix.
	Prefix string
	// DialTimeout bounds connecting; zero means DefaultDialTimeout.
	DialTimeout time.Duration
	// Timeout bounds waiting for Redis to answer on a connection; zero means
	// DefaultTimeout. A Redis that stops answering fails requests after it
	// with store.ErrUnavailable.
	Timeout time.Duration
}

// Client is a connection (pool) to one Redis deployment, shared by the stores
// built on it. It is safe for concurrent use.
type Client struct {
	rc     rueidis.Client
	prefix string
}

// Open connects to the Redis at url ("redis://[user:password@]host:port/db",
// "rediss://" for TLS, "unix:///path") and checks that it answers. Commands
// are never retried by the client: when Redis is down, an operation fails at
// once with an error wrapping store.ErrUnavailable instead of waiting.
func Open(ctx context.Context, url string, opts *Options) (*Client, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	co, err := rueidis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("redisstore: redis URL: %w", err)
	}
	if o.DialTimeout <= 0 {
		o.DialTimeout = DefaultDialTimeout
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	co.Dialer.Timeout = o.DialTimeout
	co.ConnWriteTimeout = o.Timeout
	co.DisableRetry = true // fail fast; the caller decides whether to retry
	co.DisableCache = true // no client-side caching (it needs CLIENT TRACKING)
	co.ClientName = "mcpkit"
	rc, err := rueidis.NewClient(co)
	if err != nil {
		return nil, fmt.Errorf("redisstore: connecting to %s: %w: %w", co.InitAddress, store.ErrUnavailable, err)
	}
	c := &Client{rc: rc, prefix: o.Prefix}
	if c.prefix == "" {
		c.prefix = DefaultPrefix
	}
	if err := c.Ping(ctx); err != nil {
		rc.Close()
		return nil, err
	}
	return c, nil
}

// Close closes the connections. Stores built on the client stop working.
func (c *Client) Close() { c.rc.Close() }

// Ping checks that Redis answers (for readiness probes).
func (c *Client) Ping(ctx context.Context) error {
	_, err := c.do(ctx, c.rc.B().Ping().Build())
	return err
}

// do runs one command and sorts its error (see classify).
func (c *Client) do(ctx context.Context, cmd rueidis.Completed) (rueidis.RedisMessage, error) {
	return c.result(ctx, c.rc.Do(ctx, cmd))
}

// exec runs a Lua script and sorts its error (see classify).
func (c *Client) exec(ctx context.Context, s *rueidis.Lua, keys, args []string) (rueidis.RedisMessage, error) {
	return c.result(ctx, s.Exec(ctx, c.rc, keys, args))
}

// result returns the reply of res, or its error sorted by classify. A nil
// reply is returned as a message whose IsNil is true, not as an error.
func (c *Client) result(ctx context.Context, res rueidis.RedisResult) (rueidis.RedisMessage, error) {
	msg, err := res.ToMessage()
	if err == nil || rueidis.IsRedisNil(err) {
		return msg, nil
	}
	return msg, classify(ctx, res.NonRedisError(), err)
}

// classify sorts an error from a command. netErr is the error that is not a
// Redis reply (a connection or timeout error), err the command's error.
func classify(ctx context.Context, netErr, err error) error {
	if netErr != nil {
		if ctxErr := ctx.Err(); ctxErr != nil && errors.Is(netErr, ctxErr) {
			return ctxErr // the caller gave up: not the backend's fault
		}
		return fmt.Errorf("redisstore: %w: %w", store.ErrUnavailable, netErr)
	}
	re, ok := rueidis.IsRedisErr(err)
	if !ok {
		return fmt.Errorf("redisstore: %w", err)
	}
	msg := re.Error()
	switch {
	case re.IsLoading(), re.IsClusterDown(), re.IsTryAgain(), hasAnyPrefix(msg, unavailableReplies):
		return fmt.Errorf("redisstore: %w: %w", store.ErrUnavailable, err)
	case strings.Contains(msg, "WRONGTYPE"):
		// A key of ours holds another kind of value: someone else wrote it.
		return fmt.Errorf("redisstore: %w: %w", store.ErrCorrupt, err)
	}
	return fmt.Errorf("redisstore: %w", err)
}

// unavailableReplies are the error replies that mean Redis cannot serve the
// command now but may later (busy script, failover, out of memory, no quorum).
var unavailableReplies = []string{"BUSY", "MASTERDOWN", "READONLY", "OOM", "NOREPLICAS", "NOQUORUM"}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// corrupt reports a stored value that is not in the expected format.
func corrupt(key, format string, args ...any) error {
	return fmt.Errorf("redisstore: %w: key %q: %s", store.ErrCorrupt, key, fmt.Sprintf(format, args...))
}
