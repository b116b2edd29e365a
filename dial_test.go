package mcpkit_test

import (
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpkit/mcpkit"
	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/mcp"
)

// TestDialTransportChoice: against an HTTP+SSE-only endpoint, the automatic
// choice falls back to HTTP+SSE, "sse" speaks it directly, and "http" does
// not fall back; the target's header reaches the server on every request.
func TestDialTransportChoice(t *testing.T) {
	inner := mcpkit.NewHTTPHandler(newGreeter(), nil)
	var missing atomic.Int32
	srv := testkit.NewServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Key") != "k" {
			missing.Add(1)
		}
		inner.ServeHTTP(w, r)
	}))
	header := http.Header{"X-Key": {"k"}}
	client := mcp.NewClient(mcp.Implementation{Name: "c", Version: "1"}, nil)
	for _, choice := range []string{mcpkit.TransportAuto, mcpkit.TransportSSE} {
		conn, err := mcpkit.Dial(t.Context(), mcpkit.Target{URL: srv.URL + "/sse", Header: header, Transport: choice}, nil)
		if err != nil {
			t.Fatalf("%q: %v", choice, err)
		}
		cs, err := client.Connect(t.Context(), conn)
		if err != nil {
			t.Fatalf("%q: connect: %v", choice, err)
		}
		if err := cs.Ping(t.Context()); err != nil {
			t.Fatalf("%q: ping: %v", choice, err)
		}
		_ = cs.Close()
	}
	if n := missing.Load(); n != 0 {
		t.Errorf("%d requests without the target's header", n)
	}
	conn, err := mcpkit.Dial(t.Context(), mcpkit.Target{URL: srv.URL + "/sse", Transport: mcpkit.TransportHTTP}, nil)
	if err == nil {
		if _, err = client.Connect(t.Context(), conn); err == nil {
			t.Fatal(`"http" fell back to HTTP+SSE`)
		}
	}
}

// TestDialRefusesUnclearTargets: a target is a command or a URL, and its
// transport one Dial knows.
func TestDialRefusesUnclearTargets(t *testing.T) {
	for _, tc := range []struct {
		target mcpkit.Target
		want   string
	}{
		{mcpkit.Target{}, "neither a command nor a URL"},
		{mcpkit.Target{Command: []string{"x"}, URL: "http://127.0.0.1:1/mcp"}, "not both"},
		{mcpkit.Target{URL: "http://127.0.0.1:1/mcp", Transport: "carrier-pigeon"}, "unknown transport"},
	} {
		if _, err := mcpkit.Dial(t.Context(), tc.target, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.target, err, tc.want)
		}
	}
}
