package main

import (
	"bytes"
	"context"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/auth"
	"github.com/mcpkit/mcpkit/auth/authtest"
)

// mcpkit serve --http --auth-issuer is a protected resource: unauthenticated
// requests get 401 with a challenge naming its metadata, which names the
// authorization server; mcpkit's client authorizes (over Streamable HTTP and,
// with the same token, HTTP+SSE) and the demo's tools see the principal.
func TestServeWithAuthIssuer(t *testing.T) {
	as := authtest.New(t, authtest.Options{})
	base := serveHTTPForTest(t, "--auth-issuer", as.Issuer, "--auth-scopes", "mcp:read,mcp:call")
	ctx := t.Context()

	req, _ := pingRequest(ctx, base+"/mcp", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	wantChallenge := `Bearer scope="mcp:read mcp:call", resource_metadata="` + base + `/.well-known/oauth-protected-resource"`
	if resp.StatusCode != 401 || resp.Header.Get("WWW-Authenticate") != wantChallenge {
		t.Errorf("unauthenticated: %d %q, want 401 %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), wantChallenge)
	}
	for _, p := range []string{"/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource/sse"} {
		md := getPRM(t, base+p)
		if md.Resource != base || len(md.AuthorizationServers) != 1 || md.AuthorizationServers[0] != as.Issuer || strings.Join(md.ScopesSupported, " ") != "mcp:read mcp:call" {
			t.Errorf("%s: %+v", p, md)
		}
	}

	// A token for another resource is refused.
	other, err := as.Issue(authtest.Claims{Subject: "eve", Audience: "http://127.0.0.1:1", Scope: "mcp:read mcp:call", TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	req, _ = pingRequest(ctx, base+"/mcp", http.Header{"Authorization": {"Bearer " + other}})
	if resp, err = http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if h := resp.Header.Get("WWW-Authenticate"); resp.StatusCode != 401 || !strings.Contains(h, `error="invalid_token"`) {
		t.Errorf("a token for another resource: %d %q", resp.StatusCode, h)
	}

	dir := t.TempDir()
	r := runOAuthCLI(t, dir, as.Issuer+"/authorize?", "call", "whoami", "--url", base+"/mcp", "--no-browser")
	if r.code != 0 || !strings.HasPrefix(r.stdout, as.Issuer+"#user-client-") {
		t.Fatalf("whoami over Streamable HTTP: exit %d, stdout %q, stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if q := as.AuthorizationRequests()[0]; q.Get("resource") != base || q.Get("scope") != "mcp:read mcp:call" {
		t.Errorf("authorization request %v: want resource %s and both scopes", q, base)
	}
	sse := runOAuthCLI(t, dir, "", "call", "whoami", "--url", base+"/sse")
	if sse.code != 0 || sse.stdout != r.stdout {
		t.Errorf("whoami over HTTP+SSE with the stored token: exit %d, stdout %q (want %q), stderr:\n%s", sse.code, sse.stdout, r.stdout, sse.stderr)
	}
}

func getPRM(t *testing.T, u string) *auth.ProtectedResourceMetadata {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, u, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	_, _ = buf.ReadFrom(resp.Body)
	md, err := auth.ParseProtectedResourceMetadata(buf.Bytes())
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("%s: %d %v", u, resp.StatusCode, err)
	}
	return md
}

// The auth flags of serve and gateway are checked before anything starts.
func TestServeAuthFlagsNeedHTTP(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--auth-issuer", "http://127.0.0.1:1"}, "--auth-issuer needs --http"},
		{[]string{"serve", "--http", "127.0.0.1:0", "--auth-scopes", "a"}, "need --auth-issuer"},
		{[]string{"serve", "--http", "0.0.0.0:0", "--auth-issuer", "http://127.0.0.1:1"}, "needs --auth-audience"},
		{[]string{"serve", "--auth-token-file", "tokens"}, "--auth-token-file needs --http"},
		{[]string{"gateway", "--config", "mcp.json", "--auth-issuer", "http://127.0.0.1:1"}, "--auth-issuer needs --http"},
		{[]string{"gateway", "--config", "mcp.json", "--http", "127.0.0.1:0", "--auth-dpop"}, "need --auth-issuer"},
	} {
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
		out, err := exec.CommandContext(ctx, mcpkitBin, tc.args...).CombinedOutput()
		cancel()
		if err == nil || !strings.Contains(string(out), tc.want) {
			t.Errorf("%v: %v, %s; want an error saying %q", tc.args, err, out, tc.want)
		}
	}
}
