// Package cowmap is a small, bounded map for values that many goroutines look
// up on every message and that rarely change: what a peer repeats byte for
// byte (the decoded _meta envelope values in package protocol, the request
// metadata headers in transport/streamable). The map is replaced, never
// changed: a reader loads the current one and indexes it without a lock and
// without an allocation, and a writer copies it under a mutex with one more
// entry. A map already holding its bound is dropped instead of copied, so it
// starts over: what is still in use comes back on its next Add, and a peer that
// sends something new every time costs at most the bound in memory.
package cowmap

import (
	"maps"
	"sync"
	"sync/atomic"
)

// Map is a copy-on-write map holding at most a fixed number of entries. Make
// one with New; its methods are safe for concurrent use.
type Map[K comparable, V any] struct {
	max int
	mu  sync.Mutex // serializes Add
	m   atomic.Pointer[map[K]V]
}

// New returns an empty Map that keeps at most max entries (one when max is
// less than one).
func New[K comparable, V any](max int) *Map[K, V] {
	return &Map[K, V]{max: max}
}

// Load returns the current map, nil before the first Add. It must not be
// modified: it is shared with every other reader. Index it directly, so that a
// lookup with a converted key, m.Load()[string(b)], allocates nothing.
func (c *Map[K, V]) Load() map[K]V {
	if p := c.m.Load(); p != nil {
		return *p
	}
	return nil
}

// Add makes k map to v in a new map that replaces the current one: a copy of
// it with k added, or, when the current one already holds the bound, a map of
// k alone. Readers holding the previous map keep seeing it unchanged.
func (c *Map[K, V]) Add(k K, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var next map[K]V
	if old := c.m.Load(); old != nil && len(*old) < c.max {
		next = make(map[K]V, len(*old)+1)
		maps.Copy(next, *old)
	} else {
		next = make(map[K]V, 1)
	}
	next[k] = v
	c.m.Store(&next)
}
