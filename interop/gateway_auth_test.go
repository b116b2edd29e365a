package interop

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit"
	"github.com/mcpkit/mcpkit/auth/authtest"
	"github.com/mcpkit/mcpkit/internal/demo"
	"github.com/mcpkit/mcpkit/transport"
)

// gatewayAuthReport is what gateway_auth_client.mjs prints.
type gatewayAuthReport struct {
	OK     bool     `json:"ok"`
	Tools  []string `json:"tools"`
	Echo   string   `json:"echo"`
	Whoami string   `json:"whoami"`
	Error  *struct {
		Message string `json:"message"`
		Code    int    `json:"code"` // the HTTP status the SDK saw
	} `json:"error"`
}

// TestGatewayAuthWithTypeScriptClient: the official TypeScript SDK client goes
// through `mcpkit gateway --http --auth-issuer` with a valid JWT from
// auth/authtest (and with a static token): it lists and calls the tools, and
// the HTTP server behind the gateway learns the caller's principal from
// --identity-header. The same client is refused with no token, an expired
// one, one for another audience, one from another issuer and an unsigned
// (alg none) one; each of those requests gets 401 with the challenge naming
// the gateway's protected-resource metadata.
func TestGatewayAuthWithTypeScriptClient(t *testing.T) {
	node := requirePeers(t)
	bin := buildMcpkit(t)
	as := authtest.New(t, authtest.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 3*testTimeout)
	defer cancel()

	srv, err := demo.NewServer(nil)
	if err != nil {
		t.Fatal(err)
	}
	h := mcpkit.NewHTTPHandler(srv, nil)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p := r.Header.Get("X-Principal"); p != "" && r.Header.Get("Authorization") == "" {
			r = r.WithContext(transport.WithPrincipal(r.Context(), p))
		}
		h.ServeHTTP(w, r)
	}))
	defer up.Close()

	dir := t.TempDir()
	const static = "interop-static-token-0123456789"
	tokens := filepath.Join(dir, "tokens")
	cfgPath := filepath.Join(dir, "mcp.json")
	data, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"demo": map[string]any{"command": bin, "args": []string{"serve"}},
		"up":   map[string]any{"url": up.URL + "/mcp"},
	}})
	if err := os.WriteFile(cfgPath, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tokens, []byte("ci:"+static+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, bin, "gateway", "--config", cfgPath, "--http", "127.0.0.1:0",
		"--auth-issuer", as.Issuer, "--auth-token-file", tokens, "--identity-header", "X-Principal")
	cmd.Env = append(os.Environ(), "GORACE=halt_on_error=1 atexit_sleep_ms=0")
	m, _ := startAnnouncedServer(ctx, t, cmd, newEventLog(), gatewayAnnouncement)
	base := "http://" + m[1]
	url := base + "/mcp"

	issue := func(c authtest.Claims) string {
		tok, err := as.Issue(c)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	valid := issue(authtest.Claims{Subject: "ts-user", Audience: base, TTL: time.Hour})
	for who, c := range map[string]struct{ token, principal string }{
		"a JWT":          {valid, as.Issuer + "#ts-user"},
		"a static token": {static, "token#ci"},
	} {
		var r gatewayAuthReport
		stderr, waitErr := runNodeReport(t, []string{"GATEWAY_TOKEN=" + c.token}, &r, node, "gateway_auth_client.mjs", url)
		if waitErr != nil || !r.OK || r.Echo != "hello ts" || r.Whoami != c.principal || !slices.Contains(r.Tools, "demo__echo") || !slices.Contains(r.Tools, "up__whoami") {
			t.Errorf("TypeScript client with %s: %v %+v\nstderr:\n%s", who, waitErr, r, stderr)
		}
	}

	enc := base64.RawURLEncoding.EncodeToString
	claims, _ := json.Marshal(map[string]any{"iss": as.Issuer, "sub": "mallory", "aud": base, "exp": time.Now().Add(time.Hour).Unix()})
	md := `resource_metadata="` + base + `/.well-known/oauth-protected-resource"`
	for who, token := range map[string]string{
		"no token":       "",
		"expired":        issue(authtest.Claims{Subject: "ts-user", Audience: base, TTL: -time.Hour}),
		"wrong audience": issue(authtest.Claims{Subject: "ts-user", Audience: "http://127.0.0.1:1", TTL: time.Hour}),
		"wrong issuer":   issue(authtest.Claims{Subject: "ts-user", Audience: base, TTL: time.Hour, Issuer: "http://127.0.0.1:2"}),
		"alg none":       enc([]byte(`{"alg":"none","typ":"at+jwt"}`)) + "." + enc(claims) + ".",
	} {
		var r gatewayAuthReport
		_, waitErr := runNodeReport(t, []string{"GATEWAY_TOKEN=" + token}, &r, node, "gateway_auth_client.mjs", url)
		if waitErr == nil || r.OK || r.Error == nil || r.Error.Code != 401 {
			t.Errorf("TypeScript client with %s: exit %v, %+v %+v; want refused with 401", who, waitErr, r, r.Error)
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		want := "Bearer " + md
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
			want = `Bearer error="invalid_token"`
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := resp.Header.Get("WWW-Authenticate"); resp.StatusCode != 401 || !strings.HasPrefix(got, want) || !strings.HasSuffix(got, md) {
			t.Errorf("%s: %d %q; want 401 %q … %s", who, resp.StatusCode, got, want, md)
		}
	}
}
