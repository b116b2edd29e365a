//go:build unix

package main

import (
	"bufio"
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/auth/authtest"
)

// `mcpkit tap --upstream URL` in front of an OAuth-protected server authorizes
// to it itself (the browser flow, its token stored in the tap's configuration
// directory) before relaying; clients of the tap need no authorization, an
// Authorization header a client sends is not passed on, and the capture holds
// neither token.
func TestTapHTTPRunsOAuth(t *testing.T) {
	as := authtest.New(t, authtest.Options{})
	up := protectedDemoServer(t, as)
	mallory, err := as.Issue(authtest.Claims{Subject: "mallory", ClientID: "m", Audience: up, Scope: "mcp:read", TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	capPath := filepath.Join(dir, "cap.jsonl")
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	tp := exec.CommandContext(ctx, mcpkitBin, "tap", "--listen", "127.0.0.1:0", "--upstream", up, "--out", capPath, "--no-browser")
	tp.Env = append(os.Environ(), "XDG_CONFIG_HOME="+dir, "HOME="+dir)
	stderr, err := tp.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := tp.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 64)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	var tapURL string
	var said []string
	deadline := time.After(30 * time.Second)
	for tapURL == "" {
		var line string
		ok := false
		select {
		case line, ok = <-lines:
		case <-deadline:
		}
		if !ok {
			t.Fatalf("the tap did not start relaying; it said:\n%s", strings.Join(said, "\n"))
		}
		said = append(said, line)
		switch l := strings.TrimSpace(line); {
		case strings.HasPrefix(l, as.Issuer+"/authorize?"): // play the user's browser
			resp, err := http.Get(l)
			if err != nil {
				t.Fatalf("the browser: %v", err)
			}
			resp.Body.Close()
			if resp.StatusCode != 200 || !strings.HasPrefix(resp.Request.URL.String(), "http://127.0.0.1:") {
				t.Fatalf("the browser ended at %s with %d", resp.Request.URL, resp.StatusCode)
			}
		case strings.Contains(l, "relaying http://"):
			tapURL = strings.Fields(l[strings.Index(l, "relaying ")+len("relaying "):])[0]
		}
	}
	go func() { // the rest of the tap's standard error
		for range lines {
		}
	}()
	if n := len(as.AuthorizationRequests()); n != 1 {
		t.Fatalf("%d authorization requests before the tap relayed, want 1", n)
	}
	principal := as.Issuer + "#user-client-" // the tap's registered client

	// A client with no token of its own (and a store of its own), then one that
	// sends a token for mallory, which must not reach the server.
	for _, extra := range [][]string{nil, {"--header", "Authorization: Bearer " + mallory}} {
		r := runOAuthCLI(t, t.TempDir(), "", append([]string{"call", "whoami", "--url", tapURL}, extra...)...)
		if r.code != 0 || !strings.HasPrefix(r.stdout, principal) || strings.Contains(r.stdout, "mallory") {
			t.Errorf("through the tap (%d extra args): exit %d, stdout %q, stderr:\n%s", len(extra), r.code, r.stdout, r.stderr)
		}
	}
	if n := len(as.AuthorizationRequests()); n != 1 {
		t.Errorf("%d authorization requests, want the tap's one", n)
	}

	if err := tp.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := tp.Wait(); err != nil {
		t.Errorf("the tap after SIGTERM: %v", err)
	}
	var stored storedFile
	readStoredFile(t, tokenFile(t, dir), &stored)
	data, err := os.ReadFile(capPath)
	if err != nil {
		t.Fatal(err)
	}
	if stored.Token.AccessToken == "" || strings.Contains(string(data), stored.Token.AccessToken) || strings.Contains(string(data), mallory) {
		t.Errorf("the capture holds a token (the tap's stored: %t)", stored.Token.AccessToken != "")
	}
	if _, recs := readCaptureFile(t, capPath); len(recs) < 4 {
		t.Errorf("the capture has %d records, want the two sessions", len(recs))
	}
}
