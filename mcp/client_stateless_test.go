package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/internal/testkit/mcptest"
	"github.com/mcpkit/mcpkit/internal/wirecheck"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport"
	"github.com/mcpkit/mcpkit/transport/memory"
)

// connectAuto joins a client to srv over a schema-checked in-memory pair, letting
// the client detect the era (unless opts names a version).
func connectAuto(t *testing.T, srv *mcp.Server, opts *mcp.ClientOptions) (*mcp.ClientSession, error) {
	t.Helper()
	cs, _, err := mcptest.TryConnect(t, srv, mcptest.NewClient(opts), nil)
	return cs, err
}

// seenCall is what a server's recording middleware saw of one incoming call.
type seenCall struct {
	method  string
	version string // the version the session reported for it
	params  map[string]any
}

// recorder is server middleware that records incoming calls.
type recorder struct {
	mu    sync.Mutex
	calls []seenCall
}

func (r *recorder) middleware(next mcp.Invoker) mcp.Invoker {
	return func(ctx context.Context, c *mcp.Call) (any, error) {
		if c.Direction == mcp.Incoming {
			var p map[string]any
			_ = json.Unmarshal(c.Params, &p)
			r.mu.Lock()
			r.calls = append(r.calls, seenCall{c.Method, c.Session.ProtocolVersion(), p})
			r.mu.Unlock()
		}
		return next(ctx, c)
	}
}

// methods lists the recorded methods in order.
func (r *recorder) methods() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, c := range r.calls {
		out = append(out, c.method)
	}
	return out
}

// last returns the last recorded call of method.
func (r *recorder) last(t *testing.T, method string) seenCall {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := len(r.calls) - 1; i >= 0; i-- {
		if r.calls[i].method == method {
			return r.calls[i]
		}
	}
	t.Fatalf("the server saw no %s (it saw %v)", method, r.calls)
	return seenCall{}
}

func (r *recorder) count(method string) int {
	n := 0
	for _, m := range r.methods() {
		if m == method {
			n++
		}
	}
	return n
}

// legacyOnly is server middleware that makes a dual-era server behave like a
// server of the legacy era: every stateless request is an unknown method.
func legacyOnly(next mcp.Invoker) mcp.Invoker {
	return func(ctx context.Context, c *mcp.Call) (any, error) {
		if c.Direction == mcp.Incoming && (c.Method == protocol.MethodServerDiscover || protocol.IsStateless(c.Session.ProtocolVersion())) {
			return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "Method not found: %s", c.Method)
		}
		return next(ctx, c)
	}
}

func metaOf(p map[string]any) map[string]any {
	m, _ := p["_meta"].(map[string]any)
	return m
}

func TestClientDetectsStatelessServer(t *testing.T) {
	var rec recorder
	srv := echoServer(t, &mcp.ServerOptions{Middleware: []mcp.Middleware{rec.middleware}, Instructions: "be brief"})
	cs, err := connectAuto(t, srv, &mcp.ClientOptions{Roots: []protocol.Root{}})
	must(t, err)
	if !cs.IsStateless() || cs.ProtocolVersion() != protocol.Version20260728 {
		t.Fatalf("IsStateless %v, version %q; want the stateless era", cs.IsStateless(), cs.ProtocolVersion())
	}
	init := cs.InitializeResult()
	if init.ServerInfo.Name != "test-server" || init.Instructions != "be brief" || init.Capabilities.Tools == nil {
		t.Errorf("InitializeResult from discover = %+v", init)
	}
	if d := cs.DiscoverResult(); d == nil || !slices.Contains(d.SupportedVersions, protocol.Version20260728) {
		t.Errorf("DiscoverResult = %+v", d)
	}
	res, err := cs.CallToolParams(testkit.Context(t), &protocol.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"message":"hi"}`),
		Meta: protocol.Meta{"example.com/trace": "t1"}})
	must(t, err)
	if got := text(t, res); got != "hello hi" || res.ResultType != protocol.ResultTypeComplete {
		t.Errorf("result %q (resultType %q)", got, res.ResultType)
	}
	if got := rec.methods(); !slices.Equal(got, []string{"server/discover", "tools/call"}) {
		t.Errorf("the server saw %v; want server/discover then tools/call (no initialize)", got)
	}
	call := rec.last(t, protocol.MethodToolsCall)
	meta := metaOf(call.params)
	if meta[protocol.MetaKeyProtocolVersion] != protocol.Version20260728 || call.version != protocol.Version20260728 {
		t.Errorf("tools/call _meta version %v, session version %q", meta[protocol.MetaKeyProtocolVersion], call.version)
	}
	if caps, ok := meta[protocol.MetaKeyClientCapabilities].(map[string]any); !ok || caps["roots"] == nil {
		t.Errorf("clientCapabilities = %v; want the roots capability", meta[protocol.MetaKeyClientCapabilities])
	}
	if info, _ := meta[protocol.MetaKeyClientInfo].(map[string]any); info["name"] != "test-client" {
		t.Errorf("clientInfo = %v", meta[protocol.MetaKeyClientInfo])
	}
	if meta["example.com/trace"] != "t1" {
		t.Errorf("the caller's own _meta key was lost: %v", meta)
	}
	if _, has := meta[protocol.MetaKeyLogLevel]; has {
		t.Errorf("logLevel sent without SetLogLevel: %v", meta)
	}
}

func TestClientFallsBackToLegacyServer(t *testing.T) {
	var rec recorder
	srv := echoServer(t, &mcp.ServerOptions{Middleware: []mcp.Middleware{rec.middleware, legacyOnly}})
	cs, err := connectAuto(t, srv, nil)
	must(t, err)
	if cs.IsStateless() || cs.ProtocolVersion() != protocol.LatestLegacy {
		t.Fatalf("IsStateless %v, version %q; want the legacy era at %s", cs.IsStateless(), cs.ProtocolVersion(), protocol.LatestLegacy)
	}
	res, err := cs.CallTool(testkit.Context(t), "echo", echoIn{Message: "old"})
	must(t, err)
	if got := text(t, res); got != "hello old" {
		t.Errorf("result %q", got)
	}
	want := []string{"server/discover", "initialize", "notifications/initialized", "tools/call"}
	if got := rec.methods(); !slices.Equal(got, want) {
		t.Errorf("the server saw %v, want %v", got, want)
	}
	if meta := metaOf(rec.last(t, protocol.MethodToolsCall).params); meta[protocol.MetaKeyProtocolVersion] != nil {
		t.Errorf("a legacy request carries stateless _meta: %v", meta)
	}
	if _, err := cs.Listen(testkit.Context(t), protocol.SubscriptionFilter{ToolsListChanged: true}); !errors.Is(err, mcp.ErrStatelessOnly) {
		t.Errorf("Listen on a legacy session: %v, want ErrStatelessOnly", err)
	}
}

// silentConn drops the messages whose method is in drop before the server reads
// them: a server that never answers them.
type silentConn struct {
	transport.Conn
	drop string
}

func (c silentConn) Read(ctx context.Context) ([]byte, error) {
	for {
		msg, err := c.Conn.Read(ctx)
		if err != nil || !strings.Contains(string(msg), `"method":"`+c.drop+`"`) {
			return msg, err
		}
	}
}

func TestClientFallsBackWhenTheProbeGetsNoAnswer(t *testing.T) {
	srv := echoServer(t, nil)
	c, s := memory.NewPair()
	ss, err := srv.Connect(testkit.Context(t), silentConn{wirecheck.Wrap(t, s, wirecheck.Server), protocol.MethodServerDiscover})
	must(t, err)
	t.Cleanup(func() { _ = ss.Close() })
	start := time.Now()
	cs, err := mcp.NewClient(protocol.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{ProbeTimeout: 50 * time.Millisecond}).
		Connect(testkit.Context(t), wirecheck.Wrap(t, c, wirecheck.Client))
	must(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	if cs.IsStateless() {
		t.Fatal("a server silent on server/discover was taken for a stateless one")
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Connect took %v", d)
	}
	must(t, cs.Ping(testkit.Context(t)))
}

func TestClientVersionChoice(t *testing.T) {
	t.Run("forced legacy skips the probe", func(t *testing.T) {
		var rec recorder
		srv := echoServer(t, &mcp.ServerOptions{Middleware: []mcp.Middleware{rec.middleware}})
		cs, err := connectAuto(t, srv, &mcp.ClientOptions{ProtocolVersion: protocol.Version20250618})
		must(t, err)
		if cs.IsStateless() || cs.ProtocolVersion() != protocol.Version20250618 {
			t.Errorf("version %q", cs.ProtocolVersion())
		}
		if got := rec.methods(); len(got) == 0 || got[0] != protocol.MethodInitialize {
			t.Errorf("the server saw %v; want initialize first", got)
		}
	})
	t.Run("forced stateless against a legacy server fails", func(t *testing.T) {
		srv := echoServer(t, &mcp.ServerOptions{Middleware: []mcp.Middleware{legacyOnly}})
		_, err := connectAuto(t, srv, &mcp.ClientOptions{ProtocolVersion: protocol.Version20260728})
		if err == nil || !strings.Contains(err.Error(), "does not speak protocol version 2026-07-28") {
			t.Errorf("Connect = %v", err)
		}
	})
	t.Run("unknown version", func(t *testing.T) {
		_, err := connectAuto(t, echoServer(t, nil), &mcp.ClientOptions{ProtocolVersion: "1999-01-01"})
		if err == nil || !strings.Contains(err.Error(), "not supported") {
			t.Errorf("Connect = %v", err)
		}
	})
}

// scripted returns the client end of a connection to a fake server that answers
// each request with answer (a nil result and error: no answer). The client's
// messages are schema-checked.
func scripted(t *testing.T, answer func(m *jsonrpc.Message) (any, *jsonrpc.Error)) transport.Conn {
	t.Helper()
	c, s := memory.NewPair()
	go func() {
		for {
			raw, err := s.Read(context.Background())
			if err != nil {
				return // closed by the cleanup below
			}
			m, err := jsonrpc.Decode(raw)
			if err != nil || !m.IsRequest() {
				continue
			}
			res, jerr := answer(m)
			var out []byte
			switch {
			case jerr != nil:
				out = jsonrpc.AppendError(nil, m.ID, jerr)
			case res != nil:
				data, _ := json.Marshal(res)
				out = jsonrpc.AppendResult(nil, m.ID, data)
			default:
				continue
			}
			_ = s.Write(context.Background(), out)
		}
	}()
	t.Cleanup(func() { _ = c.Close(); _ = s.Close() })
	return wirecheck.Wrap(t, c, wirecheck.Client)
}

// discoverResult is a minimal DiscoverResult listing versions.
func discoverResult(versions ...string) map[string]any {
	return map[string]any{"resultType": "complete", "supportedVersions": versions, "capabilities": map[string]any{"tools": map[string]any{}},
		"ttlMs": 0, "cacheScope": "private", "_meta": map[string]any{protocol.MetaKeyServerInfo: map[string]any{"name": "fake", "version": "1"}}}
}

func unsupported(supported ...string) *jsonrpc.Error {
	return (&jsonrpc.Error{Code: protocol.CodeUnsupportedProtocolVersion, Message: "Unsupported protocol version"}).
		WithData(protocol.UnsupportedProtocolVersionData{Requested: "x", Supported: supported})
}

func metaVersion(m *jsonrpc.Message) string {
	var p struct {
		Meta map[string]any `json:"_meta"`
	}
	_ = json.Unmarshal(m.Params, &p)
	v, _ := p.Meta[protocol.MetaKeyProtocolVersion].(string)
	return v
}

func connectTo(t *testing.T, conn transport.Conn, opts *mcp.ClientOptions) (*mcp.ClientSession, error) {
	t.Helper()
	cs, err := mcp.NewClient(protocol.Implementation{Name: "c", Version: "1"}, opts).Connect(testkit.Context(t), conn)
	if err == nil {
		t.Cleanup(func() { _ = cs.Close() })
	}
	return cs, err
}

func TestClientRetriesAtAnOfferedVersion(t *testing.T) {
	// The server refuses the first probe even at a version it lists, as a
	// conformance scenario does: the client tries again rather than falling back.
	var mu sync.Mutex
	var probes []string
	conn := scripted(t, func(m *jsonrpc.Message) (any, *jsonrpc.Error) {
		if m.Method != protocol.MethodServerDiscover {
			return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "unexpected %s", m.Method)
		}
		mu.Lock()
		defer mu.Unlock()
		probes = append(probes, metaVersion(m))
		if len(probes) == 1 {
			return nil, unsupported(protocol.Version20260728)
		}
		return discoverResult(protocol.Version20260728), nil
	})
	cs, err := connectTo(t, conn, nil)
	must(t, err)
	mu.Lock()
	defer mu.Unlock()
	if !cs.IsStateless() || len(probes) != 2 || probes[1] != protocol.Version20260728 {
		t.Errorf("stateless %v after probes %v", cs.IsStateless(), probes)
	}
	if cs.InitializeResult().ServerInfo.Name != "fake" {
		t.Errorf("serverInfo = %+v", cs.InitializeResult().ServerInfo)
	}
}

func TestClientInitializesAtALegacyVersionTheServerOffers(t *testing.T) {
	var initVersion string
	conn := scripted(t, func(m *jsonrpc.Message) (any, *jsonrpc.Error) {
		switch m.Method {
		case protocol.MethodServerDiscover:
			return nil, unsupported(protocol.Version20250618, "1999-01-01")
		case protocol.MethodInitialize:
			var p protocol.InitializeParams
			_ = json.Unmarshal(m.Params, &p)
			initVersion = p.ProtocolVersion
			return protocol.InitializeResult{ProtocolVersion: p.ProtocolVersion, ServerInfo: protocol.Implementation{Name: "old", Version: "1"}}, nil
		}
		return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "unexpected %s", m.Method)
	})
	cs, err := connectTo(t, conn, nil)
	must(t, err)
	if cs.IsStateless() || initVersion != protocol.Version20250618 || cs.ProtocolVersion() != protocol.Version20250618 {
		t.Errorf("stateless %v, initialize asked %q, session %q", cs.IsStateless(), initVersion, cs.ProtocolVersion())
	}
}

func TestClientTreatsAnEmptyResultAsLegacy(t *testing.T) {
	// Some legacy servers answer every unknown method with {}.
	conn := scripted(t, func(m *jsonrpc.Message) (any, *jsonrpc.Error) {
		if m.Method == protocol.MethodInitialize {
			return protocol.InitializeResult{ProtocolVersion: protocol.LatestLegacy, ServerInfo: protocol.Implementation{Name: "old", Version: "1"}}, nil
		}
		return map[string]any{}, nil
	})
	cs, err := connectTo(t, conn, nil)
	must(t, err)
	if cs.IsStateless() {
		t.Error("an empty answer to server/discover was taken for a DiscoverResult")
	}
}

func TestClientStopsOnARecognizedStatelessError(t *testing.T) {
	conn := scripted(t, func(m *jsonrpc.Message) (any, *jsonrpc.Error) {
		if m.Method == protocol.MethodServerDiscover {
			return nil, jsonrpc.NewError(protocol.CodeHeaderMismatch, "Header mismatch: no")
		}
		t.Errorf("the client went on with %s", m.Method)
		return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "no")
	})
	if _, err := connectTo(t, conn, nil); err == nil || !strings.Contains(err.Error(), "-32020") {
		t.Errorf("Connect = %v, want the header mismatch", err)
	}
}
