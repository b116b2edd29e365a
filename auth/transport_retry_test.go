package auth_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/mcpkit/mcpkit/auth"
	"github.com/mcpkit/mcpkit/auth/authtest"
	"github.com/mcpkit/mcpkit/auth/resource"
)

// flaky sends requests on, except the next times ones that match: those fail
// with a refused connection, or get status when it is not 0.
type flaky struct {
	match  func(*http.Request) bool
	status int

	mu    sync.Mutex
	times int
	hits  int
}

func (f *flaky) RoundTrip(r *http.Request) (*http.Response, error) {
	f.mu.Lock()
	hit := f.times > 0 && f.match(r)
	if hit {
		f.times--
		f.hits++
	}
	f.mu.Unlock()
	if !hit {
		return http.DefaultTransport.RoundTrip(r)
	}
	if r.Body != nil {
		r.Body.Close()
	}
	if f.status == 0 {
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	}
	return &http.Response{StatusCode: f.status, Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(strings.NewReader(`{}`)), Request: r}, nil
}

func (f *flaky) failFor(n int) {
	f.mu.Lock()
	f.times = n
	f.mu.Unlock()
}

func (f *flaky) failures() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.hits
}

// roundTrip sends a POST to url through tr and returns its status, or the error.
func roundTrip(t *testing.T, tr *auth.Transport, url string) (int, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := tr.RoundTrip(req)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

// A failure that may pass — the network, or a 5xx, on the way to the metadata,
// the registration or the token endpoint — fails only the request at hand; the
// next one authorizes. A refusal is still remembered.
func TestTransientFailureIsRetried(t *testing.T) {
	path := func(method, p string) func(*http.Request) bool {
		return func(r *http.Request) bool { return r.Method == method && strings.HasPrefix(r.URL.Path, p) }
	}
	for _, tt := range []struct {
		name   string
		match  func(*http.Request) bool
		status int
	}{
		{"resource metadata unreachable", path("GET", "/.well-known/oauth-protected-resource"), 0},
		{"resource metadata 502", path("GET", "/.well-known/oauth-protected-resource"), 502},
		{"authorization server metadata unreachable", path("GET", "/.well-known/oauth-authorization-server"), 0},
		{"authorization server metadata 503", path("GET", "/.well-known/oauth-authorization-server"), 503},
		{"registration unreachable", path("POST", "/register"), 0},
		{"registration 500", path("POST", "/register"), 500},
		{"token endpoint unreachable", path("POST", "/token"), 0},
		{"token endpoint 503", path("POST", "/token"), 503},
		{"token endpoint 429", path("POST", "/token"), 429},
	} {
		t.Run(tt.name, func(t *testing.T) {
			as := authtest.New(t, authtest.Options{})
			url := as.Protect(t, http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}), resource.Options{}, nil)
			f := &flaky{match: tt.match, status: tt.status, times: 3} // every well-known URL tried
			tr := newTransport(nil)
			tr.Client = &http.Client{Transport: f}
			if status, err := roundTrip(t, tr, url); err == nil {
				t.Fatalf("the first request: %d, want the failure", status)
			}
			if f.failures() == 0 {
				t.Fatal("the failure was not met")
			}
			f.failFor(0)
			if status, err := roundTrip(t, tr, url); err != nil || status != 200 {
				t.Fatalf("the next request: %d, %v; want it to authorize and pass", status, err)
			}
		})
	}

	t.Run("a refusal is remembered", func(t *testing.T) {
		as := authtest.New(t, authtest.Options{Clients: map[string]string{"svc": "right"}})
		url := as.Protect(t, http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}), resource.Options{}, nil)
		tr := &auth.Transport{Grant: &auth.ClientCredentials{ClientID: "svc", ClientSecret: "wrong"}}
		_, first := roundTrip(t, tr, url)
		tokens := as.Count("token")
		_, second := roundTrip(t, tr, url)
		if first == nil || second == nil || first.Error() != second.Error() || as.Count("token") != tokens {
			t.Errorf("errors %v then %v after %d more token requests; want the same refusal, none", first, second, as.Count("token")-tokens)
		}
	})
}

// A refresh that fails on the way keeps the token: the request fails, and the
// next one refreshes, with no new authorization.
func TestTransientRefreshFailureKeepsTheToken(t *testing.T) {
	// x/oauth2 counts a token as expired 10 s early: a 5 s token is refreshed
	// before every request.
	as := authtest.New(t, authtest.Options{TokenTTL: 5 * time.Second, RefreshTokens: true})
	url := as.Protect(t, http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}), resource.Options{}, nil)
	f := &flaky{match: func(r *http.Request) bool { return r.URL.Path == "/token" }}
	tr := newTransport(nil)
	tr.Client = &http.Client{Transport: f}
	if status, err := roundTrip(t, tr, url); err != nil || status != 200 {
		t.Fatalf("first request: %d, %v", status, err)
	}
	f.failFor(1)
	if status, err := roundTrip(t, tr, url); err == nil || !auth.Transient(err) {
		t.Fatalf("the request whose refresh failed: %d, %v; want a transient error", status, err)
	}
	if tr.Token() == nil {
		t.Fatal("the token was dropped")
	}
	if status, err := roundTrip(t, tr, url); err != nil || status != 200 {
		t.Fatalf("the next request: %d, %v", status, err)
	}
	if n := len(as.AuthorizationRequests()); n != 1 {
		t.Errorf("%d authorization requests, want 1: the token is refreshed, not re-authorized", n)
	}
}

func TestTransient(t *testing.T) {
	retrieve := func(status int) error {
		return fmt.Errorf("auth: token request: %w", &oauth2.RetrieveError{Response: &http.Response{StatusCode: status}, ErrorCode: "x"})
	}
	refused := errors.New("auth: authorization refused: access_denied")
	dial := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	for _, tt := range []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"a refusal", refused, false},
		{"a refusal through an http.Client", &url.Error{Op: "Post", URL: "http://x", Err: refused}, false},
		{"no connection", &url.Error{Op: "Post", URL: "http://x", Err: dial}, true},
		{"connection closed before the answer", &url.Error{Op: "Post", URL: "http://x", Err: io.EOF}, true},
		{"a body cut short", fmt.Errorf("reading: %w", io.ErrUnexpectedEOF), true},
		{"cancelled", &url.Error{Op: "Post", URL: "http://x", Err: context.Canceled}, false},
		{"token endpoint 503", retrieve(503), true},
		{"token endpoint 429", retrieve(429), true},
		{"token endpoint 400", retrieve(400), false},
		{"one of several failed on the way", errors.Join(refused, &url.Error{Op: "Get", URL: "http://x", Err: dial}), true},
	} {
		if got := auth.Transient(tt.err); got != tt.want {
			t.Errorf("%s: Transient = %v, want %v", tt.name, got, tt.want)
		}
	}
}
