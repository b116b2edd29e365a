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
	"time"

	"github.com/mcpkit/mcpkit/internal/sse"
	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/store/redistest"
	"github.com/mcpkit/mcpkit/transport/legacysse"
	"github.com/mcpkit/mcpkit/transport/streamable"
)

// TestReplicasBehindRoundRobinOnRedis runs three `mcpkit serve --http --redis`
// replicas behind a real nginx that balances round robin, with no stickiness,
// and a real redis-server: one legacy session (mcpkit's client) keeps working
// across many calls spread over all three replicas, the official TypeScript
// SDK client runs its demo steps in a session of its own and ends it (a POST
// naming it afterwards gets 404 through the balancer), and the first
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
	rs, procs, url, accessLog := startReplicas(ctx, t, nginx)

	conn, err := streamable.NewClientConn(ctx, url+"/mcp", &streamable.ClientOptions{
		Logger: slog.New(slog.DiscardHandler),
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
	// The client ended its session (DELETE, on one replica); its next POST,
	// on the next replica round robin, gets 404 — or, if that replica checked
	// the session in Redis less than SessionCheckInterval ago and the
	// invalidation has not reached it yet, soon after: every replica must
	// answer 404 within the interval (2 s) and a margin.
	if status, body, ok := terminatedStatus(t, r, true); ok && status != 404 {
		t.Logf("the POST right after DELETE got %d %s; waiting for every replica to forget the session", status, body)
		waitSessionGoneEverywhere(t, url+"/mcp", many.SessionID, 3)
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
		Logger: slog.New(slog.DiscardHandler),
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

// startReplicas starts redis-server, three `mcpkit serve --http --redis`
// replicas (sharing MCPKIT_STATE_KEYS, named r0, r1, r2 on the relay) and
// nginx balancing round robin over them; it returns Redis, the replicas (in
// name order), the balancer's URL and its access log.
func startReplicas(ctx context.Context, t *testing.T, nginx string) (*redistest.Server, []*serverProcess, string, string) {
	t.Helper()
	bin := buildMcpkit(t)
	rs := redistest.Start(t)
	keys := "k1:" + base64.StdEncoding.EncodeToString([]byte("0123456789abcdef0123456789abcdef"))
	var addrs []string
	var procs []*serverProcess
	for i := range 3 {
		cmd := exec.CommandContext(ctx, bin, "serve", "--conformance", "--http", "127.0.0.1:0", "--redis", rs.URL(), "--allow-host", "*", "--max-sessions-per-client", "-1")
		cmd.Env = append(os.Environ(), "MCPKIT_STATE_KEYS="+keys, fmt.Sprintf("MCPKIT_REPLICA_ID=r%d", i), "GORACE=halt_on_error=1 atexit_sleep_ms=0")
		m, p := startAnnouncedServer(ctx, t, cmd, newEventLog(), serveAnnouncement)
		addrs = append(addrs, m[1])
		procs = append(procs, p)
	}
	url, accessLog := testkit.StartBalancer(t, nginx, deployExample, addrs)
	return rs, procs, url, accessLog
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

// TestReplicaStreamsBehindRoundRobinOnRedis covers what crosses replicas
// besides the session (store/DESIGN.md §5.2, §5.3), through nginx round robin
// over three `mcpkit serve --redis` replicas: the TypeScript SDK client, its
// GET stream on, hears every tools/list_changed once, caused by calls that
// land on any replica, and completes calls that report progress and elicit
// (the answer lands on another replica than the handler); mcpkit's HTTP+SSE
// client makes many calls; kill -9 of the replica holding a session's GET
// stream: the GET resumes with Last-Event-ID on another replica (same stream,
// increasing ids, later changes arrive), calls running on the other replicas
// finish with every progress value once, and the call whose handler died ends
// with -32603 after the progress it had stored.
func TestReplicaStreamsBehindRoundRobinOnRedis(t *testing.T) {
	if testing.Short() {
		t.Skip("starts redis-server, nginx and three servers; skipped in -short mode")
	}
	nginx, err := exec.LookPath("nginx")
	if err != nil {
		t.Fatal("interop: nginx is not installed: install it (Debian: apt-get install nginx); scripts/test.sh does it")
	}
	node := requirePeers(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*testTimeout)
	defer cancel()
	_, procs, url, _ := startReplicas(ctx, t, nginx)

	out, stderr, err := runNode(t, nil, node, "scale_ts_client.mjs", url+"/mcp")
	var ts struct {
		Triggers, ListChanged int
		Calls                 []struct {
			Text     string
			Progress []float64
		}
		Error string
	}
	if jerr := json.Unmarshal(out, &ts); jerr != nil || err != nil || ts.Error != "" {
		t.Fatalf("scale_ts_client.mjs: %v %v %s\n%s", err, jerr, out, stderr)
	}
	if ts.Triggers != 6 || ts.ListChanged != ts.Triggers {
		t.Errorf("TypeScript client: %d tools/list_changed for %d changes; want one each", ts.ListChanged, ts.Triggers)
	}
	if len(ts.Calls) != 6 {
		t.Errorf("TypeScript client: %d elicitation calls, want 6", len(ts.Calls))
	}
	for i, c := range ts.Calls {
		if c.Text != "Hello, scale!" || fmt.Sprint(c.Progress) != "[0 1]" {
			t.Errorf("TypeScript client, elicitation call %d: %q, progress %v", i, c.Text, c.Progress)
		}
	}

	// HTTP+SSE: the stream on one replica, the POSTs on all three.
	sseConn, err := legacysse.NewClientConn(ctx, url+"/sse", &legacysse.ClientOptions{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	sseClient, err := mcp.NewClient(protocol.Implementation{Name: "replicas-sse", Version: "1"}, nil).Connect(ctx, sseConn)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 30 {
		msg := fmt.Sprint("sse-", i)
		res, err := sseClient.CallTool(ctx, "echo", map[string]any{"message": msg})
		if err != nil || res.IsError || textOf(res.Content) != "hello "+msg {
			t.Fatalf("HTTP+SSE call %d: %v %+v", i, err, res)
		}
	}
	sseClient.Close()

	killGetHolder(ctx, t, url, procs)
}

// killGetHolder opens a session's GET stream and three count calls through the
// balancer, kill -9s the replica holding the GET stream, and checks what
// the client gets afterwards (see TestReplicaStreamsBehindRoundRobinOnRedis).
func killGetHolder(ctx context.Context, t *testing.T, url string, procs []*serverProcess) {
	resp, body := rawPost(t, ctx, url, "", nil, strings.Replace(initRequest, "2025-06-18", "2025-11-25", 1))
	sid := resp.Header.Get(streamable.HeaderSessionID)
	if resp.StatusCode != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %d %s", resp.StatusCode, body)
	}
	rawPost(t, ctx, url, sid, nil, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	get := sseRequest(ctx, t, http.MethodGet, url, sid, "", "")
	getID, _ := nextSSE(t, get) // the priming event
	holder, _, _ := strings.Cut(getID, "-")
	// Three calls: round robin puts one on each replica.
	type call struct {
		d        *sse.Decoder
		replica  string
		last     string
		progress []float64
	}
	var calls []*call
	onHolder := -1
	for i := range 3 {
		d := sseRequest(ctx, t, http.MethodPost, url, sid, "", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"count","arguments":{"n":40},"_meta":{"progressToken":%d}}}`, 100+i, i))
		id, _ := nextSSE(t, d)
		c := &call{d: d, last: id}
		c.replica, _, _ = strings.Cut(id, "-")
		if c.replica == holder {
			onHolder = i
		}
		calls = append(calls, c)
	}
	if onHolder < 0 {
		t.Fatalf("no call landed on the GET stream's replica %s", holder)
	}
	readProgress := func(c *call, n int) *jsonrpc.Message {
		for {
			id, m := nextSSE(t, c.d)
			if id == "" && m == nil {
				return nil // the end of the stream
			}
			if m == nil {
				continue // a priming event
			}
			c.last = id
			if m.IsResponse() {
				return m
			}
			var p protocol.ProgressParams
			if err := json.Unmarshal(m.Params, &p); err != nil {
				t.Fatalf("%+v", m)
			}
			c.progress = append(c.progress, p.Progress)
			if len(c.progress) == n {
				return nil
			}
		}
	}
	readProgress(calls[onHolder], 3)
	idx := int(holder[1] - '0')
	testkit.KillGroup(procs[idx].cmd.Process.Pid)
	<-procs[idx].done

	// The GET stream resumes elsewhere, the same stream, later ids.
	get = sseRequest(ctx, t, http.MethodGet, url, sid, getID, "")
	rawPost(t, ctx, url, sid, nil, `{"jsonrpc":"2.0","id":200,"method":"tools/call","params":{"name":"test_trigger_tool_change","arguments":{}}}`)
	id, m := nextSSE(t, get)
	if m == nil || m.Method != protocol.NotificationToolsListChanged || !laterEvent(id, getID) {
		t.Fatalf("the GET stream resumed after kill -9: %s %+v (after %s)", id, m, getID)
	}
	// The calls elsewhere finish, every progress value once.
	for i, c := range calls {
		if i == onHolder {
			continue
		}
		res := readProgress(c, -1)
		if res == nil || res.Error != nil || !consecutive(c.progress, 40) {
			t.Errorf("call %d on %s: result %+v, progress %v", i, c.replica, res, c.progress)
		}
	}
	// The call whose handler died: what it stored, then -32603.
	c := calls[onHolder]
	c.d = sseRequest(ctx, t, http.MethodGet, url, sid, c.last, "")
	res := readProgress(c, -1)
	if res == nil || res.Error == nil || res.Error.Code != jsonrpc.CodeInternalError || !consecutive(c.progress, len(c.progress)) {
		t.Fatalf("the call on the killed replica: %+v, progress %v", res, c.progress)
	}
	t.Logf("killed %s (GET stream %s); its call ended with %q after progress %v", holder, getID, res.Error.Message, c.progress)
}

// laterEvent reports whether event id b comes before a in one stream (same
// stream id, a greater Redis entry id).
func laterEvent(a, b string) bool {
	sa, ea, _ := strings.Cut(a, "_")
	sb, eb, _ := strings.Cut(b, "_")
	var a1, a2, b1, b2 uint64
	if sa != sb {
		return false
	}
	if _, err := fmt.Sscanf(ea, "%d-%d", &a1, &a2); err != nil {
		return false
	}
	if _, err := fmt.Sscanf(eb, "%d-%d", &b1, &b2); err != nil {
		return false
	}
	return a1 > b1 || a1 == b1 && a2 > b2
}

// consecutive reports whether p is 0, 1, …, n-1.
func consecutive(p []float64, n int) bool {
	if len(p) != n {
		return false
	}
	for i, v := range p {
		if v != float64(i) {
			return false
		}
	}
	return true
}

// sseRequest sends a GET (resuming after last, if set) or a POST of body to
// the balancer's /mcp in session sid and returns the decoder of its event
// stream; the response is closed when the test ends.
func sseRequest(ctx context.Context, t *testing.T, method, url, sid, last, body string) *sse.Decoder {
	t.Helper()
	hdr := map[string]string{streamable.HeaderSessionID: sid}
	if last != "" {
		hdr[streamable.HeaderLastEventID] = last
	}
	resp := testkit.OpenMCP(t, ctx, method, url+"/mcp", hdr, body)
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("%s %s: %d %s", method, body, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	return sse.NewDecoder(resp.Body)
}

// nextSSE returns the next event's id and message (nil for a priming event);
// id "" and nil at the end of the stream.
func nextSSE(t *testing.T, d *sse.Decoder) (string, *jsonrpc.Message) {
	t.Helper()
	ev, err := d.Next()
	if err != nil {
		return "", nil
	}
	if len(ev.Data) == 0 {
		return ev.ID, nil
	}
	m, err := jsonrpc.Decode(ev.Data)
	if err != nil {
		t.Fatalf("event %q: %v", ev.Data, err)
	}
	return ev.ID, m
}

// waitSessionGoneEverywhere POSTs a ping naming session sid through the
// balancer at url until replicas consecutive answers (one per replica, round
// robin) are 404, for at most 10 s.
func waitSessionGoneEverywhere(t *testing.T, url, sid string, replicas int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	hdr := map[string]string{"Mcp-Session-Id": sid}
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for gone := 0; gone < replicas; {
		resp, _ := testkit.PostMCP(t, ctx, url, hdr, `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
		if resp.StatusCode != http.StatusNotFound {
			gone = 0
		} else {
			gone++
			continue
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the session DELETE ended is still served (%d) 10 s later", resp.StatusCode)
		case <-tick.C:
		}
	}
}
