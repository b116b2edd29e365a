package main

import (
	"strings"
	"testing"
)

// TestGatewayAccessRules: with --access, two principals of one gateway see
// different tool lists — alice every tool of server "a", bob only b__echo —
// and each is refused the other's tools with an error naming the tool; a
// principal no rule names sees nothing.
func TestGatewayAccessRules(t *testing.T) {
	const alice, bob, carol = "access-alice-0123456789ab", "access-bob-0123456789abcd", "access-carol-0123456789ab"
	tokens := writeFile(t, "tokens", "alice:"+alice+"\nbob:"+bob+"\ncarol:"+carol+"\n")
	access := writeFile(t, "access.json", `{"rules": [
		{"principals": ["token:alice"], "servers": ["a"]},
		{"principals": ["token:bob"], "tools": ["b__echo"], "prompts": ["b__*"]}
	]}`)
	cfg := writeFile(t, "mcp.json", `{"mcpServers":{"a":{"command":"`+mcpkitBin+`","args":["serve"]},"b":{"command":"`+mcpkitBin+`","args":["serve"]}}}`)
	gw := startLogged(t, nil, "gateway", "--config", cfg, "--http", "127.0.0.1:0", "--start-timeout", "30s",
		"--auth-token-file", tokens, "--access", access)
	url := gw.base + "/mcp"
	bearer := func(tok string) []string { return []string{"--header", "Authorization: Bearer " + tok} }

	out, errOut, code := runURL(t, url, append([]string{"tools"}, bearer(alice)...)...)
	if code != 0 || !strings.Contains(out, "a__echo") || !strings.Contains(out, "a__whoami") || strings.Contains(out, "b__") {
		t.Errorf("alice's tools: exit %d\n%s\n%s", code, out, lastLines(errOut, 3))
	}
	out, errOut, code = runURL(t, url, append([]string{"tools"}, bearer(bob)...)...)
	if code != 0 || !strings.Contains(out, "b__echo") || strings.Contains(out, "a__") || strings.Contains(out, "b__whoami") {
		t.Errorf("bob's tools: exit %d\n%s\n%s", code, out, lastLines(errOut, 3))
	}
	if out, _, code := runURL(t, url, append([]string{"call", "b__echo", `{"message":"b"}`}, bearer(bob)...)...); code != 0 || out != "hello b\n" {
		t.Errorf("bob calls b__echo: exit %d %q", code, out)
	}
	for _, c := range []struct{ tok, tool string }{{bob, "a__echo"}, {bob, "b__whoami"}, {alice, "b__echo"}, {carol, "a__echo"}} {
		_, errOut, code := runURL(t, url, append([]string{"call", c.tool, `{"message":"x"}`}, bearer(c.tok)...)...)
		if code == 0 || !strings.Contains(errOut, "tool '"+c.tool+"' is not available to this client") {
			t.Errorf("call %s: exit %d, %s", c.tool, code, lastLines(errOut, 3))
		}
	}
	if out, _, code := runURL(t, url, append([]string{"tools"}, bearer(carol)...)...); code != 0 || strings.Contains(out, "__") {
		t.Errorf("carol (no rule) sees: exit %d %q", code, out)
	}
}
