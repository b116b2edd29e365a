package llm_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"runtime/metrics"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/llm"
)

// allocated returns the bytes the program has allocated so far.
func allocated() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// mapWithin maps schema in another goroutine and fails the test as soon as
// the program has allocated more than budget bytes since the call.
func mapWithin(t *testing.T, schema []byte, opts llm.SchemaOptions, budget uint64) json.RawMessage {
	t.Helper()
	type result struct {
		out json.RawMessage
		err error
	}
	done := make(chan result, 1)
	start := allocated()
	go func() {
		out, err := llm.MapSchema(schema, opts)
		done <- result{out, err}
	}()
	watch := time.NewTicker(time.Millisecond) // a watchdog's sampling, not a synchronisation
	defer watch.Stop()
	for {
		select {
		case r := <-done:
			if r.err != nil {
				t.Fatal(r.err)
			}
			if used := allocated() - start; used > budget {
				t.Fatalf("MapSchema allocated %d bytes, over the budget of %d", used, budget)
			}
			return r.out
		case <-watch.C:
			if used := allocated() - start; used > budget {
				// The mapping goroutine cannot be stopped; the test binary
				// ends with the failure.
				t.Fatalf("MapSchema allocated %d bytes and is not done: over the budget of %d", used, budget)
			}
		}
	}
}

// TestMapSchemaDoublingReferences is the break-it review's T2: 40
// definitions, each referring twice to the next, expand to 2^39 nodes when
// inlined. The mapping must stop at its budget and keep the references.
func TestMapSchemaDoublingReferences(t *testing.T) {
	in, err := os.ReadFile("testdata/doubling-refs.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, inline := range []bool{true, false} {
		t.Run(fmt.Sprint("inline=", inline), func(t *testing.T) {
			out := mapWithin(t, in, llm.SchemaOptions{InlineRefs: inline}, 256<<20)
			// Past the budget, the schema is sent as the server wrote it.
			if got, want := string(out), compact(t, string(in)); got != want {
				t.Fatalf("got %d bytes:\n%.300s\nwant the input:\n%.300s", len(got), got, want)
			}
		})
	}
	// Through a root anyOf, whose branches are inlined whatever the options.
	var s map[string]any
	if err := json.Unmarshal(in, &s); err != nil {
		t.Fatal(err)
	}
	delete(s, "properties")
	s["anyOf"] = []any{map[string]any{"$ref": "#/$defs/l1"}, map[string]any{"$ref": "#/$defs/l2"}}
	in2, _ := json.Marshal(s)
	out := mapWithin(t, in2, llm.SchemaOptions{}, 256<<20)
	if len(out) > 4*len(in2) {
		t.Fatalf("a root anyOf of doubling references mapped to %d bytes (input %d)", len(out), len(in2))
	}
}

// TestMapSchemaInliningBounds checks the other bounds: references nested
// past 64 are kept, a value nested past 10,000 levels is an error, and a
// moderate expansion is still inlined.
func TestMapSchemaInliningBounds(t *testing.T) {
	// A chain of 100 references, each used once: linear, but nested too deep.
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{"a":{"$ref":"#/$defs/d0"}},"$defs":{`)
	for i := range 100 {
		fmt.Fprintf(&b, `"d%d":{"type":"object","properties":{"n":{"$ref":"#/$defs/d%d"}}},`, i, i+1)
	}
	b.WriteString(`"d100":{"type":"string"}}}`)
	out, err := llm.MapSchema([]byte(b.String()), llm.SchemaOptions{InlineRefs: true})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(out, []byte(`"$ref":"#/$defs/d0"`)) || !bytes.Contains(out, []byte(`"$defs"`)) {
		t.Fatalf("a chain of 100 references was inlined: %.200s", out)
	}

	// Ten doublings (1,024 copies of a leaf) stay within the budget.
	b.Reset()
	b.WriteString(`{"type":"object","properties":{"a":{"$ref":"#/$defs/l0"}},"$defs":{`)
	for i := range 10 {
		fmt.Fprintf(&b, `"l%d":{"type":"object","properties":{"p":{"$ref":"#/$defs/l%d"},"q":{"$ref":"#/$defs/l%d"}}},`, i, i+1, i+1)
	}
	b.WriteString(`"l10":{"type":"string"}}}`)
	out, err = llm.MapSchema([]byte(b.String()), llm.SchemaOptions{InlineRefs: true})
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(out, []byte(`$ref`)) || bytes.Count(out, []byte(`"type":"string"`)) != 1024 {
		t.Fatalf("ten doublings were not inlined: %d bytes, %d leaves", len(out), bytes.Count(out, []byte(`"type":"string"`)))
	}

	deep := `{"type":"object","properties":{"a":{"default":` + strings.Repeat("[", 10_001) + strings.Repeat("]", 10_001) + `}}}`
	_, err = llm.MapSchema([]byte(deep), llm.SchemaOptions{InlineRefs: true})
	if err == nil || !strings.Contains(err.Error(), "nests deeper than 10000 levels") {
		t.Fatalf("a schema nested 10,004 deep: err = %v", err)
	}
}

// FuzzMapSchema maps arbitrary schemas both ways: the mapping never fails on
// a JSON object, always returns an object schema, and its size stays within
// the budget's bound.
func FuzzMapSchema(f *testing.F) {
	if in, err := os.ReadFile("testdata/doubling-refs.json"); err == nil {
		f.Add(in, true)
	}
	for _, s := range []string{
		`{"type":"object","properties":{"child":{"$ref":"#"}}}`,
		`{"$ref":"#/$defs/A","$defs":{"A":{"$ref":"#/$defs/B"},"B":{"$ref":"#/$defs/A"}}}`,
		`{"anyOf":[{"$ref":"#/properties/a"},{"required":["a","a"]}],"properties":{"a":{"type":"string"}}}`,
		`{"allOf":[{"$ref":"#"}],"oneOf":[true,{"$ref":"#/allOf/0"}],"not":{"enum":[1]}}`,
		`{"properties":{"x":{"$ref":"#/properties/x~1y"},"x/y":{"items":[{"$ref":"#/properties/x/items/0"}]}}}`,
	} {
		f.Add([]byte(s), true)
		f.Add([]byte(s), false)
	}
	f.Fuzz(func(t *testing.T, in []byte, inline bool) {
		out, err := llm.MapSchema(in, llm.SchemaOptions{InlineRefs: inline})
		var v any
		if json.Unmarshal(in, &v) == nil {
			if _, isObj := v.(map[string]any); isObj && err != nil {
				t.Fatalf("an object schema was refused: %v", err)
			}
		}
		if err != nil {
			return
		}
		var got map[string]any
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("the mapping is not a JSON object: %v: %s", err, out)
		}
		if got["type"] != "object" || !bytes.HasPrefix(out, []byte(`{"type":"object"`)) {
			t.Fatalf("the mapping is not an object schema: %s", out)
		}
		if _, ok := got["properties"].(map[string]any); !ok {
			t.Fatalf("the mapping has no properties object: %s", out)
		}
		// Bytes: the input (escaped at most six-fold), plus what the budget
		// lets inlining add (a unit is a node or 64 bytes of text).
		if limit := 6*len(in) + 64*(8*len(in)+20_000) + 4096; len(out) > limit {
			t.Fatalf("%d bytes mapped to %d", len(in), len(out))
		}
	})
}

// BenchmarkMapSchema maps a typical tool schema with a few shared
// definitions, as the OpenAI provider does for every request.
func BenchmarkMapSchema(b *testing.B) {
	in := []byte(`{"type":"object","properties":{"owner":{"type":"string","description":"The owner"},"repo":{"type":"string"},` +
		`"labels":{"type":"array","items":{"$ref":"#/$defs/Label"}},"assignee":{"$ref":"#/$defs/User"},"reviewers":{"type":"array","items":{"$ref":"#/$defs/User"}}},` +
		`"required":["owner","repo"],"$defs":{"Label":{"type":"object","properties":{"name":{"type":"string"},"color":{"type":"string","pattern":"^[0-9a-f]{6}$"}}},` +
		`"User":{"type":"object","properties":{"login":{"type":"string"},"id":{"type":"integer","minimum":1}},"required":["login"]}}}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := llm.MapSchema(in, llm.SchemaOptions{InlineRefs: true}); err != nil {
			b.Fatal(err)
		}
	}
}
