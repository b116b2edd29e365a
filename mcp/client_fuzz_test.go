package mcp

import (
	"bytes"
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
		// Every resultType member counts, duplicates included (a map keeps only the
		// last): one that is no string makes the result malformed; else the last wins.
		var want protocol.ResultType
		for _, raw := range topLevelMembers(t, data, "resultType") {
			if json.Unmarshal(raw, &want) != nil {
				if err == nil {
					t.Fatalf("resultTypeOf(%s) = %q, want an error for a resultType that is no string", data, got)
				}
				return
			}
		}
		if err != nil || got != want {
			t.Fatalf("resultTypeOf(%s) = %q, %v; encoding/json says %q", data, got, err, want)
		}
	})
}

// topLevelMembers returns the values of every member of the JSON object data
// named name (after unescaping), in order, duplicates included.
func topLevelMembers(t *testing.T, data []byte, name string) []json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil { // {
		t.Fatal(err)
	}
	var out []json.RawMessage
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		if tok == name {
			out = append(out, v)
		}
	}
	return out
}
