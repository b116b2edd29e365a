package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestMaxMessageBytes: --max-message-bytes bounds what a client command and the
// gateway accept from a server, on stdio and over HTTP, and a result over the
// bound fails saying it is too large (the gateway's client gets that error,
// not silence); without the flag the same result passes.
func TestMaxMessageBytes(t *testing.T) {
	args, _ := json.Marshal(map[string]string{"message": strings.Repeat("x", 40_000)})
	if out, errOut, code := run(t, "call", "echo", string(args)); code != 0 || !strings.Contains(out, "xxxx") {
		t.Fatalf("a 40 kB result with the default bound: exit %d, %s", code, lastLines(errOut, 3))
	}
	if _, errOut, code := run(t, "call", "echo", string(args), "--max-message-bytes", "30000"); code == 0 || !strings.Contains(errOut, "exceeds the limit of 30000 bytes") {
		t.Errorf("a 40 kB result over --max-message-bytes 30000 (stdio): exit %d, %s", code, lastLines(errOut, 3))
	}
	httpBase := startHTTPForTest(t, "serve", "--http", "127.0.0.1:0")
	if _, errOut, code := runURL(t, httpBase+"/mcp", "call", "echo", string(args), "--max-message-bytes", "30000"); code == 0 || !strings.Contains(errOut, "30000") || !strings.Contains(errOut, "limit") {
		t.Errorf("a 40 kB result over --max-message-bytes 30000 (HTTP): exit %d, %s", code, lastLines(errOut, 3))
	}

	dir := t.TempDir()
	stdioCfg := filepath.Join(dir, "stdio.json")
	writeGatewayConfig(t, stdioCfg, map[string]string{"demo": "serve"})
	httpCfg := writeFile(t, "http.json", `{"mcpServers":{"demo":{"url":"`+httpBase+`/mcp"}}}`)
	for _, cfg := range []string{stdioCfg, httpCfg} {
		_, errOut, code := runCLI(t, nil, "call", "demo__echo", string(args), "--", mcpkitBin, "gateway", "--config", cfg, "--max-message-bytes", "30000")
		if code == 0 || !strings.Contains(errOut, `server "demo"`) || !strings.Contains(errOut, "30000") {
			t.Errorf("gateway (%s) with a 40 kB upstream result over its bound: exit %d, %s", filepath.Base(cfg), code, lastLines(errOut, 3))
		}
	}
}

// TestGatewayListFailureDegraded: a server whose tools/list answer the gateway
// cannot take (over --max-message-bytes, as a 17 MB list is over the default)
// is shown "degraded" in /status with the reason, not "ready" with no tools;
// the list is fetched again (the next attempt moves on) and a --require'd
// degraded server makes the gateway not ready.
func TestGatewayListFailureDegraded(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "mcp.json")
	// The demo's initialize result fits in 6000 bytes; its tools/list with the
	// conformance fixtures (about 20 kB) does not.
	writeGatewayConfig(t, cfg, map[string]string{"demo": "serve --conformance"})
	g := startReloadGateway(t, cfg, "--max-message-bytes", "6000", "--require", "demo", "--start-timeout", "30s")
	base := g.base
	type status struct {
		Ready    bool
		NotReady string
		Servers  []struct {
			Name, State, LastError string
			Tools                  int
			NextAttempt            *time.Time
		}
	}
	read := func() status {
		t.Helper()
		code, body := fetch(t, base+"/status", "")
		var st status
		if err := json.Unmarshal([]byte(body), &st); code != 200 || err != nil || len(st.Servers) != 1 {
			t.Fatalf("GET /status: %d %v\n%s", code, err, body)
		}
		return st
	}
	first := read()
	s := first.Servers[0]
	if s.State != "degraded" || !strings.Contains(s.LastError, "tools/list") || !strings.Contains(s.LastError, "exceeds the limit of 6000 bytes") || s.NextAttempt == nil {
		t.Fatalf("status of a server whose tools/list failed: %+v", first)
	}
	if first.Ready || !strings.Contains(first.NotReady, `required server "demo" is degraded`) {
		t.Errorf("a required degraded server: ready %v, %q", first.Ready, first.NotReady)
	}
	// The list is fetched again: a later attempt is scheduled after the
	// first. The gateway logs each failed attempt once it is recorded; the
	// status is read at each such line (the ones before the first read
	// included) until it shows a later one.
	for {
		g.waitLine(t, "gateway: fetching a server's lists failed", "server=demo")
		st := read()
		if n := st.Servers[0].NextAttempt; n != nil && n.After(*s.NextAttempt) && st.Servers[0].State == "degraded" {
			break
		}
	}
}

// TestConfigByteOrderMark: a configuration saved with a UTF-8 byte order mark
// is read by the gateway (the one configuration reader: host and tap install
// read through it too).
func TestConfigByteOrderMark(t *testing.T) {
	data, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"demo": map[string]any{"command": mcpkitBin, "args": []string{"serve"}}}})
	cfg := writeFile(t, "bom.json", "\xef\xbb\xbf"+string(data))
	out, errOut, code := runCLI(t, nil, "gateway", "--config", cfg, "--list")
	if code != 0 || !strings.Contains(out, "demo__echo") {
		t.Fatalf("gateway --list of a file with a BOM: exit %d\n%s%s", code, out, lastLines(errOut, 3))
	}
}
