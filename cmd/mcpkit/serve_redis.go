package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/mcpkit/mcpkit"
	"github.com/mcpkit/mcpkit/internal/demo"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/store/redisstore"
)

// redisEnv names the environment variable that --redis defaults to.
const redisEnv = "MCPKIT_REDIS_URL"

// redisURL returns the Redis URL of --redis, else of MCPKIT_REDIS_URL ("" for
// none).
func (f *serveFlags) redisURL() string {
	if f.redis != "" {
		return f.redis
	}
	return os.Getenv(redisEnv)
}

// redisBackend is the shared state of a replica: sessions, SSE events, tasks
// and the change feed, all on one Redis.
type redisBackend struct {
	c     *redisstore.Client
	feed  *redisstore.ChangeFeed
	relay *redisstore.Relay
}

// openRedis connects to the Redis at url (it must answer now: a replica that
// cannot reach its shared state should not start).
func openRedis(ctx context.Context, url string, logger *slog.Logger) (*redisBackend, error) {
	c, err := redisstore.Open(ctx, url, nil)
	if err != nil {
		return nil, fmt.Errorf("--redis: %w", err)
	}
	relay, err := redisstore.NewRelay(ctx, c, &redisstore.RelayOptions{Replica: replicaID(), Logger: logger})
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("--redis: %w", err)
	}
	return &redisBackend{c: c, relay: relay, feed: redisstore.NewChangeFeed(c, &redisstore.ChangeFeedOptions{Logger: logger})}, nil
}

// apply puts the shared stores in the demo server's and the HTTP handler's
// options.
func (b *redisBackend) apply(d *demo.Options, h *mcpkit.HTTPOptions, singleUse bool) {
	d.Changes = b.feed
	if singleUse {
		d.StateUse = redisstore.NewStateUse(b.c)
	}
	d.Tasks = &mcp.TaskOptions{Store: redisstore.NewTaskStore(b.c, nil)}
	// Not h.Ready: Redis is shared by every replica, and each still serves
	// stateless requests without it and answers the others 503 with
	// Retry-After itself. GET /readyz?verbose shows Redis's state.
	h.Checks = map[string]func(context.Context) error{"redis": b.c.Ping}
	h.Sessions = redisstore.NewSessionStore(b.c)
	h.EventStore = redisstore.NewEventStore(b.c, nil)
	h.Relay = b.relay
}

// Close stops the change feed and closes the connections.
func (b *redisBackend) Close() {
	b.feed.Close()
	b.relay.Close()
	b.c.Close()
}

// errSingleUseNeedsRedis refuses --single-use-state without --redis: the
// register of used states is shared by the replicas on Redis.
var errSingleUseNeedsRedis = errors.New("--single-use-state needs --redis (or " + redisEnv + "): the used states are recorded there")

// replicaEnv names the environment variable that names the replica on the
// relay (a pod's name, say), for people reading ids and logs.
const replicaEnv = "MCPKIT_REPLICA_ID"

// replicaID returns MCPKIT_REPLICA_ID's letters and digits, at most 32 (""
// for none). The relay adds random characters to it in every process, so
// that two processes under one name (a container restarted in its pod) never
// share an id.
func replicaID() string {
	var b strings.Builder
	for _, r := range os.Getenv(replicaEnv) {
		if b.Len() < 32 && ('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9') {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// warnNoStateKeys is what serve --redis says without MCPKIT_STATE_KEYS: each
// replica then seals requestState with a key of its own, and a 2026-07-28
// input-required round whose retry lands on another replica fails.
const warnNoStateKeys = "mcpkit: warning: --redis without " + stateKeysEnv + ": this replica seals requestState with a random key of its own, " +
	"so the other replicas cannot open it and an input-required round whose retry lands elsewhere fails; give every replica the same " + stateKeysEnv

// errRedisNeedsHTTP refuses --redis without --http: stdio has one client and
// nothing to share.
var errRedisNeedsHTTP = errors.New("--redis (or " + redisEnv + ") needs --http: sessions are shared between HTTP replicas")
