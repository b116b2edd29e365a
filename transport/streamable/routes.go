package streamable

import (
	"strconv"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

// A session routes the few requests it has in flight to their streams, and
// keeps the few streams a client may still resume. Both are small: slices
// searched linearly beat maps here — no allocation once grown, and a few dozen
// bytes, not a map's hundreds, for each idle session that once served a request.

// routeTable maps the ids of the requests in flight to the streams owing their
// responses. Its first route lives in the session itself: a one-request
// session routes without allocating.
type routeTable struct {
	list  []route
	first [1]route
}

type route struct {
	id jsonrpc.ID
	st *stream
}

// get returns the stream of id, or nil.
func (t *routeTable) get(id jsonrpc.ID) *stream {
	for i := range t.list {
		if t.list[i].id == id {
			return t.list[i].st
		}
	}
	return nil
}

// set routes id to st; id must not be routed yet.
func (t *routeTable) set(id jsonrpc.ID, st *stream) {
	if t.list == nil {
		t.list = t.first[:0]
	}
	t.list = append(t.list, route{id, st})
}

// take removes the route of id and returns its stream (nil if it had none).
func (t *routeTable) take(id jsonrpc.ID) *stream {
	s := t.list
	for i := range s {
		if s[i].id == id {
			st := s[i].st
			last := len(s) - 1
			s[i] = s[last]
			s[last] = route{}
			t.list = s[:last]
			return st
		}
	}
	return nil
}

// len returns the number of routes.
func (t *routeTable) len() int { return len(t.list) }

// clear removes every route.
func (t *routeTable) clear() {
	clear(t.list)
	t.list = t.list[:0]
}

// streamSet is a session's resumable streams still expecting events.
type streamSet []*stream

// get returns the stream whose EventStore id is id, or nil.
func (ss streamSet) get(id string) *stream {
	seq, err := strconv.ParseUint(id, 10, 64)
	if err != nil {
		// A stream named with a Relay (its name is set before it is shared).
		for _, st := range ss {
			if st.name == id {
				return st
			}
		}
		return nil
	}
	for _, st := range ss {
		if st.seq == seq {
			return st
		}
	}
	return nil
}

// remove drops st, if present.
func (ss *streamSet) remove(st *stream) {
	s := *ss
	for i := range s {
		if s[i] == st {
			last := len(s) - 1
			s[i] = s[last]
			s[last] = nil
			*ss = s[:last]
			return
		}
	}
}
