package resource_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/auth"
	"github.com/mcpkit/mcpkit/auth/authtest"
	"github.com/mcpkit/mcpkit/auth/resource"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport"
	"github.com/mcpkit/mcpkit/transport/streamable"
)

// The introspection verifier accepts what the authorization server says is
// active and for this resource, and remembers it; it refuses the rest.
func TestIntrospectionVerifier(t *testing.T) {
	as := authtest.New(t, authtest.Options{Clients: map[string]string{"rs": "rs-secret", "public": ""}})
	v, err := resource.DiscoverIntrospectionVerifier(t.Context(), nil, as.Issuer, audience, "rs", "rs-secret")
	if err != nil {
		t.Fatal(err)
	}
	if v.Endpoint != as.Issuer+"/introspect" {
		t.Fatalf("endpoint %q", v.Endpoint)
	}
	opaque := func(c authtest.Claims) string {
		t.Helper()
		if c.Audience == "" {
			c.Audience = audience
		}
		if c.TTL == 0 {
			c.TTL = time.Hour
		}
		c.Subject, c.ClientID = "alice", "app"
		tok, err := as.IssueOpaque(c)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	good := opaque(authtest.Claims{Scope: "mcp:read mcp:write"})
	info, err := v.Verify(t.Context(), good)
	if err != nil {
		t.Fatal(err)
	}
	if info.Principal() != as.Issuer+"#alice" || info.ClientID != "app" || !info.HasScopes([]string{"mcp:read", "mcp:write"}) || info.Expiration.IsZero() {
		t.Errorf("info %+v", info)
	}
	n := as.Count("introspect")
	if _, err := v.Verify(t.Context(), good); err != nil || as.Count("introspect") != n {
		t.Errorf("a second Verify: %v, %d more requests (want none: cached)", err, as.Count("introspect")-n)
	}
	// A JWT of the server's is introspected too.
	jwt, err := as.Issue(authtest.Claims{Subject: "bob", ClientID: "app", Audience: audience, TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if info, err := v.Verify(t.Context(), jwt); err != nil || info.Subject != "bob" {
		t.Errorf("a JWT: %+v, %v", info, err)
	}

	for name, tok := range map[string]string{
		"expired":        opaque(authtest.Claims{TTL: -time.Hour}),
		"other audience": opaque(authtest.Claims{Audience: "http://127.0.0.1:2/mcp"}),
		"unknown":        "opaque-nope",
	} {
		if _, err := v.Verify(t.Context(), tok); !errors.Is(err, resource.ErrInvalidToken) {
			t.Errorf("%s: %v, want ErrInvalidToken", name, err)
		}
	}
	for name, bad := range map[string]*resource.IntrospectionVerifier{
		"wrong secret":  {Endpoint: v.Endpoint, ClientID: "rs", ClientSecret: "nope", Audience: audience},
		"public client": {Endpoint: v.Endpoint, ClientID: "public", Audience: audience},
	} {
		if _, err := bad.Verify(t.Context(), good); err == nil || !strings.Contains(err.Error(), "401") {
			t.Errorf("%s: %v, want the endpoint's 401", name, err)
		}
	}
}

// whoamiHandler is an MCP server whose tool whoami answers with the caller's
// principal and, after a space, what info says of its token.
func whoamiHandler(t *testing.T, info func(*resource.TokenInfo) string) http.Handler {
	t.Helper()
	srv := mcp.NewServer(protocol.Implementation{Name: "whoami", Version: "1"}, &mcp.ServerOptions{Logger: slog.New(slog.DiscardHandler)})
	err := mcp.AddTool(srv, &protocol.Tool{Name: "whoami", Description: "the caller"}, func(ctx context.Context, _ *mcp.ToolRequest, _ struct{}) (string, error) {
		return transport.PrincipalFrom(ctx) + " " + info(resource.TokenInfoFrom(ctx)), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	h := streamable.NewHandler(srv, &streamable.HandlerOptions{Logger: slog.New(slog.DiscardHandler)})
	t.Cleanup(func() { _ = h.Close() })
	return h
}

// callWhoami connects to url through tr (a browser-less authorization code
// grant, DPoP if dpop) and calls whoami n times; it returns the answers and the
// transport.
func callWhoami(t *testing.T, url string, dpop bool, n int) ([]string, *auth.Transport) {
	t.Helper()
	tr := &auth.Transport{DPoP: dpop, Grant: &auth.AuthorizationCode{RedirectURL: "http://127.0.0.1:9/callback", Fetch: auth.HeadlessFetcher(http.DefaultClient)}}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	conn, err := streamable.NewClientConn(ctx, url, &streamable.ClientOptions{HTTPClient: &http.Client{Transport: tr}})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(protocol.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	var out []string
	for range n {
		res, err := cs.CallTool(ctx, "whoami", nil)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, res.Content[0].Text)
	}
	return out, tr
}

// mcpkit's client completes the browser-less flow against a server whose
// tokens are opaque and checked by introspection.
func TestIntrospectionEndToEnd(t *testing.T) {
	as := authtest.New(t, authtest.Options{OpaqueTokens: true, Clients: map[string]string{"rs": "rs-secret"}})
	h := whoamiHandler(t, func(i *resource.TokenInfo) string { return i.ClientID })
	// The verifier's audience is the resource Protect describes (its URL, known
	// once its server listens, before it routes any request).
	v := &resource.IntrospectionVerifier{Endpoint: as.Issuer + "/introspect", ClientID: "rs", ClientSecret: "rs-secret", Issuer: as.Issuer}
	url := as.Protect(t, h, resource.Options{Verifier: v, Scopes: []string{"mcp:read"}}, func(md *auth.ProtectedResourceMetadata) {
		v.Audience = md.Resource
	})
	got, tr := callWhoami(t, url, false, 1)
	if !strings.HasPrefix(got[0], as.Issuer+"#user-client-") || !strings.HasPrefix(tr.Token().AccessToken, "opaque-") {
		t.Errorf("whoami = %q with token %.7s…, want the principal of an opaque token", got[0], tr.Token().AccessToken)
	}
	if as.Count("introspect") == 0 {
		t.Error("the server never introspected")
	}
}
