package mcp

import "sync"

// A server usually hears from a few kinds of client, each of which sends the
// same initialize params every time: the sessions of one kind can share one
// sessionState (it never changes once set), and an idle session then keeps no
// copy of its client's name, version and capabilities of its own.

const (
	// maxSharedStates bounds the states a server keeps for sharing; when it is
	// full the next new one starts it afresh.
	maxSharedStates = 64
	// maxSharedParams is the largest initialize params shared: larger ones are
	// kept by their session alone, so the table stays small whatever peers send.
	maxSharedParams = 1 << 10
)

// sharedStates maps initialize params, byte for byte, to the state they
// negotiated.
type sharedStates struct {
	mu sync.Mutex
	m  map[string]*sessionState
}

// share returns the state already negotiated by params identical to raw, or
// records st as that state and returns it.
func (c *sharedStates) share(raw []byte, st *sessionState) *sessionState {
	if len(raw) > maxSharedParams {
		return st
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.m[string(raw)]; ok {
		return old
	}
	if c.m == nil {
		c.m = make(map[string]*sessionState)
	} else if len(c.m) >= maxSharedStates {
		clear(c.m)
	}
	c.m[string(raw)] = st
	return st
}
