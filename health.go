package mcpkit

import (
	"context"
	"maps"
	"net/http"
	"slices"
	"strings"
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
// With ?verbose, both list what they checked, and HTTPOptions.Checks.
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
	var report probeReport
	report.verbose = r.URL.Query().Has("verbose")
	if ready {
		if h.draining.Load() {
			report.fail("shutdown", "shutting down")
		} else {
			report.pass("shutdown")
		}
		if h.ready != nil {
			if err := h.check(r.Context(), h.ready); err != nil {
				if h.refusals.Allow() {
					h.log.Warn("mcpkit: not ready (logged once a minute)", "error", err)
				}
				report.fail("ready", err.Error())
			} else {
				report.pass("ready")
			}
		}
	}
	if report.verbose {
		for _, name := range slices.Sorted(maps.Keys(h.checks)) {
			if err := h.check(r.Context(), h.checks[name]); err != nil {
				report.info(name, err.Error())
			} else {
				report.pass(name)
			}
		}
	}
	report.write(w)
	return true
}

// check runs one check, bounded by readyTimeout.
func (h *HTTPHandler) check(ctx context.Context, f func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	return f(ctx)
}

// probeReport collects a probe's results: the first failure decides its
// status and short answer; with verbose, every result is listed.
type probeReport struct {
	verbose bool
	failed  string // "not ready: <reason>" of the first failure
	lines   strings.Builder
}

func (p *probeReport) pass(name string) {
	if p.verbose {
		p.lines.WriteString("[+]" + name + " ok\n")
	}
}

func (p *probeReport) fail(name, reason string) {
	if p.failed == "" {
		p.failed = "not ready: " + reason
	}
	if p.verbose {
		p.lines.WriteString("[-]" + name + " failed: " + reason + "\n")
	}
}

// info records a failed check that does not decide the status.
func (p *probeReport) info(name, reason string) {
	p.lines.WriteString("[-]" + name + " failed (not counted): " + reason + "\n")
}

func (p *probeReport) write(w http.ResponseWriter) {
	if p.failed != "" {
		http.Error(w, p.lines.String()+p.failed, http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte(p.lines.String() + "ok\n"))
}
