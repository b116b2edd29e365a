package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/taskstore"
	"github.com/mcpkit/mcpkit/taskstore/storetest"
)

// taskFixture is a server with tools that run as tasks, and the means to steer
// them: a blocking job the test releases, and the store with its clock.
type taskFixture struct {
	srv     *mcp.Server
	store   *taskstore.Memory
	clock   *storetest.Clock
	started chan string // the job's label, when it starts
	release chan struct{}
	stopped chan error // the job's context error, when it is stopped

	mu    sync.Mutex
	calls map[string]int // handler runs by tool
}

func (f *taskFixture) ran(tool string) {
	f.mu.Lock()
	f.calls[tool]++
	f.mu.Unlock()
}

func (f *taskFixture) runs(tool string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[tool]
}

type jobInput struct {
	Label string `json:"label,omitempty"`
}

var confirmSchema = json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}}}`)

// newTaskFixture returns a server with these tools:
//   - job (optional): reports its start, waits for release (or its context);
//   - quick (optional): answers at once;
//   - must (required), plain (no task support);
//   - tool_error, rpc_error, panics (optional): fail in three ways;
//   - ask (optional): one elicitation; ask_two (optional): two at once;
//   - compose (no task support): an elicitation, then RunAsTask.
func newTaskFixture(t *testing.T, srvOpts *mcp.ServerOptions, taskOpts *mcp.TaskOptions) *taskFixture {
	t.Helper()
	f := &taskFixture{
		clock:   storetest.NewClock(time.Date(2026, 7, 28, 9, 0, 0, 0, time.UTC)),
		started: make(chan string, 16), release: make(chan struct{}), stopped: make(chan error, 16),
		calls: map[string]int{},
	}
	f.store = taskstore.NewMemory(&taskstore.MemoryOptions{Now: f.clock.Now})
	to := mcp.TaskOptions{}
	if taskOpts != nil {
		to = *taskOpts
	}
	if to.Store == nil {
		to.Store = f.store
	}
	if to.Now == nil {
		to.Now = f.clock.Now
	}
	if to.PollInterval == 0 {
		to.PollInterval = time.Millisecond
	}
	so := mcp.ServerOptions{}
	if srvOpts != nil {
		so = *srvOpts
	}
	so.Tasks = &to
	f.srv = newServer(t, &so)
	optional := &protocol.ToolExecution{TaskSupport: protocol.TaskSupportOptional}
	must(t, mcp.AddTool(f.srv, &protocol.Tool{Name: "job", Execution: optional}, func(ctx context.Context, r *mcp.ToolRequest, in jobInput) (string, error) {
		f.ran("job")
		f.started <- in.Label
		select {
		case <-f.release:
			return "done: " + in.Label, nil
		case <-ctx.Done():
			f.stopped <- context.Cause(ctx)
			return "", ctx.Err()
		}
	}))
	must(t, mcp.AddTool(f.srv, &protocol.Tool{Name: "quick", Execution: optional}, func(ctx context.Context, r *mcp.ToolRequest, in jobInput) (string, error) {
		f.ran("quick")
		return "quick: " + in.Label, nil
	}))
	must(t, mcp.AddTool(f.srv, &protocol.Tool{Name: "must", Execution: &protocol.ToolExecution{TaskSupport: protocol.TaskSupportRequired}},
		func(ctx context.Context, r *mcp.ToolRequest, _ struct{}) (string, error) {
			f.ran("must")
			return "must ran", nil
		}))
	must(t, mcp.AddTool(f.srv, &protocol.Tool{Name: "plain"}, func(ctx context.Context, r *mcp.ToolRequest, _ struct{}) (string, error) {
		f.ran("plain")
		return "plain ran", nil
	}))
	must(t, mcp.AddTool(f.srv, &protocol.Tool{Name: "tool_error", Execution: optional}, func(ctx context.Context, r *mcp.ToolRequest, _ struct{}) (string, error) {
		return "", errors.New("boom")
	}))
	must(t, mcp.AddTool(f.srv, &protocol.Tool{Name: "rpc_error", Execution: optional}, func(ctx context.Context, r *mcp.ToolRequest, _ struct{}) (*protocol.CallToolResult, error) {
		return nil, &jsonrpc.Error{Code: -32099, Message: "backend down"}
	}))
	must(t, mcp.AddTool(f.srv, &protocol.Tool{Name: "panics", Execution: optional}, func(ctx context.Context, r *mcp.ToolRequest, _ struct{}) (string, error) {
		panic("kaboom")
	}))
	must(t, mcp.AddTool(f.srv, &protocol.Tool{Name: "ask", Execution: optional}, func(ctx context.Context, r *mcp.ToolRequest, _ struct{}) (string, error) {
		f.ran("ask")
		res, err := r.Elicit(ctx, &protocol.ElicitParams{Message: "ok?", RequestedSchema: confirmSchema})
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("answer: %s %v", res.Action, res.Content["ok"]), nil
	}))
	must(t, mcp.AddTool(f.srv, &protocol.Tool{Name: "ask_two", Execution: optional}, func(ctx context.Context, r *mcp.ToolRequest, _ struct{}) (string, error) {
		got, err := r.Input(ctx, map[string]protocol.InputRequest{
			"a": protocol.NewElicitInputRequest(&protocol.ElicitParams{Message: "a?", RequestedSchema: confirmSchema}),
			"b": protocol.NewElicitInputRequest(&protocol.ElicitParams{Message: "b?", RequestedSchema: confirmSchema}),
		})
		if err != nil {
			return "", err
		}
		var a, b protocol.ElicitResult
		if _, err := got.Decode("a", &a); err != nil {
			return "", err
		}
		if _, err := got.Decode("b", &b); err != nil {
			return "", err
		}
		return fmt.Sprintf("a=%v b=%v", a.Content["ok"], b.Content["ok"]), nil
	}))
	must(t, mcp.AddTool(f.srv, &protocol.Tool{Name: "compose"}, func(ctx context.Context, r *mcp.ToolRequest, _ struct{}) (*protocol.CallToolResult, error) {
		f.ran("compose")
		res, err := r.Elicit(ctx, &protocol.ElicitParams{Message: "name?", RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)})
		if err != nil {
			return nil, err
		}
		name, _ := res.Content["name"].(string)
		return r.RunAsTask(ctx, func(ctx context.Context, r *mcp.ToolRequest) (*protocol.CallToolResult, error) {
			f.ran("compose-task")
			return protocol.NewToolResultText("Hello, " + name), nil
		})
	}))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := f.srv.ShutdownTasks(ctx); err != nil {
			t.Errorf("ShutdownTasks: %v", err)
		}
	})
	return f
}

// waitStatus waits, through the store, until task id has status want.
func (f *taskFixture) waitStatus(t *testing.T, id string, want protocol.TaskStatus) *taskstore.Record {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var rev uint64
	for {
		rec, err := f.store.Wait(ctx, id, rev)
		if err != nil {
			t.Fatalf("waiting for task %s to be %s: %v", id, want, err)
		}
		if rec.Status == want {
			return rec
		}
		rev = rec.Revision
	}
}

// legacyClient connects a 2025-11-25 client (with an elicitation handler that
// accepts) and records the task status notifications it receives.
func legacyClient(t *testing.T, srv *mcp.Server, version string) (*mcp.ClientSession, chan protocol.TaskStatusParams) {
	t.Helper()
	statuses := make(chan protocol.TaskStatusParams, 16)
	record := func(next mcp.Invoker) mcp.Invoker {
		return func(ctx context.Context, c *mcp.Call) (any, error) {
			if c.Direction == mcp.Incoming && c.Method == protocol.NotificationTasksStatus {
				var p protocol.TaskStatusParams
				if err := json.Unmarshal(c.Params, &p); err == nil {
					statuses <- p
				}
			}
			return next(ctx, c)
		}
	}
	cs, _ := connect(t, srv, &mcp.ClientOptions{ProtocolVersion: version, Middleware: []mcp.Middleware{record},
		ElicitationHandler: func(ctx context.Context, cs *mcp.ClientSession, p *protocol.ElicitParams) (*protocol.ElicitResult, error) {
			return &protocol.ElicitResult{Action: protocol.ElicitActionAccept, Content: map[string]any{"ok": true, "name": "Ada"}}, nil
		}})
	return cs, statuses
}

func rpcCode(err error) int64 {
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		return je.Code
	}
	return 0
}

func TestSessionTaskLifecycle(t *testing.T) {
	f := newTaskFixture(t, nil, nil)
	cs, statuses := legacyClient(t, f.srv, protocol.Version20251125)
	ctx := testkit.Context(t)

	task, err := cs.CallToolAsTask(ctx, "job", map[string]any{"label": "x"}, time.Minute)
	must(t, err)
	if task.Status != protocol.TaskStatusWorking || task.TTL == nil || *task.TTL != 60000 || task.PollInterval == nil || len(task.TaskID) < 20 {
		t.Errorf("created task = %+v; want working, ttl 60000, a poll interval, a long id", task)
	}
	if _, err := time.Parse(time.RFC3339, task.CreatedAt); err != nil {
		t.Errorf("createdAt %q: %v", task.CreatedAt, err)
	}
	if label := testkit.Receive(t, f.started); label != "x" {
		t.Errorf("the job started with %q", label)
	}
	got, err := cs.GetTask(ctx, task.TaskID)
	must(t, err)
	if got.Status != protocol.TaskStatusWorking || got.TaskID != task.TaskID {
		t.Errorf("tasks/get = %+v, want working", got)
	}
	list, err := cs.ListTasks(ctx, "")
	must(t, err)
	if len(list.Tasks) != 1 || list.Tasks[0].TaskID != task.TaskID {
		t.Errorf("tasks/list = %+v, want the task", list.Tasks)
	}

	close(f.release)
	res, err := cs.AwaitTask(ctx, task.TaskID)
	must(t, err)
	if text(t, res) != "done: x" {
		t.Errorf("tasks/result = %q", text(t, res))
	}
	if rel, ok := res.Meta[protocol.MetaKeyRelatedTask].(*protocol.RelatedTaskMetadata); !ok || rel.TaskID != task.TaskID {
		t.Errorf("tasks/result _meta = %v, want the related task", res.Meta)
	}
	got, err = cs.GetTask(ctx, task.TaskID)
	must(t, err)
	if got.Status != protocol.TaskStatusCompleted {
		t.Errorf("after the result: %s, want completed", got.Status)
	}
	if st := testkit.Receive(t, statuses); st.TaskID != task.TaskID || st.Status != protocol.TaskStatusCompleted {
		t.Errorf("status notification = %+v, want completed", st)
	}
}

func TestSessionTaskNegotiation(t *testing.T) {
	f := newTaskFixture(t, nil, nil)
	cs, _ := legacyClient(t, f.srv, protocol.Version20251125)
	ctx := testkit.Context(t)

	caps := cs.InitializeResult().Capabilities
	if caps.Tasks == nil || caps.Tasks.Requests == nil || caps.Tasks.Requests.Tools == nil || caps.Tasks.Requests.Tools.Call == nil ||
		caps.Tasks.List == nil || caps.Tasks.Cancel == nil {
		t.Errorf("tasks capability = %+v; want list, cancel and tools/call", caps.Tasks)
	}
	if caps.Extensions != nil {
		t.Errorf("a 2025-11-25 session got extensions %v", caps.Extensions)
	}
	tools, err := cs.ListTools(ctx, nil)
	must(t, err)
	support := map[string]protocol.TaskSupport{}
	for _, tool := range tools.Tools {
		support[tool.Name] = tool.TaskSupportLevel()
	}
	if support["must"] != protocol.TaskSupportRequired || support["job"] != protocol.TaskSupportOptional || support["plain"] != protocol.TaskSupportForbidden {
		t.Errorf("tools/list task support = %v", support)
	}

	if _, err := cs.CallTool(ctx, "must", nil); rpcCode(err) != mcp.CodeMethodNotFound {
		t.Errorf("required tool without a task: %v, want -32601", err)
	}
	if _, err := cs.CallToolAsTask(ctx, "plain", nil, 0); rpcCode(err) != mcp.CodeMethodNotFound {
		t.Errorf("forbidden tool as a task: %v, want -32601", err)
	}
	if f.runs("must")+f.runs("plain") != 0 {
		t.Errorf("a refused call ran its handler")
	}
	res, err := cs.CallTool(ctx, "quick", map[string]any{"label": "sync"})
	must(t, err)
	if text(t, res) != "quick: sync" {
		t.Errorf("optional tool without a task = %q", text(t, res))
	}
	task, err := cs.CallToolAsTask(ctx, "must", nil, 0)
	must(t, err)
	res, err = cs.AwaitTask(ctx, task.TaskID)
	must(t, err)
	if text(t, res) != "must ran" {
		t.Errorf("required tool as a task = %q", text(t, res))
	}
}

func TestSessionTaskCancel(t *testing.T) {
	f := newTaskFixture(t, nil, nil)
	cs, statuses := legacyClient(t, f.srv, protocol.Version20251125)
	ctx := testkit.Context(t)

	task, err := cs.CallToolAsTask(ctx, "job", map[string]any{"label": "c"}, 0)
	must(t, err)
	testkit.Receive(t, f.started)
	must(t, cs.CancelTask(ctx, task.TaskID))
	if cause := testkit.Receive(t, f.stopped); cause == nil {
		t.Error("the handler's context ended without a cause")
	}
	got, err := cs.GetTask(ctx, task.TaskID)
	must(t, err)
	if got.Status != protocol.TaskStatusCancelled {
		t.Errorf("after tasks/cancel: %s, want cancelled", got.Status)
	}
	if st := testkit.Receive(t, statuses); st.Status != protocol.TaskStatusCancelled {
		t.Errorf("status notification = %s, want cancelled", st.Status)
	}
	if err := cs.CancelTask(ctx, task.TaskID); rpcCode(err) != mcp.CodeInvalidParams {
		t.Errorf("cancelling a cancelled task: %v, want -32602", err)
	}
	if _, err := cs.AwaitTask(ctx, task.TaskID); rpcCode(err) != mcp.CodeInvalidParams || !errors.Is(err, mcp.ErrTaskCancelled) {
		t.Errorf("tasks/result of a cancelled task: %v, want -32602 and ErrTaskCancelled", err)
	}
	// The task stays cancelled although its handler returned afterwards.
	got, err = cs.GetTask(ctx, task.TaskID)
	must(t, err)
	if got.Status != protocol.TaskStatusCancelled {
		t.Errorf("later: %s, want still cancelled", got.Status)
	}
}

func TestSessionTaskFailures(t *testing.T) {
	f := newTaskFixture(t, nil, nil)
	cs, _ := legacyClient(t, f.srv, protocol.Version20251125)
	ctx := testkit.Context(t)

	task, err := cs.CallToolAsTask(ctx, "tool_error", nil, 0)
	must(t, err)
	res, err := cs.AwaitTask(ctx, task.TaskID)
	must(t, err)
	if !res.IsError || text(t, res) != "boom" {
		t.Errorf("tool error: result %+v, want isError boom", res)
	}
	got, err := cs.GetTask(ctx, task.TaskID)
	must(t, err)
	if got.Status != protocol.TaskStatusFailed || got.StatusMessage != "boom" {
		t.Errorf("tool error: task %s %q, want failed (2025-11-25) with the message", got.Status, got.StatusMessage)
	}

	task, err = cs.CallToolAsTask(ctx, "rpc_error", nil, 0)
	must(t, err)
	if _, err := cs.AwaitTask(ctx, task.TaskID); rpcCode(err) != -32099 {
		t.Errorf("protocol error: tasks/result = %v, want the handler's -32099", err)
	}

	task, err = cs.CallToolAsTask(ctx, "panics", nil, 0)
	must(t, err)
	if _, err := cs.AwaitTask(ctx, task.TaskID); rpcCode(err) != mcp.CodeInternalError {
		t.Errorf("panic: tasks/result = %v, want -32603", err)
	}
	got, err = cs.GetTask(ctx, task.TaskID)
	must(t, err)
	if got.Status != protocol.TaskStatusFailed {
		t.Errorf("panic: task %s, want failed", got.Status)
	}
}

func TestSessionTaskIsolation(t *testing.T) {
	f := newTaskFixture(t, nil, nil)
	alice, _ := legacyClient(t, f.srv, protocol.Version20251125)
	bob, _ := legacyClient(t, f.srv, protocol.Version20251125)
	ctx := testkit.Context(t)

	task, err := alice.CallToolAsTask(ctx, "quick", nil, 0)
	must(t, err)
	if _, err := bob.GetTask(ctx, task.TaskID); rpcCode(err) != mcp.CodeInvalidParams {
		t.Errorf("another session's tasks/get: %v, want -32602", err)
	}
	if err := bob.CancelTask(ctx, task.TaskID); rpcCode(err) != mcp.CodeInvalidParams {
		t.Errorf("another session's tasks/cancel: %v, want -32602", err)
	}
	if list, err := bob.ListTasks(ctx, ""); err != nil || len(list.Tasks) != 0 {
		t.Errorf("another session's tasks/list = %v, %v; want none", list, err)
	}
	if _, err := alice.AwaitTask(ctx, task.TaskID); err != nil {
		t.Errorf("the owner's tasks/result: %v", err)
	}
}

func TestSessionTaskListPages(t *testing.T) {
	f := newTaskFixture(t, &mcp.ServerOptions{PageSize: 2}, nil)
	cs, _ := legacyClient(t, f.srv, protocol.Version20251125)
	ctx := testkit.Context(t)
	want := map[string]bool{}
	for i := range 5 {
		task, err := cs.CallToolAsTask(ctx, "quick", map[string]any{"label": fmt.Sprint(i)}, 0)
		must(t, err)
		want[task.TaskID] = true
	}
	seen, cursor := map[string]bool{}, protocol.Cursor("")
	for pages := 0; ; pages++ {
		page, err := cs.ListTasks(ctx, cursor)
		must(t, err)
		if len(page.Tasks) > 2 || pages > 5 {
			t.Fatalf("page %d has %d tasks (page size 2)", pages, len(page.Tasks))
		}
		for _, task := range page.Tasks {
			seen[task.TaskID] = true
		}
		if cursor = page.NextCursor; cursor == "" {
			break
		}
	}
	if len(seen) != 5 || fmt.Sprint(len(want)) != "5" {
		t.Errorf("listed %d distinct tasks, want 5", len(seen))
	}
	for id := range want {
		if !seen[id] {
			t.Errorf("task %s missing from the list", id)
		}
	}
	if _, err := cs.ListTasks(ctx, "garbage!"); rpcCode(err) != mcp.CodeInvalidParams {
		t.Errorf("tasks/list with a made-up cursor: %v, want -32602", err)
	}
}

func TestSessionTaskOlderVersion(t *testing.T) {
	f := newTaskFixture(t, nil, nil)
	cs, _ := legacyClient(t, f.srv, protocol.Version20250618)
	ctx := testkit.Context(t)
	// Before 2025-11-25 there are no tasks: a tool requiring one runs as usual.
	res, err := cs.CallTool(ctx, "must", nil)
	must(t, err)
	if text(t, res) != "must ran" {
		t.Errorf("required tool at 2025-06-18 = %q", text(t, res))
	}
	if _, err := cs.GetTask(ctx, "x"); rpcCode(err) != mcp.CodeMethodNotFound {
		t.Errorf("tasks/get at 2025-06-18: %v, want -32601", err)
	}
	if cs.InitializeResult().Capabilities.Tasks != nil {
		t.Error("a 2025-06-18 session was offered the tasks capability")
	}
	if _, err := cs.CallToolAsTask(ctx, "job", nil, 0); err == nil {
		t.Error("CallToolAsTask at 2025-06-18 succeeded")
	}
}

func TestTaskTTLExpiry(t *testing.T) {
	f := newTaskFixture(t, nil, &mcp.TaskOptions{MaxTTL: time.Hour})
	cs, _ := legacyClient(t, f.srv, protocol.Version20251125)
	ctx := testkit.Context(t)

	task, err := cs.CallToolAsTask(ctx, "quick", nil, time.Minute)
	must(t, err)
	_, err = cs.AwaitTask(ctx, task.TaskID)
	must(t, err)
	f.clock.Advance(time.Minute - time.Millisecond)
	if _, err := cs.GetTask(ctx, task.TaskID); err != nil {
		t.Fatalf("tasks/get before the TTL: %v", err)
	}
	f.clock.Advance(time.Millisecond)
	if _, err := cs.GetTask(ctx, task.TaskID); rpcCode(err) != mcp.CodeInvalidParams {
		t.Errorf("tasks/get after the TTL: %v, want -32602", err)
	}
	if _, err := cs.AwaitTask(ctx, task.TaskID); rpcCode(err) != mcp.CodeInvalidParams {
		t.Errorf("tasks/result after the TTL: %v, want -32602", err)
	}

	long, err := cs.CallToolAsTask(ctx, "quick", nil, 48*time.Hour)
	must(t, err)
	if long.TTL == nil || *long.TTL != time.Hour.Milliseconds() {
		t.Errorf("a 48 h TTL with MaxTTL 1 h became %v ms", long.TTL)
	}
	def, err := cs.CallToolAsTask(ctx, "quick", nil, 0)
	must(t, err)
	if def.TTL == nil || *def.TTL != time.Hour.Milliseconds() {
		t.Errorf("the default TTL (capped by MaxTTL) is %v ms, want 3600000", def.TTL)
	}
}

func TestTaskLimitPerRequestor(t *testing.T) {
	f := newTaskFixture(t, nil, &mcp.TaskOptions{MaxPerRequestor: 1})
	cs, _ := legacyClient(t, f.srv, protocol.Version20251125)
	other, _ := legacyClient(t, f.srv, protocol.Version20251125)
	ctx := testkit.Context(t)

	first, err := cs.CallToolAsTask(ctx, "job", nil, 0)
	must(t, err)
	testkit.Receive(t, f.started)
	if _, err := cs.CallToolAsTask(ctx, "quick", nil, 0); rpcCode(err) != mcp.CodeInvalidRequest {
		t.Errorf("a second unfinished task: %v, want -32600", err)
	}
	if _, err := other.CallToolAsTask(ctx, "quick", nil, 0); err != nil {
		t.Errorf("another requestor's task was refused: %v", err)
	}
	close(f.release)
	_, err = cs.AwaitTask(ctx, first.TaskID)
	must(t, err)
	if _, err := cs.CallToolAsTask(ctx, "quick", nil, 0); err != nil {
		t.Errorf("a task after the first finished was refused: %v", err)
	}
}

func TestTaskShutdown(t *testing.T) {
	f := newTaskFixture(t, nil, nil)
	cs, _ := legacyClient(t, f.srv, protocol.Version20251125)
	ctx := testkit.Context(t)

	task, err := cs.CallToolAsTask(ctx, "job", nil, 0)
	must(t, err)
	testkit.Receive(t, f.started)
	must(t, f.srv.ShutdownTasks(ctx))
	select {
	case <-f.stopped:
	default:
		t.Error("ShutdownTasks returned before the handler stopped")
	}
	got, err := cs.GetTask(ctx, task.TaskID)
	must(t, err)
	if got.Status != protocol.TaskStatusFailed {
		t.Errorf("a task the server stopped is %s, want failed", got.Status)
	}
	if _, err := cs.CallToolAsTask(ctx, "quick", nil, 0); rpcCode(err) != mcp.CodeInternalError {
		t.Errorf("a task after shutdown: %v, want -32603", err)
	}
}

func TestTaskEndsWithItsSession(t *testing.T) {
	f := newTaskFixture(t, nil, nil)
	cs, _ := legacyClient(t, f.srv, protocol.Version20251125)
	ctx := testkit.Context(t)
	task, err := cs.CallToolAsTask(ctx, "job", nil, 0)
	must(t, err)
	testkit.Receive(t, f.started)
	must(t, cs.Close())
	if cause := testkit.Receive(t, f.stopped); cause == nil {
		t.Error("the handler stopped without a cause")
	}
	rec := f.waitStatus(t, task.TaskID, protocol.TaskStatusFailed)
	if rec.Error == nil {
		t.Errorf("a task whose session ended: %+v, want failed with an error", rec)
	}
}
