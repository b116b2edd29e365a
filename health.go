package mcpkit

import (
	"context"
	"net/http"
	"time"
)

// Default paths of the probes an HTTPHandler answers (see HTTPOptions.Ready).
const (
	// DefaultHealthPath answers 200 while the process serves HTTP (liveness).
	DefaultHealthPath = "/healthz"
	// DefaultReadyPath answers 200 while the handler can serve requests and
	// 503 otherwise (readiness).
	DefaultReadyPath = "/readyz"
)

// readyTimeout bounds one readiness check (HTTPOptions.Ready): a probe must
// answer before a Kubernetes probe's default one-second timeout gives up.
const readyTimeout = 900 * time.Millisecond

// probe answers the liveness and readiness probes and reports whether r was
// one. GET /healthz answers 200 as long as the process serves, during a
// graceful shutdown too (restarting a draining replica would cut its
// streams). GET /readyz answers 503 once Shutdown began and while
// HTTPOptions.Ready fails, so that a balancer (a Kubernetes Service) stops
// sending new requests without the replica being restarted; 200 otherwise.
func (h *HTTPHandler) probe(w http.ResponseWriter, r *http.Request) bool {
	var ready bool
	switch r.URL.Path {
	case h.healthPath:
	case h.readyPath:
		ready = true
	default:
		return false
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return true
	}
	w.Header().Set("Cache-Control", "no-store")
	if ready {
		if h.draining.Load() {
			http.Error(w, "not ready: shutting down", http.StatusServiceUnavailable)
			return true
		}
		if h.ready != nil {
			ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
			err := h.ready(ctx)
			cancel()
			if err != nil {
				if h.refusals.Allow() {
					h.log.Warn("mcpkit: not ready (logged once a minute)", "error", err)
				}
				http.Error(w, "not ready: "+err.Error(), http.StatusServiceUnavailable)
				return true
			}
		}
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte("ok\n"))
	return true
}
