package demo

// These tests drive the 2026-07-28 fixtures (conformance_stateless.go) the way the
// suite's scenarios do, with raw stateless requests over an in-memory connection
// whose server side is checked against the 2026-07-28 schema, and assert what the
// scenarios assert (and a little more). conformance_stateless_legacy_test.go runs the
// same handlers for a client that began with initialize.

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/internal/wirecheck"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport"
	"github.com/mcpkit/mcpkit/transport/memory"
)

// allCaps are the client capabilities the suite's stateless requests declare.
const allCaps = `{"sampling":{},"elicitation":{},"roots":{"listChanged":true}}`

// statelessMeta is a request _meta of 2026-07-28 declaring caps, plus extra members
// (`"key":value` pairs).
func statelessMeta(caps string, extra ...string) string {
	m := `{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
		`"io.modelcontextprotocol/clientInfo":{"name":"conformance-test-client","version":"1.0.0"},` +
		`"io.modelcontextprotocol/clientCapabilities":` + caps
	for _, e := range extra {
		m += "," + e
	}
	return m + "}"
}

// statelessConn serves the conformance fixtures to raw stateless requests; what the
// server writes is checked against the schema.
type statelessConn struct {
	t      *testing.T
	c      transport.Conn
	nextID int
}

func connectStateless(t *testing.T) *statelessConn {
	t.Helper()
	ctx := testkit.Context(t)
	srv := mcp.NewServer(protocol.Implementation{Name: "fixtures", Version: "1"}, &mcp.ServerOptions{Logger: slog.New(slog.DiscardHandler)})
	if err := addConformanceFixtures(srv, &Options{CountInterval: 2 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	c, s := memory.NewPair()
	ss, err := srv.Connect(ctx, wirecheck.Wrap(t, s, wirecheck.Server))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close(); _ = ss.Close() })
	return &statelessConn{t: t, c: c}
}

// message is one decoded JSON-RPC message from the server.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int64           `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

// send writes one request and returns its response and every message the server
// sent before it (notifications, or requests it must not send).
func (m *statelessConn) send(method, params string) (resp message, before []message) {
	m.t.Helper()
	m.nextID++
	id := m.nextID
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params)
	if err := m.c.Write(ctx, []byte(msg)); err != nil {
		m.t.Fatal(err)
	}
	for {
		raw, err := m.c.Read(ctx)
		if err != nil {
			m.t.Fatalf("%s: reading the answer: %v", method, err)
		}
		var got message
		if err := json.Unmarshal(raw, &got); err != nil {
			m.t.Fatalf("%s: %v in %s", method, err, raw)
		}
		if got.Method == "" && string(got.ID) == fmt.Sprint(id) {
			return got, before
		}
		before = append(before, got)
	}
}

// result sends a request and decodes its result, failing on an error response.
func (m *statelessConn) result(method, params string) map[string]any {
	m.t.Helper()
	resp, _ := m.send(method, params)
	if resp.Error != nil {
		m.t.Fatalf("%s %s: error %d %s", method, params, resp.Error.Code, resp.Error.Message)
	}
	var out map[string]any
	if err := json.Unmarshal(resp.Result, &out); err != nil {
		m.t.Fatal(err)
	}
	return out
}

// errorCode sends a request that must fail and returns the error's code and data.
func (m *statelessConn) errorCode(method, params string) (int64, json.RawMessage) {
	m.t.Helper()
	resp, _ := m.send(method, params)
	if resp.Error == nil {
		m.t.Fatalf("%s %s: want an error, got %s", method, params, resp.Result)
	}
	return resp.Error.Code, resp.Error.Data
}

// callParams are tools/call params: the tool, its _meta, and extra members.
func callParams(tool, meta string, extra ...string) string {
	p := `{"name":"` + tool + `","arguments":{},"_meta":` + meta
	for _, e := range extra {
		p += "," + e
	}
	return p + "}"
}

// inputRequired checks that res is an InputRequiredResult asking exactly for keys
// (key → method) and returns its requestState.
func inputRequired(t *testing.T, res map[string]any, want map[string]string) string {
	t.Helper()
	if res["resultType"] != "input_required" {
		t.Fatalf("want an InputRequiredResult, got %v", res)
	}
	reqs, _ := res["inputRequests"].(map[string]any)
	got := map[string]string{}
	for k, v := range reqs {
		r, _ := v.(map[string]any)
		got[k], _ = r["method"].(string)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("inputRequests = %v, want %v", got, want)
	}
	state, _ := res["requestState"].(string)
	if state == "" {
		t.Errorf("no requestState in %v", res)
	}
	return state
}

// toolText checks that res is a complete, successful tool result and returns its text.
func toolText(t *testing.T, res map[string]any) string {
	t.Helper()
	if res["resultType"] != "complete" || res["isError"] == true {
		t.Fatalf("want a complete successful result, got %v", res)
	}
	var b strings.Builder
	content, _ := res["content"].([]any)
	for _, c := range content {
		if block, _ := c.(map[string]any); block["type"] == "text" {
			b.WriteString(block["text"].(string))
		}
	}
	return b.String()
}

// The answers the suite's scenarios send (input-required-result-helpers.ts).
const (
	answerName    = `{"action":"accept","content":{"name":"Alice"}}`
	answerOK      = `{"action":"accept","content":{"ok":true}}`
	answerColor   = `{"action":"accept","content":{"color":"blue"}}`
	answerContext = `{"action":"accept","content":{"context":"test context"}}`
	answerSample  = `{"role":"assistant","content":{"type":"text","text":"Paris."},"model":"test-model","stopReason":"endTurn"}`
	answerRoots   = `{"roots":[{"uri":"file:///test/root","name":"Test Root"}]}`
)

// retry is the params member pair of a retry: inputResponses and the requestState.
func retry(responses, state string) []string {
	return []string{`"inputResponses":` + responses, `"requestState":` + fmt.Sprintf("%q", state)}
}

// input-required-result-basic-elicitation, -basic-sampling, -basic-list-roots,
// -request-state, -tampered-state (its valid path) and -result-type.
func TestStatelessInputRequiredSingleInput(t *testing.T) {
	m := connectStateless(t)
	for _, tc := range []struct {
		tool, key, method, answer, want string
	}{
		{"test_input_required_result_elicitation", "user_name", "elicitation/create", answerName, "Hello, Alice!"},
		{"test_input_required_result_sampling", "capital_question", "sampling/createMessage", answerSample, "LLM response: Paris."},
		{"test_input_required_result_list_roots", "client_roots", "roots/list", answerRoots, "Client roots: file:///test/root (Test Root)"},
		{"test_input_required_result_request_state", "confirm", "elicitation/create", answerOK, "state-ok: confirmed true"},
		{"test_input_required_result_tampered_state", "confirm", "elicitation/create", answerOK, "state-ok: confirmed true"},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			meta := statelessMeta(allCaps)
			state := inputRequired(t, m.result("tools/call", callParams(tc.tool, meta)), map[string]string{tc.key: tc.method})
			res := m.result("tools/call", callParams(tc.tool, meta, retry(`{"`+tc.key+`":`+tc.answer+`}`, state)...))
			if got := toolText(t, res); got != tc.want {
				t.Errorf("round 2 = %q, want %q", got, tc.want)
			}
		})
	}
}

// The elicitation fixture asks with the suite's message and form.
func TestStatelessElicitationRequestShape(t *testing.T) {
	m := connectStateless(t)
	res := m.result("tools/call", callParams("test_input_required_result_elicitation", statelessMeta(allCaps)))
	req := res["inputRequests"].(map[string]any)["user_name"].(map[string]any)
	params, _ := req["params"].(map[string]any)
	schema, _ := params["requestedSchema"].(map[string]any)
	if params["message"] != "What is your name?" || schema["type"] != "object" ||
		fmt.Sprint(schema["required"]) != "[name]" {
		t.Errorf("elicitation request = %v", req)
	}
}

// input-required-result-request-state: without the echoed requestState the answer
// is still used, but the text does not claim the state came back.
func TestStatelessRequestStateNotEchoed(t *testing.T) {
	m := connectStateless(t)
	res := m.result("tools/call", callParams("test_input_required_result_request_state", statelessMeta(allCaps), `"inputResponses":{"confirm":`+answerOK+`}`))
	if got := toolText(t, res); strings.Contains(got, "state-ok") {
		t.Errorf("without requestState the text = %q", got)
	}
}

// input-required-result-multiple-input-requests
func TestStatelessMultipleInputs(t *testing.T) {
	m := connectStateless(t)
	tool, meta := "test_input_required_result_multiple_inputs", statelessMeta(allCaps)
	state := inputRequired(t, m.result("tools/call", callParams(tool, meta)), map[string]string{
		"user_name": "elicitation/create", "greeting": "sampling/createMessage", "client_roots": "roots/list"})
	// Answering part of them asks again for the rest only.
	partial := m.result("tools/call", callParams(tool, meta, retry(`{"user_name":`+answerName+`}`, state)...))
	state = inputRequired(t, partial, map[string]string{"greeting": "sampling/createMessage", "client_roots": "roots/list"})
	res := m.result("tools/call", callParams(tool, meta, retry(`{"greeting":`+answerSample+`,"client_roots":`+answerRoots+`}`, state)...))
	if got := toolText(t, res); got != "Paris. Alice! Your roots: file:///test/root (Test Root)" {
		t.Errorf("complete result = %q", got)
	}
}

// input-required-result-multi-round: the second round asks a new question under a
// new key, with a new requestState carrying the first answer.
func TestStatelessMultiRound(t *testing.T) {
	m := connectStateless(t)
	tool, meta := "test_input_required_result_multi_round", statelessMeta(allCaps)
	s1 := inputRequired(t, m.result("tools/call", callParams(tool, meta)), map[string]string{"step1": "elicitation/create"})
	s2 := inputRequired(t, m.result("tools/call", callParams(tool, meta, retry(`{"step1":`+answerName+`}`, s1)...)), map[string]string{"step2": "elicitation/create"})
	if s1 == s2 {
		t.Error("round 2 returned the requestState of round 1")
	}
	res := m.result("tools/call", callParams(tool, meta, retry(`{"step2":`+answerColor+`}`, s2)...))
	if got := toolText(t, res); got != "Alice's favorite color is blue." {
		t.Errorf("round 3 = %q", got)
	}
	// The state of round 1 does not carry step1's answer: retrying with it and
	// step2 only asks for step1 again.
	again := m.result("tools/call", callParams(tool, meta, retry(`{"step2":`+answerColor+`}`, s1)...))
	inputRequired(t, again, map[string]string{"step1": "elicitation/create"})
}

// input-required-result-non-tool-request
func TestStatelessInputRequiredPrompt(t *testing.T) {
	m := connectStateless(t)
	meta := statelessMeta(allCaps)
	r1 := m.result("prompts/get", `{"name":"test_input_required_result_prompt","_meta":`+meta+`}`)
	state := inputRequired(t, r1, map[string]string{"user_context": "elicitation/create"})
	r2 := m.result("prompts/get", `{"name":"test_input_required_result_prompt","_meta":`+meta+`,`+strings.Join(retry(`{"user_context":`+answerContext+`}`, state), ",")+`}`)
	msgs, _ := r2["messages"].([]any)
	if r2["resultType"] != "complete" || len(msgs) != 1 || !strings.Contains(fmt.Sprint(msgs[0]), "Answer using this context: test context") {
		t.Errorf("prompt after the answer = %v", r2)
	}
}

// input-required-result-tampered-state, -validate-input, -missing-input-response and
// -ignore-extra-params: what the SDK does with bad retries, seen through the fixtures.
func TestStatelessBadRetries(t *testing.T) {
	m := connectStateless(t)
	meta := statelessMeta(allCaps)
	tampered := "test_input_required_result_tampered_state"
	state := inputRequired(t, m.result("tools/call", callParams(tampered, meta)), map[string]string{"confirm": "elicitation/create"})
	if code, _ := m.errorCode("tools/call", callParams(tampered, meta, retry(`{"confirm":`+answerOK+`}`, state+"-TAMPERED")...)); code != mcp.CodeInvalidParams {
		t.Errorf("tampered requestState: code %d, want -32602", code)
	}
	// A state minted for one tool is refused by another.
	if code, _ := m.errorCode("tools/call", callParams("test_input_required_result_request_state", meta, retry(`{"confirm":`+answerOK+`}`, state)...)); code != mcp.CodeInvalidParams {
		t.Errorf("requestState of another tool: code %d, want -32602", code)
	}

	elicit := "test_input_required_result_elicitation"
	for _, bad := range []string{`{"user_name":12345}`, `{"user_name":"Alice"}`, `{"user_name":{"action":7}}`} {
		if code, _ := m.errorCode("tools/call", callParams(elicit, meta, `"inputResponses":`+bad)); code != mcp.CodeInvalidParams {
			t.Errorf("inputResponses %s: code %d, want -32602", bad, code)
		}
	}
	// A missing answer is asked for again; unknown extra answers are ignored.
	inputRequired(t, m.result("tools/call", callParams(elicit, meta, `"inputResponses":{"wrong_key":`+answerName+`}`)), map[string]string{"user_name": "elicitation/create"})
	inputRequired(t, m.result("tools/call", callParams(elicit, meta, `"inputResponses":null`)), map[string]string{"user_name": "elicitation/create"})
	extra := m.result("tools/call", callParams(elicit, meta, `"inputResponses":{"user_name":`+answerName+`,"unknown_extra_key":{"action":"accept","content":{"foo":"bar"}},"another_unexpected":{"action":"accept"}}`))
	if got := toolText(t, extra); got != "Hello, Alice!" {
		t.Errorf("with extra answers = %q", got)
	}
	declined := m.result("tools/call", callParams(elicit, meta, `"inputResponses":{"user_name":{"action":"decline"}}`))
	if declined["isError"] != true || !strings.Contains(fmt.Sprint(declined["content"]), "decline") {
		t.Errorf("declined form = %v", declined)
	}
}

// input-required-result-capability-check: only what the client declared is asked.
func TestStatelessAsksOnlyDeclaredCapabilities(t *testing.T) {
	m := connectStateless(t)
	tool := "test_input_required_result_capabilities"
	for _, tc := range []struct {
		caps string
		want map[string]string
	}{
		{`{"sampling":{}}`, map[string]string{"capital_question": "sampling/createMessage"}},
		{`{"elicitation":{"url":{}}}`, map[string]string{}},
		{`{"elicitation":{},"roots":{}}`, map[string]string{"user_name": "elicitation/create", "client_roots": "roots/list"}},
		{allCaps, map[string]string{"capital_question": "sampling/createMessage", "user_name": "elicitation/create", "client_roots": "roots/list"}},
	} {
		res := m.result("tools/call", callParams(tool, statelessMeta(tc.caps)))
		if len(tc.want) == 0 {
			if got := toolText(t, res); !strings.Contains(got, "nothing to ask") {
				t.Errorf("caps %s: %q", tc.caps, got)
			}
			continue
		}
		inputRequired(t, res, tc.want)
	}
	res := m.result("tools/call", callParams(tool, statelessMeta(`{"sampling":{}}`), `"inputResponses":{"capital_question":`+answerSample+`}`))
	if got := toolText(t, res); got != "model: Paris." {
		t.Errorf("answered = %q", got)
	}
}

// server-stateless, sep-2575-server-rejects-undeclared-capability: -32021 naming
// sampling as a ClientCapabilities object.
func TestStatelessMissingCapability(t *testing.T) {
	m := connectStateless(t)
	code, data := m.errorCode("tools/call", callParams("test_missing_capability", statelessMeta(`{}`)))
	var d struct {
		RequiredCapabilities map[string]json.RawMessage `json:"requiredCapabilities"`
	}
	if err := json.Unmarshal(data, &d); code != protocol.CodeMissingClientCapability || err != nil ||
		len(d.RequiredCapabilities) != 1 || !strings.HasPrefix(string(d.RequiredCapabilities["sampling"]), "{") {
		t.Errorf("code %d, data %s", code, data)
	}
	inputRequired(t, m.result("tools/call", callParams("test_missing_capability", statelessMeta(`{"sampling":{}}`))), map[string]string{"sampling-1": "sampling/createMessage"})
}

// server-stateless, sep-2575-http-server-no-independent-requests-on-stream: the
// stream of a call carries notifications and the answer, never a request.
func TestStatelessStreamingElicitation(t *testing.T) {
	m := connectStateless(t)
	meta := statelessMeta(`{"elicitation":{}}`, `"progressToken":"p1"`)
	resp, before := m.send("tools/call", callParams("test_streaming_elicitation", meta))
	for _, b := range before {
		if len(b.ID) > 0 || b.Method != "notifications/progress" {
			t.Errorf("before the answer the server sent %+v", b)
		}
	}
	if len(before) != 1 {
		t.Errorf("want one progress notification before the answer, got %d", len(before))
	}
	var res map[string]any
	if err := json.Unmarshal(resp.Result, &res); err != nil {
		t.Fatal(err)
	}
	state := inputRequired(t, res, map[string]string{"elicitation-1": "elicitation/create"})
	done := m.result("tools/call", callParams("test_streaming_elicitation", meta, retry(`{"elicitation-1":`+answerName+`}`, state)...))
	if got := toolText(t, done); got != "Hello, Alice!" {
		t.Errorf("after the answer = %q", got)
	}
}

// server-stateless, sep-2575-server-no-log-without-loglevel: no log message unless
// the request's _meta names a level, then only those at or above it.
func TestStatelessLoggingTool(t *testing.T) {
	m := connectStateless(t)
	resp, before := m.send("tools/call", callParams("test_logging_tool", statelessMeta(`{}`)))
	if resp.Error != nil || len(before) != 0 {
		t.Errorf("without logLevel: %+v, then %+v", before, resp)
	}
	_, before = m.send("tools/call", callParams("test_logging_tool", statelessMeta(`{}`, `"io.modelcontextprotocol/logLevel":"warning"`)))
	var levels []string
	for _, b := range before {
		var p protocol.LoggingMessageParams
		if b.Method != "notifications/message" || json.Unmarshal(b.Params, &p) != nil {
			t.Errorf("unexpected message %+v", b)
		}
		levels = append(levels, string(p.Level))
	}
	if !slices.Equal(levels, []string{"warning", "error"}) {
		t.Errorf("logLevel warning: got %v", levels)
	}
}

// server-stateless, list-changed checks: each trigger really changes its list, and
// a subscriptions/listen stream for that list hears about it.
func TestStatelessListChangeTriggers(t *testing.T) {
	m := connectStateless(t)
	meta := statelessMeta(`{}`)
	names := func(method, field string) []string {
		var out []string
		items, _ := m.result(method, `{"_meta":`+meta+`}`)[field].([]any)
		for _, it := range items {
			out = append(out, it.(map[string]any)["name"].(string))
		}
		return out
	}
	for _, tc := range []struct{ trigger, list, field, dynamic string }{
		{"test_trigger_tool_change", "tools/list", "tools", dynamicToolName},
		{"test_trigger_prompt_change", "prompts/list", "prompts", dynamicPromptName},
	} {
		before := slices.Contains(names(tc.list, tc.field), tc.dynamic)
		toolText(t, m.result("tools/call", callParams(tc.trigger, meta)))
		if after := slices.Contains(names(tc.list, tc.field), tc.dynamic); after == before {
			t.Errorf("%s did not change %s (present before: %v, after: %v)", tc.trigger, tc.list, before, after)
		}
		toolText(t, m.result("tools/call", callParams(tc.trigger, meta)))
		if again := slices.Contains(names(tc.list, tc.field), tc.dynamic); again != before {
			t.Errorf("a second %s did not undo the first", tc.trigger)
		}
	}
}

// The listen stream of server-stateless: acknowledged first, then the tools
// list_changed that test_trigger_tool_change causes, tagged with the subscription.
func TestStatelessTriggerReachesListenStream(t *testing.T) {
	m := connectStateless(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	listen := `{"jsonrpc":"2.0","id":"sub","method":"subscriptions/listen","params":{"_meta":` + statelessMeta(`{}`) + `,"notifications":{"toolsListChanged":true}}}`
	if err := m.c.Write(ctx, []byte(listen)); err != nil {
		t.Fatal(err)
	}
	read := func() message {
		raw, err := m.c.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var msg message
		if err := json.Unmarshal(raw, &msg); err != nil {
			t.Fatal(err)
		}
		return msg
	}
	if ack := read(); ack.Method != "notifications/subscriptions/acknowledged" {
		t.Fatalf("first message = %+v", ack)
	}
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":` + callParams("test_trigger_tool_change", statelessMeta(`{}`)) + `}`
	if err := m.c.Write(ctx, []byte(call)); err != nil {
		t.Fatal(err)
	}
	sawChange, sawAnswer := false, false
	for !sawChange || !sawAnswer {
		msg := read()
		switch {
		case msg.Method == "notifications/tools/list_changed":
			if !strings.Contains(string(msg.Params), `"io.modelcontextprotocol/subscriptionId":"sub"`) {
				t.Errorf("list_changed without the subscription id: %s", msg.Params)
			}
			sawChange = true
		case string(msg.ID) == "1":
			sawAnswer = true
		default:
			t.Errorf("unexpected message %+v", msg)
		}
	}
}

// http-custom-header-server-validation needs a tool whose string parameter is
// mirrored in an Mcp-Param header.
func TestStatelessParamHeaderTool(t *testing.T) {
	m := connectStateless(t)
	tools, _ := m.result("tools/list", `{"_meta":`+statelessMeta(`{}`)+`}`)["tools"].([]any)
	var schema map[string]any
	for _, tl := range tools {
		if tool := tl.(map[string]any); tool["name"] == "test_param_header" {
			schema, _ = tool["inputSchema"].(map[string]any)
		}
	}
	region, _ := schema["properties"].(map[string]any)["region"].(map[string]any)
	if region["type"] != "string" || region["x-mcp-header"] != "Region" || fmt.Sprint(schema["required"]) != "[region]" {
		t.Fatalf("test_param_header inputSchema = %v", schema)
	}
	res := m.result("tools/call", `{"name":"test_param_header","arguments":{"region":"eu-west"},"_meta":`+statelessMeta(`{}`)+`}`)
	if got := toolText(t, res); got != "region: eu-west" {
		t.Errorf("test_param_header = %q", got)
	}
}
