package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/auth/authtest"
	"github.com/mcpkit/mcpkit/auth/resource"
	"github.com/mcpkit/mcpkit/internal/demo"
	"github.com/mcpkit/mcpkit/transport/streamable"
)

// protectedDemoServer serves the demo server (Streamable HTTP) behind OAuth with
// the authorization server as, needing scope mcp:read, and returns its URL.
func protectedDemoServer(t *testing.T, as *authtest.Server) string {
	t.Helper()
	srv, err := demo.NewServer(&demo.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	h := streamable.NewHandler(srv, &streamable.HandlerOptions{Logger: slog.New(slog.DiscardHandler)})
	t.Cleanup(func() { _ = h.Close() })
	return as.Protect(t, h, resource.Options{Scopes: []string{"mcp:read"}}, nil)
}

// oauthRun is one run of the CLI with its configuration directory (the token
// store) in dir.
type oauthRun struct {
	stdout, stderr string
	code           int
}

// runCLI runs mcpkit with args and the configuration directory dir. With
// browser set it plays the user's browser: it waits for the authorization URL
// the CLI prints (which must start with browser), opens it and follows the
// authorization server's redirect to the CLI's loopback listener. Without it, a
// printed authorization URL fails the test.
func runOAuthCLI(t *testing.T, dir, browser string, args ...string) oauthRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, mcpkitBin, args...)
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+dir, "HOME="+dir)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	w := &lineWatcher{prefix: browser, found: make(chan string, 1)}
	if browser == "" {
		w.prefix = "http" // any printed URL
	}
	cmd.Stderr = w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var err error
	select {
	case authURL := <-w.found:
		if browser == "" {
			t.Errorf("the CLI printed an authorization URL: %s", authURL)
			cancel()
			err = <-exited
			break
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
		resp, gerr := http.DefaultClient.Do(req)
		if gerr != nil {
			t.Errorf("the browser: %v", gerr)
		} else {
			resp.Body.Close()
			if resp.StatusCode != 200 || !strings.HasPrefix(resp.Request.URL.String(), "http://127.0.0.1:") {
				t.Errorf("the browser ended at %s with %d", resp.Request.URL, resp.StatusCode)
			}
		}
		err = <-exited
	case err = <-exited:
		if browser != "" {
			t.Errorf("the CLI exited without printing an authorization URL")
		}
	}
	r := oauthRun{stdout: stdout.String(), stderr: w.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return r
}

// tokenFile returns the path of the one token file in dir's store.
func tokenFile(t *testing.T, dir string) string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "mcpkit", "tokens", "*.json"))
	if len(files) != 1 {
		t.Fatalf("token files %v, want one", files)
	}
	return files[0]
}

// A client command meets a protected server: the first run takes the user
// through the browser flow and stores the token; the second uses the stored
// token without asking anyone; once the token has expired, a third refreshes
// it, again without the browser.
func TestClientCommandRunsOAuth(t *testing.T) {
	as := authtest.New(t, authtest.Options{RefreshTokens: true})
	url := protectedDemoServer(t, as)
	dir := t.TempDir()
	call := []string{"call", "whoami", "--url", url, "--no-browser"}

	first := runOAuthCLI(t, dir, as.Issuer+"/authorize?", call...)
	principal := first.stdout
	if first.code != 0 || !strings.HasPrefix(principal, as.Issuer+"#user-client-") {
		t.Fatalf("first run: exit %d, stdout %q, stderr:\n%s", first.code, first.stdout, first.stderr)
	}
	if n := len(as.AuthorizationRequests()); n != 1 {
		t.Errorf("%d authorization requests, want 1", n)
	}
	if q := as.AuthorizationRequests()[0]; q.Get("scope") != "mcp:read" || q.Get("resource") != url {
		t.Errorf("authorization request %v: want scope mcp:read and resource %s", q, url)
	}
	file := tokenFile(t, dir)
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("token file: %v, %v; want mode 0600", fi, err)
	}
	tokens := as.Count("token")

	second := runOAuthCLI(t, dir, "", call...)
	if second.code != 0 || second.stdout != principal {
		t.Fatalf("second run: exit %d, stdout %q (want %q), stderr:\n%s", second.code, second.stdout, principal, second.stderr)
	}
	if n := len(as.AuthorizationRequests()); n != 1 || as.Count("token") != tokens {
		t.Errorf("second run: %d authorization requests (want 1), %d token requests (want %d): the stored token was not used", n, as.Count("token"), tokens)
	}

	// Expire the stored token: the next run refreshes it.
	before := expireStoredToken(t, file)
	third := runOAuthCLI(t, dir, "", append(call, "--json")...)
	if third.code != 0 || !strings.Contains(third.stdout, strings.TrimSpace(principal)) {
		t.Fatalf("third run: exit %d, stdout %q, stderr:\n%s", third.code, third.stdout, third.stderr)
	}
	if n := len(as.AuthorizationRequests()); n != 1 || as.Count("token") != tokens+1 {
		t.Errorf("third run: %d authorization requests (want 1), %d token requests (want %d: one refresh)", n, as.Count("token"), tokens+1)
	}
	var after storedFile
	readStoredFile(t, file, &after)
	if after.Token.AccessToken == before.Token.AccessToken || after.Token.RefreshToken == before.Token.RefreshToken || !after.Token.Expiry.After(time.Now()) {
		t.Errorf("the refreshed token was not stored: before %v, after %v", before.Token.Expiry, after.Token.Expiry)
	}
}

// storedFile is the part of a token file these tests read.
type storedFile struct {
	Token struct {
		AccessToken  string    `json:"access_token"`
		RefreshToken string    `json:"refresh_token"`
		Expiry       time.Time `json:"expiry"`
	} `json:"token"`
}

func readStoredFile(t *testing.T, file string, v any) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatal(err)
	}
}

// expireStoredToken sets the stored token's expiry an hour back and returns
// the file as it was.
func expireStoredToken(t *testing.T, file string) storedFile {
	t.Helper()
	var was storedFile
	readStoredFile(t, file, &was)
	var raw map[string]any
	readStoredFile(t, file, &raw)
	raw["token"].(map[string]any)["expiry"] = time.Now().Add(-time.Hour).Format(time.RFC3339)
	data, err := json.Marshal(raw)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return was
}

// --client-id names a pre-registered client (no registration), and
// --oauth-client-credentials authorizes a machine without a browser.
func TestClientCommandOAuthClients(t *testing.T) {
	as := authtest.New(t, authtest.Options{Clients: map[string]string{"pre": "", "svc": "s3cret"}})
	url := protectedDemoServer(t, as)

	r := runOAuthCLI(t, t.TempDir(), as.Issuer+"/authorize?", "call", "whoami", "--url", url, "--no-browser", "--client-id", "pre")
	if r.code != 0 || r.stdout != as.Issuer+"#user-pre\n" {
		t.Fatalf("pre-registered: exit %d, stdout %q, stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if as.Count("register") != 0 || as.AuthorizationRequests()[0].Get("client_id") != "pre" {
		t.Errorf("pre-registered: %d registrations, authorization request %v", as.Count("register"), as.AuthorizationRequests()[0])
	}

	r = runOAuthCLI(t, t.TempDir(), "", "call", "whoami", "--url", url, "--oauth-client-credentials", "--client-id", "svc", "--client-secret", "s3cret")
	if r.code != 0 || r.stdout != as.Issuer+"#user-svc\n" {
		t.Fatalf("client credentials: exit %d, stdout %q, stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if n := len(as.AuthorizationRequests()); n != 1 {
		t.Errorf("client credentials: %d authorization requests, want the earlier 1", n)
	}

	r = runOAuthCLI(t, t.TempDir(), "", "call", "whoami", "--url", url, "--oauth-client-credentials", "--client-id", "svc", "--client-secret", "wrong")
	if r.code == 0 || !strings.Contains(r.stderr, "invalid_client") {
		t.Errorf("a wrong client secret: exit %d, stderr:\n%s", r.code, r.stderr)
	}
}

// An Authorization header given with --header is the user's own: no OAuth flow
// replaces it.
func TestClientCommandHeaderAuthorizationBypassesOAuth(t *testing.T) {
	as := authtest.New(t, authtest.Options{})
	url := protectedDemoServer(t, as)
	tok, err := as.Issue(authtest.Claims{Subject: "bob", ClientID: "cli", Audience: url, Scope: "mcp:read", TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	r := runOAuthCLI(t, t.TempDir(), "", "call", "whoami", "--url", url, "--header", "Authorization: Bearer "+tok)
	if r.code != 0 || r.stdout != as.Issuer+"#bob\n" {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	r = runOAuthCLI(t, t.TempDir(), "", "call", "whoami", "--url", url, "--header", "Authorization: Bearer nope")
	if r.code == 0 || as.Count("metadata") != 0 {
		t.Errorf("a bad token of the user's: exit %d, %d metadata requests (want none: no flow):\n%s", r.code, as.Count("metadata"), r.stderr)
	}
}

// The gateway reaches an OAuth-protected HTTP server with the CLI's token
// store: the first run takes the user through the browser flow and lists the
// server's tools; the second uses the stored token without asking anyone.
func TestGatewayUpstreamRunsOAuth(t *testing.T) {
	as := authtest.New(t, authtest.Options{})
	url := protectedDemoServer(t, as)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "mcp.json")
	data, err := json.Marshal(map[string]any{"mcpServers": map[string]any{"secure": map[string]any{"url": url}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, data, 0o600); err != nil {
		t.Fatal(err)
	}
	list := []string{"gateway", "--config", cfg, "--list", "--no-browser"}

	first := runOAuthCLI(t, dir, as.Issuer+"/authorize?", list...)
	if first.code != 0 || !strings.Contains(first.stdout, "secure__whoami") {
		t.Fatalf("first run: exit %d, stdout %q, stderr:\n%s", first.code, first.stdout, first.stderr)
	}
	tokenFile(t, dir) // the token was stored
	if n := len(as.AuthorizationRequests()); n != 1 {
		t.Fatalf("%d authorization requests, want 1", n)
	}
	second := runOAuthCLI(t, dir, "", list...)
	if second.code != 0 || !strings.Contains(second.stdout, "secure__whoami") {
		t.Fatalf("second run: exit %d, stdout %q, stderr:\n%s", second.code, second.stdout, second.stderr)
	}
	if n := len(as.AuthorizationRequests()); n != 1 {
		t.Errorf("second run: %d authorization requests, want 1 (the stored token unused)", n)
	}
}
