package mcp

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/mcpkit/mcpkit/protocol"
)

// toolResultSeeds are results of the shape the hand decoder takes, and near
// misses it must leave to encoding/json.
var toolResultSeeds = []string{
	`{"content":[{"type":"text","text":"hello world"}]}`,
	` { "content" : [ { "text" : "a" , "type" : "text" } , {"type":"text","text":"b"} ] , "isError" : true } `,
	`{"content":[],"resultType":"complete","isError":false}`,
	`{"content":[{"type":"text","text":"é ✓"}],"resultType":"other"}`,
	`{"content":[{"type":"text","text":"hello"}],"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"srv","version":"1.0.0"}}}`,
	`{"_meta":{"k":[1,{"x":null}],"progressToken":7} ,"content":[]}`,
	`{"content":[],"_meta":null}`,
	`{"content":[],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":1}}}`,
	`{"content":[],"_meta":{"a":1},"_meta":{"b":2}}`,
	`{"content":[],"_meta":{"a":}}`,
	`{"content":[{"type":"text","text":"a\nb"}]}`,
	`{"content":[{"type":"image","data":"AA==","mimeType":"image/png"}]}`,
	`{"content":[{"type":"text","text":"a"}],"structuredContent":{"x":1}}`,
	`{"content":[{"type":"text","text":"a","text":"b"}]}`,
	`{"content":[{"type":"text","text":"a"}],"content":[]}`,
	`{"Content":[{"Type":"text","Text":"a"}]}`,
	`{"content":null}`,
	`{"content":[{"type":"text"}]}`,
	`{"content":[{"type":"text","text":"a"}]}x`,
	`{"content":[{"type":"text","text":"a"},]}`,
	`{"isError":true}`,
	`{}`,
	"{\"content\":[{\"type\":\"text\",\"text\":\"\xff\"}]}",
}

// TestFastToolResult checks that the seeds the hand decoder takes decode to
// what encoding/json makes of them, and that it takes the common shapes.
func TestFastToolResult(t *testing.T) {
	taken := 0
	for _, s := range toolResultSeeds {
		if checkFastToolResult(t, []byte(s)) {
			taken++
		}
	}
	if taken != 7 {
		t.Errorf("the hand decoder took %d of the seeds, want the first 7", taken)
	}
	var res protocol.CallToolResult
	if err := decodeToolResult([]byte(`{"content":[{"type":"text","text":"a\u0041"}],"_meta":{"k":"v"}}`), &res); err != nil ||
		res.Content[0].Text != "aA" || res.Meta["k"] != "v" {
		t.Errorf("fallback: %+v, %v", res, err)
	}
	if err := decodeToolResult([]byte(`{"content":`), &res); err == nil {
		t.Error("a truncated result decoded")
	}
}

// checkFastToolResult reports whether the hand decoder took data, failing t
// if what it made differs from encoding/json's decoding, into a zero result
// or one from newToolResult (as the client decodes).
func checkFastToolResult(t *testing.T, data []byte) bool {
	t.Helper()
	var fast protocol.CallToolResult
	inPlace := newToolResult()
	took := fastToolResult(data, &fast)
	if fastToolResult(data, inPlace) != took {
		t.Fatalf("%q: the hand decoder takes it only into one of a zero result and newToolResult's", data)
	}
	if !took {
		return false
	}
	var want protocol.CallToolResult
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatalf("hand decoder took %q, which encoding/json rejects: %v", data, err)
	}
	if !reflect.DeepEqual(fast, want) || !reflect.DeepEqual(*inPlace, want) {
		t.Fatalf("%q: hand decoder made %#v and %#v, encoding/json %#v", data, fast, *inPlace, want)
	}
	return true
}

// FuzzFastToolResult compares the hand decoder of tool results with
// encoding/json on whatever it accepts.
func FuzzFastToolResult(f *testing.F) {
	for _, s := range toolResultSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkFastToolResult(t, data) })
}

// TestToolResultAllocatesItsBlockWithIt checks that a result of one text
// block costs the result (its block allocated with it) and the text.
func TestToolResultAllocatesItsBlockWithIt(t *testing.T) {
	raw := []byte(`{"content":[{"type":"text","text":"hello"}],"isError":false}`)
	n := testing.AllocsPerRun(100, func() {
		res := newToolResult()
		if err := decodeToolResult(raw, res); err != nil || len(res.Content) != 1 || res.Content[0].Text != "hello" {
			t.Fatal(res, err)
		}
	})
	if n > 2 {
		t.Errorf("decoding a one-block result: %.0f allocations, want 2 (the result with its block, the text)", n)
	}
	two := []byte(`{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}`)
	res := newToolResult()
	if err := decodeToolResult(two, res); err != nil || len(res.Content) != 2 || res.Content[0].Text != "a" || res.Content[1].Text != "b" {
		t.Errorf("two blocks: %+v, %v", res, err)
	}
}

// BenchmarkStatelessToolResult is what a 2026-07-28 client does with a
// complete result: "scan-then-decode" finds its resultType (resultTypeOf)
// and then decodes it, as callToolStateless did; "decode" learns the
// resultType from the decode itself, as it does now for a result
// fastToolResult reads.
func BenchmarkStatelessToolResult(b *testing.B) {
	raw := []byte(`{"content":[{"type":"text","text":"hello world"}],"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"bench","version":"1.0.0"}}}`)
	b.Run("scan-then-decode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if kind, err := resultTypeOf(raw); err != nil || kind != protocol.ResultTypeComplete {
				b.Fatal(kind, err)
			}
			if err := decodeToolResult(raw, newToolResult()); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			res := newToolResult()
			if !fastToolResult(raw, res) || res.ResultType != protocol.ResultTypeComplete {
				b.Fatal(res)
			}
		}
	})
}
