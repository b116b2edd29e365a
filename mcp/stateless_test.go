package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/requeststate"
	"github.com/mcpkit/mcpkit/transport"
)

// statelessMeta is a complete 2026-07-28 _meta with the given client capabilities.
func statelessMeta(caps string) string {
	return `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps +
		`,"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}`
}

// statelessCall sends one stateless request and returns the decoded response.
func statelessCall(t *testing.T, c transport.Conn, id int, method, params string) map[string]any {
	t.Helper()
	msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params)
	var out map[string]any
	if err := json.Unmarshal([]byte(roundTrip(t, c, msg)), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func errCode(resp map[string]any) float64 {
	e, _ := resp["error"].(map[string]any)
	code, _ := e["code"].(float64)
	return code
}

func result(t *testing.T, resp map[string]any) map[string]any {
	t.Helper()
	r, ok := resp["result"].(map[string]any)
	if !ok {
		t.Fatalf("want a result, got %v", resp)
	}
	return r
}

func echoServer(t *testing.T, opts *mcp.ServerOptions) *mcp.Server {
	t.Helper()
	srv := newServer(t, opts)
	type in struct {
		Message string `json:"message"`
	}
	must(t, mcp.AddTool(srv, &protocol.Tool{Name: "echo"}, func(ctx context.Context, r *mcp.ToolRequest, a in) (string, error) {
		return "hello " + a.Message, nil
	}))
	return srv
}

func TestStatelessDiscover(t *testing.T) {
	srv := echoServer(t, &mcp.ServerOptions{Instructions: "be nice",
		Cache: mcp.CacheOptions{Discover: mcp.CacheHint{TTL: time.Hour, Scope: protocol.CacheScopePublic}}})
	c := rawConn(t, srv)
	res := result(t, statelessCall(t, c, 1, "server/discover", `{"_meta":`+statelessMeta(`{}`)+`}`))
	if res["resultType"] != "complete" || res["instructions"] != "be nice" {
		t.Errorf("discover = %v", res)
	}
	if v, _ := res["supportedVersions"].([]any); len(v) == 0 || v[0] != "2026-07-28" {
		t.Errorf("supportedVersions = %v", res["supportedVersions"])
	}
	if res["ttlMs"] != float64(3600000) || res["cacheScope"] != "public" {
		t.Errorf("cache hints = %v, %v", res["ttlMs"], res["cacheScope"])
	}
	meta, _ := res["_meta"].(map[string]any)
	if info, _ := meta["io.modelcontextprotocol/serverInfo"].(map[string]any); info["name"] != "test-server" {
		t.Errorf("serverInfo = %v", meta)
	}
}

func TestStatelessMetaChecks(t *testing.T) {
	c := uncheckedConn(t, echoServer(t, nil))
	cases := []struct {
		name, method, params string
		code                 float64
	}{
		{"no _meta", "server/discover", `{}`, -32602},
		{"no capabilities", "tools/list", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`, -32602},
		{"capabilities not an object", "tools/list", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":[]}}`, -32602},
		{"bad log level", "tools/list", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"loud"}}`, -32602},
		{"unknown version", "tools/list", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"1900-01-01","io.modelcontextprotocol/clientCapabilities":{}}}`, -32022},
		{"legacy version in _meta", "tools/list", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25","io.modelcontextprotocol/clientCapabilities":{}}}`, -32022},
		{"removed method", "ping", `{"_meta":` + statelessMeta(`{}`) + `}`, -32601},
		{"initialize with stateless _meta", "initialize", `{"_meta":` + statelessMeta(`{}`) + `}`, -32601},
		{"logging/setLevel", "logging/setLevel", `{"level":"info","_meta":` + statelessMeta(`{}`) + `}`, -32601},
		{"unknown method", "unknown/method", `{"_meta":` + statelessMeta(`{}`) + `}`, -32601},
		{"unknown tool", "tools/call", `{"name":"nope","_meta":` + statelessMeta(`{}`) + `}`, -32602},
	}
	for i, tc := range cases {
		resp := statelessCall(t, c, i+1, tc.method, tc.params)
		if got := errCode(resp); got != tc.code {
			t.Errorf("%s: code %v, want %v (%v)", tc.name, got, tc.code, resp)
		}
		if resp["id"] != float64(i+1) {
			t.Errorf("%s: id %v, want %d", tc.name, resp["id"], i+1)
		}
	}
	resp := statelessCall(t, c, 99, "tools/list", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"1900-01-01","io.modelcontextprotocol/clientCapabilities":{}}}`)
	data, _ := resp["error"].(map[string]any)["data"].(map[string]any)
	if data["requested"] != "1900-01-01" || !strings.Contains(fmt.Sprint(data["supported"]), "2026-07-28") {
		t.Errorf("-32022 data = %v", data)
	}
}

func TestStatelessToolsAndCaching(t *testing.T) {
	srv := echoServer(t, &mcp.ServerOptions{Cache: mcp.CacheOptions{Tools: mcp.CacheHint{TTL: 90 * time.Second}}})
	c := rawConn(t, srv)
	list := result(t, statelessCall(t, c, 1, "tools/list", `{"_meta":`+statelessMeta(`{}`)+`}`))
	if list["resultType"] != "complete" || list["ttlMs"] != float64(90000) || list["cacheScope"] != "private" {
		t.Errorf("tools/list = %v", list)
	}
	call := result(t, statelessCall(t, c, 2, "tools/call", `{"name":"echo","arguments":{"message":"hi"},"_meta":`+statelessMeta(`{}`)+`}`))
	content, _ := call["content"].([]any)
	if call["resultType"] != "complete" || len(content) != 1 || content[0].(map[string]any)["text"] != "hello hi" {
		t.Errorf("tools/call = %v", call)
	}
	if _, has := call["ttlMs"]; has {
		t.Errorf("tools/call carries ttlMs: %v", call)
	}
	// The same connection still serves a legacy client afterwards? No: a stateless
	// request does not initialize anything, so initialize still works.
	init := result(t, statelessCall(t, c, 3, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}`))
	if init["protocolVersion"] != "2025-11-25" {
		t.Errorf("initialize after stateless requests = %v", init)
	}
}

func TestStatelessLoggingOnlyWhenAsked(t *testing.T) {
	srv := newServer(t, nil)
	must(t, srv.AddRawTool(&protocol.Tool{Name: "chatty"}, func(ctx context.Context, r *mcp.ToolRequest) (*protocol.CallToolResult, error) {
		_ = r.Log(ctx, protocol.LevelInfo, "t", "info line")
		_ = r.Log(ctx, protocol.LevelError, "t", "error line")
		return protocol.NewToolResultText("done"), nil
	}))
	c := rawConn(t, srv)
	// No logLevel: the first message back is the result.
	resp := statelessCall(t, c, 1, "tools/call", `{"name":"chatty","_meta":`+statelessMeta(`{}`)+`}`)
	if resp["id"] != float64(1) {
		t.Fatalf("without logLevel got %v first", resp)
	}
	meta := `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"error"}`
	must(t, c.Write(testkit.Context(t), []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"chatty","_meta":`+meta+`}}`)))
	first := readRaw(t, c)
	if !strings.Contains(first, `"notifications/message"`) || !strings.Contains(first, "error line") {
		t.Fatalf("with logLevel error, first message = %s", first)
	}
	if second := readRaw(t, c); !strings.Contains(second, `"id":2`) {
		t.Fatalf("want the result after one log line, got %s", second)
	}
}

// askingTool asks for a name by elicitation, then for a model's opinion, then
// answers with both.
func askingTool(srv *mcp.Server) error {
	return srv.AddRawTool(&protocol.Tool{Name: "ask"}, func(ctx context.Context, r *mcp.ToolRequest) (*protocol.CallToolResult, error) {
		el, err := r.Elicit(ctx, &protocol.ElicitParams{Message: "name?", RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)})
		if err != nil {
			return nil, err
		}
		sm, err := r.CreateMessage(ctx, &protocol.CreateMessageParams{MaxTokens: 5,
			Messages: []protocol.SamplingMessage{{Role: protocol.RoleUser, Content: protocol.SamplingContent{protocol.NewTextContent("opinion?")}}}})
		if err != nil {
			return nil, err
		}
		return protocol.NewToolResultText(fmt.Sprintf("%v/%s", el.Content["name"], sm.Content[0].Text)), nil
	})
}

const (
	elicitAnswer = `{"action":"accept","content":{"name":"ada"}}`
	sampleAnswer = `{"role":"assistant","content":{"type":"text","text":"fine"},"model":"m"}`
)

func TestStatelessInputRequiredRoundTrips(t *testing.T) {
	srv := newServer(t, nil)
	must(t, askingTool(srv))
	c := rawConn(t, srv)
	caps := `{"elicitation":{},"sampling":{}}`

	r1 := result(t, statelessCall(t, c, 1, "tools/call", `{"name":"ask","_meta":`+statelessMeta(caps)+`}`))
	if r1["resultType"] != "input_required" {
		t.Fatalf("round 1 = %v", r1)
	}
	reqs, _ := r1["inputRequests"].(map[string]any)
	if len(reqs) != 1 || reqs["elicitation-1"] == nil {
		t.Fatalf("round 1 inputRequests = %v", reqs)
	}
	state1, _ := r1["requestState"].(string)

	r2 := result(t, statelessCall(t, c, 2, "tools/call", `{"name":"ask","_meta":`+statelessMeta(caps)+
		`,"inputResponses":{"elicitation-1":`+elicitAnswer+`},"requestState":"`+state1+`"}`))
	reqs, _ = r2["inputRequests"].(map[string]any)
	if r2["resultType"] != "input_required" || len(reqs) != 1 || reqs["sampling-2"] == nil {
		t.Fatalf("round 2 = %v", r2)
	}
	state2, _ := r2["requestState"].(string)

	// Round 3 brings only the new answer: the first one travels in the state.
	r3 := result(t, statelessCall(t, c, 3, "tools/call", `{"name":"ask","_meta":`+statelessMeta(caps)+
		`,"inputResponses":{"sampling-2":`+sampleAnswer+`},"requestState":"`+state2+`"}`))
	content, _ := r3["content"].([]any)
	if r3["resultType"] != "complete" || len(content) != 1 || content[0].(map[string]any)["text"] != "ada/fine" {
		t.Fatalf("round 3 = %v", r3)
	}

	// A retry without the answer is asked again, not failed.
	again := result(t, statelessCall(t, c, 4, "tools/call", `{"name":"ask","_meta":`+statelessMeta(caps)+`,"requestState":"`+state1+`"}`))
	if again["resultType"] != "input_required" {
		t.Errorf("retry without answers = %v", again)
	}
}

func TestStatelessInputRequiredRejectsBadState(t *testing.T) {
	srv := newServer(t, nil)
	must(t, askingTool(srv))
	must(t, srv.AddRawTool(&protocol.Tool{Name: "other"}, func(ctx context.Context, r *mcp.ToolRequest) (*protocol.CallToolResult, error) {
		return protocol.NewToolResultText("x"), nil
	}))
	c := rawConn(t, srv)
	caps := `{"elicitation":{},"sampling":{}}`
	r1 := result(t, statelessCall(t, c, 1, "tools/call", `{"name":"ask","arguments":{},"_meta":`+statelessMeta(caps)+`}`))
	state, _ := r1["requestState"].(string)
	flipped := []byte(state)
	flipped[len(flipped)/2] ^= 1
	if flipped[len(flipped)/2] == '"' || flipped[len(flipped)/2] == '\\' {
		flipped[len(flipped)/2] ^= 3
	}
	for i, tc := range []struct{ name, params string }{
		{"flipped byte", `{"name":"ask","arguments":{},"requestState":"` + string(flipped) + `"`},
		{"suffix", `{"name":"ask","arguments":{},"requestState":"` + state + `-TAMPERED"`},
		{"other arguments", `{"name":"ask","arguments":{"x":1},"requestState":"` + state + `"`},
		{"other tool", `{"name":"other","requestState":"` + state + `"`},
	} {
		resp := statelessCall(t, c, 10+i, "tools/call", tc.params+`,"inputResponses":{"elicitation-1":`+elicitAnswer+`},"_meta":`+statelessMeta(caps)+`}`)
		if tc.name == "other tool" {
			// "other" never asks for input, so it never opens the state.
			continue
		}
		if errCode(resp) != -32602 {
			t.Errorf("%s: want -32602, got %v", tc.name, resp)
		}
	}
}

func TestStatelessInputRequiredOnAnotherReplica(t *testing.T) {
	key, err := requeststate.GenerateKey()
	must(t, err)
	shared := requeststate.FormatKeys(key)
	ring := func() *requeststate.Keyring {
		kr, err := requeststate.ParseKeyring(shared)
		must(t, err)
		return kr
	}
	a := newServer(t, &mcp.ServerOptions{Keyring: ring()})
	b := newServer(t, &mcp.ServerOptions{Keyring: ring()})
	must(t, askingTool(a))
	must(t, askingTool(b))
	ca, cb := rawConn(t, a), rawConn(t, b)
	caps := `{"elicitation":{},"sampling":{}}`
	r1 := result(t, statelessCall(t, ca, 1, "tools/call", `{"name":"ask","_meta":`+statelessMeta(caps)+`}`))
	r2 := result(t, statelessCall(t, cb, 2, "tools/call", `{"name":"ask","_meta":`+statelessMeta(caps)+
		`,"inputResponses":{"elicitation-1":`+elicitAnswer+`},"requestState":"`+r1["requestState"].(string)+`"}`))
	if r2["resultType"] != "input_required" || r2["inputRequests"].(map[string]any)["sampling-2"] == nil {
		t.Fatalf("replica b did not continue the round trip: %v", r2)
	}
	// A third replica with its own keys refuses the state.
	other := newServer(t, nil)
	must(t, askingTool(other))
	resp := statelessCall(t, rawConn(t, other), 3, "tools/call", `{"name":"ask","_meta":`+statelessMeta(caps)+
		`,"inputResponses":{"elicitation-1":`+elicitAnswer+`},"requestState":"`+r1["requestState"].(string)+`"}`)
	if errCode(resp) != -32602 {
		t.Errorf("foreign keyring: want -32602, got %v", resp)
	}
}

func TestStatelessMissingCapability(t *testing.T) {
	srv := newServer(t, nil)
	must(t, askingTool(srv))
	c := rawConn(t, srv)
	resp := statelessCall(t, c, 1, "tools/call", `{"name":"ask","_meta":`+statelessMeta(`{}`)+`}`)
	if errCode(resp) != -32021 {
		t.Fatalf("want -32021, got %v", resp)
	}
	data, _ := resp["error"].(map[string]any)["data"].(map[string]any)
	req, _ := data["requiredCapabilities"].(map[string]any)
	if _, ok := req["elicitation"]; !ok {
		t.Errorf("requiredCapabilities = %v", data)
	}
}

func TestInputSameHandlerLegacy(t *testing.T) {
	srv := newServer(t, nil)
	must(t, askingTool(srv))
	cs, _ := connect(t, srv, &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, _ *mcp.ClientSession, p *protocol.ElicitParams) (*protocol.ElicitResult, error) {
			return &protocol.ElicitResult{Action: protocol.ElicitActionAccept, Content: map[string]any{"name": "ada"}}, nil
		},
		CreateMessageHandler: func(ctx context.Context, _ *mcp.ClientSession, p *protocol.CreateMessageParams) (*protocol.CreateMessageResult, error) {
			return &protocol.CreateMessageResult{Role: protocol.RoleAssistant, Content: protocol.SamplingContent{protocol.NewTextContent("fine")}, Model: "m"}, nil
		},
	})
	res, err := cs.CallTool(testkit.Context(t), "ask", nil)
	must(t, err)
	if got := text(t, res); got != "ada/fine" {
		t.Errorf("legacy result = %q", got)
	}
}
