package interop

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/store/redistest"
	"github.com/mcpkit/mcpkit/transport/streamable"
)

// TestReplicasBehindRoundRobinOnRedis runs three `mcpkit serve --http --redis`
// replicas behind a real nginx that balances round robin, with no stickiness,
// and a real redis-server: one legacy session (mcpkit's client) keeps working
// across many calls spread over all three replicas, the official TypeScript
// SDK client runs its demo steps in a session of its own, and the first
// session carries on after one replica is killed with
// SIGKILL; with Redis stopped, session requests get 503 with Retry-After
// (never 404) while 2026-07-28 requests keep being served; with Redis back,
// new sessions work.
func TestReplicasBehindRoundRobinOnRedis(t *testing.T) {
	if testing.Short() {
		t.Skip("starts redis-server, nginx and three servers; skipped in -short mode")
	}
	nginx, err := exec.LookPath("nginx")
	if err != nil {
		t.Fatal("interop: nginx is not installed: install it (Debian: apt-get install nginx); scripts/test.sh does it")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*testTimeout)
	defer cancel()
	bin := buildMcpkit(t)
	rs := redistest.Start(t)
	keys := "k1:" + base64.StdEncoding.EncodeToString([]byte("0123456789abcdef0123456789abcdef"))

	var addrs []string
	var procs []*serverProcess
	for range 3 {
		cmd := exec.CommandContext(ctx, bin, "serve", "--http", "127.0.0.1:0", "--redis", rs.URL(), "--allow-host", "*", "--max-sessions-per-client", "-1")
		cmd.Env = append(os.Environ(), "MCPKIT_STATE_KEYS="+keys, "GORACE=halt_on_error=1 atexit_sleep_ms=0")
		m, p := startAnnouncedServer(ctx, t, cmd, newEventLog(), serveAnnouncement)
		addrs = append(addrs, m[1])
		procs = append(procs, p)
	}
	url, accessLog := testkit.StartBalancer(t, nginx, deployExample, addrs)

	conn, err := streamable.NewClientConn(ctx, url+"/mcp", &streamable.ClientOptions{
		Logger: slog.New(slog.DiscardHandler), DisableStandaloneStream: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(protocol.Implementation{Name: "replicas-test", Version: "1"}, nil).Connect(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	calls := func(what string, n int) {
		t.Helper()
		for i := range n {
			msg := fmt.Sprintf("%s-%d", what, i)
			res, err := cs.CallTool(ctx, "echo", map[string]any{"message": msg})
			if err != nil || res.IsError || textOf(res.Content) != "hello "+msg {
				t.Fatalf("%s, call %d: %v %+v", what, i, err, res)
			}
		}
	}
	calls("three replicas", 30)
	if got := testkit.Upstreams(t, accessLog, ""); len(got) != 3 {
		t.Fatalf("nginx sent the session's requests to %v; want all three replicas", got)
	}
	// The official TypeScript SDK client, in a legacy session of its own
	// through the balancer (echo, count with progress, a failing tool, an
	// unknown tool).
	// Then 50 echo calls in that one session: nginx's access log must show
	// them spread over all three replicas.
	t.Setenv("MCP_INTEROP_ECHO_CALLS", "50")
	r := runHTTPTSClient(t, requirePeers(t), "streamable", url+"/mcp", "")
	checkDemoSteps(t, r, "")
	var many struct {
		Calls, OK int
		SessionID string
	}
	if st, ok := r.Steps["echoMany"]; !ok || json.Unmarshal(st.Value, &many) != nil || many.Calls != 50 || many.OK != 50 || many.SessionID == "" {
		t.Fatalf("the TypeScript client's 50 calls in one session: %+v (step %+v)", many, r.Steps["echoMany"])
	}
	if got := testkit.Upstreams(t, accessLog, many.SessionID); len(got) != 3 {
		t.Errorf("nginx sent the TypeScript client's session to %v; want all three replicas", got)
	} else {
		t.Logf("the TypeScript client's session (50 calls) went to the replicas %v", got)
	}

	// kill -9 one replica mid-session: the client carries on through the others.
	testkit.KillGroup(procs[0].cmd.Process.Pid)
	<-procs[0].done
	calls("after kill -9", 30)

	// A session created now is known to one replica only.
	resp, _ := rawPost(t, ctx, url, "", nil, initRequest)
	sid := resp.Header.Get(streamable.HeaderSessionID)
	if resp.StatusCode != http.StatusOK || sid == "" {
		t.Fatalf("initialize through nginx: %d", resp.StatusCode)
	}

	rs.Stop()
	resp, body := rawPost(t, ctx, url, "", nil, initRequest)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Errorf("initialize with Redis stopped: %d %q %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	unavailable := 0
	for i := range 4 {
		resp, body := rawPost(t, ctx, url, sid, nil, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, 10+i))
		switch {
		case resp.StatusCode == http.StatusServiceUnavailable && resp.Header.Get("Retry-After") != "":
			unavailable++
		case resp.StatusCode != http.StatusOK:
			t.Errorf("session request %d with Redis stopped: %d %s; want 503 with Retry-After (or 200 from the replica that knows it)", i, resp.StatusCode, body)
		}
	}
	if unavailable == 0 {
		t.Error("no session request got 503 with Redis stopped")
	}
	for i := range 4 {
		resp, body := rawPost(t, ctx, url, "", map[string]string{
			"MCP-Protocol-Version": "2026-07-28", protocol.HeaderMethod: "tools/call", protocol.HeaderName: "echo",
		}, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"message":"stateless"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`, i))
		if resp.StatusCode != http.StatusOK || !strings.Contains(body, "hello stateless") {
			t.Errorf("stateless request %d with Redis stopped: %d %s", i, resp.StatusCode, body)
		}
	}

	// Redis back (empty: redistest keeps no data): new sessions work everywhere.
	rs.Restart()
	conn2, err := streamable.NewClientConn(ctx, url+"/mcp", &streamable.ClientOptions{
		Logger: slog.New(slog.DiscardHandler), DisableStandaloneStream: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	cs2, err := mcp.NewClient(protocol.Implementation{Name: "replicas-test-2", Version: "1"}, nil).Connect(ctx, conn2)
	if err != nil {
		t.Fatalf("a new session after Redis came back: %v", err)
	}
	defer cs2.Close()
	for i := range 6 {
		res, err := cs2.CallTool(ctx, "echo", map[string]any{"message": "back"})
		if err != nil || textOf(res.Content) != "hello back" {
			t.Fatalf("call %d in a new session after Redis came back: %v %+v", i, err, res)
		}
	}
}

const initRequest = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// rawPost sends one POST to the balancer's /mcp, in session sid ("" for
// none), and returns the response and its body.
func rawPost(t *testing.T, ctx context.Context, url, sid string, hdr map[string]string, body string) (*http.Response, string) {
	t.Helper()
	h := map[string]string{}
	for k, v := range hdr {
		h[k] = v
	}
	if sid != "" {
		h[streamable.HeaderSessionID] = sid
	}
	return testkit.PostMCP(t, ctx, url+"/mcp", h, body)
}

// deployExample is the nginx example the repository ships for replicas; the
// balancer of the replica tests runs it as is, with the test's addresses put in.
const deployExample = "../deploy/nginx/mcpkit-replicas.conf"
