package mcp

// Batch runs f, which may add and remove any number of tools, prompts,
// resources and templates, and tells connected clients that a list changed
// once per kind of list after f returns, instead of once per change. Batches
// may nest (and may run concurrently): the notifications go out when the last
// one ends. f must not wait for another goroutine's Batch to end.
func (s *Server) Batch(f func()) {
	s.mu.Lock()
	s.batching++
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.batching--
		var pending []string
		if s.batching == 0 {
			pending, s.batched = s.batched, nil
		}
		s.mu.Unlock()
		for _, method := range pending {
			s.notifyAll(method, nil)
		}
	}()
	f()
}

// deferNotification holds back a list_changed notification while a Batch
// runs, and reports whether it did.
func (s *Server) deferNotification(method string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.batching == 0 {
		return false
	}
	for _, m := range s.batched {
		if m == method {
			return true
		}
	}
	s.batched = append(s.batched, method)
	return true
}
