package mcp

import (
	"encoding/json"
	"testing"

	"github.com/mcpkit/mcpkit/protocol"
)

func TestWithRelatedTask(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"content":[]}`, `{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t"}},"content":[]}`},
		{`{"_meta":{"a":1},"content":[]}`, `{"_meta":{"a":1,"io.modelcontextprotocol/related-task":{"taskId":"t"}},"content":[]}`},
		{`{"_meta":null,"isError":true}`, `{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t"}},"isError":true}`},
	} {
		got, err := withRelatedTask(json.RawMessage(tc.in), "t")
		if err != nil || string(got) != tc.want {
			t.Errorf("withRelatedTask(%s) = %s, %v; want %s", tc.in, got, err, tc.want)
		}
	}
	if _, err := withRelatedTask(json.RawMessage(`[1]`), "t"); err == nil {
		t.Error("a result that is not an object was accepted")
	}
}

// FuzzWithRelatedTask feeds stored results of any shape: the tag is added to
// every JSON object and the rest is kept.
func FuzzWithRelatedTask(f *testing.F) {
	for _, s := range []string{`{}`, `{"content":[]}`, `{"_meta":{"x":[1,2]}}`, `{"_meta":"bad"}`, `null`, `[]`, `{"a":`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := withRelatedTask(data, "task-1")
		if err != nil {
			return
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(out, &obj); err != nil {
			t.Fatalf("output %s does not decode: %v", out, err)
		}
		var meta protocol.Meta
		if err := json.Unmarshal(obj["_meta"], &meta); err != nil {
			t.Fatalf("output %s: _meta does not decode: %v", out, err)
		}
		rel, ok := meta[protocol.MetaKeyRelatedTask].(*protocol.RelatedTaskMetadata)
		if !ok || rel.TaskID != "task-1" {
			t.Fatalf("output %s lacks the related task", out)
		}
		var before, after map[string]json.RawMessage
		if json.Unmarshal(data, &before) != nil || json.Unmarshal(out, &after) != nil {
			t.Fatalf("input %s or output %s is not an object", data, out)
		}
		for k := range before {
			if _, ok := after[k]; !ok {
				t.Fatalf("key %q lost: %s -> %s", k, data, out)
			}
		}
	})
}
