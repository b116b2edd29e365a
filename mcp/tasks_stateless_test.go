package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport"
	"github.com/mcpkit/mcpkit/transport/memory"
)

// The tasks extension (2026-07-28) over raw JSON. The connections are not
// schema-checked: the 2026-07-28 schema does not define the extension.

const (
	capsTasks       = `{"extensions":{"io.modelcontextprotocol/tasks":{}},"elicitation":{}}`
	capsTasksNoElic = `{"extensions":{"io.modelcontextprotocol/tasks":{}}}`
	capsNone        = `{"elicitation":{}}`
)

// statelessParams returns params with the given fields (a JSON object body without
// braces, or "") and a complete 2026-07-28 _meta declaring caps.
func statelessParams(caps, fields string) string {
	if fields != "" {
		fields += ","
	}
	return "{" + fields + `"_meta":` + statelessMeta(caps) + "}"
}

// taskCall is a tools/call of name with args declaring caps.
func taskCall(t *testing.T, c transport.Conn, id int, caps, name, args string) map[string]any {
	t.Helper()
	return statelessCall(t, c, id, "tools/call", statelessParams(caps, fmt.Sprintf(`"name":%q,"arguments":%s`, name, args)))
}

// taskMethod sends tasks/get, tasks/update or tasks/cancel for id.
func taskMethod(t *testing.T, c transport.Conn, n int, caps, method, id, extra string) map[string]any {
	t.Helper()
	fields := fmt.Sprintf(`"taskId":%q`, id)
	if extra != "" {
		fields += "," + extra
	}
	return statelessCall(t, c, n, method, statelessParams(caps, fields))
}

// createdTaskID checks that a tools/call result is a CreateTaskResult of the
// extension and returns its task id.
func createdTaskID(t *testing.T, resp map[string]any) string {
	t.Helper()
	res := result(t, resp)
	id, _ := res["taskId"].(string)
	if res["resultType"] != "task" || id == "" || res["status"] != "working" {
		t.Fatalf("want a CreateTaskResult, got %v", res)
	}
	for _, k := range []string{"task", "result", "error", "inputRequests", "requestState", "ttl", "pollInterval"} {
		if _, ok := res[k]; ok {
			t.Errorf("CreateTaskResult carries %q: %v", k, res)
		}
	}
	if ttl, ok := res["ttlMs"].(float64); !ok || ttl <= 0 {
		t.Errorf("ttlMs = %v", res["ttlMs"])
	}
	if _, ok := res["pollIntervalMs"].(float64); !ok {
		t.Errorf("pollIntervalMs = %v", res["pollIntervalMs"])
	}
	meta, _ := res["_meta"].(map[string]any)
	if _, ok := meta[protocol.MetaKeyServerInfo]; !ok {
		t.Errorf("CreateTaskResult _meta = %v, want serverInfo", meta)
	}
	return id
}

// isAck reports whether a result is the extension's empty acknowledgement.
func isAck(res map[string]any) bool {
	if res["resultType"] != "complete" {
		return false
	}
	for k := range res {
		if k != "resultType" && k != "_meta" {
			return false
		}
	}
	return true
}

func TestTaskStatelessLifecycle(t *testing.T) {
	f := newTaskFixture(t, nil, nil)
	c := uncheckedConn(t, f.srv)

	disc := result(t, statelessCall(t, c, 1, "server/discover", statelessParams(capsTasks, "")))
	caps, _ := disc["capabilities"].(map[string]any)
	ext, _ := caps["extensions"].(map[string]any)
	if _, ok := ext[protocol.ExtensionTasks]; !ok || caps["tasks"] != nil {
		t.Errorf("discover capabilities = %v; want the tasks extension and no 2025-11-25 tasks", caps)
	}

	id := createdTaskID(t, taskCall(t, c, 2, capsTasks, "job", `{"label":"m"}`))
	testkit.Receive(t, f.started)
	got := result(t, taskMethod(t, c, 3, capsTasks, "tasks/get", id, ""))
	if got["status"] != "working" || got["resultType"] != "complete" || got["taskId"] != id {
		t.Errorf("tasks/get while working = %v", got)
	}
	for _, k := range []string{"result", "error", "inputRequests", "requestState"} {
		if _, ok := got[k]; ok {
			t.Errorf("a working task carries %q", k)
		}
	}
	close(f.release)
	f.waitStatus(t, id, protocol.TaskStatusCompleted)
	got = result(t, taskMethod(t, c, 4, capsTasks, "tasks/get", id, ""))
	inner, _ := got["result"].(map[string]any)
	content, _ := inner["content"].([]any)
	if got["status"] != "completed" || len(content) != 1 || inner["resultType"] != "complete" {
		t.Fatalf("tasks/get when completed = %v", got)
	}
	if text, _ := content[0].(map[string]any)["text"].(string); text != "done: m" {
		t.Errorf("inline result text = %q", text)
	}
	if meta, _ := inner["_meta"].(map[string]any); meta[protocol.MetaKeyRelatedTask] != nil {
		t.Errorf("the inline result carries related-task: %v", meta)
	}
	if ack := result(t, taskMethod(t, c, 5, capsTasks, "tasks/cancel", id, "")); !isAck(ack) {
		t.Errorf("tasks/cancel of a finished task = %v, want an empty ack", ack)
	}
	if got := result(t, taskMethod(t, c, 6, capsTasks, "tasks/get", id, "")); got["status"] != "completed" {
		t.Errorf("a finished task changed on tasks/cancel: %v", got["status"])
	}
}

func TestTaskStatelessGating(t *testing.T) {
	f := newTaskFixture(t, nil, nil)
	c := uncheckedConn(t, f.srv)
	n := 0
	next := func() int { n++; return n }

	for _, m := range []string{"tasks/get", "tasks/update", "tasks/cancel"} {
		resp := taskMethod(t, c, next(), capsNone, m, "x", `"inputResponses":{}`)
		if errCode(resp) != protocol.CodeMissingClientCapability {
			t.Errorf("%s without the extension = %v, want -32021", m, resp)
		}
	}
	resp := taskCall(t, c, next(), capsNone, "must", `{}`)
	e, _ := resp["error"].(map[string]any)
	data, _ := e["data"].(map[string]any)
	req, _ := data["requiredCapabilities"].(map[string]any)
	exts, _ := req["extensions"].(map[string]any)
	if errCode(resp) != protocol.CodeMissingClientCapability || exts[protocol.ExtensionTasks] == nil {
		t.Errorf("a required-task tool without the extension = %v, want -32021 naming the extension", resp)
	}
	if f.runs("must") != 0 {
		t.Error("the refused call ran its handler")
	}
	res := result(t, taskCall(t, c, next(), capsNone, "quick", `{"label":"s"}`))
	if res["resultType"] != "complete" || res["taskId"] != nil {
		t.Errorf("an optional-task tool without the extension = %v, want a plain result", res)
	}
	res = result(t, statelessCall(t, c, next(), "tools/call", statelessParams(capsTasks, `"name":"plain","arguments":{},"task":{"ttl":1000}`)))
	if res["resultType"] != "complete" || res["taskId"] != nil {
		t.Errorf("a tool without task support (and a legacy task param) = %v, want a plain result", res)
	}
	res = result(t, taskCall(t, c, next(), capsTasks, "quick", `{"label":5}`))
	if res["isError"] != true || res["taskId"] != nil {
		t.Errorf("invalid arguments = %v, want an isError result at once", res)
	}
	for _, m := range []string{"tasks/result", "tasks/list"} {
		if resp := statelessCall(t, c, next(), m, statelessParams(capsTasks, `"taskId":"x"`)); errCode(resp) != mcp.CodeMethodNotFound {
			t.Errorf("%s in 2026-07-28 = %v, want -32601", m, resp)
		}
	}
	for _, m := range []string{"tasks/get", "tasks/cancel", "tasks/update"} {
		if resp := taskMethod(t, c, next(), capsTasks, m, "no-such-task", `"inputResponses":{}`); errCode(resp) != mcp.CodeInvalidParams {
			t.Errorf("%s of an unknown task = %v, want -32602", m, resp)
		}
	}
}

func TestTaskStatelessCancel(t *testing.T) {
	f := newTaskFixture(t, nil, nil)
	c := uncheckedConn(t, f.srv)
	id := createdTaskID(t, taskCall(t, c, 1, capsTasks, "job", `{}`))
	testkit.Receive(t, f.started)
	if ack := result(t, taskMethod(t, c, 2, capsTasks, "tasks/cancel", id, "")); !isAck(ack) {
		t.Errorf("tasks/cancel = %v, want an empty ack", ack)
	}
	testkit.Receive(t, f.stopped)
	if got := result(t, taskMethod(t, c, 3, capsTasks, "tasks/get", id, "")); got["status"] != "cancelled" || got["result"] != nil {
		t.Errorf("after tasks/cancel: %v, want cancelled without a result", got)
	}
}

func TestTaskStatelessFailures(t *testing.T) {
	f := newTaskFixture(t, nil, nil)
	c := uncheckedConn(t, f.srv)

	id := createdTaskID(t, taskCall(t, c, 1, capsTasks, "tool_error", `{}`))
	f.waitStatus(t, id, protocol.TaskStatusCompleted)
	got := result(t, taskMethod(t, c, 2, capsTasks, "tasks/get", id, ""))
	if inner, _ := got["result"].(map[string]any); got["status"] != "completed" || inner["isError"] != true {
		t.Errorf("a tool error = %v, want completed with isError (the extension keeps failed for protocol errors)", got)
	}

	id = createdTaskID(t, taskCall(t, c, 3, capsTasks, "rpc_error", `{}`))
	f.waitStatus(t, id, protocol.TaskStatusFailed)
	got = result(t, taskMethod(t, c, 4, capsTasks, "tasks/get", id, ""))
	e, _ := got["error"].(map[string]any)
	if e["code"] != float64(-32099) || e["message"] != "backend down" || got["result"] != nil {
		t.Errorf("a protocol error = %v, want failed with the error and no result", got)
	}

	id = createdTaskID(t, taskCall(t, c, 5, capsTasks, "panics", `{}`))
	f.waitStatus(t, id, protocol.TaskStatusFailed)
	got = result(t, taskMethod(t, c, 6, capsTasks, "tasks/get", id, ""))
	if e, _ := got["error"].(map[string]any); e["code"] != float64(mcp.CodeInternalError) {
		t.Errorf("a panic = %v, want failed with -32603", got)
	}

	// A task that needs a capability the call did not declare fails with -32021.
	id = createdTaskID(t, taskCall(t, c, 7, capsTasksNoElic, "ask", `{}`))
	f.waitStatus(t, id, protocol.TaskStatusFailed)
	got = result(t, taskMethod(t, c, 8, capsTasksNoElic, "tasks/get", id, ""))
	if e, _ := got["error"].(map[string]any); e["code"] != float64(protocol.CodeMissingClientCapability) {
		t.Errorf("a task lacking elicitation = %v, want failed with -32021", got)
	}
}

func TestTaskStatelessInput(t *testing.T) {
	f := newTaskFixture(t, nil, nil)
	c := uncheckedConn(t, f.srv)
	id := createdTaskID(t, taskCall(t, c, 1, capsTasks, "ask", `{}`))
	f.waitStatus(t, id, protocol.TaskStatusInputRequired)

	got := result(t, taskMethod(t, c, 2, capsTasks, "tasks/get", id, ""))
	reqs, _ := got["inputRequests"].(map[string]any)
	if got["status"] != "input_required" || len(reqs) != 1 {
		t.Fatalf("tasks/get = %v, want input_required with one request", got)
	}
	var key string
	for k, v := range reqs {
		key = k
		if m, _ := v.(map[string]any); m["method"] != protocol.MethodElicitationCreate {
			t.Errorf("input request %s = %v, want an elicitation", k, v)
		}
	}
	// An answer under a key the task is not waiting on is ignored.
	if ack := result(t, taskMethod(t, c, 3, capsTasks, "tasks/update", id, `"inputResponses":{"other":{"action":"accept"}}`)); !isAck(ack) {
		t.Errorf("tasks/update with an unknown key = %v, want an ack", ack)
	}
	// An answer that is not an elicitation result is refused.
	if resp := taskMethod(t, c, 4, capsTasks, "tasks/update", id, fmt.Sprintf(`"inputResponses":{%q:5}`, key)); errCode(resp) != mcp.CodeInvalidParams {
		t.Errorf("tasks/update with a malformed answer = %v, want -32602", resp)
	}
	if got := result(t, taskMethod(t, c, 5, capsTasks, "tasks/get", id, "")); got["status"] != "input_required" {
		t.Errorf("after ignored answers: %v, want still input_required", got["status"])
	}
	ack := result(t, taskMethod(t, c, 6, capsTasks, "tasks/update", id, fmt.Sprintf(`"inputResponses":{%q:{"action":"accept","content":{"ok":true}}}`, key)))
	if !isAck(ack) {
		t.Errorf("tasks/update = %v, want an empty ack", ack)
	}
	f.waitStatus(t, id, protocol.TaskStatusCompleted)
	got = result(t, taskMethod(t, c, 7, capsTasks, "tasks/get", id, ""))
	inner, _ := got["result"].(map[string]any)
	content, _ := inner["content"].([]any)
	if len(content) != 1 || content[0].(map[string]any)["text"] != "answer: accept true" {
		t.Errorf("result = %v", got)
	}
	// The handler ran twice: once to ask, once with the answer.
	if n := f.runs("ask"); n != 2 {
		t.Errorf("the handler ran %d times, want 2", n)
	}
}

func TestTaskStatelessPartialInput(t *testing.T) {
	f := newTaskFixture(t, nil, nil)
	c := uncheckedConn(t, f.srv)
	id := createdTaskID(t, taskCall(t, c, 1, capsTasks, "ask_two", `{}`))
	f.waitStatus(t, id, protocol.TaskStatusInputRequired)
	got := result(t, taskMethod(t, c, 2, capsTasks, "tasks/get", id, ""))
	if reqs, _ := got["inputRequests"].(map[string]any); len(reqs) != 2 || reqs["a"] == nil || reqs["b"] == nil {
		t.Fatalf("tasks/get = %v, want requests a and b", got)
	}
	result(t, taskMethod(t, c, 3, capsTasks, "tasks/update", id, `"inputResponses":{"a":{"action":"accept","content":{"ok":true}}}`))
	got = result(t, taskMethod(t, c, 4, capsTasks, "tasks/get", id, ""))
	reqs, _ := got["inputRequests"].(map[string]any)
	if got["status"] != "input_required" || len(reqs) != 1 || reqs["b"] == nil {
		t.Errorf("after answering a: %v, want input_required with only b", got)
	}
	result(t, taskMethod(t, c, 5, capsTasks, "tasks/update", id, `"inputResponses":{"b":{"action":"accept","content":{"ok":false}}}`))
	f.waitStatus(t, id, protocol.TaskStatusCompleted)
	got = result(t, taskMethod(t, c, 6, capsTasks, "tasks/get", id, ""))
	inner, _ := got["result"].(map[string]any)
	content, _ := inner["content"].([]any)
	if len(content) != 1 || content[0].(map[string]any)["text"] != "a=true b=false" {
		t.Errorf("result = %v", got)
	}
}

func TestRunAsTaskAfterInputRoundTrip(t *testing.T) {
	f := newTaskFixture(t, nil, nil)
	c := uncheckedConn(t, f.srv)

	r1 := result(t, taskCall(t, c, 1, capsTasks, "compose", `{}`))
	if r1["resultType"] != "input_required" || r1["taskId"] != nil {
		t.Fatalf("round 1 = %v, want input_required and no task", r1)
	}
	state, _ := r1["requestState"].(string)
	reqs, _ := r1["inputRequests"].(map[string]any)
	var key string
	for k := range reqs {
		key = k
	}
	retry := fmt.Sprintf(`"name":"compose","arguments":{},"requestState":%q,"inputResponses":{%q:{"action":"accept","content":{"name":"Alice"}}}`, state, key)
	id := createdTaskID(t, statelessCall(t, c, 2, "tools/call", statelessParams(capsTasks, retry)))
	f.waitStatus(t, id, protocol.TaskStatusCompleted)
	got := result(t, taskMethod(t, c, 3, capsTasks, "tasks/get", id, ""))
	inner, _ := got["result"].(map[string]any)
	content, _ := inner["content"].([]any)
	if len(content) != 1 || content[0].(map[string]any)["text"] != "Hello, Alice" {
		t.Errorf("task result = %v", got)
	}

	// Without the extension the same handler answers at once.
	r1 = result(t, taskCall(t, c, 4, capsNone, "compose", `{}`))
	state, _ = r1["requestState"].(string)
	retry = fmt.Sprintf(`"name":"compose","arguments":{},"requestState":%q,"inputResponses":{%q:{"action":"accept","content":{"name":"Bob"}}}`, state, key)
	res := result(t, statelessCall(t, c, 5, "tools/call", statelessParams(capsNone, retry)))
	if content, _ := res["content"].([]any); res["resultType"] != "complete" || len(content) != 1 || content[0].(map[string]any)["text"] != "Hello, Bob" {
		t.Errorf("without the extension = %v, want the result at once", res)
	}
}

func TestRunAsTaskInLegacySession(t *testing.T) {
	f := newTaskFixture(t, nil, nil)
	cs, _ := legacyClient(t, f.srv, protocol.Version20251125)
	res, err := cs.CallTool(testkit.Context(t), "compose", nil)
	must(t, err)
	if text(t, res) != "Hello, Ada" {
		t.Errorf("RunAsTask in a legacy session = %q, want the result at once", text(t, res))
	}
}

// principalConn connects a raw connection whose requests come from principal.
func principalConn(t *testing.T, srv *mcp.Server, principal string) transport.Conn {
	t.Helper()
	c, s := memory.NewPair()
	ss, err := srv.Connect(transport.WithPrincipal(testkit.Context(t), principal), s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close(); _ = ss.Close() })
	return c
}

func TestTaskStatelessPrincipalIsolation(t *testing.T) {
	f := newTaskFixture(t, nil, nil)
	alice, alice2, bob := principalConn(t, f.srv, "alice"), principalConn(t, f.srv, "alice"), principalConn(t, f.srv, "bob")
	anon := uncheckedConn(t, f.srv)

	id := createdTaskID(t, taskCall(t, alice, 1, capsTasks, "quick", `{}`))
	for name, c := range map[string]transport.Conn{"bob": bob, "anonymous": anon} {
		if resp := taskMethod(t, c, 2, capsTasks, "tasks/get", id, ""); errCode(resp) != mcp.CodeInvalidParams {
			t.Errorf("%s reading alice's task = %v, want -32602", name, resp)
		}
		if resp := taskMethod(t, c, 3, capsTasks, "tasks/cancel", id, ""); errCode(resp) != mcp.CodeInvalidParams {
			t.Errorf("%s cancelling alice's task = %v, want -32602", name, resp)
		}
	}
	if got := result(t, taskMethod(t, alice2, 4, capsTasks, "tasks/get", id, "")); got["taskId"] != id {
		t.Errorf("alice on another connection = %v, want her task", got)
	}
}

func TestTaskStatelessIDsAreUnguessable(t *testing.T) {
	f := newTaskFixture(t, nil, nil)
	c := uncheckedConn(t, f.srv)
	seen := map[string]bool{}
	for i := range 20 {
		id := createdTaskID(t, taskCall(t, c, i+1, capsTasks, "quick", `{}`))
		if len(id) < 26 || strings.ContainsAny(id, "/+=") || seen[id] {
			t.Fatalf("task id %q: want 26+ URL-safe random characters, never repeated", id)
		}
		seen[id] = true
	}
}

// TestTaskStatelessClient follows a task with the stateless client: AwaitTask
// polls tasks/get and answers the task's input requests through the client's
// elicitation handler.
func TestTaskStatelessClient(t *testing.T) {
	f := newTaskFixture(t, nil, nil)
	raw := uncheckedConn(t, f.srv)
	id := createdTaskID(t, taskCall(t, raw, 1, capsTasks, "ask", `{}`))

	c, s := memory.NewPair()
	ss, err := f.srv.Connect(testkit.Context(t), s)
	must(t, err)
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := mcp.NewClient(protocol.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{
		ProtocolVersion: protocol.Version20260728,
		Capabilities: &protocol.ClientCapabilities{Elicitation: &protocol.ElicitationCapability{},
			Extensions: map[string]map[string]any{protocol.ExtensionTasks: {}}},
		ElicitationHandler: func(ctx context.Context, cs *mcp.ClientSession, p *protocol.ElicitParams) (*protocol.ElicitResult, error) {
			return &protocol.ElicitResult{Action: protocol.ElicitActionAccept, Content: map[string]any{"ok": true}}, nil
		},
	}).Connect(testkit.Context(t), c)
	must(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	if !cs.IsStateless() {
		t.Fatal("the client did not speak 2026-07-28")
	}
	res, err := cs.AwaitTask(testkit.Context(t), id)
	must(t, err)
	if text(t, res) != "answer: accept true" {
		t.Errorf("AwaitTask = %q", text(t, res))
	}
	if _, err := cs.ListTasks(testkit.Context(t), ""); err == nil {
		t.Error("ListTasks on a stateless session succeeded")
	}
	task, err := cs.GetTask(testkit.Context(t), id)
	must(t, err)
	if task.Status != protocol.TaskStatusCompleted || len(task.Result) == 0 {
		t.Errorf("GetTask = %+v, want completed with the result", task)
	}
	if err := cs.CancelTask(testkit.Context(t), id); err != nil {
		t.Errorf("CancelTask of a finished task: %v, want an ack", err)
	}
	var decoded protocol.CallToolResult
	must(t, json.Unmarshal(task.Result, &decoded))
}

// TestRunAsTaskWaitsForInput checks that a handler that calls RunAsTask while
// its input is still missing gets no task: the call asks for the input.
func TestRunAsTaskWaitsForInput(t *testing.T) {
	f := newTaskFixture(t, nil, nil)
	must(t, mcp.AddTool(f.srv, &protocol.Tool{Name: "hasty"}, func(ctx context.Context, r *mcp.ToolRequest, _ struct{}) (*protocol.CallToolResult, error) {
		_, _ = r.Elicit(ctx, &protocol.ElicitParams{Message: "ok?", RequestedSchema: confirmSchema}) // error ignored
		return r.RunAsTask(ctx, func(ctx context.Context, r *mcp.ToolRequest) (*protocol.CallToolResult, error) {
			return protocol.NewToolResultText("ran"), nil
		})
	}))
	c := uncheckedConn(t, f.srv)
	res := result(t, taskCall(t, c, 1, capsTasks, "hasty", `{}`))
	if res["resultType"] != "input_required" || res["taskId"] != nil {
		t.Errorf("hasty = %v, want input_required and no task", res)
	}
	if n := f.store.Len(); n != 0 {
		t.Errorf("%d tasks were created", n)
	}
}

func TestTaskCapabilityDeclaration(t *testing.T) {
	discover := func(srv *mcp.Server) map[string]any {
		caps, _ := result(t, statelessCall(t, uncheckedConn(t, srv), 1, "server/discover", statelessParams(`{}`, "")))["capabilities"].(map[string]any)
		ext, _ := caps["extensions"].(map[string]any)
		return ext
	}
	srv := newServer(t, nil)
	must(t, mcp.AddTool(srv, &protocol.Tool{Name: "plain"}, func(ctx context.Context, r *mcp.ToolRequest, _ struct{}) (string, error) { return "", nil }))
	if ext := discover(srv); ext[protocol.ExtensionTasks] != nil {
		t.Errorf("a server without task tools declares %v", ext)
	}
	must(t, mcp.AddTool(srv, &protocol.Tool{Name: "long", Execution: &protocol.ToolExecution{TaskSupport: protocol.TaskSupportOptional}},
		func(ctx context.Context, r *mcp.ToolRequest, _ struct{}) (string, error) { return "", nil }))
	if ext := discover(srv); ext[protocol.ExtensionTasks] == nil {
		t.Errorf("a server with a task tool does not declare the extension: %v", ext)
	}
	explicit := newServer(t, &mcp.ServerOptions{Tasks: &mcp.TaskOptions{}})
	if ext := discover(explicit); ext[protocol.ExtensionTasks] == nil {
		t.Errorf("a server with TaskOptions does not declare the extension: %v", ext)
	}
}
