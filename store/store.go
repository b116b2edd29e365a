// Package store holds what every shared-state backend of mcpkit has in common:
// the errors an HTTP layer needs to tell "the backend is down" (answer 503 with
// Retry-After, never 404) from "this is not there" and from "what is stored is
// not ours".
//
// The backends themselves live in sub-packages: redisstore implements the
// seams of the SDK (streamable.EventStore, taskstore.Store, mcp.ChangeFeed) on
// Redis, redistest starts a real redis-server for tests, and storetest holds
// contract tests that any implementation of those seams, in memory or shared,
// runs from its own tests. DESIGN.md beside this file describes the Redis key
// layout and the plan for sessions shared across replicas.
package store

import "errors"

// ErrUnavailable is wrapped by every error that comes from the shared backend
// being unreachable, timing out, loading, or refusing writes. The request that
// met it may succeed if retried later; an HTTP handler answers it with 503
// Service Unavailable and a Retry-After header, never with 404.
var ErrUnavailable = errors.New("store: shared backend unavailable")

// ErrCorrupt is wrapped by the error a backend returns when a stored value is
// not something it wrote (another program used the key, or a newer version of
// mcpkit wrote a format this one does not read). It is never a panic.
var ErrCorrupt = errors.New("store: stored value is not in the expected format")
