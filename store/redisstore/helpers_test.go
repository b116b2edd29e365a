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
