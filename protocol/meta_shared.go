package protocol

import (
	"maps"
	"sync"
	"sync/atomic"
)

// A 2026-07-28 client repeats the same envelope in every request's _meta: its
// capabilities and its identity, byte for byte (mcpkit's client encodes them
// once per session), and a server repeats its identity in every result's
// _meta. Decoding those values again on every message was most of the cost of
// a stateless request's _meta: a gateway's capabilities, which declare an
// extension's settings, took encoding/json's path at about 10 µs and 27
// allocations each time. So the decoded values are kept, keyed by their exact
// bytes, and shared by every decode of the same bytes: they must not be
// modified (see [Meta]).

// Bounds of the shared values: a peer that sends new bytes on every message
// costs each of them one decode, as without the cache, and never more memory
// than this.
const (
	sharedValuesMax     = 64   // distinct values kept per kind; then it starts over
	sharedValueBytesMax = 2048 // longer values are decoded every time
)

var (
	sharedCapabilities    sharedValues[ClientCapabilities] // io.modelcontextprotocol/clientCapabilities
	sharedImplementations sharedValues[Implementation]     // .../clientInfo and .../serverInfo
)

// sharedValues maps the bytes of a JSON value to what it decoded to. Reads
// take no lock and allocate nothing: the map is replaced, never changed, and a
// new value copies it (at most sharedValuesMax entries) under the mutex.
type sharedValues[T any] struct {
	mu sync.Mutex
	m  atomic.Pointer[map[string]*T]
}

// get returns the value raw decoded to before, or nil.
func (c *sharedValues[T]) get(raw []byte) *T {
	if m := c.m.Load(); m != nil {
		return (*m)[string(raw)] // no allocation for the conversion
	}
	return nil
}

// put records v as what raw decodes to. A full map is dropped, not copied:
// the values in use again come back on their next decode.
func (c *sharedValues[T]) put(raw []byte, v *T) {
	if len(raw) > sharedValueBytesMax {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var next map[string]*T
	if old := c.m.Load(); old != nil && len(*old) < sharedValuesMax {
		next = make(map[string]*T, len(*old)+1)
		maps.Copy(next, *old)
	} else {
		next = make(map[string]*T, 1)
	}
	next[string(raw)] = v
	c.m.Store(&next)
}

// decodeShared decodes raw, the value of a _meta key whose decoded values are
// shared (capabilities and implementations), as decodeMetaValue would, from
// the values kept when the same bytes were decoded before. It reports false
// for the other keys.
func decodeShared(key string, raw []byte) (v any, ok bool, err error) {
	switch key {
	case MetaKeyClientCapabilities:
		return decodeSharedValue(&sharedCapabilities, key, raw)
	case MetaKeyClientInfo, MetaKeyServerInfo:
		return decodeSharedValue(&sharedImplementations, key, raw)
	}
	return nil, false, nil
}

// decodeSharedValue is decodeShared for one kind of value.
func decodeSharedValue[T any](c *sharedValues[T], key string, raw []byte) (any, bool, error) {
	if v := c.get(raw); v != nil {
		return v, true, nil
	}
	v, ok := decodeMetaValueFast(key, raw)
	if !ok {
		var err error
		if v, err = decodeMetaValue(key, raw); err != nil {
			return nil, true, err
		}
	}
	if t, ok := v.(*T); ok && t != nil {
		c.put(raw, t)
	}
	return v, true, nil
}
