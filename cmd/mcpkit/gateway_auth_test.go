package main

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit"
	"github.com/mcpkit/mcpkit/auth/authtest"
	"github.com/mcpkit/mcpkit/internal/demo"
	"github.com/mcpkit/mcpkit/transport"
)

// loggedProcess is a CLI process that serves HTTP, with everything it wrote on
// stderr kept (to check what it logged).
type loggedProcess struct {
	base    string
	before  []string      // the lines before the announcement
	newLine chan struct{} // capacity 1: signalled after each line is kept
	mu      sync.Mutex
	stderr  strings.Builder
}

// waitLog waits until the process has logged a line containing every one of
// parts, and fails the test after 30 s.
func (p *loggedProcess) waitLog(t *testing.T, parts ...string) {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		for line := range strings.Lines(p.logs()) {
			if containsAll(line, parts) {
				return
			}
		}
		select {
		case <-p.newLine:
		case <-timeout:
			t.Fatalf("no line with %q logged in 30 s; stderr:\n%s", parts, p.logs())
		}
	}
}

func containsAll(s string, parts []string) bool {
	for _, part := range parts {
		if !strings.Contains(s, part) {
			return false
		}
	}
	return true
}

func (p *loggedProcess) logs() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.String()
}

// startLogged runs the CLI with args and env until the test ends and returns
// it once it announced its address.
func startLogged(t *testing.T, env []string, args ...string) *loggedProcess {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, mcpkitBin, args...)
	cmd.Env = append(os.Environ(), env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() { cancel(); _ = cmd.Wait(); <-done })
	p := &loggedProcess{newLine: make(chan struct{}, 1)}
	type announced struct {
		url    string
		before []string
	}
	found := make(chan announced, 1)
	go func() {
		defer close(done)
		sc := bufio.NewScanner(stderr)
		var lines []string
		seen := false
		for sc.Scan() {
			p.mu.Lock()
			p.stderr.WriteString(sc.Text() + "\n")
			p.mu.Unlock()
			select {
			case p.newLine <- struct{}{}:
			default:
			}
			if seen {
				continue
			}
			if i := strings.Index(sc.Text(), "at http://"); i >= 0 {
				found <- announced{strings.TrimSuffix(strings.Fields(sc.Text()[i+3:])[0], "/mcp"), lines}
				seen = true
				continue
			}
			lines = append(lines, sc.Text())
		}
	}()
	select {
	case a := <-found:
		p.base, p.before = a.url, a.before
		return p
	case <-time.After(30 * time.Second):
		t.Fatalf("mcpkit %v did not announce its address; stderr:\n%s", args, p.logs())
		return nil
	}
}

// identityUpstream serves the demo server over HTTP, with the principal taken
// from the header the gateway's --identity-header names (so the demo's whoami
// says what the gateway sent), and "none" without it.
func identityUpstream(t *testing.T, header string) string {
	t.Helper()
	srv, err := demo.NewServer(nil)
	if err != nil {
		t.Fatal(err)
	}
	h := mcpkit.NewHTTPHandler(srv, nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if auth := r.Header.Get("Authorization"); auth != "" {
			http.Error(w, "the gateway passed a client's token on", http.StatusBadRequest)
			return
		}
		if p := r.Header.Get(header); p != "" {
			r = r.WithContext(transport.WithPrincipal(r.Context(), "via-header:"+p))
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	return ts.URL + "/mcp"
}

// algNone is an unsigned JWT (alg "none") with otherwise valid claims.
func algNone(iss, aud string) string {
	enc := base64.RawURLEncoding.EncodeToString
	claims, _ := json.Marshal(map[string]any{"iss": iss, "sub": "mallory", "aud": aud, "scope": "mcp:call", "exp": time.Now().Add(time.Hour).Unix(), "iat": time.Now().Unix()})
	return enc([]byte(`{"alg":"none","typ":"at+jwt"}`)) + "." + enc(claims) + "."
}

// TestGatewayInboundAuth: `mcpkit gateway --http` takes serve's inbound
// options. With --auth-issuer it refuses requests without a token, with an
// expired one, one for another audience, from another issuer or unsigned (401
// and the challenge naming its metadata), and serves a valid JWT; static
// tokens of --auth-token-file work beside them, with the principal token#NAME.
// Every forwarded call knows the principal: the demo's whoami through the
// gateway says it, and an HTTP upstream gets it in --identity-header (never
// the client's token). No token appears in the gateway's logs or /status.
func TestGatewayInboundAuth(t *testing.T) {
	as := authtest.New(t, authtest.Options{})
	const staticTok = "st4tic-alice-0123456789abcdef"
	tokens := writeFile(t, "tokens", "# team tokens\nalice:"+staticTok+"\n")
	up := identityUpstream(t, "X-Mcpkit-Principal")
	data, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"demo": map[string]any{"command": mcpkitBin, "args": []string{"serve"}},
		"up":   map[string]any{"url": up},
	}})
	cfg := writeFile(t, "mcp.json", string(data))
	gw := startLogged(t, nil, "gateway", "--config", cfg, "--http", "127.0.0.1:0", "--start-timeout", "30s", "-v",
		"--auth-issuer", as.Issuer, "--auth-scopes", "mcp:call", "--auth-token-file", tokens, "--identity-header", "X-Mcpkit-Principal")
	base := gw.base
	ctx := t.Context()

	valid, err := as.Issue(authtest.Claims{Subject: "bob", Audience: base, Scope: "mcp:call", TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	expired, _ := as.Issue(authtest.Claims{Subject: "bob", Audience: base, Scope: "mcp:call", TTL: -time.Hour})
	otherAud, _ := as.Issue(authtest.Claims{Subject: "bob", Audience: "http://127.0.0.1:1", Scope: "mcp:call", TTL: time.Hour})
	otherIss, _ := as.Issue(authtest.Claims{Subject: "bob", Audience: base, Scope: "mcp:call", TTL: time.Hour, Issuer: "http://127.0.0.1:2"})
	noScope, _ := as.Issue(authtest.Claims{Subject: "bob", Audience: base, Scope: "other", TTL: time.Hour})
	md := base + "/.well-known/oauth-protected-resource"
	for _, c := range []struct {
		name, token string
		status      int
		challenge   string
	}{
		{"no token", "", 401, `Bearer scope="mcp:call", resource_metadata="` + md + `"`},
		{"expired", expired, 401, `error="invalid_token"`},
		{"wrong audience", otherAud, 401, `error="invalid_token"`},
		{"wrong issuer", otherIss, 401, `error="invalid_token"`},
		{"alg none", algNone(as.Issuer, base), 401, `error="invalid_token"`},
		{"unknown static token", "st4tic-mallory-0123456789abcdef", 401, `error="invalid_token"`},
		{"missing scope", noScope, 403, `error="insufficient_scope"`},
	} {
		h := http.Header{}
		if c.token != "" {
			h.Set("Authorization", "Bearer "+c.token)
		}
		req, _ := pingRequest(ctx, base+"/mcp", h)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		got := resp.Header.Get("WWW-Authenticate")
		if resp.StatusCode != c.status || !strings.HasPrefix(got, "Bearer ") || !strings.Contains(got, c.challenge) || !strings.Contains(got, `resource_metadata="`+md+`"`) {
			t.Errorf("%s: %d %q; want %d with %q", c.name, resp.StatusCode, got, c.status, c.challenge)
		}
	}
	if prm := getPRM(t, md); prm.Resource != base || prm.AuthorizationServers[0] != as.Issuer || prm.ResourceName != "mcpkit gateway" {
		t.Errorf("protected resource metadata: %+v", prm)
	}

	for _, c := range []struct {
		who, token, tool, want string
	}{
		{"a JWT", valid, "up__whoami", "via-header:" + as.Issuer + "#bob\n"},
		{"a static token", staticTok, "up__whoami", "via-header:token#alice\n"},
		// A stdio server has no header: it knows no principal.
		{"a static token", staticTok, "demo__whoami", "anonymous: no authenticated principal\n"},
	} {
		for _, path := range []string{"/mcp", "/sse"} {
			out, errOut, code := runURL(t, base+path, "call", c.tool, "--header", "Authorization: Bearer "+c.token)
			if code != 0 || out != c.want {
				t.Errorf("%s %s with %s: exit %d, %q (want %q)\n%s", path, c.tool, c.who, code, out, c.want, lastLines(errOut, 5))
			}
		}
	}
	// /status is behind the same authentication, and shows no token.
	if code, _ := fetch(t, base+"/status", ""); code != 401 {
		t.Errorf("/status without a token: %d, want 401", code)
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/status", nil)
	req.Header.Set("Authorization", "Bearer "+staticTok)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	status, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(status), `"up"`) || strings.Contains(string(status), staticTok) || strings.Contains(string(status), valid) {
		t.Errorf("/status: %d, a token shows or a server is missing:\n%s", resp.StatusCode, status)
	}
	logs := gw.logs()
	// Every forwarded call is logged with its principal.
	for _, p := range []string{"principal=token#alice", "principal=" + as.Issuer + "#bob"} {
		if !strings.Contains(logs, p) {
			t.Errorf("the gateway's log has no %q:\n%s", p, logs)
		}
	}
	for _, secret := range []string{staticTok, valid, "st4tic-mallory"} {
		if strings.Contains(logs, secret) {
			t.Errorf("the gateway's log shows a token:\n%s", logs)
		}
	}
}

// TestGatewayStaticTokensFromEnv: without --auth-token-file the static tokens
// come from $MCPKIT_AUTH_TOKENS; with static tokens only, the challenge names
// no metadata (there is no authorization server to name).
func TestGatewayStaticTokensFromEnv(t *testing.T) {
	cfg := writeFile(t, "mcp.json", `{"mcpServers":{"demo":{"command":"`+mcpkitBin+`","args":["serve"]}}}`)
	const a, b = "env-token-aaaaaaaaaaaaaaaa", "env-token-bbbbbbbbbbbbbbbb"
	gw := startLogged(t, []string{authTokensEnv + "=ann:" + a + ",ben:" + b}, "gateway", "--config", cfg, "--http", "127.0.0.1:0", "--start-timeout", "30s", "-v")
	req, _ := pingRequest(t.Context(), gw.base+"/mcp", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 || resp.Header.Get("WWW-Authenticate") != "Bearer" {
		t.Errorf("no token: %d %q, want 401 Bearer", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
	for _, tok := range []string{a, b} {
		if out, errOut, code := runURL(t, gw.base+"/mcp", "call", "demo__echo", `{"message":"x"}`, "--header", "Authorization: Bearer "+tok); code != 0 || out != "hello x\n" {
			t.Errorf("echo: exit %d, %q\n%s", code, out, lastLines(errOut, 5))
		}
	}
	if logs := gw.logs(); !strings.Contains(logs, "principal=token#ann") {
		t.Errorf("no call logged with its principal:\n%s", logs)
	}
	if strings.Contains(gw.logs(), a) || strings.Contains(gw.logs(), b) {
		t.Errorf("the log shows a token:\n%s", gw.logs())
	}
}
