package legacysse_test

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/demo"
	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/internal/wirecheck"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport"
	"github.com/mcpkit/mcpkit/transport/legacysse"
)

var quiet = slog.New(slog.DiscardHandler)

// serveDemo serves the demo server through NewHandler on 127.0.0.1 and returns the
// URL of its event stream.
func serveDemo(t testing.TB, opts *legacysse.HandlerOptions) (string, served) {
	t.Helper()
	srv, err := demo.NewServer(&demo.Options{CountInterval: time.Millisecond, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	if opts == nil {
		opts = &legacysse.HandlerOptions{}
	}
	opts.Logger = quiet
	h := served{Handler: legacysse.NewHandler(srv, opts), reqs: new(testkit.Requests)}
	ts := testkit.NewServer(t, h.reqs.Handler(h))
	t.Cleanup(func() { _ = h.Close() }) // runs first: the sessions end gracefully
	return ts.URL + "/sse", h
}

// served is a Handler under test, with the requests it is serving counted.
type served struct {
	*legacysse.Handler
	reqs *testkit.Requests
}

// waitFreed waits until every stream's GET has been served to its end — the
// handler frees a session as its stream's GET returns — and fails the test if a
// session is left.
func (s served) waitFreed(t testing.TB) {
	t.Helper()
	s.reqs.WaitIdle(t, http.MethodGet)
	if n := s.SessionCount(); n != 0 {
		t.Errorf("%d sessions left once every stream was served to its end, want 0", n)
	}
}

// recordingConn remembers what the client read, in order.
type recordingConn struct {
	transport.Conn
	mu   sync.Mutex
	read []string // "progress", "result <id>", or the method
}

func (r *recordingConn) Read(ctx context.Context) ([]byte, error) {
	data, err := r.Conn.Read(ctx)
	if err == nil {
		if m, derr := jsonrpc.Decode(data); derr == nil {
			kind := m.Method
			if m.IsResponse() {
				kind = "result " + m.ID.String()
			}
			if kind == protocol.NotificationProgress {
				kind = "progress"
			}
			r.mu.Lock()
			r.read = append(r.read, kind)
			r.mu.Unlock()
		}
	}
	return data, err
}

func (r *recordingConn) kinds() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.read...)
}

func connectClient(t testing.TB, url string) (*mcp.ClientSession, *recordingConn) {
	t.Helper()
	ctx := testkit.Context(t)
	conn, err := legacysse.NewClientConn(ctx, url, &legacysse.ClientOptions{Logger: quiet})
	if err != nil {
		t.Fatalf("NewClientConn: %v", err)
	}
	// Closed even when the test fails before the session owns it (wirecheck.Wrap and
	// Connect below can end the test): an open stream must not outlive the test.
	t.Cleanup(func() { _ = conn.Close() })
	rec := &recordingConn{Conn: conn}
	var wrapped transport.Conn = rec
	if tt, ok := t.(*testing.T); ok {
		wrapped = wirecheck.Wrap(tt, rec, wirecheck.Client)
	}
	cs, err := mcp.NewClient(protocol.Implementation{Name: "legacysse-test", Version: "1"},
		&mcp.ClientOptions{ProtocolVersion: protocol.Version20241105, Logger: quiet}).Connect(ctx, wrapped)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs, rec
}

func callTool(t *testing.T, cs *mcp.ClientSession, name string, args any, opts ...mcp.RequestOption) *protocol.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(testkit.Context(t), name, args, opts...)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

func TestMCPClientAgainstDemoServer(t *testing.T) {
	url, h := serveDemo(t, nil)
	cs, rec := connectClient(t, url)
	if v := cs.ProtocolVersion(); v != protocol.Version20241105 {
		t.Errorf("negotiated %q, want 2024-11-05", v)
	}
	if name := cs.InitializeResult().ServerInfo.Name; name != "mcpkit-demo" {
		t.Errorf("server name %q", name)
	}
	if n := h.SessionCount(); n != 1 {
		t.Errorf("SessionCount = %d, want 1", n)
	}

	tools, err := cs.ListTools(testkit.Context(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, tool := range tools.Tools {
		names[tool.Name] = true
	}
	for _, want := range []string{"echo", "count", "test_throw", "echo_ip"} {
		if !names[want] {
			t.Errorf("tools/list lacks %s: %v", want, names)
		}
	}

	if res := callTool(t, cs, "echo", map[string]any{"message": "hi"}); res.IsError || res.Content[0].Text != "hello hi" {
		t.Errorf("echo = %+v", res)
	}

	var mu sync.Mutex
	var progress []float64
	res := callTool(t, cs, "count", map[string]any{"n": 3}, mcp.WithProgress(func(p *protocol.ProgressParams) {
		mu.Lock()
		progress = append(progress, p.Progress)
		mu.Unlock()
	}))
	if res.IsError || res.Content[0].Text != "3" {
		t.Errorf("count = %+v", res)
	}
	mu.Lock()
	if len(progress) != 3 || progress[0] != 0 || progress[2] != 2 {
		t.Errorf("progress = %v, want [0 1 2]", progress)
	}
	mu.Unlock()
	// On the wire, the three progress notifications precede the count result.
	kinds := rec.kinds()
	last := kinds[len(kinds)-1]
	if len(kinds) < 4 || !strings.HasPrefix(last, "result ") {
		t.Fatalf("read %v", kinds)
	}
	for _, k := range kinds[len(kinds)-4 : len(kinds)-1] {
		if k != "progress" {
			t.Errorf("before the count result the client read %v, want three progress notifications", kinds)
		}
	}

	if res := callTool(t, cs, "test_throw", nil); !res.IsError || !strings.Contains(res.Content[0].Text, "test_throw always fails") {
		t.Errorf("test_throw = %+v, want isError", res)
	}
	// The session's Conn is a PeerConn: the tool sees the client's address.
	if res := callTool(t, cs, "echo_ip", nil); !strings.HasPrefix(res.Content[0].Text, "127.0.0.1:") {
		t.Errorf("echo_ip = %q, want the client's 127.0.0.1 address", res.Content[0].Text)
	}
}

func TestManyClientsAtOnce(t *testing.T) {
	url, h := serveDemo(t, nil)
	const clients = 8
	var wg sync.WaitGroup
	sessions := make([]*mcp.ClientSession, clients)
	for i := range clients {
		wg.Go(func() {
			cs, _ := connectClient(t, url)
			sessions[i] = cs
			for range 5 {
				res, err := cs.CallTool(testkit.Context(t), "echo", map[string]any{"message": "x"})
				if err != nil || res.Content[0].Text != "hello x" {
					t.Errorf("client %d: %+v %v", i, res, err)
				}
			}
		})
	}
	wg.Wait()
	if n := h.SessionCount(); n != clients {
		t.Errorf("SessionCount = %d, want %d", n, clients)
	}
	for _, cs := range sessions {
		if cs != nil {
			_ = cs.Close()
		}
	}
	h.waitFreed(t)
}

func TestMountedUnderSubPath(t *testing.T) {
	srv, err := demo.NewServer(&demo.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	h := legacysse.NewHandler(srv, &legacysse.HandlerOptions{PathPrefix: "/api/mcp/", Logger: quiet})
	mux := http.NewServeMux()
	mux.Handle("/api/mcp/", http.StripPrefix("/api/mcp", h))
	ts := testkit.NewServer(t, mux)
	t.Cleanup(func() { _ = h.Close() })

	ev, _ := openRawStream(t, ts.URL+"/api/mcp/sse", nil)
	if !strings.HasPrefix(string(ev.Data), "/api/mcp/messages?sessionId=") {
		t.Errorf("endpoint %q, want /api/mcp/messages?sessionId=...", ev.Data)
	}
	cs, _ := connectClient(t, ts.URL+"/api/mcp/sse")
	if res := callTool(t, cs, "echo", map[string]any{"message": "hi"}); res.Content[0].Text != "hello hi" {
		t.Errorf("echo = %+v", res)
	}
}

// HTTP+SSE is a transport of the legacy era: a server/discover sent on it is
// answered -32601 (method not found), as a 2024-11-05 server answers it, so a
// dual-era client that probes first (go-sdk, mcp-go, mcpkit's own) ends up
// in a legacy session, not the stateless protocol over the deprecated
// transport.
func TestStatelessEraRefusedOnSSE(t *testing.T) {
	url, _ := serveDemo(t, nil)
	ctx := testkit.Context(t)
	conn, err := legacysse.NewClientConn(ctx, url, &legacysse.ClientOptions{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	discover := `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}`
	if err := conn.Write(ctx, []byte(discover)); err != nil {
		t.Fatal(err)
	}
	msg, err := conn.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	m, err := jsonrpc.Decode(msg)
	if err != nil || m.Error == nil || m.Error.Code != jsonrpc.CodeMethodNotFound {
		t.Fatalf("server/discover over HTTP+SSE: %s, want -32601", msg)
	}

	conn2, err := legacysse.NewClientConn(ctx, url, &legacysse.ClientOptions{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn2.Close() })
	cs, err := mcp.NewClient(protocol.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{Logger: quiet}).Connect(ctx, conn2)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	if cs.IsStateless() || !protocol.IsLegacy(cs.ProtocolVersion()) {
		t.Fatalf("a client detecting the era over HTTP+SSE got %s (stateless %v), want a legacy session", cs.ProtocolVersion(), cs.IsStateless())
	}
}
