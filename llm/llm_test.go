package llm_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/llm"
	"github.com/mcpkit/mcpkit/protocol"
)

func compact(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		t.Fatalf("%v: %s", err, s)
	}
	return b.String()
}

func TestMapSchema(t *testing.T) {
	cases := []struct {
		name, in string
		inline   bool
		want     string
	}{
		{"empty", ``, false, `{"type":"object","properties":{}}`},
		{"null", `null`, false, `{"type":"object","properties":{}}`},
		{"true", `true`, false, `{"type":"object","properties":{}}`},
		{"no properties", `{"type":"object","additionalProperties":false}`, false,
			`{"type":"object","additionalProperties":false,"properties":{}}`},
		{"no type, type put first", `{"properties":{"a":{"type":"string"}},"$schema":"http://json-schema.org/draft-07/schema#"}`, false,
			`{"type":"object","properties":{"a":{"type":"string"}}}`},
		{"root $ref resolved, $defs kept", `{"$ref":"#/$defs/Args","$defs":{"Args":{"type":"object","properties":{"a":{"$ref":"#/$defs/A"}}},"A":{"type":"integer"}}}`, false,
			`{"type":"object","properties":{"a":{"$ref":"#/$defs/A"}},"$defs":{"Args":{"type":"object","properties":{"a":{"$ref":"#/$defs/A"}}},"A":{"type":"integer"}}}`},
		{"root $ref inlined", `{"$ref":"#/$defs/Args","$defs":{"Args":{"type":"object","properties":{"a":{"$ref":"#/$defs/A"}}},"A":{"type":"integer"}}}`, true,
			`{"type":"object","properties":{"a":{"type":"integer"}}}`},
		{"draft-07 definitions inlined", `{"type":"object","properties":{"p":{"$ref":"#/definitions/P","title":"Point"}},"definitions":{"P":{"type":"array","items":{"type":"number"},"title":"P"}}}`, true,
			`{"type":"object","properties":{"p":{"type":"array","items":{"type":"number"},"title":"Point"}}}`},
		{"a pointer into properties", `{"type":"object","properties":{"a":{"type":"string","enum":["x"]},"b":{"$ref":"#/properties/a"}}}`, true,
			`{"type":"object","properties":{"a":{"type":"string","enum":["x"]},"b":{"type":"string","enum":["x"]}}}`},
		{"recursion through the root", `{"type":"object","properties":{"name":{"type":"string"},"child":{"$ref":"#"}}}`, true,
			`{"type":"object","properties":{"name":{"type":"string"},"child":{"$ref":"#"}}}`},
		{"data keywords untouched", `{"type":"object","properties":{"a":{"default":{"$ref":"#/x"},"examples":[{"$ref":"#"}]}}}`, true,
			`{"type":"object","properties":{"a":{"default":{"$ref":"#/x"},"examples":[{"$ref":"#"}]}}}`},
		{"root allOf merged", `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"allOf":[{"properties":{"b":{"type":"integer"}},"required":["b"]},{"$ref":"#/$defs/C"}],"$defs":{"C":{"properties":{"c":{"type":"boolean"}}}}}`, false,
			`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"},"c":{"type":"boolean"}},"required":["a","b"],"$defs":{"C":{"properties":{"c":{"type":"boolean"}}}}}`},
		{"root oneOf: properties joined, common required kept", `{"oneOf":[{"title":"by id","properties":{"id":{"type":"string"},"v":{"type":"integer"}},"required":["id","v"]},{"properties":{"url":{"type":"string"},"v":{"type":"integer"}},"required":["url","v"]}]}`, false,
			`{"type":"object","properties":{"id":{"type":"string"},"v":{"type":"integer"},"url":{"type":"string"}},"required":["v"],"description":"The arguments must match exactly one of: (1) by id; required: id, v; properties: id, v; (2) required: url, v; properties: url, v."}`},
		{"root not and enum moved to the description", `{"type":"object","description":"D","properties":{},"not":{"required":["x"]}}`, false,
			`{"type":"object","description":"D\n\nConstraint on the arguments (not): {\"required\":[\"x\"]}.","properties":{}}`},
		{"a list of types at the root", `{"type":["object","null"],"properties":{}}`, false, `{"type":"object","properties":{}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := llm.MapSchema([]byte(c.in), llm.SchemaOptions{InlineRefs: c.inline})
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != compact(t, c.want) {
				t.Errorf("\n got %s\nwant %s", got, compact(t, c.want))
			}
		})
	}
	for _, bad := range []string{`false`, `[1]`, `{"type":`, `{} {}`} {
		if _, err := llm.MapSchema([]byte(bad), llm.SchemaOptions{}); err == nil {
			t.Errorf("MapSchema(%s) did not fail", bad)
		}
	}
}

func TestModelToolNames(t *testing.T) {
	long := "srv__" + strings.Repeat("x", 70)
	in := []string{"echo", "fs__read.file", "fs__read_file", "über", "a b", "a_b", long, "fs__read.file"}
	got := llm.ModelToolNames(in)
	for i, n := range got {
		if !llm.ValidToolName(n) {
			t.Errorf("%q → %q is not valid", in[i], n)
		}
	}
	if got[0] != "echo" || got[2] != "fs__read_file" || got[5] != "a_b" {
		t.Errorf("valid names changed: %v", got)
	}
	// Sanitized names and names too long get a hash.
	for _, i := range []int{1, 3, 4, 6} {
		if len(got[i]) < 10 || got[i][len(got[i])-9] != '_' {
			t.Errorf("%q → %q: want a hash suffix", in[i], got[i])
		}
	}
	if !strings.HasPrefix(got[3], "uber_") { // the accent dropped
		t.Errorf("über → %q", got[3])
	}
	if got[1] != got[7] {
		t.Errorf("the same name mapped twice differently: %q %q", got[1], got[7])
	}
	seen := map[string]string{}
	for i, n := range got {
		if o, dup := seen[n]; dup && o != in[i] {
			t.Errorf("%q and %q both map to %q", o, in[i], n)
		}
		seen[n] = in[i]
	}
	// The order of the names does not change the mapping.
	rev := slices.Clone(in)
	slices.Reverse(rev)
	got2 := llm.ModelToolNames(rev)
	for i := range rev {
		if got2[i] != got[len(in)-1-i] {
			t.Errorf("order changed the name of %q: %q vs %q", rev[i], got2[i], got[len(in)-1-i])
		}
	}
}

// structuredContent is added as JSON text unless a text block holds the
// same value.
func TestToolResultStructuredContent(t *testing.T) {
	res := &protocol.CallToolResult{Content: []protocol.Content{protocol.NewTextContent(`{ "sum": 5 }`)}, StructuredContent: map[string]any{"sum": 5}}
	if tr := llm.ToolResultFromMCP("c", "add", res); len(tr.Content) != 1 {
		t.Errorf("duplicated: %+v", tr.Content)
	}
	res.Content = nil
	res.IsError = true
	tr := llm.ToolResultFromMCP("c", "add", res)
	if len(tr.Content) != 1 || tr.Content[0].Text != `{"sum":5}` || !tr.IsError || tr.CallID != "c" {
		t.Errorf("result %+v", tr)
	}
}

func TestAccumulatorRejectsOrphanFragments(t *testing.T) {
	var a llm.Accumulator
	if err := a.Add(llm.Event{Type: llm.EventToolCallDelta, Index: 3, Text: "{"}); err == nil {
		t.Error("a fragment of a call that never started was accepted")
	}
	if err := a.Add(llm.Event{Type: llm.EventToolCallStart, Index: 0, ID: "a", Name: "x"}); err != nil {
		t.Fatal(err)
	}
	if err := a.Add(llm.Event{Type: llm.EventToolCallStart, Index: 0, ID: "b", Name: "y"}); err == nil {
		t.Error("a call started twice was accepted")
	}
}

// Text after a tool call starts a new text part; parts keep their order.
func TestAccumulatorParts(t *testing.T) {
	var a llm.Accumulator
	for _, ev := range []llm.Event{
		{Type: llm.EventStart, Model: "m"},
		{Type: llm.EventTextDelta, Text: "a"}, {Type: llm.EventTextDelta, Text: "b"},
		{Type: llm.EventToolCallStart, Index: 0, ID: "1", Name: "t"},
		{Type: llm.EventToolCallDelta, Index: 0, Text: `{"x"`}, {Type: llm.EventToolCallDelta, Index: 0, Text: `:1}`},
		{Type: llm.EventToolCallEnd, Index: 0},
		{Type: llm.EventTextDelta, Text: "c"},
		{Type: llm.EventUsage, Usage: llm.Usage{InputTokens: 1}}, {Type: llm.EventUsage, Usage: llm.Usage{InputTokens: 5, OutputTokens: 2}},
		{Type: llm.EventStop, StopReason: llm.StopToolUse},
	} {
		if err := a.Add(ev); err != nil {
			t.Fatal(err)
		}
	}
	r := a.Response()
	p := r.Message.Parts
	if len(p) != 3 || p[0].Text != "ab" || p[1].ToolCall.Arguments != `{"x":1}` || p[2].Text != "c" {
		t.Fatalf("parts %+v", p)
	}
	if r.Usage != (llm.Usage{InputTokens: 5, OutputTokens: 2}) || r.Model != "m" || r.StopReason != llm.StopToolUse {
		t.Errorf("response %+v", r)
	}
}
