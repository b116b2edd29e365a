package interop

import (
	"context"
	"errors"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport"
	"github.com/mcpkit/mcpkit/transport/legacysse"
	"github.com/mcpkit/mcpkit/transport/streamable"
)

// streamableVersions are the protocol versions that have the Streamable HTTP
// transport, newest first.
var streamableVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26"}

// uuidPattern matches the session ids server-everything issues (randomUUID).
var uuidPattern = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// TestMcpkitClientAgainstServerEverythingHTTP drives the reference server
// @modelcontextprotocol/server-everything over HTTP with mcpkit's clients, on
// 127.0.0.1 (http_loopback.mjs binds it there and tells its port):
//
//   - `streamableHttp` mode, with streamable.NewClientConn, once for each protocol
//     version that has the Streamable HTTP transport;
//   - `sse` mode (the 2024-11-05 HTTP+SSE transport), with streamable.NewClientConn
//     whose Fallback dials legacysse (the client must recognise the older server
//     from the refused POST and switch), and with legacysse.NewClientConn directly.
//
// Each session lists tools, calls echo and get-sum, gets the progress of
// trigger-long-running-operation in order before its result, and reads a resource.
// The HTTP requests mcpkit made are recorded and checked: session and version
// headers, the GET stream, the fallback sequence, and that Close ends the session on
// the server (DELETE for Streamable HTTP, the stream's end for HTTP+SSE), which the
// server's log confirms. The server answers an unknown session with 400, not 404, so
// session expiry is not exercised here.
func TestMcpkitClientAgainstServerEverythingHTTP(t *testing.T) {
	node := requirePeers(t)
	entry := packageBin(t, "@modelcontextprotocol/server-everything")

	t.Run("streamableHttp", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		defer cancel()
		out := newEventLog()
		base := startHTTPPeer(ctx, t, node, out, entry, "streamableHttp")
		for _, version := range streamableVersions {
			t.Run(version, func(t *testing.T) { testEverythingStreamable(ctx, t, base+"/mcp", version, out) })
		}
	})

	t.Run("sse", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		defer cancel()
		out := newEventLog()
		base := startHTTPPeer(ctx, t, node, out, entry, "sse")
		t.Run("fallback from streamable", func(t *testing.T) { testEverythingSSEFallback(ctx, t, base+"/sse", out) })
		t.Run("legacysse.NewClientConn", func(t *testing.T) { testEverythingSSEDirect(ctx, t, base+"/sse", out) })
	})
}

// everythingClient returns an mcpkit client asking for version ("" for its newest),
// whose diagnostics go to log.
func everythingClient(version string, log *eventLog) *mcp.Client {
	return mcp.NewClient(protocol.Implementation{Name: "mcpkit-interop-http", Version: "1.0.0"}, &mcp.ClientOptions{
		ProtocolVersion: version,
		RequestTimeout:  testTimeout / 3,
		Logger:          logTo(log),
	})
}

func testEverythingStreamable(ctx context.Context, t *testing.T, endpoint, version string, serverOut *eventLog) {
	clientLog := newEventLog()
	dumpOnFailure(t, "mcpkit client log", clientLog)
	hc, rec := newRecordingClient(t)
	var fellBack atomic.Bool
	conn, err := streamable.NewClientConn(ctx, endpoint, &streamable.ClientOptions{
		HTTPClient: hc,
		Logger:     logTo(clientLog),
		Fallback: func(ctx context.Context) (transport.Conn, error) {
			fellBack.Store(true)
			return nil, errors.New("a Streamable HTTP server must not make the client fall back")
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := everythingClient(version, clientLog).Connect(ctx, conn)
	if err != nil {
		_ = conn.Close()
		t.Fatalf("connecting to %s: %v; exchanges %q", endpoint, err, rec.exchanges())
	}
	sessionID := conn.SessionID()
	if !uuidPattern.MatchString(sessionID) {
		t.Errorf("session id %q: want the server's UUID", sessionID)
	}
	if got := cs.ProtocolVersion(); got != version || conn.ProtocolVersion() != version {
		t.Errorf("negotiated %q (connection: %q), want %q (both sides support it)", got, conn.ProtocolVersion(), version)
	}

	exerciseEverything(ctx, t, cs)

	start := time.Now()
	if err := cs.Close(); err != nil {
		t.Errorf("closing the session: %v", err)
	}
	t.Logf("closing took %v", time.Since(start).Round(time.Millisecond))
	// The server logs the DELETE that ends the session, with its id.
	waitCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, err := serverOut.waitCount(waitCtx, "Received session termination request for session "+sessionID, 1); err != nil {
		t.Errorf("the server never saw the DELETE of session %s: %v", sessionID, err)
	}

	if fellBack.Load() {
		t.Error("the client fell back to HTTP+SSE")
	}
	// What mcpkit sent: initialize answered (the TypeScript server always streams),
	// the GET stream opened after notifications/initialized, DELETE at the end.
	seen := rec.exchanges()
	want := []string{"POST /mcp → 200 text/event-stream", "POST /mcp → 202 "}
	if len(seen) < 2 || !reflect.DeepEqual(seen[:2], want) {
		t.Errorf("first exchanges %q, want %q", seen, want)
	}
	if !slices.Contains(seen, "GET /mcp → 200 text/event-stream") {
		t.Errorf("exchanges %q: the GET stream was never opened", seen)
	}
	if last := seen[len(seen)-1]; last != "DELETE /mcp → 200 " {
		t.Errorf("exchanges %q: the last is not the DELETE that ends the session, answered 200", seen)
	}
	// Every request after initialize names the session and the negotiated version.
	for i, r := range rec.requests() {
		if !strings.Contains(r.Line, " → 200 ") && !strings.Contains(r.Line, " → 202 ") {
			t.Errorf("exchange %q: an error status", r.Line)
		}
		if i > 0 && (r.SessionID != sessionID || r.Version != version) {
			t.Errorf("exchange %q: sent Mcp-Session-Id %q and MCP-Protocol-Version %q, want %q and %q",
				r.Line, r.SessionID, r.Version, sessionID, version)
		}
	}
	if t.Failed() {
		t.Logf("exchanges:\n\t%s", strings.Join(seen, "\n\t"))
	}
}

func testEverythingSSEFallback(ctx context.Context, t *testing.T, streamURL string, serverOut *eventLog) {
	clientLog := newEventLog()
	dumpOnFailure(t, "mcpkit client log", clientLog)
	hc, rec := newRecordingClient(t)
	var fallbacks atomic.Int32
	conn, err := streamable.NewClientConn(ctx, streamURL, &streamable.ClientOptions{
		HTTPClient: hc,
		Logger:     logTo(clientLog),
		Fallback: func(ctx context.Context) (transport.Conn, error) {
			fallbacks.Add(1)
			return legacysse.NewClientConn(ctx, streamURL, &legacysse.ClientOptions{HTTPClient: hc, Logger: logTo(clientLog)})
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := everythingClient("", clientLog).Connect(ctx, conn)
	if err != nil {
		_ = conn.Close()
		t.Fatalf("connecting to %s: %v; exchanges %q", streamURL, err, rec.exchanges())
	}
	if n := fallbacks.Load(); n != 1 {
		t.Errorf("Fallback called %d times, want once", n)
	}
	if got := cs.ProtocolVersion(); got != protocol.LatestLegacy {
		t.Errorf("negotiated %q over HTTP+SSE, want %q (mcpkit's newest, which the server supports)", got, protocol.LatestLegacy)
	}
	exerciseEverything(ctx, t, cs)
	if err := cs.Close(); err != nil {
		t.Errorf("closing the session: %v", err)
	}

	// The refused POSTs, then the HTTP+SSE session: GET stream, then POSTs to the
	// endpoint it named. A client that detects the era first sends server/discover
	// before initialize, so one or two POSTs are refused.
	seen := rec.exchanges()
	refused := 0
	for refused < len(seen) && seen[refused] == "POST /sse → 404 text/html" {
		refused++
	}
	if refused < 1 || refused > 2 || len(seen) < refused+2 || seen[refused] != "GET /sse → 200 text/event-stream" {
		t.Fatalf("exchanges %q: want the refused POST /sse (404; twice when the client probes the era first), then GET /sse", seen)
	}
	checkLegacyPosts(ctx, t, seen[refused+1:], serverOut)
}

func testEverythingSSEDirect(ctx context.Context, t *testing.T, streamURL string, serverOut *eventLog) {
	clientLog := newEventLog()
	dumpOnFailure(t, "mcpkit client log", clientLog)
	hc, rec := newRecordingClient(t)
	conn, err := legacysse.NewClientConn(ctx, streamURL, &legacysse.ClientOptions{HTTPClient: hc, Logger: logTo(clientLog)})
	if err != nil {
		t.Fatalf("dialling %s: %v", streamURL, err)
	}
	// HTTP+SSE is the transport of 2024-11-05: ask for that version.
	const version = "2024-11-05"
	cs, err := everythingClient(version, clientLog).Connect(ctx, conn)
	if err != nil {
		_ = conn.Close()
		t.Fatalf("connecting to %s: %v", streamURL, err)
	}
	if got := cs.ProtocolVersion(); got != version {
		t.Errorf("negotiated %q, want %q", got, version)
	}
	exerciseEverything(ctx, t, cs)
	if err := cs.Close(); err != nil {
		t.Errorf("closing the session: %v", err)
	}
	seen := rec.exchanges()
	if len(seen) < 2 || seen[0] != "GET /sse → 200 text/event-stream" {
		t.Fatalf("exchanges %q: want GET /sse first", seen)
	}
	checkLegacyPosts(ctx, t, seen[1:], serverOut)
}

// legacyPost matches a POST to server-everything's message endpoint, accepted.
var legacyPost = regexp.MustCompile(`^POST /message\?sessionId=([0-9a-f-]{36}) → 202 `)

// checkLegacyPosts checks that every exchange after the GET stream is a POST to the
// endpoint the stream named, accepted with 202, all in one session; and that closing
// the connection ended that session on the server, as its log says.
func checkLegacyPosts(ctx context.Context, t *testing.T, posts []string, serverOut *eventLog) {
	t.Helper()
	var sessionID string
	for _, line := range posts {
		m := legacyPost.FindStringSubmatch(line)
		switch {
		case m == nil:
			t.Errorf("exchange %q: want a POST to /message?sessionId=… accepted with 202", line)
		case sessionID == "":
			sessionID = m[1]
		case m[1] != sessionID:
			t.Errorf("exchange %q: a POST to another session than %s", line, sessionID)
		}
	}
	if sessionID == "" {
		return
	}
	waitCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, err := serverOut.waitCount(waitCtx, "Client Disconnected:  "+sessionID, 1); err != nil {
		t.Errorf("the server never saw session %s end after Close: %v", sessionID, err)
	}
}

// exerciseEverything runs the calls every HTTP session of server-everything gets.
func exerciseEverything(ctx context.Context, t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	if got := cs.InitializeResult().ServerInfo.Name; got != "mcp-servers/everything" {
		t.Errorf("serverInfo.name = %q", got)
	}
	requireAll(t, "tools/list", toolNames(ctx, t, cs), "echo", "get-sum", "trigger-long-running-operation")

	if got := textOf(callTool(ctx, t, cs, "echo", map[string]string{"message": "hi"}).Content); got != "Echo: hi" {
		t.Errorf("echo {message: hi} = %q, want \"Echo: hi\"", got)
	}
	if got := textOf(callTool(ctx, t, cs, "get-sum", map[string]float64{"a": 2, "b": 3.5}).Content); got != "The sum of 2 and 3.5 is 5.5." {
		t.Errorf("get-sum {a: 2, b: 3.5} = %q", got)
	}

	var (
		mu    sync.Mutex
		order []string
		total []float64
	)
	res := callTool(ctx, t, cs, "trigger-long-running-operation", map[string]float64{"duration": 0.3, "steps": 3},
		mcp.WithProgress(func(p *protocol.ProgressParams) {
			mu.Lock()
			defer mu.Unlock()
			order = append(order, "progress "+strconv.FormatFloat(p.Progress, 'g', -1, 64))
			total = append(total, p.Total)
		}))
	mu.Lock()
	order = append(order, "result")
	got, totals := slices.Clone(order), slices.Clone(total)
	mu.Unlock()
	if want := []string{"progress 1", "progress 2", "progress 3", "result"}; !reflect.DeepEqual(got, want) {
		t.Errorf("trigger-long-running-operation {duration: 0.3, steps: 3}: saw %q, want %q", got, want)
	}
	for _, v := range totals {
		if v != 3 {
			t.Errorf("progress totals %v, want 3", totals)
			break
		}
	}
	if text := textOf(res.Content); !strings.Contains(text, "Long running operation completed") {
		t.Errorf("trigger-long-running-operation = %q", text)
	}

	const doc = "demo://resource/static/document/instructions.md"
	rr, err := cs.ReadResource(ctx, doc)
	if err != nil {
		t.Fatalf("resources/read %s: %v", doc, err)
	}
	if len(rr.Contents) != 1 || rr.Contents[0].URI != doc || rr.Contents[0].MimeType != "text/markdown" || rr.Contents[0].Text == "" {
		t.Errorf("resources/read %s = %+v", doc, rr.Contents)
	}
}
