package mcp

import (
	"encoding/json"
	"testing"

	"github.com/mcpkit/mcpkit/protocol"
)

// FuzzResultTypeOf checks the in-place scan for a result's resultType against
// encoding/json: for every JSON object they agree, for anything else (null included)
// no resultType is found, and nothing panics.
func FuzzResultTypeOf(f *testing.F) {
	for _, seed := range []string{
		`{"resultType":"complete","content":[]}`,
		`{"content":[{"type":"text","text":"\"resultType\":\"x\""}],"resultType":"input_required"}`,
		`{"_meta":{"resultType":"nested"},"resultType":"complete"}`,
		`{"result\u0054ype":"escaped key"}`,
		`{"resultType":"esc\u0061ped"}`,
		`{"resultType":null}`,
		`{"resultType":"a","resultType":"b"}`,
		` { "resultType" : "spaced" } `,
		`{"content":[]}`,
		`[]`,
		`{"resultType":`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := resultTypeOf(data)
		var obj map[string]json.RawMessage
		// null decodes into a map without error but is no object: a result must be one.
		if json.Unmarshal(data, &obj) != nil || obj == nil {
			if err == nil && got != "" {
				t.Fatalf("resultTypeOf(%s) = %q for a text that is no JSON object", data, got)
			}
			return
		}
		var want protocol.ResultType
		if raw, ok := obj["resultType"]; ok && json.Unmarshal(raw, &want) != nil {
			if err == nil {
				t.Fatalf("resultTypeOf(%s) = %q, want an error for a resultType that is no string", data, got)
			}
			return
		}
		if err != nil || got != want {
			t.Fatalf("resultTypeOf(%s) = %q, %v; encoding/json says %q", data, got, err, want)
		}
	})
}
