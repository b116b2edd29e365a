package main

import (
	"net/http"
	"strings"
	"testing"
)

// TestGatewayRateLimits: `mcpkit gateway --rate-limit` answers a client over
// its budget 429 with Retry-After while another client's requests all pass;
// --tool-rate-limit refuses a tool's calls beyond its budget with an error
// naming the limit, and leaves other tools alone.
func TestGatewayRateLimits(t *testing.T) {
	const greedy, modest = "ratelimit-greedy-0123456789", "ratelimit-modest-0123456789"
	tokens := writeFile(t, "tokens", "greedy:"+greedy+"\nmodest:"+modest+"\n")
	cfg := writeFile(t, "mcp.json", `{"mcpServers":{"demo":{"command":"`+mcpkitBin+`","args":["serve"]}}}`)
	gw := startLogged(t, nil, "gateway", "--config", cfg, "--http", "127.0.0.1:0", "--start-timeout", "30s",
		"--auth-token-file", tokens, "--rate-limit", "1/m:40", "--tool-rate-limit", "demo__echo=1/m:1")
	url := gw.base + "/mcp"
	ping := func(tok string) *http.Response {
		req, _ := pingRequest(t.Context(), url, http.Header{"Authorization": {"Bearer " + tok}})
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	// The tool limit: the first call passes, the second is refused, another tool works.
	if out, errOut, code := runURL(t, url, "call", "demo__echo", `{"message":"1"}`, "--header", "Authorization: Bearer "+modest); code != 0 || out != "hello 1\n" {
		t.Fatalf("first echo: exit %d %q %s", code, out, lastLines(errOut, 3))
	}
	_, errOut, code := runURL(t, url, "call", "demo__echo", `{"message":"2"}`, "--header", "Authorization: Bearer "+modest)
	if code == 0 || !strings.Contains(errOut, "rate limit exceeded: tool 'demo__echo' allows 1/m:1 per client; retry after 60s") {
		t.Errorf("second echo: exit %d, %s", code, lastLines(errOut, 3))
	}
	if out, errOut, code := runURL(t, url, "call", "demo__add", `{"a":1,"b":2}`, "--header", "Authorization: Bearer "+modest); code != 0 || !strings.Contains(out, "3") {
		t.Errorf("add: exit %d %q %s", code, out, lastLines(errOut, 3))
	}
	// The client limit: greedy uses its 40 requests, then gets 429s; modest
	// (a few requests left) still passes. (A bare ping is answered 400: what
	// matters is that it reached the server.)
	limited := 0
	for i := range 45 {
		if resp := ping(greedy); resp.StatusCode == http.StatusTooManyRequests {
			limited++
			if ra := resp.Header.Get("Retry-After"); ra == "" || ra == "0" {
				t.Errorf("429 without Retry-After: %q", ra)
			}
		}
		if i%5 == 0 {
			if resp := ping(modest); resp.StatusCode == http.StatusTooManyRequests {
				t.Fatalf("modest limited at greedy's request %d", i)
			}
		}
	}
	if limited != 5 {
		t.Errorf("greedy got %d 429s of 45 requests, want 5", limited)
	}
}

// TestServeRateLimits: `mcpkit serve --http` takes the same limits: the tool
// limit refuses echo's second call, and a client over --rate-limit gets 429.
func TestServeRateLimits(t *testing.T) {
	base := serveHTTPForTest(t, "--tool-rate-limit", "echo=1/m:1", "--rate-limit", "1/m:12")
	url := base + "/mcp"
	if out, errOut, code := runURL(t, url, "call", "echo", `{"message":"1"}`); code != 0 || out != "hello 1\n" {
		t.Fatalf("first echo: exit %d %q %s", code, out, lastLines(errOut, 3))
	}
	if _, errOut, code := runURL(t, url, "call", "echo", `{"message":"2"}`); code == 0 || !strings.Contains(errOut, "rate limit exceeded: tool 'echo' allows 1/m:1 per client") {
		t.Errorf("second echo: exit %d, %s", code, lastLines(errOut, 3))
	}
	got429 := false
	for range 12 {
		req, _ := pingRequest(t.Context(), url, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusTooManyRequests && resp.Header.Get("Retry-After") != "" {
			got429 = true
			break
		}
	}
	if !got429 {
		t.Error("no 429 after the client's budget of 12 requests")
	}
}
