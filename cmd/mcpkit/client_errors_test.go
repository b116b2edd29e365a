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
