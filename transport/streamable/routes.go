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
// responses. Its first route lives in the session itself: a session with one
// request in flight at a time (a one-request session, or a client that waits
// for each answer) routes without allocating, and an idle one keeps 48 bytes.
// More routes at once go to a slice made the first time, then kept.
type routeTable struct {
	first route // in use when first.st is not nil
	more  *[]route
}

type route struct {
	id jsonrpc.ID
	st *stream
}

// get returns the stream of id, or nil.
func (t *routeTable) get(id jsonrpc.ID) *stream {
	if t.first.st != nil && t.first.id == id {
		return t.first.st
	}
	if t.more != nil {
		for _, r := range *t.more {
			if r.id == id {
				return r.st
			}
		}
	}
	return nil
}

// set routes id to st; id must not be routed yet.
func (t *routeTable) set(id jsonrpc.ID, st *stream) {
	if t.first.st == nil {
		t.first = route{id, st}
		return
	}
	if t.more == nil {
		t.more = new([]route)
	}
	*t.more = append(*t.more, route{id, st})
}

// take removes the route of id and returns its stream (nil if it had none).
func (t *routeTable) take(id jsonrpc.ID) *stream {
	if t.first.st != nil && t.first.id == id {
		st := t.first.st
		t.first = route{}
		if t.more != nil && len(*t.more) > 0 { // keep the first slot in use
			s := *t.more
			last := len(s) - 1
			t.first = s[last]
			s[last] = route{}
			*t.more = s[:last]
		}
		return st
	}
	if t.more == nil {
		return nil
	}
	s := *t.more
	for i := range s {
		if s[i].id == id {
			st := s[i].st
			last := len(s) - 1
			s[i] = s[last]
			s[last] = route{}
			*t.more = s[:last]
			return st
		}
	}
	return nil
}

// len returns the number of routes.
func (t *routeTable) len() int {
	n := 0
	if t.first.st != nil {
		n = 1
	}
	if t.more != nil {
		n += len(*t.more)
	}
	return n
}

// clear removes every route.
func (t *routeTable) clear() {
	t.first = route{}
	if t.more != nil {
		clear(*t.more)
		*t.more = (*t.more)[:0]
	}
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
