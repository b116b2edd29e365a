package web

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/ext/apps"
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

// TestSandboxProxy: the proxy of a view is framed only by the page it names
// (which must be this host's: a loopback name on the page's port), carries
// the view's policy, and names that page as the only origin it talks to; the
// view's document is the page's, with its token.
func TestSandboxProxy(t *testing.T) {
	s, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.sandboxPort, s.pagePort = "9", "8080"
	v := &view{id: "v1", html: "<p>the view</p>", csp: apps.ContentSecurityPolicy(nil),
		approved: apps.ApprovedCSP(&apps.CSP{ConnectDomains: []string{"https://api.example.com", "https://x.example; script-src *"}})}
	s.views[v.id] = v
	get := func(h http.Handler, host, path, token string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("GET", "http://"+host+path, nil)
		r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 9}))
		if token != "" {
			r.Header.Set("X-Mcpkit-Token", token)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	sb := s.sandboxHandler()
	w := get(sb, "localhost:9", "/proxy/v1?parent=http%3A%2F%2F127.0.0.1%3A8080", "")
	if w.Code != http.StatusOK {
		t.Fatalf("proxy: %d %s", w.Code, w.Body)
	}
	if csp := w.Header().Get("Content-Security-Policy"); !strings.HasPrefix(csp, v.csp) || !strings.HasSuffix(csp, "; frame-ancestors http://127.0.0.1:8080") {
		t.Errorf("proxy policy %q", csp)
	}
	body := w.Body.String()
	if !strings.Contains(body, `const PAGE = "http://127.0.0.1:8080";`) || strings.Contains(body, "<p>the view</p>") {
		t.Errorf("proxy document: %s", body)
	}
	for _, parent := range []string{"", "http://127.0.0.1:8081", "http://evil.example:8080", "https://127.0.0.1:8080", "http://127.0.0.1:8080/x",
		`http://127.0.0.1:8080";alert(1);"`, "http://user@127.0.0.1:8080", "javascript:alert(1)"} {
		if w := get(sb, "localhost:9", "/proxy/v1?parent="+url.QueryEscape(parent), ""); w.Code != http.StatusBadRequest {
			t.Errorf("parent %q: status %d", parent, w.Code)
		}
	}
	if w := get(sb, "localhost:9", "/proxy/nope?parent=http%3A%2F%2F127.0.0.1%3A8080", ""); w.Code != http.StatusNotFound {
		t.Errorf("unknown view: %d", w.Code)
	}
	page := s.pageHandler()
	if w := get(page, "127.0.0.1:8080", "/api/view/v1", ""); w.Code != http.StatusForbidden {
		t.Errorf("the view's document without the token: %d", w.Code)
	}
	w = get(page, "127.0.0.1:8080", "/api/view/v1", s.token)
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"html":"\u003cp\u003ethe view\u003c/p\u003e"`) || !strings.Contains(w.Body.String(), `"connectDomains":["https://api.example.com"]`) {
		t.Errorf("the view's document: %d %s", w.Code, w.Body)
	}
}
