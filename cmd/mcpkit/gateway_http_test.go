package main

import (
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

// fetch GETs url with the Host header host ("" for the URL's) and returns the
// status and the body.
func fetch(t *testing.T, url, host string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// TestGatewayHTTPStatus: `mcpkit gateway --http` shows its servers' states at
// /status (with the token a failing server printed redacted, and only to
// loopback hosts), stays ready with one server down, and is not ready while a
// server named by --require is down.
func TestGatewayHTTPStatus(t *testing.T) {
	const token = "tok-e2e-0123456789"
	// "broken" runs this CLI with a token as its command: it says the command
	// (the token) is unknown, and exits.
	data, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"a":      map[string]any{"command": mcpkitBin, "args": []string{"serve"}},
		"broken": map[string]any{"command": mcpkitBin, "args": []string{"${env:BROKEN_TOKEN}"}},
	}})
	cfg := writeFile(t, "mcp.json", string(data))
	t.Setenv("BROKEN_TOKEN", token)
	gw := startLogged(t, nil, "gateway", "--config", cfg, "--http", "127.0.0.1:0", "--require", "a", "--start-timeout", "30s")
	base := gw.base
	// The gateway announces itself once "a" is ready; "broken" may not have
	// failed yet: its first failure is logged after /status counts it.
	gw.waitLog(t, "upstream: server down", "broken")

	code, body := fetch(t, base+"/status", "")
	var st struct {
		Ready   bool
		Servers []struct {
			Name, State, LastError    string
			Tools, Restarts, Failures int
			Stderr                    []string
		}
	}
	if err := json.Unmarshal([]byte(body), &st); code != 200 || err != nil {
		t.Fatalf("GET /status: %d %v\n%s", code, err, body)
	}
	if !st.Ready || len(st.Servers) != 2 || st.Servers[0].State != "ready" || st.Servers[0].Tools < 10 ||
		st.Servers[1].State == "ready" || st.Servers[1].Failures < 1 || !strings.Contains(st.Servers[1].LastError, `unknown command "[redacted]"`) {
		t.Errorf("status:\n%s", body)
	}
	if strings.Contains(body, token) {
		t.Errorf("the status shows the token:\n%s", body)
	}
	if code, body := fetch(t, base+"/readyz", ""); code != 200 {
		t.Errorf("GET /readyz with a server down (not required): %d %s", code, body)
	}
	if code, _ := fetch(t, base+"/status", "status.example.com"); code != http.StatusForbidden {
		t.Errorf("GET /status for a foreign Host: %d, want 403", code)
	}

	base = startHTTPForTest(t, "gateway", "--config", cfg, "--http", "127.0.0.1:0", "--require", "broken", "--start-timeout", "30s")
	// broken is in backoff, or starting again: never ready.
	if code, body := fetch(t, base+"/readyz", ""); code != http.StatusServiceUnavailable || !strings.Contains(body, `required server "broken" is `) {
		t.Errorf("GET /readyz with a required server down: %d %s", code, body)
	}
	if _, errOut, code := runCLI(t, nil, "gateway", "--config", cfg, "--http", "127.0.0.1:0", "--require", "nope"); code != 1 || !strings.Contains(errOut, "--require nope: "+cfg+" has no enabled server of that name") {
		t.Errorf("--require of an unknown server: exit %d, %s", code, errOut)
	}
}

// TestGatewayHTTPSessionless: `mcpkit gateway --http --sessionless` serves
// mcpkit's own client in the stateless era (2026-07-28) — a call, progress,
// and an input-required round trip (the demo's elicitation, answered from a
// file) — and a legacy client on sessionless POSTs; its HTTP+SSE front at /sse
// serves a legacy session with progress.
func TestGatewayHTTPSessionless(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "mcp.json")
	writeGatewayConfig(t, cfg, map[string]string{"demo": "serve"})
	base := startHTTPForTest(t, "gateway", "--config", cfg, "--http", "127.0.0.1:0", "--sessionless", "--start-timeout", "30s")
	answers := writeFile(t, "answers.json", `{"name":"Ada"}`)
	for _, c := range []struct {
		path       string
		args       []string
		out, inErr string
	}{
		{"/mcp", []string{"call", "demo__echo", `{"message":"hi"}`, "-v"}, "hello hi\n", "protocol 2026-07-28 (stateless)"},
		{"/mcp", []string{"call", "demo__count", `{"n":2}`}, "2\n", "progress 1/2"},
		{"/mcp", []string{"call", "demo__ask_name", "--elicit-answers", answers, "-v"}, "hello Ada\n", "protocol 2026-07-28 (stateless)"},
		{"/mcp", []string{"call", "demo__echo", `{"message":"old"}`, "-v", "--protocol", "2025-11-25"}, "hello old\n", "protocol 2025-11-25 (legacy session)"},
		{"/sse", []string{"call", "demo__count", `{"n":2}`, "-v"}, "2\n", "(legacy session)"},
		{"/sse", []string{"call", "demo__echo", `{"message":"sse"}`}, "hello sse\n", ""},
	} {
		out, errOut, code := runURL(t, base+c.path, c.args...)
		if code != 0 || out != c.out || !strings.Contains(errOut, c.inErr) {
			t.Errorf("%s %v: stdout %q (want %q), stderr %q (want %q), exit %d", c.path, c.args, out, c.out, lastLines(errOut, 5), c.inErr, code)
		}
	}
	// Sessionless: an initialize gets no session id to come back with.
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, base+"/mcp", strings.NewReader(
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if sid := resp.Header.Get("Mcp-Session-Id"); resp.StatusCode != 200 || sid != "" {
		t.Errorf("initialize with --sessionless: %d, session id %q; want 200 and none", resp.StatusCode, sid)
	}
}
