package upstream

import (
	"fmt"
	"net/http"
)

// An HTTP server that goes away does not end a session by itself: a stateless
// session has no connection to lose, and the Streamable HTTP client rides out
// transient failures (it retries its GET stream, and each POST stands alone).
// Pings alone would notice only after PingFailures × PingInterval (1.5 minutes
// by default). So the requests of an HTTP server go through troubleTransport,
// which tells the runner when one fails in the transport; the runner then
// pings at once, and ends the session if that ping fails too (see
// runner.watch). The supervisor reconnects it, with its backoff, until the
// server is back.

// troubleTransport passes an HTTP server's requests to base and reports to the
// runner those that fail in the transport: an error of the round trip
// (connection refused or reset, a name that does not resolve, a TLS failure),
// or 502 or 504 from a proxy whose backend is gone. A request whose context
// ended (the caller gave up) is not a failure of the server.
type troubleTransport struct {
	base http.RoundTripper
	r    *runner
}

// RoundTrip implements http.RoundTripper.
func (t *troubleTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	switch {
	case err != nil:
		if req.Context().Err() == nil {
			t.r.transportFailed(err.Error())
		}
	case resp.StatusCode == http.StatusBadGateway || resp.StatusCode == http.StatusGatewayTimeout:
		t.r.transportFailed(fmt.Sprintf("%s answered %s", req.Method, resp.Status))
	}
	return resp, err
}

// CloseIdleConnections closes base's idle connections, as http.Client's
// method of the same name expects of its transport.
func (t *troubleTransport) CloseIdleConnections() {
	if c, ok := t.base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// watchedClient returns a copy of hc whose requests report their transport
// failures to r; for a nil hc, a client over the supervisor's plainTransport.
func (r *runner) watchedClient(hc *http.Client) *http.Client {
	if hc == nil {
		return &http.Client{Transport: &troubleTransport{base: r.sup.plainTransport(), r: r}}
	}
	c := *hc
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	c.Transport = &troubleTransport{base: base, r: r}
	return &c
}

// transportFailed records why a request failed and wakes the runner's watch.
func (r *runner) transportFailed(why string) {
	r.mu.Lock()
	r.troubleWhy = why
	r.mu.Unlock()
	select {
	case r.trouble <- struct{}{}:
	default: // one is pending already
	}
}

// takeTrouble returns the last transport failure and forgets it.
func (r *runner) takeTrouble() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	why := r.troubleWhy
	r.troubleWhy = ""
	return why
}
