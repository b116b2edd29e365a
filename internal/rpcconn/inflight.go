package rpcconn

import (
	"context"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

// inflight is the set of incoming requests a connection is handling, by id,
// with the functions that cancel them. A connection usually handles a few
// requests at a time, so a slice searched from the end beats a map: it costs
// no allocation once grown, and 48 bytes rather than a map's ~350 for an idle
// connection that once served one request. Its first entry lives in the
// connection itself: one request in flight, which is all a stateless
// connection ever holds, costs no allocation at all.
type inflight struct {
	list  []inflightRequest
	first [1]inflightRequest
}

type inflightRequest struct {
	id     jsonrpc.ID
	cancel context.CancelCauseFunc
}

// find returns the index of id, or -1.
func (s *inflight) find(id jsonrpc.ID) int {
	for i := len(s.list) - 1; i >= 0; i-- {
		if s.list[i].id == id {
			return i
		}
	}
	return -1
}

// get returns the cancel function of id.
func (s *inflight) get(id jsonrpc.ID) (context.CancelCauseFunc, bool) {
	if i := s.find(id); i >= 0 {
		return s.list[i].cancel, true
	}
	return nil, false
}

// add records id, which must not be present.
func (s *inflight) add(id jsonrpc.ID, cancel context.CancelCauseFunc) {
	if s.list == nil {
		s.list = s.first[:0]
	}
	s.list = append(s.list, inflightRequest{id, cancel})
}

// remove forgets id, if present.
func (s *inflight) remove(id jsonrpc.ID) {
	if i := s.find(id); i >= 0 {
		last := len(s.list) - 1
		s.list[i] = s.list[last]
		s.list[last] = inflightRequest{} // drop the references
		s.list = s.list[:last]
	}
}

// each calls fn with every request's cancel function.
func (s *inflight) each(fn func(context.CancelCauseFunc)) {
	for _, r := range s.list {
		fn(r.cancel)
	}
}
