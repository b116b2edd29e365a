package mcp_test

import (
	"testing"

	"github.com/mcpkit/mcpkit/internal/testkit"
)

func TestTaskStatelessStatusOnListenStream(t *testing.T) {
	f := newTaskFixture(t, nil, nil)
	c, listenConn := uncheckedConn(t, f.srv), uncheckedConn(t, f.srv)
	id := createdTaskID(t, taskCall(t, c, 1, capsTasks, "job", `{"label":"n"}`))
	testkit.Receive(t, f.started)

	must(t, listenConn.Write(testkit.Context(t), []byte(`{"jsonrpc":"2.0","id":"L","method":"subscriptions/listen","params":`+
		statelessParams(capsTasks, `"notifications":{"taskIds":["`+id+`","no-such-task"]}`)+`}`)))
	ack := readJSON(t, listenConn)
	n, _ := ack["params"].(map[string]any)["notifications"].(map[string]any)
	ids, _ := n["taskIds"].([]any)
	if ack["method"] != "notifications/subscriptions/acknowledged" || len(ids) != 1 || ids[0] != id {
		t.Fatalf("acknowledgment = %v; want only the existing task", ack)
	}

	close(f.release)
	got := readJSON(t, listenConn)
	p, _ := got["params"].(map[string]any)
	if got["method"] != "notifications/tasks" || p["taskId"] != id || p["status"] != "completed" || subscriptionID(got) != "L" {
		t.Fatalf("want notifications/tasks completed for %s tagged L, got %v", id, got)
	}
	if res, _ := p["result"].(map[string]any); res == nil {
		t.Errorf("the terminal notification carries no result: %v", p)
	}
	if _, ok := p["resultType"]; ok {
		t.Errorf("notification params carry resultType: %v", p)
	}
}

func TestTaskListenNeedsTheExtension(t *testing.T) {
	f := newTaskFixture(t, nil, nil)
	c := uncheckedConn(t, f.srv)
	resp := statelessCall(t, c, 1, "subscriptions/listen", statelessParams(capsNone, `"notifications":{"taskIds":["x"]}`))
	if errCode(resp) != -32021 {
		t.Fatalf("listen for tasks without the extension: %v, want -32021", resp)
	}
}
