package mcp

import (
	"encoding/json"
	"sync"
	"time"

	"github.com/mcpkit/mcpkit/protocol"
)

// This file is the result cache of a stateless session (server/utilities/caching
// in the specification). A cacheable result — server/discover, the list methods,
// resources/read — is kept raw under its method and the parameter that selects
// it (the cursor, the URI) for the ttlMs the server gave, counted from when it
// arrived; a result without ttlMs, or with 0, is not kept. Results of requests
// that carried input responses are never kept. A change notification drops what
// it makes stale. The cache belongs to one session, which is one authorization
// context: results marked "private" may be reused within it, and nothing is
// shared with other sessions.

// maxCacheEntries bounds a session's cache; past it, expired entries are swept,
// and if that is not enough the cache starts over.
const maxCacheEntries = 1024

// resultCache holds one session's cached results.
type resultCache struct {
	now func() time.Time

	mu      sync.Mutex
	entries map[string]cacheEntry
}

type cacheEntry struct {
	method  string
	raw     json.RawMessage
	expires time.Time
}

func newResultCache(now func() time.Time) *resultCache {
	return &resultCache{now: now, entries: make(map[string]cacheEntry)}
}

// cacheKey is the key of the result of method for arg (a cursor or a URI).
func cacheKey(method, arg string) string { return method + "\x00" + arg }

// get returns the raw result under key while it is fresh.
func (c *resultCache) get(key string) (json.RawMessage, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok {
		return nil, false
	}
	if !c.now().Before(e.expires) {
		delete(c.entries, key)
		return nil, false
	}
	return e.raw, true
}

// put keeps the raw result of method under key for the time hint allows.
func (c *resultCache) put(method, key string, raw json.RawMessage, hint *protocol.CacheHint) {
	if hint == nil || hint.TTLMs == nil || *hint.TTLMs <= 0 {
		return
	}
	now := c.now()
	e := cacheEntry{method: method, raw: raw, expires: now.Add(time.Duration(*hint.TTLMs) * time.Millisecond)}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) >= maxCacheEntries {
		for k, old := range c.entries {
			if !now.Before(old.expires) {
				delete(c.entries, k)
			}
		}
		if len(c.entries) >= maxCacheEntries {
			clear(c.entries)
		}
	}
	c.entries[key] = e
}

// invalidate drops every result of method.
func (c *resultCache) invalidate(method string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, e := range c.entries {
		if e.method == method {
			delete(c.entries, k)
		}
	}
}

// drop removes one entry.
func (c *resultCache) drop(key string) {
	c.mu.Lock()
	delete(c.entries, key)
	c.mu.Unlock()
}

// invalidate drops the session's cached results of method (a no-op for a legacy
// session, which caches nothing).
func (cs *ClientSession) invalidate(method string) {
	if m := cs.live.Load(); m != nil && m.cache != nil {
		m.cache.invalidate(method)
	}
}

// invalidateRead drops the cached contents of the resource uri.
func (cs *ClientSession) invalidateRead(uri string) {
	if m := cs.live.Load(); m != nil && m.cache != nil {
		m.cache.drop(cacheKey(protocol.MethodResourcesRead, uri))
	}
}
