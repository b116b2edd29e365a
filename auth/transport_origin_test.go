package auth_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/mcpkit/mcpkit/auth/authtest"
	"github.com/mcpkit/mcpkit/auth/resource"
)

// A token goes only to the origin it was obtained for: when the protected
// server redirects (307) to another origin, the request that follows the
// redirect arrives there without the token, and that origin's 401 starts no
// authorization.
func TestTokenStaysWithItsOrigin(t *testing.T) {
	var mu sync.Mutex
	var seen []string // the Authorization and DPoP headers other got
	challenge := false
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("Authorization")+r.Header.Get("DPoP"))
		ch := challenge
		mu.Unlock()
		if ch {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+"http://"+r.Host+`/.well-known/oauth-protected-resource"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		_, _ = io.WriteString(w, "other")
	}))
	t.Cleanup(other.Close)
	as := authtest.New(t, authtest.Options{})
	url := as.Protect(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/mcp/moved" {
			http.Redirect(w, r, other.URL+"/steal", http.StatusTemporaryRedirect)
			return
		}
		_, _ = io.WriteString(w, "protected")
	}), resource.Options{}, nil)

	tr := newTransport(nil)
	client := &http.Client{Transport: tr}
	post := func(u string) (int, string) {
		t.Helper()
		resp, err := client.Post(u, "application/json", strings.NewReader(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if status, body := post(url); status != 200 || body != "protected" {
		t.Fatalf("the protected server: %d %q", status, body)
	}
	if tr.Token() == nil {
		t.Fatal("no token after the authorization")
	}
	if status, body := post(url + "/moved"); status != 200 || body != "other" {
		t.Fatalf("through the redirect: %d %q", status, body)
	}
	mu.Lock()
	if len(seen) != 1 || seen[0] != "" {
		t.Errorf("the redirect's target got credentials %q", seen)
	}
	mu.Unlock()
	if status, body := post(other.URL + "/direct"); status != 200 || body != "other" {
		t.Fatalf("straight to the other origin: %d %q", status, body)
	}
	mu.Lock()
	challenge = true
	mu.Unlock()
	tokens := as.Count("token")
	if status, _ := post(other.URL + "/mcp"); status != http.StatusUnauthorized {
		t.Errorf("the other origin's challenge: %d, want its 401 as it was", status)
	}
	if n := as.Count("token"); n != tokens {
		t.Errorf("the other origin's challenge made %d token requests", n-tokens)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 3 {
		t.Fatalf("the other origin got %d requests, want 3", len(seen))
	}
	for i, h := range seen {
		if h != "" {
			t.Errorf("request %d to the other origin carried credentials %q", i+1, h)
		}
	}
	// The protected server still gets its token.
	if status, body := post(url); status != 200 || body != "protected" {
		t.Errorf("the protected server afterwards: %d %q", status, body)
	}
}
