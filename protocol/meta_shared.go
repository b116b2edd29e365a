package protocol

import "github.com/mcpkit/mcpkit/internal/cowmap"

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

// The shared values of each kind, keyed by the bytes they were decoded from.
var (
	sharedCapabilities    = cowmap.New[string, *ClientCapabilities](sharedValuesMax) // io.modelcontextprotocol/clientCapabilities
	sharedImplementations = cowmap.New[string, *Implementation](sharedValuesMax)     // .../clientInfo and .../serverInfo
)

// decodeShared decodes raw, the value of a _meta key whose decoded values are
// shared (capabilities and implementations), as decodeMetaValue would, from
// the values kept when the same bytes were decoded before. It reports false
// for the other keys.
func decodeShared(key string, raw []byte) (v any, ok bool, err error) {
	switch key {
	case MetaKeyClientCapabilities:
		return decodeSharedValue(sharedCapabilities, key, raw)
	case MetaKeyClientInfo, MetaKeyServerInfo:
		return decodeSharedValue(sharedImplementations, key, raw)
	}
	return nil, false, nil
}

// decodeSharedValue is decodeShared for one kind of value.
func decodeSharedValue[T any](c *cowmap.Map[string, *T], key string, raw []byte) (any, bool, error) {
	if v := c.Load()[string(raw)]; v != nil { // no allocation for the conversion
		return v, true, nil
	}
	v, ok := decodeMetaValueFast(key, raw)
	if !ok {
		var err error
		if v, err = decodeMetaValue(key, raw); err != nil {
			return nil, true, err
		}
	}
	if t, ok := v.(*T); ok && t != nil && len(raw) <= sharedValueBytesMax {
		c.Add(string(raw), t)
	}
	return v, true, nil
}
