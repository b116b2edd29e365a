package streamable

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/internal/testkit"
)

// postWith sends an initialize with the given Host (if not empty) and Origin (if not
// empty) and returns the status.
func (hs *harness) postWith(host, origin string) int {
	hs.t.Helper()
	req, err := http.NewRequestWithContext(testkit.Context(hs.t), http.MethodPost, hs.srv.URL, strings.NewReader(initBody("2025-06-18")))
	if err != nil {
		hs.t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Content-Type", "application/json")
	if host != "" {
		req.Host = host
	}
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	resp, err := hs.srv.Client().Do(req)
	if err != nil {
		hs.t.Fatal(err)
	}
	body := readBody(hs.t, resp)
	if resp.StatusCode == http.StatusForbidden && !strings.Contains(body, `"id":null`) {
		hs.t.Errorf("403 body %s: want a JSON-RPC error without id", body)
	}
	return resp.StatusCode
}

func TestOriginAndHostOnLoopback(t *testing.T) {
	hs := newHarness(t, newDemo(t), nil)
	_, port, _ := net.SplitHostPort(hs.srv.Listener.Addr().String())
	cases := []struct {
		host, origin string
		want         int
	}{
		{"", "", http.StatusOK},
		{"", "http://localhost:3000", http.StatusOK},
		{"", "http://127.0.0.1:" + port, http.StatusOK},
		{"", "https://[::1]:8443", http.StatusOK},
		{"", "http://app.localhost", http.StatusOK},
		{"", "http://evil.example", http.StatusForbidden},
		{"", "http://localhost.evil.example", http.StatusForbidden},
		{"", "null", http.StatusForbidden},
		{"localhost:" + port, "", http.StatusOK},
		{"[::1]:" + port, "", http.StatusOK},
		{"evil.example:" + port, "", http.StatusForbidden}, // DNS rebinding
		{"evil.example", "http://evil.example", http.StatusForbidden},
	}
	for _, c := range cases {
		if got := hs.postWith(c.host, c.origin); got != c.want {
			t.Errorf("Host %q Origin %q: %d, want %d", c.host, c.origin, got, c.want)
		}
	}
}

func TestAllowedOriginsAndHosts(t *testing.T) {
	hs := newHarness(t, newDemo(t), &HandlerOptions{
		AllowedOrigins: []string{"https://app.example.com"},
		AllowedHosts:   []string{"mcp.example.com", "127.0.0.1"},
	})
	cases := []struct {
		host, origin string
		want         int
	}{
		{"mcp.example.com", "https://app.example.com", http.StatusOK},
		{"MCP.example.com:443", "", http.StatusOK},
		{"", "https://APP.example.com", http.StatusOK},
		{"", "https://app.example.com:8443", http.StatusForbidden},
		{"", "http://localhost:3000", http.StatusOK}, // still loopback-served
		{"other.example.com", "", http.StatusForbidden},
		{"localhost", "", http.StatusForbidden}, // the list replaces the default
	}
	for _, c := range cases {
		if got := hs.postWith(c.host, c.origin); got != c.want {
			t.Errorf("Host %q Origin %q: %d, want %d", c.host, c.origin, got, c.want)
		}
	}
	star := newHarness(t, newDemo(t), &HandlerOptions{AllowedOrigins: []string{"*"}, AllowedHosts: []string{"*"}})
	if got := star.postWith("anything.example", "https://anywhere.example"); got != http.StatusOK {
		t.Errorf("with * lists: %d", got)
	}
}

func TestOriginOnPublicAddress(t *testing.T) {
	h := NewHandler(newDemo(t), &HandlerOptions{AllowedOrigins: []string{"https://ok.example"}})
	defer h.Close()
	local := &net.TCPAddr{IP: net.ParseIP("10.1.2.3"), Port: 443}
	send := func(host, origin string) int {
		req := httptest.NewRequest(http.MethodPost, "https://"+host+"/mcp", strings.NewReader(initBody("2025-06-18")))
		req = req.WithContext(context.WithValue(req.Context(), http.LocalAddrContextKey, local))
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Content-Type", "application/json")
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		return w.Code
	}
	if got := send("mcp.example.com", ""); got != http.StatusOK {
		t.Errorf("no origin: %d", got)
	}
	if got := send("mcp.example.com", "https://ok.example"); got != http.StatusOK {
		t.Errorf("listed origin: %d", got)
	}
	// Not served on loopback: loopback origins are not implied.
	if got := send("mcp.example.com", "http://localhost:3000"); got != http.StatusForbidden {
		t.Errorf("loopback origin on a public address: %d", got)
	}
	if got := send("mcp.example.com", "https://evil.example"); got != http.StatusForbidden {
		t.Errorf("unlisted origin: %d", got)
	}
}

func TestAcceptsMedia(t *testing.T) {
	cases := []struct {
		accept string
		typ    string
		want   bool
	}{
		{"application/json", "application/json", true},
		{"Application/JSON", "application/json", true},
		{"application/json;q=0", "application/json", false},
		{"application/json; q=0.000", "application/json", false},
		{"application/json;q=0.1", "application/json", true},
		{"*/*", "text/event-stream", true},
		{"text/*", "text/event-stream", true},
		{"text/*", "application/json", false},
		{"application/json, text/event-stream", "text/event-stream", true},
		{"text/html,application/xhtml+xml", "application/json", false},
		{"", "application/json", false},
		{"application/json-seq", "application/json", false},
	}
	for _, c := range cases {
		if got := acceptsMedia([]string{c.accept}, c.typ); got != c.want {
			t.Errorf("acceptsMedia(%q, %q) = %v", c.accept, c.typ, got)
		}
	}
	if !acceptsMedia([]string{"application/json", "text/event-stream"}, "text/event-stream") {
		t.Error("several Accept lines")
	}
}

func FuzzAcceptsMedia(f *testing.F) {
	for _, s := range []string{"application/json, text/event-stream", "*/*;q=0", "text/*;q=0.5,application/json", ";;,,q=", "a/b;q=0.0;x=y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, accept string) {
		got := acceptsMedia([]string{accept}, "application/json")
		// Adding an explicit, acceptable entry can only make it acceptable.
		if !acceptsMedia([]string{accept + ",application/json"}, "application/json") {
			t.Fatalf("%q plus application/json is not acceptable", accept)
		}
		// Splitting the header into lines changes nothing.
		if acceptsMedia([]string{accept, "text/plain"}, "application/json") != got {
			t.Fatalf("%q: a second unrelated line changed the answer", accept)
		}
	})
}
