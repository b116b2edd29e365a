package resource

import (
	"net/http"
	"sync"
	"time"
)

// Session binding: a legacy session (Streamable HTTP's Mcp-Session-Id, HTTP+SSE's
// sessionId) belongs to the principal whose request created it; another
// principal presenting its id is refused, so a leaked session id is no use
// without that principal's token. Sessions this middleware did not see created
// (another replica's, or from before a restart) are let through: the transport
// decides whether they exist.

const (
	// maxBoundSessions bounds the bindings kept; past it, those idle longest
	// are dropped first.
	maxBoundSessions = 100_000
	// sessionIdle is how long a binding is kept without use once the table is
	// full.
	sessionIdle = 24 * time.Hour
)

type binding struct {
	principal string
	used      time.Time
}

// sessionTable maps session ids to the principals that created them.
type sessionTable struct {
	mu sync.Mutex
	m  map[string]binding
}

// check reports whether principal may use session id (unknown ids may).
func (s *sessionTable) check(id, principal string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.m[id]
	if !ok {
		return true
	}
	if b.principal != principal {
		return false
	}
	b.used = time.Now()
	s.m[id] = b
	return true
}

func (s *sessionTable) bind(id, principal string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string]binding{}
	}
	if _, ok := s.m[id]; ok {
		return // the first binding stands
	}
	if len(s.m) >= maxBoundSessions {
		cutoff := time.Now().Add(-sessionIdle)
		for k, b := range s.m {
			if b.used.Before(cutoff) || len(s.m) >= maxBoundSessions {
				delete(s.m, k)
			}
		}
	}
	s.m[id] = binding{principal: principal, used: time.Now()}
}

func (s *sessionTable) forget(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, id)
}

// sessionOf returns the session id a request names, if any.
func sessionOf(r *http.Request) string {
	if id := r.Header.Get("Mcp-Session-Id"); id != "" {
		return id
	}
	if r.URL.RawQuery == "" {
		return ""
	}
	return r.URL.Query().Get("sessionId")
}

// bindingWriter records the session a response creates: the Mcp-Session-Id
// header of Streamable HTTP, or the sessionId in the endpoint event that opens
// an HTTP+SSE stream.
type bindingWriter struct {
	http.ResponseWriter
	table     *sessionTable
	principal string
	sse       bool // an HTTP+SSE stream: look for the endpoint event
	done      bool
}

func (w *bindingWriter) WriteHeader(code int) {
	if !w.done {
		if id := w.Header().Get("Mcp-Session-Id"); id != "" && code < 300 {
			w.table.bind(id, w.principal)
			w.done = true
		}
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *bindingWriter) Write(p []byte) (int, error) {
	if !w.done {
		if id := w.Header().Get("Mcp-Session-Id"); id != "" {
			w.table.bind(id, w.principal)
			w.done = true
		} else if w.sse {
			if id := endpointSession(p); id != "" {
				w.table.bind(id, w.principal)
				w.done = true
			}
		}
	}
	return w.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the underlying writer (flushing,
// deadlines).
func (w *bindingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Flush flushes the underlying writer, for handlers that assert http.Flusher.
func (w *bindingWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// endpointSession finds "sessionId=<id>" in the bytes of an SSE endpoint event.
func endpointSession(p []byte) string {
	const key = "sessionId="
	for i := 0; i+len(key) <= len(p); i++ {
		if string(p[i:i+len(key)]) != key {
			continue
		}
		j := i + len(key)
		k := j
		for k < len(p) && p[k] != '&' && p[k] != '\n' && p[k] != '\r' && p[k] != '"' && p[k] != ' ' {
			k++
		}
		if k > j {
			return string(p[j:k])
		}
	}
	return ""
}
