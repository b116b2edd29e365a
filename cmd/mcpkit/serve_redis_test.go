package main

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/store/redistest"
)

func TestServeRedisURL(t *testing.T) {
	f := &serveFlags{}
	t.Setenv(redisEnv, "")
	if got := f.redisURL(); got != "" {
		t.Errorf("nothing set: %q", got)
	}
	t.Setenv(redisEnv, "redis://env:6379/1")
	if got := f.redisURL(); got != "redis://env:6379/1" {
		t.Errorf("from %s: %q", redisEnv, got)
	}
	f.redis = "redis://flag:6379/2"
	if got := f.redisURL(); got != "redis://flag:6379/2" {
		t.Errorf("the flag over the environment: %q", got)
	}
}

// TestServeRedisRefusals: --redis needs --http, and a Redis that does not
// answer stops the replica at start rather than serving with no shared state.
func TestServeRedisRefusals(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close() // nothing listens there now
	for _, tc := range []struct {
		name string
		args []string
		env  string
		want string
	}{
		{"without --http", []string{"serve", "--redis", "redis://" + closed + "/0"}, "", "needs --http"},
		{"from the environment, without --http", []string{"serve"}, "redis://" + closed + "/0", "needs --http"},
		{"--single-use-state without --redis", []string{"serve", "--http", "127.0.0.1:0", "--single-use-state"}, "", "needs --redis"},
		{"Redis not answering", []string{"serve", "--http", "127.0.0.1:0", "--redis", "redis://" + closed + "/0"}, "", "--redis"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		cmd := exec.CommandContext(ctx, mcpkitBin, tc.args...)
		cmd.Env = append(os.Environ(), redisEnv+"="+tc.env)
		out, err := cmd.CombinedOutput()
		cancel()
		if err == nil || !strings.Contains(string(out), tc.want) {
			t.Errorf("%s: %v, %s; want a failure naming %q", tc.name, err, out, tc.want)
		}
	}
}

// TestServeRedisReadinessAndSingleUse: `serve --redis --single-use-state`
// stays ready while Redis is stopped (every replica shares it: taking them
// all out of rotation would fail the stateless requests too, and hide
// mcpkit's 503 with Retry-After behind the balancer's), says so in
// /readyz?verbose, and refuses a replayed requestState.
func TestServeRedisReadinessAndSingleUse(t *testing.T) {
	srv := redistest.Start(t)
	base := serveHTTPForTest(t, "--redis", srv.URL(), "--single-use-state")
	probe := func(path string) (int, string) {
		t.Helper()
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, base+path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if got, body := probe("/readyz?verbose"); got != http.StatusOK || !strings.Contains(body, "[+]redis ok") {
		t.Fatalf("/readyz?verbose with Redis up: %d %q", got, body)
	}
	hdr := map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "ask_name"}
	call := func(id int, extra string) string {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"ask_name","arguments":{},`+
			`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}},`+
			`"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}%s}}`, id, extra)
		_, out := testkit.PostMCP(t, t.Context(), base+"/mcp", hdr, body)
		return out
	}
	first := call(1, "")
	i := strings.Index(first, `"requestState":"`)
	if i < 0 {
		t.Fatalf("round 1: %s", first)
	}
	state := first[i+len(`"requestState":"`):]
	state = state[:strings.IndexByte(state, '"')]
	retry := `,"inputResponses":{"elicitation-1":{"action":"accept","content":{"name":"Ada"}}},"requestState":"` + state + `"`
	if out := call(2, retry); !strings.Contains(out, "Ada") {
		t.Fatalf("first use of the state: %s", out)
	}
	if out := call(3, retry); !strings.Contains(out, "requestState already used") {
		t.Fatalf("replayed state: %s, want -32602 requestState already used", out)
	}
	srv.Stop()
	if got, body := probe("/readyz"); got != http.StatusOK {
		t.Errorf("/readyz with Redis stopped: %d %q, want 200", got, body)
	}
	if got, body := probe("/readyz?verbose"); got != http.StatusOK || !strings.Contains(body, "[-]redis failed") {
		t.Errorf("/readyz?verbose with Redis stopped: %d %q, want 200 naming redis", got, body)
	}
	if got, _ := probe("/healthz"); got != http.StatusOK {
		t.Errorf("/healthz with Redis stopped: %d, want 200", got)
	}
	resp, body := testkit.PostMCP(t, t.Context(), base+"/mcp", nil, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Errorf("initialize with Redis stopped: %d (Retry-After %q) %s; want 503 with Retry-After", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	if out := call(4, ""); !strings.Contains(out, "requestState") {
		t.Errorf("a stateless call with Redis stopped: %s", out)
	}
	srv.Restart()
	if got, body := probe("/readyz?verbose"); got != http.StatusOK || !strings.Contains(body, "[+]redis ok") {
		t.Errorf("/readyz?verbose after Redis restarted: %d %q", got, body)
	}
}

// TestServeRedisWarnsWithoutStateKeys: `serve --redis` without
// MCPKIT_STATE_KEYS says on stderr that the replicas will not open each
// other's requestState; with the keys set it says nothing of the kind.
func TestServeRedisWarnsWithoutStateKeys(t *testing.T) {
	srv := redistest.Start(t)
	_, before := startHTTPForTestEnv(t, []string{stateKeysEnv + "="}, "serve", "--http", "127.0.0.1:0", "--redis", srv.URL())
	if got := strings.Join(before, "\n"); !strings.Contains(got, "warning") || !strings.Contains(got, stateKeysEnv) || !strings.Contains(got, "requestState") {
		t.Errorf("stderr before the announcement: %q; want a warning naming %s and requestState", got, stateKeysEnv)
	}
	keys := stateKeysEnv + "=k1:" + base64.StdEncoding.EncodeToString(make([]byte, 32))
	if _, before := startHTTPForTestEnv(t, []string{keys}, "serve", "--http", "127.0.0.1:0", "--redis", srv.URL()); len(before) > 0 {
		t.Errorf("stderr with the keys set: %q; want nothing before the announcement", before)
	}
}
