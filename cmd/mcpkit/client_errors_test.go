package main

import (
	"strings"
	"testing"
)

// A URL without the MCP path gets one sentence that says what failed and
// what to try (it chained "the fallback failed: legacysse: GET answered 404");
// auth status on an unprotected server says no login is needed (it named an
// authorization server that does not exist).
func TestURLErrorsSayWhatToTry(t *testing.T) {
	base := serveHTTPForTest(t)
	_, errOut, code := runURL(t, base, "tools")
	want := "mcpkit: no MCP endpoint at " + base + " (404 Not Found); did you mean " + base + "/mcp?\n"
	if code != 1 || errOut != want {
		t.Errorf("tools --url %s: %d %q, want %q", base, code, errOut, want)
	}
	out, errOut, code := runCLI(t, nil, "auth", "status", "--url", base+"/mcp")
	if code != 0 || out != base+"/mcp does not ask for authorization: no login needed\n" || strings.Contains(out, "authorization server") {
		t.Errorf("auth status: %d %q %q", code, out, errOut)
	}
}

// The loopback port's flag is --oauth-port on every command; auth login keeps
// its old --port as a hidden alias of the same setting.
func TestOAuthPortFlagName(t *testing.T) {
	root := newRootCmd()
	login, _, err := root.Find([]string{"auth", "login"})
	if err != nil {
		t.Fatal(err)
	}
	if login.Flags().Lookup("oauth-port") == nil {
		t.Fatal("auth login has no --oauth-port")
	}
	old := login.Flags().Lookup("port")
	if old == nil || !old.Hidden {
		t.Fatalf("auth login --port: %+v, want a hidden alias", old)
	}
	if err := login.ParseFlags([]string{"--port", "8976"}); err != nil || login.Flags().Lookup("oauth-port").Value.String() != "8976" {
		t.Errorf("--port 8976 sets --oauth-port to %s (%v)", login.Flags().Lookup("oauth-port").Value, err)
	}
}
