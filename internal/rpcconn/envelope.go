package rpcconn

import (
	"encoding/json"
	"errors"
)

// Enveloped is request params that get members encoded once before their own:
// the envelope a stateless (2026-07-28) request carries in _meta, which the
// session encodes when its version or log level changes instead of on every
// request. Params must encode (with encoding/json) as a JSON object that has
// none of the member names in Members. Members is complete object members,
// `"name":value` separated by commas, written as they are: the caller makes
// them valid JSON.
//
// Conn writes an Enveloped into the request message directly; MarshalJSON is
// for the other paths (middleware sees params as bytes).
type Enveloped struct {
	Params  any
	Members []byte
}

var errNotObject = errors.New("rpcconn: enveloped params do not encode as a JSON object")

// MarshalJSON returns the params with the members first.
func (e *Enveloped) MarshalJSON() ([]byte, error) {
	obj, err := json.Marshal(e.Params)
	if err != nil || len(e.Members) == 0 {
		return obj, err
	}
	b := make([]byte, 0, 1+len(e.Members)+len(obj))
	b = append(append(append(b, '{'), e.Members...), obj...)
	n, err := joinEnvelope(b, 1+len(e.Members))
	if err != nil {
		return nil, err
	}
	return b[:n], nil
}

// joinEnvelope joins, in place, the members and the params' object in b: b
// holds '{', the members, and from at on the params' object as encoding/json
// wrote it (no trailing newline). The params' '{' becomes the comma between the
// two sets of members, or, when the params' object is empty, the '}' that
// closes the whole. It returns the joined length.
func joinEnvelope(b []byte, at int) (int, error) {
	if len(b) < at+2 || b[at] != '{' || b[len(b)-1] != '}' {
		return 0, errNotObject
	}
	if len(b) == at+2 { // {}
		b[at] = '}'
		return at + 1, nil
	}
	b[at] = ','
	return len(b), nil
}
