package interop

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport/stdio"
	"github.com/mcpkit/mcpkit/transport/streamable"
)

// tsServerCase is one way of connecting mcpkit's client to a small TypeScript SDK
// server (ts1_server.mjs, ts2_server.mjs), with the era it must end in.
type tsServerCase struct {
	name string
	// version is ClientOptions.ProtocolVersion: "" for the client's default (era
	// detection: server/discover first, initialize if the server is not
	// stateless), or a version to insist on.
	version string
	// want is the protocol version the session must end at.
	want string
}

// ts2ServerCases are the client settings the 2.x server is driven with. It serves
// both eras, so era detection must find 2026-07-28, and each version asked for
// must be the one used.
var ts2ServerCases = []tsServerCase{
	{name: "default", want: protocol.Version20260728},
	{name: "stateless", version: protocol.Version20260728, want: protocol.Version20260728},
	{name: "legacy", version: protocol.LatestLegacy, want: protocol.LatestLegacy},
}

// elicitLog records the messages of the elicitations mcpkit's client answered.
type elicitLog struct {
	mu       sync.Mutex
	messages []string
}

func (l *elicitLog) snapshot() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.messages...)
}

// tsServerClient returns an mcpkit client asking for version that answers every
// elicitation with the name Ada, recording the message asked, and logs to log.
//
// Its era probe may wait as long as a request: over stdio the probe is the first
// thing a freshly started node process reads, and under the whole test suite node
// can take longer than the client's default ProbeTimeout to start, after which the
// client would rightly take the server for a legacy one.
func tsServerClient(version string, elicited *elicitLog, log *eventLog) *mcp.Client {
	return mcp.NewClient(protocol.Implementation{Name: "mcpkit-interop-ts-servers", Version: "1.0.0"}, &mcp.ClientOptions{
		ProtocolVersion: version,
		ProbeTimeout:    testTimeout / 3,
		RequestTimeout:  testTimeout / 3,
		Logger:          logTo(log),
		ElicitationHandler: func(ctx context.Context, cs *mcp.ClientSession, p *protocol.ElicitParams) (*protocol.ElicitResult, error) {
			elicited.mu.Lock()
			elicited.messages = append(elicited.messages, p.Message)
			elicited.mu.Unlock()
			return &protocol.ElicitResult{Action: protocol.ElicitActionAccept, Content: map[string]any{"name": "Ada"}}, nil
		},
	})
}

// TestMcpkitClientAgainstTypeScript2Server drives ts2_server.mjs, a server written
// with the TypeScript SDK 2.x (@modelcontextprotocol/server, one factory serving both
// eras), with mcpkit's client: over stdio (serveStdio) and over Streamable HTTP (the
// stateless createMcpHandler beside a sessionful 2025 transport), with the client's
// default era detection, with 2026-07-28 asked for, and with the newest legacy
// version asked for. Every session lists and calls tools (echo; whoami, which says
// which era the server served; ask_name, which elicits and is answered by the
// client's handler: an input_required round trip in 2026-07-28, an
// elicitation/create request in 2025-11-25), lists and reads a resource and gets a
// prompt; the era is checked from both sides (checkEra) and every message mcpkit
// wrote is held against the official schema of the version in use.
func TestMcpkitClientAgainstTypeScript2Server(t *testing.T) {
	node := requirePeers(t)
	t.Run("stdio", func(t *testing.T) {
		for _, tc := range ts2ServerCases {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
				defer cancel()
				clientLog := newEventLog()
				dumpOnFailure(t, "mcpkit client log", clientLog)
				var elicited elicitLog
				cs, wire := startNodeServer(ctx, t, node, tsServerClient(tc.version, &elicited, clientLog), newEventLog(), "ts2_server.mjs", "stdio")
				checkTSServerSession(ctx, t, cs, wire, "ts2", tc, &elicited)
			})
		}
	})
	t.Run("http", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*testTimeout)
		defer cancel()
		out := newEventLog()
		base := startHTTPPeer(ctx, t, node, out, "ts2_server.mjs", "http")
		for _, tc := range ts2ServerCases {
			t.Run(tc.name, func(t *testing.T) { testTS2ServerHTTP(ctx, t, base+"/mcp", tc, out) })
		}
	})
}

// testTS2ServerHTTP runs one session of mcpkit's Streamable HTTP client against
// ts2_server.mjs. Besides the checks of every session: a 2026-07-28 session has no
// session id and every POST carries MCP-Protocol-Version 2026-07-28; a 2025 session
// names its session id on every request after initialize and ends, at Close, with a
// DELETE that the server reports.
func testTS2ServerHTTP(ctx context.Context, t *testing.T, endpoint string, tc tsServerCase, serverOut *eventLog) {
	clientLog := newEventLog()
	dumpOnFailure(t, "mcpkit client log", clientLog)
	hc, rec := newRecordingClient(t)
	conn, err := streamable.NewClientConn(ctx, endpoint, &streamable.ClientOptions{HTTPClient: hc, Logger: logTo(clientLog)})
	if err != nil {
		t.Fatal(err)
	}
	wire := &recordingConn{Conn: conn}
	var elicited elicitLog
	cs, err := tsServerClient(tc.version, &elicited, clientLog).Connect(ctx, wire)
	if err != nil {
		_ = conn.Close()
		t.Fatalf("connecting to %s: %v; exchanges %q", endpoint, err, rec.exchanges())
	}
	defer func() {
		if t.Failed() {
			t.Logf("exchanges:\n\t%s", strings.Join(rec.exchanges(), "\n\t"))
		}
	}()
	checkTSServerSession(ctx, t, cs, wire, "ts2", tc, &elicited)

	sessionID := conn.SessionID()
	stateless := cs.IsStateless()
	if err := cs.Close(); err != nil {
		t.Errorf("closing the session: %v", err)
	}
	if stateless {
		if sessionID != "" {
			t.Errorf("a 2026-07-28 connection with session id %q", sessionID)
		}
		for _, r := range rec.requests() {
			if !strings.HasPrefix(r.Line, "POST ") || r.Version != protocol.Version20260728 || r.SessionID != "" {
				t.Errorf("exchange %q: MCP-Protocol-Version %q, Mcp-Session-Id %q; want only POSTs at %s without a session",
					r.Line, r.Version, r.SessionID, protocol.Version20260728)
			}
		}
		return
	}
	if sessionID == "" {
		t.Fatal("the 2025 session has no id (the server is stateful)")
	}
	for _, r := range rec.requests()[1:] {
		if r.SessionID != sessionID {
			t.Errorf("exchange %q: Mcp-Session-Id %q, want %q", r.Line, r.SessionID, sessionID)
		}
	}
	waitCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, err := serverOut.waitCount(waitCtx, "ts2-server: legacy session "+sessionID+" closed", 1); err != nil {
		t.Errorf("the server never ended session %s after Close: %v", sessionID, err)
	}
}

// TestMcpkitClientAgainstTypeScript1Server drives ts1_server.mjs, the same server
// written with the TypeScript SDK 1.x (@modelcontextprotocol/sdk McpServer, stdio,
// legacy era only), with mcpkit's client. With its default era detection the client
// probes with server/discover, which the 1.x server refuses (-32601), and must fall
// back to initialize at 2025-11-25 and pass the same checks as against the 2.x
// server; asked for 2026-07-28 only, Connect must fail, at once.
func TestMcpkitClientAgainstTypeScript1Server(t *testing.T) {
	node := requirePeers(t)
	t.Run("default", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		defer cancel()
		clientLog := newEventLog()
		dumpOnFailure(t, "mcpkit client log", clientLog)
		var elicited elicitLog
		cs, wire := startNodeServer(ctx, t, node, tsServerClient("", &elicited, clientLog), newEventLog(), "ts1_server.mjs")
		checkTSServerSession(ctx, t, cs, wire, "ts1", tsServerCase{name: "default", want: protocol.LatestLegacy}, &elicited)
	})
	t.Run("stateless only", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		defer cancel()
		stderr := newEventLog()
		dumpOnFailure(t, "stderr of ts1_server.mjs", stderr)
		conn, err := stdio.NewCommandConn(ctx, exec.Command(node, "ts1_server.mjs"), &stdio.CommandOptions{
			Stderr: stderr.add, CloseTimeout: 2 * time.Second, TermTimeout: 2 * time.Second,
		})
		if err != nil {
			t.Fatal(err)
		}
		pid := conn.Pid()
		t.Cleanup(func() { testkit.KillGroup(pid) })
		clientLog := newEventLog()
		dumpOnFailure(t, "mcpkit client log", clientLog)
		var elicited elicitLog
		client := tsServerClient(protocol.Version20260728, &elicited, clientLog)
		start := time.Now()
		cs, err := client.Connect(ctx, conn)
		if err == nil {
			_ = cs.Close()
			t.Fatalf("Connect asking for %s only succeeded against a 1.x server, at %q", protocol.Version20260728, cs.ProtocolVersion())
		}
		took := time.Since(start)
		t.Logf("Connect failed after %v: %v", took.Round(time.Millisecond), err)
		if took >= testTimeout/3 {
			t.Errorf("Connect failed only after %v: the server refused the probe at once, so should the client", took)
		}
		_ = conn.Close()
		select {
		case <-conn.Exited():
		case <-time.After(10 * time.Second):
			t.Errorf("ts1_server.mjs (pid %d) still runs 10s after the failed Connect closed its stdin", pid)
		}
	})
}

// checkTSServerSession runs the steps every session against ts1_server.mjs or
// ts2_server.mjs runs (prefix "ts1" or "ts2": the servers mark their answers with
// it) and checks the era and the schema of what mcpkit wrote.
func checkTSServerSession(ctx context.Context, t *testing.T, cs *mcp.ClientSession, wire *recordingConn, prefix string, tc tsServerCase, elicited *elicitLog) {
	t.Helper()
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		for _, m := range wire.snapshot() {
			dir := "recv"
			if m.FromMcpkit {
				dir = "send"
			}
			t.Logf("%s %s", dir, clip(m.Raw, 2000))
		}
	})
	if name := cs.InitializeResult().ServerInfo.Name; name != prefix+"-interop-server" {
		t.Errorf("serverInfo.name = %q, want %s-interop-server", name, prefix)
	}
	requireAll(t, "tools/list", toolNames(ctx, t, cs), "echo", "whoami", "ask_name")

	if got := textOf(callTool(ctx, t, cs, "echo", map[string]string{"message": "hi"}).Content); got != prefix+" echo: hi" {
		t.Errorf("echo {message: hi} = %q, want %q", got, prefix+" echo: hi")
	}
	checkEra(ctx, t, cs, wire, tc)

	ask := callTool(ctx, t, cs, "ask_name", map[string]any{})
	if got := textOf(ask.Content); got != "hello Ada" || ask.IsError {
		t.Errorf("ask_name = %q (isError %v), want \"hello Ada\" from mcpkit's elicitation handler", got, ask.IsError)
	}
	if got, want := elicited.snapshot(), []string{fmt.Sprintf("What is your name? (%s)", prefix)}; len(got) != 1 || got[0] != want[0] {
		t.Errorf("the elicitation handler was asked %q, want %q", got, want)
	}
	checkElicitationPath(t, cs, wire)

	uri := prefix + "://greeting"
	var uris []string
	for r, err := range cs.Resources(ctx) {
		if err != nil {
			t.Fatalf("resources/list: %v", err)
		}
		uris = append(uris, r.URI)
	}
	requireAll(t, "resources/list", uris, uri)
	if res, err := cs.ReadResource(ctx, uri); err != nil {
		t.Errorf("resources/read %s: %v", uri, err)
	} else if len(res.Contents) != 1 || !strings.HasPrefix(res.Contents[0].Text, "hello from the TypeScript SDK") || res.Contents[0].MimeType != "text/plain" {
		t.Errorf("resources/read %s = %+v", uri, res.Contents)
	}

	if res, err := cs.GetPrompt(ctx, "greet", map[string]string{"name": "Ada"}); err != nil {
		t.Errorf("prompts/get greet: %v", err)
	} else if len(res.Messages) != 1 || res.Messages[0].Role != protocol.RoleUser || res.Messages[0].Content.Text != "Say hello to Ada." {
		t.Errorf("prompts/get greet {name: Ada} = %+v", res.Messages)
	}

	t.Run("schema", func(t *testing.T) { checkSessionSchema(t, cs.ProtocolVersion(), wire.snapshot()) })
}

// checkEra checks that the session is in the era tc wants, as the client reports it
// (ProtocolVersion, IsStateless, DiscoverResult), as the server saw it (its whoami
// tool says which era served the call, and at which version), and as the client's
// first message shows (server/discover when it detects the era or asks for
// 2026-07-28; initialize when it asks for a legacy version).
func checkEra(ctx context.Context, t *testing.T, cs *mcp.ClientSession, wire *recordingConn, tc tsServerCase) {
	t.Helper()
	version := cs.ProtocolVersion()
	stateless := !protocol.IsLegacy(tc.want)
	if version != tc.want || cs.IsStateless() != stateless {
		t.Errorf("client settings %q: the session is at %q (stateless %v), want %q", tc.name, version, cs.IsStateless(), tc.want)
	}
	if d := cs.DiscoverResult(); stateless && (d == nil || !slices.Contains(d.SupportedVersions, tc.want)) {
		t.Errorf("a stateless session whose DiscoverResult %+v does not offer %s", d, tc.want)
	} else if !stateless && d != nil {
		t.Errorf("a legacy session with a DiscoverResult %+v", d)
	}

	var who struct {
		Era             string `json:"era"`
		ProtocolVersion string `json:"protocolVersion"`
	}
	res := callTool(ctx, t, cs, "whoami", map[string]any{})
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil || json.Unmarshal(raw, &who) != nil {
		t.Errorf("whoami structuredContent %v: not {era, protocolVersion}", res.StructuredContent)
	}
	switch {
	case !stateless && who.Era != "legacy":
		t.Errorf("the session is at %q, but the server served whoami in era %q", version, who.Era)
	case stateless && (who.Era != tsStatelessEra || who.ProtocolVersion != version):
		t.Errorf("the session is at %q, but the server served whoami in era %q at %q", version, who.Era, who.ProtocolVersion)
	}

	var first struct {
		Method string `json:"method"`
	}
	msgs := wire.snapshot()
	if len(msgs) == 0 || !msgs[0].FromMcpkit || json.Unmarshal(msgs[0].Raw, &first) != nil {
		t.Fatalf("the client's first message was not recorded")
	}
	wantFirst := "server/discover"
	if tc.version != "" && protocol.IsLegacy(tc.version) {
		wantFirst = "initialize"
	}
	if first.Method != wantFirst {
		t.Errorf("client settings %q: the first message is %s, want %s", tc.name, first.Method, wantFirst)
	}
}

// checkElicitationPath checks, on the wire, how ask_name's elicitation travelled:
// in 2026-07-28 inside an input_required result, answered by retrying tools/call
// with inputResponses (and the requestState, byte for byte, when the server sent
// one), and never as a server request; in 2025 as an elicitation/create request
// from the server.
func checkElicitationPath(t *testing.T, cs *mcp.ClientSession, wire *recordingConn) {
	t.Helper()
	var inputRequired, retried, serverRequest bool
	var state string // the requestState of the input_required result
	for _, m := range wire.snapshot() {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name           string          `json:"name"`
				InputResponses json.RawMessage `json:"inputResponses"`
				RequestState   string          `json:"requestState"`
			} `json:"params"`
			Result struct {
				ResultType   string `json:"resultType"`
				RequestState string `json:"requestState"`
			} `json:"result"`
		}
		if json.Unmarshal(m.Raw, &msg) != nil {
			continue
		}
		switch {
		case !m.FromMcpkit && msg.Method == "elicitation/create" && msg.ID != nil:
			serverRequest = true
		case !m.FromMcpkit && msg.Result.ResultType == "input_required":
			inputRequired, state = true, msg.Result.RequestState
		case m.FromMcpkit && msg.Method == "tools/call" && msg.Params.Name == "ask_name" && msg.Params.InputResponses != nil:
			retried = true
			if msg.Params.RequestState != state {
				t.Errorf("the retry carries requestState %q, want %q as the server sent it", msg.Params.RequestState, state)
			}
		}
	}
	if cs.IsStateless() {
		if !inputRequired || !retried || serverRequest {
			t.Errorf("2026-07-28 elicitation: input_required result %v, retry with inputResponses %v, server request %v; want true, true, false",
				inputRequired, retried, serverRequest)
		}
	} else if !serverRequest || inputRequired || retried {
		t.Errorf("2025 elicitation: server request %v, input_required result %v, retry %v; want true, false, false", serverRequest, inputRequired, retried)
	}
}
