package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/mcpkit/mcpkit/upstream"
)

// Readiness and status.
//
// The gateway is ready (Ready; GET /readyz of `mcpkit gateway --http`) from
// Start until Close, whatever the states of its servers: one server that is
// down must not take the gateway out of a balancer's rotation while the others
// serve. Its tools stay listed, a call to it fails at once saying why, and
// Status shows it. An operator who wants the gateway out of rotation while a
// given server is down names that server in Options.RequiredServers.

// ServerStatus is what the gateway reports of one configured server: its
// state, what the gateway offers of it, and what went wrong last. It holds no
// secret of the configuration — no command line, environment, URL or header —
// and its error and stderr lines come redacted (upstream.ServerConfig.Redact).
type ServerStatus struct {
	Name      string `json:"name"`
	Transport string `json:"transport"`
	// State is "disabled", "starting", "ready", "backoff" or "stopped"
	// (upstream.State), entered at Since; or "degraded": connected, but its
	// lists could not be fetched (LastError says why; they are fetched again
	// at NextAttempt), so the gateway offers what it had of it before, if
	// anything.
	State string    `json:"state"`
	Since time.Time `json:"since"`
	// Tools, Prompts and Resources (resources and templates) count what the
	// gateway offers of the server: what it listed when last connected.
	Tools     int `json:"tools"`
	Prompts   int `json:"prompts"`
	Resources int `json:"resources"`
	// Calls counts the gateway's requests to the server in flight.
	Calls int `json:"calls"`
	// Restarts counts the connections after the first (restarts of a stdio
	// server, reconnections of an HTTP one); Failures, the failed attempts
	// and ended sessions since the last connection that stayed up.
	Restarts int `json:"restarts"`
	Failures int `json:"failures"`
	// LastError says why the last attempt failed or the last session ended,
	// or, when degraded, why its lists could not be fetched.
	LastError string `json:"lastError,omitempty"`
	// Stderr holds the last lines a stdio server wrote to its standard error.
	Stderr []string `json:"stderr,omitempty"`
	// PID is the process id of a running stdio server.
	PID int `json:"pid,omitempty"`
	// ProtocolVersion and Server ("name version", as it introduced itself)
	// describe the current or last session.
	ProtocolVersion string `json:"protocolVersion,omitempty"`
	Server          string `json:"server,omitempty"`
	// NextAttempt is when a server in backoff is tried again, or when the
	// lists of a degraded one are fetched again.
	NextAttempt *time.Time `json:"nextAttempt,omitempty"`
}

// Status is the gateway's status: what Ready says, and each server's status.
type Status struct {
	Ready bool `json:"ready"`
	// NotReady says why the gateway is not ready.
	NotReady string         `json:"notReady,omitempty"`
	Servers  []ServerStatus `json:"servers"`
}

// Ready returns nil while the gateway serves: from Start until Close, with
// every server of Options.RequiredServers ready. Otherwise it says why not.
// ctx is not used: the answer is at hand.
func (g *Gateway) Ready(ctx context.Context) error {
	g.mu.Lock()
	started, closed := g.cancel != nil, g.closed
	g.mu.Unlock()
	switch {
	case closed:
		return errors.New("the gateway is closed")
	case !started:
		return errors.New("the gateway has not started")
	}
	var errs []error
	for _, name := range g.required {
		st, ok := g.sup.Status(name)
		switch {
		case !ok:
			errs = append(errs, fmt.Errorf("required server %q is not in the configuration", name))
		case st.State != upstream.StateReady:
			errs = append(errs, fmt.Errorf("required server %q is %s", name, st.State))
		default:
			if why := g.upServers()[name].listError(); why != "" {
				errs = append(errs, fmt.Errorf("required server %q is degraded: %s", name, why))
			}
		}
	}
	return errors.Join(errs...)
}

// Status returns the gateway's status now.
func (g *Gateway) Status() Status {
	type counts struct{ tools, prompts, resources int }
	offered := map[string]*counts{}
	for _, e := range g.Entries() {
		c := offered[e.Server]
		if c == nil {
			c = &counts{}
			offered[e.Server] = c
		}
		switch e.Kind {
		case "tool":
			c.tools++
		case "prompt":
			c.prompts++
		default:
			c.resources++
		}
	}
	out := Status{Ready: true, Servers: []ServerStatus{}}
	if err := g.Ready(context.Background()); err != nil {
		out.Ready, out.NotReady = false, err.Error()
	}
	for _, st := range g.sup.Statuses() {
		s := ServerStatusOf(st)
		if c := offered[st.Name]; c != nil {
			s.Tools, s.Prompts, s.Resources = c.tools, c.prompts, c.resources
		}
		if u := g.upServers()[st.Name]; u != nil {
			u.mu.Lock()
			s.Calls = len(u.calls)
			if u.list.err != "" && st.State == upstream.StateReady {
				next := u.list.next
				s.State, s.LastError, s.NextAttempt = stateDegraded, listErrorPrefix+u.list.err, &next
			}
			u.mu.Unlock()
		}
		out.Servers = append(out.Servers, s)
	}
	return out
}

// stateDegraded is the ServerStatus.State of a connected server whose lists
// could not be fetched.
const stateDegraded = "degraded"

// listErrorPrefix begins the LastError of a degraded server.
const listErrorPrefix = "fetching its lists: "

// listError returns why u's lists could not be fetched ("" if they were).
func (u *upServer) listError() string {
	if u == nil {
		return ""
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.list.err
}

// ServerStatusOf returns the ServerStatus of a supervised server, but for what
// only a gateway knows (the counts of what it offers, its calls in flight):
// `mcpkit host` shows its servers with it too.
func ServerStatusOf(st upstream.Status) ServerStatus {
	s := ServerStatus{
		Name: st.Name, Transport: string(st.Transport), State: st.State.String(), Since: st.Since,
		Restarts: max(st.Connects-1, 0), Failures: st.Failures, LastError: st.LastError, Stderr: st.Stderr,
		PID: st.PID, ProtocolVersion: st.ProtocolVersion,
	}
	if info := st.ServerInfo; info.Name != "" {
		s.Server = info.Name + " " + info.Version
	}
	if st.State == upstream.StateBackoff && !st.NextAttempt.IsZero() {
		next := st.NextAttempt
		s.NextAttempt = &next
	}
	return s
}

// StatusHandler returns an http.Handler that answers GET (and HEAD) with
// Status as JSON, with 200 whether or not the gateway is ready (GET /readyz
// is the probe). `mcpkit gateway --http` serves it at /status, behind the same
// Host and Origin checks as its MCP endpoint (mcpkit.HTTPOptions.Handlers).
func (g *Gateway) StatusHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		body, err := json.MarshalIndent(g.Status(), "", "  ")
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		_, _ = w.Write(append(body, '\n'))
	})
}
