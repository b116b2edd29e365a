package protocol

import (
	"encoding/json"
	"slices"
)

// MarshalJSON encodes m as encoding/json encodes a map[string]any — keys sorted,
// strings escaped alike — without reflection over the map: a request's _meta is
// encoded on every request of the stateless protocol, where walking the map with
// reflect cost a dozen allocations. Values that are strings, booleans, raw JSON
// or nil are written directly (raw JSON as it is: encoding/json checks and
// compacts what a MarshalJSON returns); any other value goes through
// encoding/json.
func (m Meta) MarshalJSON() ([]byte, error) {
	if m == nil {
		return []byte("null"), nil
	}
	return m.appendJSON(make([]byte, 0, 64*len(m)+2))
}

func (m Meta) appendJSON(b []byte) ([]byte, error) {
	var arr [8]string
	keys := arr[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(appendString(b, k), ':')
		switch v := m[k].(type) {
		case nil:
			b = append(b, "null"...)
		case string:
			b = appendString(b, v)
		case LoggingLevel:
			b = appendString(b, string(v))
		case bool:
			if v {
				b = append(b, "true"...)
			} else {
				b = append(b, "false"...)
			}
		case json.RawMessage: // checked by encoding/json, which compacts what MarshalJSON returns
			if v == nil {
				b = append(b, "null"...)
			} else {
				b = append(b, v...)
			}
		default:
			enc, err := json.Marshal(v)
			if err != nil {
				return nil, err
			}
			b = append(b, enc...)
		}
	}
	return append(b, '}'), nil
}
