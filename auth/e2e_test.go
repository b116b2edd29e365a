package auth_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/auth"
	"github.com/mcpkit/mcpkit/auth/authtest"
	"github.com/mcpkit/mcpkit/auth/resource"
	"github.com/mcpkit/mcpkit/auth/tokenstore"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport"
	"github.com/mcpkit/mcpkit/transport/legacysse"
	"github.com/mcpkit/mcpkit/transport/streamable"
)

// protected is an mcpkit server behind resource.Middleware, with a test
// authorization server.
type protected struct {
	as  *authtest.Server
	url string // the MCP endpoint
}

// startProtected serves an mcpkit server at /mcp (Streamable HTTP) and /mcp/sse
// (HTTP+SSE) that needs scope mcp:read, and mcp:admin for the tool admin. Its
// tools answer with the caller's principal and scopes.
func startProtected(t *testing.T, as *authtest.Server, prm func(*auth.ProtectedResourceMetadata)) *protected {
	t.Helper()
	srv := mcp.NewServer(protocol.Implementation{Name: "protected", Version: "1"}, &mcp.ServerOptions{Logger: slog.New(slog.DiscardHandler)})
	whoami := func(ctx context.Context, _ *mcp.ToolRequest, _ struct{}) (string, error) {
		info := resource.TokenInfoFrom(ctx)
		if info == nil {
			return "", errors.New("no token in the context")
		}
		return transport.PrincipalFrom(ctx) + " " + strings.Join(info.Scopes, ","), nil
	}
	for _, name := range []string{"whoami", "admin"} {
		if err := mcp.AddTool(srv, &protocol.Tool{Name: name, Description: name}, whoami); err != nil {
			t.Fatal(err)
		}
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", streamable.NewHandler(srv, &streamable.HandlerOptions{Logger: slog.New(slog.DiscardHandler)}))
	// HTTP+SSE under the same resource: /mcp/sse and /mcp/messages.
	sse := legacysse.NewHandler(srv, &legacysse.HandlerOptions{PathPrefix: "/mcp", Logger: slog.New(slog.DiscardHandler)})
	mux.Handle("/mcp/", http.StripPrefix("/mcp", sse))
	url := as.Protect(t, mux, resource.Options{
		Scopes:     []string{"mcp:read"},
		ToolScopes: map[string][]string{"admin": {"mcp:admin"}},
	}, prm)
	return &protected{as: as, url: url}
}

func newTransport(store auth.TokenStore) *auth.Transport {
	return &auth.Transport{
		Grant: &auth.AuthorizationCode{
			RedirectURL: "http://127.0.0.1:9/callback",
			Fetch:       auth.HeadlessFetcher(http.DefaultClient),
		},
		Store: store,
	}
}

func connect(t *testing.T, url string, tr http.RoundTripper) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	conn, err := streamable.NewClientConn(ctx, url, &streamable.ClientOptions{HTTPClient: &http.Client{Transport: tr}})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(protocol.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx, conn)
	if err != nil {
		t.Fatalf("connecting: %v", err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func call(t *testing.T, cs *mcp.ClientSession, tool string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, tool, nil)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, c := range res.Content {
		b.WriteString(c.Text)
	}
	if res.IsError {
		return "", errors.New(b.String())
	}
	return b.String(), nil
}

// mcpkit's client completes the browser-less authorization code flow against an
// mcpkit server and a real (test) authorization server, steps up for a tool that
// needs more scope, and a second client reuses the stored token.
func TestEndToEndAuthorizationCode(t *testing.T) {
	as := authtest.New(t, authtest.Options{})
	p := startProtected(t, as, nil)
	store := &tokenstore.Memory{}
	tr := newTransport(store)
	cs := connect(t, p.url, tr)

	got, err := call(t, cs, "whoami")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, as.Issuer+"#user-client-") || !strings.HasSuffix(got, " mcp:read") {
		t.Errorf("whoami = %q, want the principal of the registered client with scope mcp:read", got)
	}
	got, err = call(t, cs, "admin")
	if err != nil {
		t.Fatalf("admin after step-up: %v", err)
	}
	if !strings.HasSuffix(got, " mcp:read,mcp:admin") {
		t.Errorf("admin = %q, want the scopes mcp:read and mcp:admin", got)
	}
	reqs := as.AuthorizationRequests()
	if len(reqs) != 2 {
		t.Fatalf("%d authorization requests, want 2 (initial, step-up)", len(reqs))
	}
	if reqs[0].Get("scope") != "mcp:read" || reqs[1].Get("scope") != "mcp:read mcp:admin" {
		t.Errorf("scopes asked = %q then %q", reqs[0].Get("scope"), reqs[1].Get("scope"))
	}
	for _, q := range reqs {
		if q.Get("resource") != p.url || q.Get("code_challenge_method") != "S256" {
			t.Errorf("authorization request %v lacks the resource or PKCE S256", q)
		}
	}
	if n := as.Count("register"); n != 1 {
		t.Errorf("%d registrations, want 1", n)
	}

	// A new client with the same store needs no new authorization.
	cs2 := connect(t, p.url, newTransport(store))
	if _, err := call(t, cs2, "admin"); err != nil {
		t.Fatal(err)
	}
	if n := len(as.AuthorizationRequests()); n != 2 {
		t.Errorf("%d authorization requests after reusing the stored token, want still 2", n)
	}
}

// The HTTP+SSE transport's stream GET and message POSTs are authorized too.
func TestEndToEndLegacySSE(t *testing.T) {
	as := authtest.New(t, authtest.Options{})
	p := startProtected(t, as, nil)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	conn, err := legacysse.NewClientConn(ctx, p.url+"/sse", &legacysse.ClientOptions{HTTPClient: &http.Client{Transport: newTransport(nil)}})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(protocol.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if got, err := call(t, cs, "whoami"); err != nil || !strings.Contains(got, "mcp:read") {
		t.Errorf("whoami over HTTP+SSE = %q, %v", got, err)
	}
}

// Expired tokens are refreshed with the refresh token, with the resource
// indicator, before they are sent.
func TestEndToEndRefresh(t *testing.T) {
	// x/oauth2 counts a token as expired 10 s early, so a 5 s token is refreshed
	// before every request, while the resource server still accepts it.
	as := authtest.New(t, authtest.Options{TokenTTL: 5 * time.Second, RefreshTokens: true})
	p := startProtected(t, as, nil)
	tr := newTransport(nil)
	cs := connect(t, p.url, tr)
	if _, err := call(t, cs, "whoami"); err != nil {
		t.Fatal(err)
	}
	first := tr.Token()
	before := as.Count("token")
	if _, err := call(t, cs, "whoami"); err != nil {
		t.Fatal(err)
	}
	if as.Count("token") <= before {
		t.Error("no token request after the token expired")
	}
	if len(as.AuthorizationRequests()) != 1 {
		t.Errorf("%d authorization requests, want 1: the token is refreshed, not re-authorized", len(as.AuthorizationRequests()))
	}
	if tr.Token().RefreshToken == first.RefreshToken || tr.Token().AccessToken == first.AccessToken {
		t.Error("the refresh did not rotate the tokens")
	}
}

// A redirect whose iss is not the issuer is refused before the token request.
func TestIssuerMixUpRefused(t *testing.T) {
	as := authtest.New(t, authtest.Options{})
	p := startProtected(t, as, nil)
	tr := newTransport(nil)
	fetch := auth.HeadlessFetcher(http.DefaultClient)
	tr.Grant.(*auth.AuthorizationCode).Fetch = func(ctx context.Context, u string) (*auth.AuthorizationResponse, error) {
		r, err := fetch(ctx, u)
		if err == nil {
			r.Iss += "/"
		}
		return r, err
	}
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, p.url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	_, err := tr.RoundTrip(req)
	if !errors.Is(err, auth.ErrIssuerResponse) {
		t.Fatalf("error = %v, want ErrIssuerResponse", err)
	}
	if n := as.Count("token"); n != 0 {
		t.Errorf("%d token requests after a wrong iss, want 0", n)
	}
	// The refusal sticks: a retry does not start another flow.
	req, _ = http.NewRequestWithContext(t.Context(), http.MethodPost, p.url, strings.NewReader(`{}`))
	if _, err := tr.RoundTrip(req); !errors.Is(err, auth.ErrIssuerResponse) {
		t.Errorf("retry error = %v", err)
	}
	if n := len(as.AuthorizationRequests()); n != 1 {
		t.Errorf("%d authorization requests, want 1", n)
	}
}

// Metadata that names another resource stops the client before it asks the
// authorization server anything.
func TestResourceMismatchRefused(t *testing.T) {
	as := authtest.New(t, authtest.Options{})
	p := startProtected(t, as, func(md *auth.ProtectedResourceMetadata) { md.Resource = "https://evil.example.com/mcp" })
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, p.url, strings.NewReader(`{}`))
	if _, err := newTransport(nil).RoundTrip(req); !errors.Is(err, auth.ErrResourceMismatch) {
		t.Fatalf("error = %v, want ErrResourceMismatch", err)
	}
	if as.Count("metadata")+as.Count("register")+len(as.AuthorizationRequests()) != 0 {
		t.Error("the client contacted the authorization server")
	}
}

// A legacy session is bound to the principal that created it: another
// principal's valid token does not let it use the session id.
func TestSessionBoundToPrincipal(t *testing.T) {
	as := authtest.New(t, authtest.Options{})
	p := startProtected(t, as, nil)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	conn, err := streamable.NewClientConn(ctx, p.url, &streamable.ClientOptions{HTTPClient: &http.Client{Transport: newTransport(nil)}})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(protocol.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{ProtocolVersion: "2025-11-25"}).Connect(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	sid := conn.SessionID()
	if sid == "" {
		t.Fatal("no session id")
	}
	post := func(subject string) int {
		tok, err := as.Issue(authtest.Claims{Subject: subject, ClientID: "other", Audience: p.url, Scope: "mcp:read", TTL: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, p.url, strings.NewReader(`{"jsonrpc":"2.0","id":99,"method":"ping"}`))
		req.Header.Set("Authorization", "Bearer "+tok)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := post("mallory"); code != http.StatusForbidden {
		t.Errorf("another principal's request on the session: %d, want 403", code)
	}
	// The session's own principal (the subject the test AS gives the registered
	// client) still works.
	if _, err := call(t, cs, "whoami"); err != nil {
		t.Errorf("the owner's call after the refused one: %v", err)
	}
}

// The loopback redirect receives the code the way a browser delivers it: the
// "browser" here follows the authorization server's redirect to 127.0.0.1.
func TestLoopbackRedirect(t *testing.T) {
	as := authtest.New(t, authtest.Options{})
	p := startProtected(t, as, nil)
	lb, err := auth.ListenLoopback(0)
	if err != nil {
		t.Fatal(err)
	}
	defer lb.Close()
	opened := 0
	browser := func(ctx context.Context, u string) error {
		opened++
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if resp.StatusCode != 200 || resp.Request.URL.Host != strings.TrimPrefix(strings.TrimSuffix(lb.URL(), "/callback"), "http://") {
			return fmt.Errorf("the browser ended at %s with %d", resp.Request.URL, resp.StatusCode)
		}
		return nil
	}
	tr := &auth.Transport{Grant: &auth.AuthorizationCode{RedirectURL: lb.URL(), Fetch: lb.Fetcher(browser)}}
	cs := connect(t, p.url, tr)
	if _, err := call(t, cs, "whoami"); err != nil {
		t.Fatal(err)
	}
	if opened != 1 {
		t.Errorf("the browser opened %d times, want 1", opened)
	}
	if got := as.AuthorizationRequests()[0].Get("redirect_uri"); got != lb.URL() {
		t.Errorf("redirect_uri = %q, want %q", got, lb.URL())
	}
}
