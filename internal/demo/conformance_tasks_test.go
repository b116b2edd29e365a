package demo

// Tests of the tasks fixtures (conformance_tasks.go): as 2025-11-25 tasks
// through a schema-checked client, and as tasks of the 2026-07-28 extension
// through raw requests (not schema-checked: the 2026-07-28 schema does not
// define the extension).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/internal/testkit/mcptest"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/taskstore"
	"github.com/mcpkit/mcpkit/transport"
	"github.com/mcpkit/mcpkit/transport/memory"
)

// taskFixtureStore is the store of the servers taskFixtureServer makes, which
// tests watch to wait for a task's status.
type taskFixtureStore = taskstore.Memory

// taskFixtureServer serves only the tasks fixtures, with short pauses.
func taskFixtureServer(t *testing.T) (*mcp.Server, *taskFixtureStore) {
	t.Helper()
	store := taskstore.NewMemory(nil)
	srv := mcp.NewServer(protocol.Implementation{Name: "task-fixtures", Version: "1"}, &mcp.ServerOptions{
		Logger: slog.New(slog.DiscardHandler),
		Tasks:  &mcp.TaskOptions{PollInterval: time.Millisecond, Store: store},
	})
	if err := addConformanceTaskFixtures(srv, &Options{CountInterval: time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.ShutdownTasks(ctx); err != nil {
			t.Error(err)
		}
	})
	return srv, store
}

// sessionTaskClient connects a 2025-11-25 client that accepts every
// elicitation with content.
func sessionTaskClient(t *testing.T, srv *mcp.Server, content map[string]any) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(protocol.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{
		ProtocolVersion: protocol.Version20251125,
		ElicitationHandler: func(ctx context.Context, cs *mcp.ClientSession, p *protocol.ElicitParams) (*protocol.ElicitResult, error) {
			return &protocol.ElicitResult{Action: protocol.ElicitActionAccept, Content: content}, nil
		},
	})
	cs, _ := mcptest.Connect(t, srv, client, nil)
	return cs
}

// awaitFixture runs tool as a 2025-11-25 task and returns its result (or error).
func awaitFixture(t *testing.T, cs *mcp.ClientSession, tool string, args any) (*protocol.CallToolResult, error) {
	t.Helper()
	ctx := testkit.Context(t)
	task, err := cs.CallToolAsTask(ctx, tool, args, time.Minute)
	if err != nil {
		t.Fatalf("%s as a task: %v", tool, err)
	}
	return cs.AwaitTask(ctx, task.TaskID)
}

func TestTaskFixturesLegacy(t *testing.T) {
	srv, _ := taskFixtureServer(t)
	cs := sessionTaskClient(t, srv, map[string]any{"confirm": true, "name": "Ada"})

	for _, tc := range []struct {
		tool string
		args any
		want string
	}{
		{"slow_compute", map[string]any{"seconds": 0, "label": "now"}, `Computed "now" in 0 seconds.`},
		{"confirm_delete", map[string]any{"filename": "a.txt"}, "Deleted a.txt."},
		{"multi_input", nil, "Answers: first=accept map[confirm:true name:Ada], second=accept map[confirm:true name:Ada]."},
	} {
		res, err := awaitFixture(t, cs, tc.tool, tc.args)
		if err != nil || res.IsError || textOf(res.Content) != tc.want {
			t.Errorf("%s: %+v, %v; want %q", tc.tool, res, err, tc.want)
		}
	}
	res, err := awaitFixture(t, cs, "failing_job", nil)
	if err != nil || !res.IsError {
		t.Errorf("failing_job: %+v, %v; want an isError result", res, err)
	}
	var je *jsonrpc.Error
	if _, err := awaitFixture(t, cs, "protocol_error_job", nil); !errors.As(err, &je) || je.Code != jsonrpc.CodeInternalError {
		t.Errorf("protocol_error_job: %v, want a -32603 error", err)
	}
	// failing_job requires a task; greet never runs as one.
	ctx := testkit.Context(t)
	if _, err := cs.CallTool(ctx, "failing_job", nil); !errors.As(err, &je) || je.Code != jsonrpc.CodeMethodNotFound {
		t.Errorf("failing_job without a task: %v, want -32601", err)
	}
	if _, err := cs.CallToolAsTask(ctx, "greet", map[string]any{"name": "x"}, 0); !errors.As(err, &je) || je.Code != jsonrpc.CodeMethodNotFound {
		t.Errorf("greet as a task: %v, want -32601", err)
	}
	greeting, err := cs.CallTool(ctx, "greet", map[string]any{"name": "World"})
	if err != nil || textOf(greeting.Content) != "Hello, World!" {
		t.Errorf("greet: %+v, %v", greeting, err)
	}
	// test_tool_with_task: a legacy client gets the greeting at once.
	composed, err := cs.CallTool(ctx, "test_tool_with_task", nil)
	if err != nil || textOf(composed.Content) != "Hello, Ada! (greeted from a task)" {
		t.Errorf("test_tool_with_task: %+v, %v", composed, err)
	}
}

func TestTaskFixturesCancelSlowCompute(t *testing.T) {
	srv, _ := taskFixtureServer(t)
	cs := sessionTaskClient(t, srv, nil)
	ctx := testkit.Context(t)
	task, err := cs.CallToolAsTask(ctx, "slow_compute", map[string]any{"seconds": 600, "label": "long"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := cs.CancelTask(ctx, task.TaskID); err != nil {
		t.Fatal(err)
	}
	got, err := cs.GetTask(ctx, task.TaskID)
	if err != nil || got.Status != protocol.TaskStatusCancelled {
		t.Errorf("slow_compute after tasks/cancel: %+v, %v; want cancelled", got, err)
	}
	// ShutdownTasks (at cleanup) returns only once the handler has stopped:
	// a 600 s computation that ignored cancellation would hold the test.
}

// rawTaskCall sends one 2026-07-28 request over c and decodes the answer.
func rawTaskCall(t *testing.T, c transport.Conn, id int, method, caps, fields string) map[string]any {
	t.Helper()
	msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{%s"_meta":%s}}`, id, method, fields, statelessMeta(caps))
	ctx := testkit.Context(t)
	if err := c.Write(ctx, []byte(msg)); err != nil {
		t.Fatal(err)
	}
	for {
		data, err := c.Read(ctx)
		if err != nil {
			t.Fatalf("reading the answer to %s: %v", method, err)
		}
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		if _, isAnswer := m["id"]; isAnswer {
			return m
		}
	}
}

const tasksCaps = `{"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}`

// waitTaskStatus waits, through the store, until the task reaches status,
// then returns what tasks/get reports.
func waitTaskStatus(t *testing.T, c transport.Conn, store *taskFixtureStore, id string, status protocol.TaskStatus) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for rev := uint64(0); ; {
		rec, err := store.Wait(ctx, id, rev)
		if err != nil {
			t.Fatalf("task %s did not reach %s: %v", id, status, err)
		}
		if rec.Status == status {
			break
		}
		rev = rec.Revision
	}
	res, _ := rawTaskCall(t, c, 1000, "tasks/get", tasksCaps, fmt.Sprintf(`"taskId":%q,`, id))["result"].(map[string]any)
	return res
}

func TestTaskFixturesStateless(t *testing.T) {
	srv, store := taskFixtureServer(t)
	c, s := memory.NewPair()
	ss, err := srv.Connect(testkit.Context(t), s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close(); _ = ss.Close() })

	// failing_job requires the extension.
	resp := rawTaskCall(t, c, 1, "tools/call", `{}`, `"name":"failing_job","arguments":{},`)
	if e, _ := resp["error"].(map[string]any); e["code"] != float64(protocol.CodeMissingClientCapability) {
		t.Errorf("failing_job without the extension = %v, want -32021", resp)
	}
	// With it, failing_job is a task that completes with isError.
	res, _ := rawTaskCall(t, c, 2, "tools/call", tasksCaps, `"name":"failing_job","arguments":{},`)["result"].(map[string]any)
	id, _ := res["taskId"].(string)
	if res["resultType"] != "task" || id == "" {
		t.Fatalf("failing_job = %v, want a task", res)
	}
	done := waitTaskStatus(t, c, store, id, protocol.TaskStatusCompleted)
	if inner, _ := done["result"].(map[string]any); inner["isError"] != true {
		t.Errorf("failing_job's task = %v, want completed with isError", done)
	}

	// test_tool_with_task: an input round trip, then a task.
	r1, _ := rawTaskCall(t, c, 3, "tools/call", tasksCaps, `"name":"test_tool_with_task","arguments":{},`)["result"].(map[string]any)
	reqs, _ := r1["inputRequests"].(map[string]any)
	if r1["resultType"] != "input_required" || len(reqs) != 1 {
		t.Fatalf("round 1 = %v, want input_required", r1)
	}
	var key string
	for k := range reqs {
		key = k
	}
	retry := fmt.Sprintf(`"name":"test_tool_with_task","arguments":{},"requestState":%q,"inputResponses":{%q:{"action":"accept","content":{"name":"Alice"}}},`, r1["requestState"], key)
	r2, _ := rawTaskCall(t, c, 4, "tools/call", tasksCaps, retry)["result"].(map[string]any)
	id, _ = r2["taskId"].(string)
	if r2["resultType"] != "task" || id == "" || r2["requestState"] != nil {
		t.Fatalf("round 2 = %v, want a task without requestState", r2)
	}
	done = waitTaskStatus(t, c, store, id, protocol.TaskStatusCompleted)
	raw, _ := json.Marshal(done["result"])
	if !strings.Contains(string(raw), "Hello, Alice!") {
		t.Errorf("the task's result %s does not greet Alice", raw)
	}
}
