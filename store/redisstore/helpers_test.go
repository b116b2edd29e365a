package redisstore_test

import (
	"testing"

	"github.com/mcpkit/mcpkit/store/redisstore"
	"github.com/mcpkit/mcpkit/store/redistest"
)

// open connects a new client (as one replica would) to srv, closed when t ends.
func open(t testing.TB, srv *redistest.Server) *redisstore.Client {
	t.Helper()
	c, err := redisstore.Open(t.Context(), srv.URL(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// clients opens clients (each a replica's) on one namespace of a Redis: a
// test given one does not care where that Redis runs.
type clients func(t testing.TB) *redisstore.Client

// newRedis starts a redis-server of its own for t and returns its clients.
func newRedis(t testing.TB) clients {
	srv := redistest.Start(t)
	return func(t testing.TB) *redisstore.Client { return open(t, srv) }
}

// openPrefixed is open with the key prefix prefix.
func openPrefixed(t testing.TB, srv *redistest.Server, prefix string) *redisstore.Client {
	t.Helper()
	c, err := redisstore.Open(t.Context(), srv.URL(), &redisstore.Options{Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}
