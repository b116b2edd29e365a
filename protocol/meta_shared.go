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
	sharedMetas           = cowmap.New[string, []metaEntry](sharedValuesMax)         // whole envelopes, see sharedMeta
)

// sharedMetaBytesMax bounds the whole _meta objects kept by keepMeta.
const sharedMetaBytesMax = 2 * sharedValueBytesMax

// A whole _meta made of envelope keys only — the protocol version, the
// client's capabilities, an identity, the log level — repeats byte for byte
// too: a 2026-07-28 request's is the client's envelope, a result's the
// server's identity. Its entries are kept, keyed by the object's exact bytes,
// so that decoding it again is one lookup and a new map with the same
// entries, with no scan of the bytes. Every value kept is immutable (a
// version or a level) or a *ClientCapabilities or *Implementation, which
// [Meta]'s contract already shares between decodes of the same bytes (for a
// value too long for the caches above, this makes it shared too); a _meta
// with any other key, a progress token say, is decoded every time and never
// kept.

// metaEntry is one decoded member of a kept _meta.
type metaEntry struct {
	key   string
	value any
}

// sharedMeta returns a new map with the entries of the _meta object data,
// when the same bytes were decoded and kept before.
func sharedMeta(data []byte) (Meta, bool) {
	if len(data) > sharedMetaBytesMax {
		return nil, false // never kept: not worth hashing
	}
	entries, ok := sharedMetas.Load()[string(data)] // no allocation for the conversion
	if !ok {
		return nil, false
	}
	m := make(Meta, max(len(entries), 4)) // as decodeMetaFast makes it
	for _, e := range entries {
		m[e.key] = e.value
	}
	return m, true
}

// keepMeta keeps the entries of m, decoded from the _meta object data, when
// every key is an envelope key and data is not too long. Any other _meta (a
// progress token's, on many legacy requests) costs only the look at its keys.
func keepMeta(data []byte, m Meta) {
	if len(data) > sharedMetaBytesMax || len(m) == 0 {
		return
	}
	for k := range m {
		switch k {
		case MetaKeyProtocolVersion, MetaKeyClientCapabilities, MetaKeyClientInfo, MetaKeyServerInfo, MetaKeyLogLevel:
		default:
			return
		}
	}
	entries := make([]metaEntry, 0, len(m))
	for k, v := range m {
		entries = append(entries, metaEntry{k, v})
	}
	sharedMetas.Add(string(data), entries)
}

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
