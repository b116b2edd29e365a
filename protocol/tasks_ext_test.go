package protocol_test

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/protocol"
)

func TestExtensionCreateTaskResultIsFlat(t *testing.T) {
	res := protocol.ExtensionCreateTaskResult{
		ResultType: protocol.ResultTypeTask,
		ExtensionTask: protocol.ExtensionTask{TaskID: "t1", Status: protocol.TaskStatusWorking,
			CreatedAt: "2026-07-28T10:00:00.000Z", LastUpdatedAt: "2026-07-28T10:00:00.000Z"},
	}
	data, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"resultType":"task","taskId":"t1","status":"working","createdAt":"2026-07-28T10:00:00.000Z","lastUpdatedAt":"2026-07-28T10:00:00.000Z","ttlMs":null}`
	if string(data) != want {
		t.Errorf("got  %s\nwant %s", data, want)
	}
}

func TestDetailedTaskFields(t *testing.T) {
	ttl := int64(60000)
	d := protocol.DetailedTask{
		ResultType:    protocol.ResultTypeComplete,
		ExtensionTask: protocol.ExtensionTask{TaskID: "t", Status: protocol.TaskStatusFailed, TTLMs: &ttl},
		Error:         &jsonrpc.Error{Code: -32603, Message: "down"},
	}
	data, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	e, _ := back["error"].(map[string]any)
	if back["ttlMs"] != float64(60000) || e["code"] != float64(-32603) || back["resultType"] != "complete" {
		t.Errorf("encoded %s", data)
	}
	for _, k := range []string{"result", "inputRequests", "pollIntervalMs", "statusMessage"} {
		if _, ok := back[k]; ok {
			t.Errorf("empty %s was encoded: %s", k, data)
		}
	}

	in := []byte(`{"taskId":"t","status":"input_required","createdAt":"a","lastUpdatedAt":"b","ttlMs":null,` +
		`"inputRequests":{"k":{"method":"elicitation/create","params":{"message":"ok?","requestedSchema":{"type":"object"}}}}}`)
	var got protocol.DetailedTask
	if err := json.Unmarshal(in, &got); err != nil {
		t.Fatal(err)
	}
	if got.TTLMs != nil || got.InputRequests["k"].Elicit == nil || got.InputRequests["k"].Elicit.Message != "ok?" {
		t.Errorf("decoded %+v", got)
	}
}

func TestUpdateTaskParamsRequiresResponses(t *testing.T) {
	data, err := json.Marshal(protocol.UpdateTaskParams{TaskID: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != `{"taskId":"t","inputResponses":{}}` {
		t.Errorf("got %s", data)
	}
}

func TestTaskTimeAndDurations(t *testing.T) {
	at := time.Date(2026, 7, 28, 10, 30, 0, 5e6, time.FixedZone("x", 3600))
	if got := protocol.FormatTime(at); got != "2026-07-28T09:30:00.005Z" {
		t.Errorf("FormatTime = %s", got)
	}
	if protocol.Milliseconds(0) != nil || protocol.Milliseconds(-time.Second) != nil {
		t.Error("Milliseconds of zero or less should be nil")
	}
	if ms := protocol.Milliseconds(time.Microsecond); ms == nil || *ms != 1 {
		t.Errorf("a positive duration below a millisecond became %v, want 1", ms)
	}
	if ms := protocol.Milliseconds(90 * time.Second); *ms != 90000 {
		t.Errorf("Milliseconds(90s) = %d", *ms)
	}
}

func TestDeclaresTasksExtension(t *testing.T) {
	var none *protocol.ClientCapabilities
	if none.DeclaresTasksExtension() || (&protocol.ClientCapabilities{}).DeclaresTasksExtension() {
		t.Error("capabilities without the extension declare it")
	}
	c := protocol.ClientCapabilities{Extensions: map[string]map[string]any{protocol.ExtensionTasks: {}}}
	if !c.DeclaresTasksExtension() {
		t.Error("the extension is not seen")
	}
}

func TestToolTaskSupportLevel(t *testing.T) {
	var none *protocol.Tool
	for _, tc := range []struct {
		tool *protocol.Tool
		want protocol.TaskSupport
	}{
		{none, protocol.TaskSupportForbidden},
		{&protocol.Tool{}, protocol.TaskSupportForbidden},
		{&protocol.Tool{Execution: &protocol.ToolExecution{}}, protocol.TaskSupportForbidden},
		{&protocol.Tool{Execution: &protocol.ToolExecution{TaskSupport: protocol.TaskSupportRequired}}, protocol.TaskSupportRequired},
	} {
		if got := tc.tool.TaskSupportLevel(); got != tc.want {
			t.Errorf("%+v: %s, want %s", tc.tool, got, tc.want)
		}
	}
	m := protocol.NewRelatedTaskMeta("t9")
	if rel, ok := m[protocol.MetaKeyRelatedTask].(*protocol.RelatedTaskMetadata); !ok || rel.TaskID != "t9" {
		t.Errorf("NewRelatedTaskMeta = %v", m)
	}
}

// FuzzDetailedTask decodes arbitrary input as a tasks/get result: whatever
// decodes must encode, and decode again to the same encoding.
func FuzzDetailedTask(f *testing.F) {
	f.Add([]byte(`{"resultType":"complete","taskId":"t","status":"completed","createdAt":"a","lastUpdatedAt":"b","ttlMs":1,"result":{"content":[]}}`))
	f.Add([]byte(`{"taskId":"t","status":"failed","ttlMs":null,"error":{"code":-32603,"message":"x","data":{"a":1}}}`))
	f.Add([]byte(`{"taskId":"t","status":"input_required","inputRequests":{"k":{"method":"roots/list"},"s":{"method":"sampling/createMessage","params":{"messages":[],"maxTokens":5}}}}`))
	f.Add([]byte(`{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}},"pollIntervalMs":5}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var d protocol.DetailedTask
		if json.Unmarshal(data, &d) != nil {
			return
		}
		once, err := json.Marshal(d)
		if err != nil {
			return // e.g. an input request without the params its method needs
		}
		var again protocol.DetailedTask
		if err := json.Unmarshal(once, &again); err != nil {
			t.Fatalf("re-decoding %s: %v", once, err)
		}
		twice, err := json.Marshal(again)
		if err != nil || !bytes.Equal(once, twice) {
			t.Fatalf("unstable encoding:\n%s\n%s (%v)", once, twice, err)
		}
	})
}
