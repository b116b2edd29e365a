// Package rpcshared holds what package jsonrpc shares with mcpkit's internal
// packages without making it public: the table of method names the decoder interns
// (decoding a registered name returns a shared string instead of allocating a new
// one; package mcp registers its method names at init), and the context key under
// which the connection engine (internal/rpcconn) marks the request a handler answers.
package rpcshared

import (
	"sync"
	"sync/atomic"
)

var (
	mu    sync.Mutex
	names atomic.Pointer[map[string]string]
)

// RegisterMethodNames adds names to the table. It is safe to call at any time, from any
// goroutine; readers see either the old table or the new one.
func RegisterMethodNames(add ...string) {
	mu.Lock()
	defer mu.Unlock()
	next := make(map[string]string)
	if old := names.Load(); old != nil {
		for k, v := range *old {
			next[k] = v
		}
	}
	for _, n := range add {
		next[n] = n
	}
	names.Store(&next)
}

// LookupMethodName returns the shared copy of the method name raw, if it is registered.
func LookupMethodName(raw []byte) (string, bool) {
	if t := names.Load(); t != nil {
		s, ok := (*t)[string(raw)]
		return s, ok
	}
	return "", false
}

// RelatedKey is the context key of the incoming request a handler is answering; its
// value is a *jsonrpc.ID. jsonrpc.RelatedRequest reads it. The engine stores a
// pointer to the id inside the decoded message, so marking a context costs no copy.
type RelatedKey struct{}
