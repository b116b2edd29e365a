package jsonrpc

import "context"

// inflight is the set of incoming requests a connection is handling, by id,
// with the functions that cancel them. A connection usually handles a few
// requests at a time, so a slice searched from the end beats a map: it costs
// no allocation once grown, and 48 bytes rather than a map's ~350 for an idle
// connection that once served one request.
type inflight []inflightRequest

type inflightRequest struct {
	id     ID
	cancel context.CancelCauseFunc
}

// find returns the index of id, or -1.
func (s inflight) find(id ID) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i].id == id {
			return i
		}
	}
	return -1
}

// get returns the cancel function of id.
func (s inflight) get(id ID) (context.CancelCauseFunc, bool) {
	if i := s.find(id); i >= 0 {
		return s[i].cancel, true
	}
	return nil, false
}

// add records id, which must not be present.
func (s *inflight) add(id ID, cancel context.CancelCauseFunc) {
	*s = append(*s, inflightRequest{id, cancel})
}

// remove forgets id, if present.
func (s *inflight) remove(id ID) {
	if i := s.find(id); i >= 0 {
		last := len(*s) - 1
		(*s)[i] = (*s)[last]
		(*s)[last] = inflightRequest{} // drop the references
		*s = (*s)[:last]
	}
}
