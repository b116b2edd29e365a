package protocol

import "encoding/json"

// Root is a directory or file the client exposes to servers.
type Root struct {
	// URI is the root; it must be a file:// URI today.
	URI string `json:"uri"`
	// Name is an optional display name.
	Name string `json:"name,omitempty"`
	// Meta is the root's _meta object. Added in 2025-06-18.
	Meta Meta `json:"_meta,omitempty"`
}

// ListRootsParams are the params of roots/list.
type ListRootsParams = RequestParams

// ListRootsResult is the client's answer to roots/list.
type ListRootsResult struct {
	// Meta is the result's _meta object.
	Meta Meta `json:"_meta,omitempty"`
	// Roots are the client's roots; never encoded as null.
	Roots []Root `json:"roots"`
}

type listRootsResultWire ListRootsResult

// MarshalJSON encodes r, writing a nil Roots as [].
func (r ListRootsResult) MarshalJSON() ([]byte, error) {
	if r.Roots == nil {
		r.Roots = []Root{}
	}
	return json.Marshal(listRootsResultWire(r))
}
