package main

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/auth/authtest"
	"github.com/mcpkit/mcpkit/auth/resource"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport/streamable"
)

// protectedDemo serves an mcpkit server behind OAuth with a test authorization
// server, and returns its URL and the authorization server.
func protectedDemo(t *testing.T) (string, *authtest.Server) {
	t.Helper()
	as := authtest.New(t, authtest.Options{})
	srv := mcp.NewServer(protocol.Implementation{Name: "protected", Version: "1"}, &mcp.ServerOptions{Logger: slog.New(slog.DiscardHandler)})
	h := streamable.NewHandler(srv, &streamable.HandlerOptions{Logger: slog.New(slog.DiscardHandler)})
	return as.Protect(t, h, resource.Options{Scopes: []string{"mcp:read"}}, nil), as
}

// runAuth runs "mcpkit auth ..." with its configuration directory in dir.
func runAuth(t *testing.T, dir string, args ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, mcpkitBin, append([]string{"auth"}, args...)...)
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+dir, "HOME="+dir)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return out.String(), ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), 0
}

// auth login prints the authorization URL, receives the redirect on its
// loopback listener and stores the token; status describes it without showing
// it; logout forgets it.
func TestAuthLoginStatusLogout(t *testing.T) {
	url, as := protectedDemo(t)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, mcpkitBin, "auth", "login", "--url", url, "--no-browser")
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+dir, "HOME="+dir)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	w := &lineWatcher{prefix: as.Issuer + "/authorize?", found: make(chan string, 1)}
	cmd.Stderr = w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Play the browser: open the printed URL and follow the redirects to the
	// CLI's loopback listener.
	var authURL string
	select {
	case authURL = <-w.found:
	case <-ctx.Done():
		t.Fatalf("no authorization URL printed: %s", w.String())
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Request.URL.String(), "http://127.0.0.1:") {
		t.Errorf("the browser ended at %s with %d", resp.Request.URL, resp.StatusCode)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("login: %v (stdout %q)", err, stdout.String())
	}
	if want := "logged in to " + url + " (authorization server " + as.Issuer + ")\n"; stdout.String() != want {
		t.Errorf("login printed %q, want %q", stdout.String(), want)
	}

	files, _ := filepath.Glob(filepath.Join(dir, "mcpkit", "tokens", "*.json"))
	if len(files) != 1 {
		t.Fatalf("token files %v, want one", files)
	}
	if fi, err := os.Stat(files[0]); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("token file mode %v, %v; want 0600", fi.Mode().Perm(), err)
	}
	data, _ := os.ReadFile(files[0])

	out, code := runAuth(t, dir, "status", "--url", url)
	if code != 0 || !strings.Contains(out, "token valid") || !strings.Contains(out, "scopes mcp:read") || !strings.Contains(out, as.Issuer) {
		t.Errorf("status (exit %d):\n%s", code, out)
	}
	if at := jsonField(string(data), `"access_token":"`); at == "" || strings.Contains(out, at) {
		t.Errorf("status shows the access token, or the file holds none:\n%s", out)
	}
	if n := len(as.AuthorizationRequests()); n != 1 {
		t.Errorf("%d authorization requests, want 1", n)
	}

	if out, code := runAuth(t, dir, "logout", "--url", url); code != 0 || !strings.Contains(out, "logged out of "+url) {
		t.Errorf("logout (exit %d): %s", code, out)
	}
	if out, code := runAuth(t, dir, "status", "--url", url); code != 1 || !strings.Contains(out, "not logged in") {
		t.Errorf("status after logout (exit %d): %s", code, out)
	}
}

// lineWatcher collects output and sends the first line that starts with prefix
// (after spaces) on found.
type lineWatcher struct {
	prefix string
	found  chan string
	mu     sync.Mutex
	buf    bytes.Buffer
	sent   bool
}

func (w *lineWatcher) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if !w.sent {
		for line := range strings.Lines(w.buf.String()) {
			if l := strings.TrimSpace(line); strings.HasPrefix(l, w.prefix) && strings.HasSuffix(line, "\n") {
				w.found <- l
				w.sent = true
				break
			}
		}
	}
	return len(p), nil
}

func (w *lineWatcher) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// jsonField returns the string value that follows prefix in s.
func jsonField(s, prefix string) string {
	_, rest, ok := strings.Cut(s, prefix)
	if !ok {
		return ""
	}
	v, _, _ := strings.Cut(rest, `"`)
	return v
}
