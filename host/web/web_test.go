package web

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestGuard: the API refuses another origin (another loopback port, such as
// the views' sandbox), a foreign Host (DNS rebinding) and a write without the
// page's token.
func TestGuard(t *testing.T) {
	s, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.sandboxPort = "1"
	h := s.pageHandler()
	do := func(method, path, host, origin, token string) int {
		r := httptest.NewRequest(method, "http://"+host+path, strings.NewReader(`{"id":"x","decision":"allow"}`))
		r.Host = host
		r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}))
		if origin != "" {
			r.Header.Set("Origin", origin)
		}
		if token != "" {
			r.Header.Set("X-Mcpkit-Token", token)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code
	}
	const page = "127.0.0.1:8080"
	for _, c := range []struct {
		name                       string
		method, path, host, origin string
		token                      string
		want                       int
	}{
		{"the page", "GET", "/", page, "", "", http.StatusOK},
		{"config from the page", "GET", "/api/config", page, "http://" + page, "", http.StatusOK},
		{"config from the sandbox", "GET", "/api/config", page, "http://localhost:1", "", http.StatusForbidden},
		{"rebinding", "GET", "/", "evil.example:8080", "", "", http.StatusForbidden},
		{"approve without token", "POST", "/api/approve", page, "http://" + page, "", http.StatusForbidden},
		{"approve with a wrong token", "POST", "/api/approve", page, "http://" + page, "nope", http.StatusForbidden},
		{"approve from the sandbox", "POST", "/api/approve", page, "http://localhost:1", s.token, http.StatusForbidden},
		{"approve (nothing pending)", "POST", "/api/approve", page, "http://" + page, s.token, http.StatusNotFound},
	} {
		if got := do(c.method, c.path, c.host, c.origin, c.token); got != c.want {
			t.Errorf("%s: status %d, want %d", c.name, got, c.want)
		}
	}
}

// TestSandboxOrigin: the views' origin is the other loopback name, so that
// it is another site than the page's.
func TestSandboxOrigin(t *testing.T) {
	s := &Server{sandboxPort: "9"}
	if got := s.sandboxOrigin("127.0.0.1:8080"); got != "http://localhost:9" {
		t.Errorf("for 127.0.0.1: %s", got)
	}
	if got := s.sandboxOrigin("localhost:8080"); got != "http://127.0.0.1:9" {
		t.Errorf("for localhost: %s", got)
	}
}
