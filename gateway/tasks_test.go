package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport"
	"github.com/mcpkit/mcpkit/transport/memory"
	"github.com/mcpkit/mcpkit/upstream"
)

// sessionTasksServer is the demo server spoken to at 2025-11-25, where the
// gateway's client can ask it for tasks.
func sessionTasksServer(name string) *upstream.ServerConfig {
	s := testServer(name, "demo")
	s.ProtocolVersion = "2025-11-25"
	return s
}

// upstreamTasks returns the ids of the tasks the gateway's session with a
// server has there.
func upstreamTasks(t *testing.T, gw *Gateway, server string) map[string]protocol.TaskStatus {
	t.Helper()
	ctx := testkit.Context(t)
	up, err := gw.Supervisor().Session(ctx, server)
	if err != nil {
		t.Fatal(err)
	}
	res, err := up.ListTasks(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]protocol.TaskStatus{}
	for _, task := range res.Tasks {
		out[task.TaskID] = task.Status
	}
	return out
}

// forwardedTasks is a log handler that passes on the ids of the servers'
// tasks the gateway creates (its "forwarded as a task" debug record).
type forwardedTasks chan string

func (f forwardedTasks) Enabled(context.Context, slog.Level) bool { return true }
func (f forwardedTasks) WithAttrs([]slog.Attr) slog.Handler       { return f }
func (f forwardedTasks) WithGroup(string) slog.Handler            { return f }
func (f forwardedTasks) Handle(_ context.Context, r slog.Record) error {
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "upstreamTask" && r.Message == "gateway: tool call forwarded as a task" {
			f <- a.Value.String()
		}
		return true
	})
	return nil
}

// A 2025-11-25 client's task-augmented call goes to a server that supports
// tasks as a task of that server's, under an id of the gateway's: polled to
// completion, it gives the server's result; cancelled, it cancels the
// server's task. Another client does not see it, and a tool whose server
// takes no tasks refuses a task as the specification says.
func TestGatewayForwardsSessionTasks(t *testing.T) {
	forwarded := make(forwardedTasks, 8)
	gw := startGatewayLogged(t, slog.New(forwarded), sessionTasksServer("d"), testServer("p", "probe"))
	cs := connectClient(t, gw, &mcp.ClientOptions{ProtocolVersion: "2025-11-25"})
	ctx := testkit.Context(t)

	if caps := cs.InitializeResult().Capabilities; caps.Tasks == nil || caps.Tasks.Cancel == nil || caps.Tasks.List == nil {
		t.Fatalf("the gateway declares no tasks: %+v", caps.Tasks)
	}
	support := map[string]protocol.TaskSupport{}
	for tool, err := range cs.Tools(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		support[tool.Name] = tool.TaskSupportLevel()
	}
	if support["d__slow_compute"] != protocol.TaskSupportOptional || support["d__greet"] != protocol.TaskSupportForbidden || support["p__grow"] != protocol.TaskSupportForbidden {
		t.Errorf("task support offered: slow_compute %q, greet %q, grow %q", support["d__slow_compute"], support["d__greet"], support["p__grow"])
	}

	task, err := cs.CallToolAsTask(ctx, "d__slow_compute", map[string]any{"seconds": 0.05, "label": "through"}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.AwaitTask(ctx, task.TaskID)
	if err != nil || res.IsError || len(res.Content) == 0 || res.Content[0].Text != `Computed "through" in 0.05 seconds.` {
		t.Fatalf("the task's result: %+v, %v", res, err)
	}
	if got, err := cs.GetTask(ctx, task.TaskID); err != nil || got.Status != protocol.TaskStatusCompleted {
		t.Errorf("tasks/get after the result: %+v, %v", got, err)
	}
	first := testkit.Receive(t, (<-chan string)(forwarded))
	ups := upstreamTasks(t, gw, "d")
	if _, ok := ups[first]; len(ups) != 1 || !ok {
		t.Fatalf("the server has %d tasks, want the one the gateway forwarded: %v", len(ups), ups)
	}
	for id, st := range ups {
		if id == task.TaskID || st != protocol.TaskStatusCompleted {
			t.Errorf("the server's task %s is %s; the gateway's id is %s (ids must differ)", id, st, task.TaskID)
		}
	}

	// Cancelled: the server's task is cancelled too.
	long, err := cs.CallToolAsTask(ctx, "d__slow_compute", map[string]any{"seconds": 600, "label": "long"}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	upID := testkit.Receive(t, (<-chan string)(forwarded))
	if err := cs.CancelTask(ctx, long.TaskID); err != nil {
		t.Fatal(err)
	}
	up, err := gw.Supervisor().Session(ctx, "d")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := up.AwaitTask(ctx, upID); !errors.Is(err, mcp.ErrTaskCancelled) {
		t.Errorf("the server's task after the client cancelled the gateway's: %v, want cancelled", err)
	}
	if got, err := cs.GetTask(ctx, long.TaskID); err != nil || got.Status != protocol.TaskStatusCancelled {
		t.Errorf("tasks/get after tasks/cancel: %+v, %v", got, err)
	}
	list, err := cs.ListTasks(ctx, "")
	if err != nil || len(list.Tasks) != 2 {
		t.Errorf("tasks/list of the client: %+v, %v; want its 2 tasks", list, err)
	}

	// Another client sees none of them.
	other := connectClient(t, gw, &mcp.ClientOptions{ProtocolVersion: "2025-11-25"})
	if _, err := other.GetTask(ctx, task.TaskID); err == nil {
		t.Error("another client got the task")
	}
	if list, err := other.ListTasks(ctx, ""); err != nil || len(list.Tasks) != 0 {
		t.Errorf("tasks/list of another client: %+v, %v", list, err)
	}

	// A tool whose server takes no tasks: refused (-32601), not run.
	if _, err := cs.CallToolAsTask(ctx, "p__grow", nil, 0); err == nil {
		t.Error("a task of a tool without task support was accepted")
	}
}

// rawClient speaks 2026-07-28 JSON-RPC to the gateway over an in-memory
// connection, as a client that declared the tasks extension.
type rawClient struct {
	t    *testing.T
	conn transport.Conn
}

const statelessTasksMeta = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
	`"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}},` +
	`"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"}}`

func connectRaw(t *testing.T, gw *Gateway) *rawClient {
	c, s := memory.NewPair()
	ss, err := gw.Server().Connect(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close(); _ = ss.Close() })
	return &rawClient{t: t, conn: c}
}

// send writes a request whose params are fields plus the stateless _meta.
func (r *rawClient) send(id int, method, fields string) {
	r.t.Helper()
	if fields != "" {
		fields += ","
	}
	msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{%s"_meta":%s}}`, id, method, fields, statelessTasksMeta)
	if err := r.conn.Write(testkit.Context(r.t), []byte(msg)); err != nil {
		r.t.Fatal(err)
	}
}

// next reads the next message.
func (r *rawClient) next() map[string]any {
	r.t.Helper()
	b, err := r.conn.Read(testkit.Context(r.t))
	if err != nil {
		r.t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		r.t.Fatal(err)
	}
	return m
}

// result reads messages until the response to id, and returns its result.
func (r *rawClient) result(id int) map[string]any {
	r.t.Helper()
	for {
		m := r.next()
		if m["id"] == float64(id) {
			res, ok := m["result"].(map[string]any)
			if !ok {
				r.t.Fatalf("response %d: %v", id, m)
			}
			return res
		}
	}
}

// A 2026-07-28 client that declared the tasks extension gets a task of the
// gateway for a tool that supports tasks; the status notification of its
// listen stream brings the server's result; tasks/cancel of another cancels
// the server's task.
func TestGatewayForwardsTasksToStatelessClients(t *testing.T) {
	forwarded := make(forwardedTasks, 8)
	gw := startGatewayLogged(t, slog.New(forwarded), sessionTasksServer("d"))
	rc := connectRaw(t, gw)

	rc.send(1, "tools/call", `"name":"d__slow_compute","arguments":{"seconds":0.05,"label":"stateless"}`)
	created := rc.result(1)
	id, _ := created["taskId"].(string)
	if created["resultType"] != "task" || id == "" {
		t.Fatalf("tools/call answered %v, want a task", created)
	}
	upID := testkit.Receive(t, (<-chan string)(forwarded))
	if upID == id {
		t.Error("the client sees the server's task id")
	}
	rc.send(2, "subscriptions/listen", fmt.Sprintf(`"notifications":{"taskIds":[%q]}`, id))
	rc.send(3, "tasks/get", fmt.Sprintf(`"taskId":%q`, id))
	var final map[string]any
	for final == nil {
		m := rc.next()
		switch {
		case m["id"] == float64(3):
			if res := m["result"].(map[string]any); res["status"] == "completed" {
				final = res
			}
		case m["method"] == protocol.NotificationTasks:
			if p := m["params"].(map[string]any); p["taskId"] == id && p["status"] == "completed" {
				final = p
			}
		}
	}
	text := final["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"]
	if text != `Computed "stateless" in 0.05 seconds.` {
		t.Errorf("the completed task's result: %v", final["result"])
	}

	rc.send(4, "tools/call", `"name":"d__slow_compute","arguments":{"seconds":600,"label":"long"}`)
	long, _ := rc.result(4)["taskId"].(string)
	upLong := testkit.Receive(t, (<-chan string)(forwarded))
	rc.send(5, "tasks/cancel", fmt.Sprintf(`"taskId":%q`, long))
	rc.result(5)
	up, err := gw.Supervisor().Session(testkit.Context(t), "d")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := up.AwaitTask(testkit.Context(t), upLong); !errors.Is(err, mcp.ErrTaskCancelled) {
		t.Errorf("the server's task after tasks/cancel: %v, want cancelled", err)
	}
}
