package httpguard

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestLoopbackNames(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost": true, "LOCALHOST:80": true, "localhost.": true, "a.localhost": true,
		"127.0.0.1": true, "127.1.2.3:9": true, "[::1]:8080": true, "::1": true, "[::ffff:127.0.0.1]": true,
		"10.0.0.1": false, "localhost.example": false, "example.com:80": false, "": false, "[::2]": false,
	} {
		if got := IsLoopbackHost(host); got != want {
			t.Errorf("IsLoopbackHost(%q) = %v", host, got)
		}
	}
	for origin, want := range map[string]bool{
		"http://localhost:3000": true, "https://127.0.0.1": true, "http://[::1]:1": true,
		"http://localhost@evil.example": false, "http://evil.example/localhost": false, "localhost": false, "null": false,
	} {
		if got := isLoopbackOrigin(origin); got != want {
			t.Errorf("isLoopbackOrigin(%q) = %v", origin, got)
		}
	}
}

func TestHostListed(t *testing.T) {
	allowed := []string{"a.example", "b.example:8080", "[::1]"}
	for host, want := range map[string]bool{
		"a.example": true, "A.EXAMPLE:443": true, "b.example:8080": true, "b.example": false,
		"b.example:9090": false, "[::1]:80": true, "c.example": false,
	} {
		if got := hostListed(allowed, host); got != want {
			t.Errorf("hostListed(%q) = %v", host, got)
		}
	}
}

func TestCheck(t *testing.T) {
	for _, c := range []struct {
		name        string
		policy      Policy
		local, host string
		origin      string
		allowed     bool
	}{
		{"loopback, no origin", Policy{}, "127.0.0.1:8080", "127.0.0.1:8080", "", true},
		{"loopback, localhost origin", Policy{}, "127.0.0.1:8080", "localhost:8080", "http://localhost:3000", true},
		{"loopback, foreign origin", Policy{}, "127.0.0.1:8080", "127.0.0.1:8080", "https://evil.example", false},
		{"dns rebinding: loopback server, foreign host", Policy{}, "127.0.0.1:8080", "evil.example:8080", "", false},
		{"listed origin, any case, trailing slash", Policy{AllowedOrigins: []string{"https://App.example.com/"}}, "127.0.0.1:8080", "127.0.0.1:8080", "https://app.example.com", true},
		{"any origin", Policy{AllowedOrigins: []string{"*"}}, "10.0.0.1:80", "api.example.com", "https://x.example", true},
		{"public server, foreign origin", Policy{}, "10.0.0.1:80", "api.example.com", "https://x.example", false},
		{"public server, no origin", Policy{}, "10.0.0.1:80", "api.example.com", "", true},
		{"allowed hosts exclude others", Policy{AllowedHosts: []string{"api.example.com"}}, "10.0.0.1:80", "other.example.com", "", false},
		{"allowed hosts match any port", Policy{AllowedHosts: []string{"api.example.com"}}, "10.0.0.1:80", "api.example.com:8443", "", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "http://"+c.host+"/mcp", nil)
			r.Host = c.host
			if c.origin != "" {
				r.Header.Set("Origin", c.origin)
			}
			addr, _ := net.ResolveTCPAddr("tcp", c.local)
			r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, addr))
			err := c.policy.Check(r)
			if (err == nil) != c.allowed || (err != nil && !errors.Is(err, ErrForbidden)) {
				t.Fatalf("Check = %v, want allowed=%v", err, c.allowed)
			}
		})
	}
}
