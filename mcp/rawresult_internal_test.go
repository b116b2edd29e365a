package mcp

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/mcpkit/mcpkit/internal/jsonscan"
	"github.com/mcpkit/mcpkit/protocol"
)

// TestAppendRawToolResult: the writer drops what the server owns wherever and
// however it is written, and adds the stateless era's members; everything
// else is copied as it is.
func TestAppendRawToolResult(t *testing.T) {
	const info = `{"name":"gw","version":"1"}`
	cases := []struct {
		raw, legacy, stateless string
	}{
		{`{"content":[]}`, `{"content":[]}`,
			`{"content":[],"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":` + info + `}}`},
		{`{}`, `{}`, `{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":` + info + `}}`},
		{` { "content" : [ 1 ] , "x" : { } } `, ` { "content" : [ 1 ] , "x" : { } } `,
			`{"content":[ 1 ],"x":{ },"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":` + info + `}}`},
		// Repeated and escaped names of owned members.
		{`{"resultType":"a","content":[],"result\u0054ype":"input_required","resultType":"b"}`, `{"content":[]}`,
			`{"content":[],"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":` + info + `}}`},
		// _meta goes last; the last one counts; serverInfo, however written, goes.
		{`{"_meta":{"a":1},"content":[],"_meta":{"b":2,"io.modelcontextprotocol/server\u0049nfo":{}}}`, `{"content":[],"_meta":{"b":2}}`,
			`{"content":[],"resultType":"complete","_meta":{"b":2,"io.modelcontextprotocol/serverInfo":` + info + `}}`},
		// A _meta left empty is left out.
		{`{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"up"}},"content":[]}`, `{"content":[]}`,
			`{"content":[],"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":` + info + `}}`},
		{`{"content":[],"_meta":{}}`, `{"content":[],"_meta":{}}`, // nothing to drop: as it is
			`{"content":[],"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":` + info + `}}`},
		// A _meta that is not an object: null is none; anything else is kept
		// for a legacy client and replaced for a stateless one.
		{`{"content":[],"_meta":null}`, `{"content":[],"_meta":null}`,
			`{"content":[],"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":` + info + `}}`},
		{`{"content":[],"_meta":null,"resultType":"complete"}`, `{"content":[]}`,
			`{"content":[],"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":` + info + `}}`},
		{`{"content":[],"_meta":"odd"}`, `{"content":[],"_meta":"odd"}`,
			`{"content":[],"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":` + info + `}}`},
		// Escaped names of other members stay as they were written.
		{`{"con\u0074ent":[],"\u00e9":1}`, `{"con\u0074ent":[],"\u00e9":1}`,
			`{"con\u0074ent":[],"\u00e9":1,"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":` + info + `}}`},
	}
	for _, c := range cases {
		if got := string(appendRawToolResult([]byte("x"), []byte(c.raw), nil)); got != "x"+c.legacy {
			t.Errorf("legacy %s\n got %s\nwant x%s", c.raw, got, c.legacy)
		}
		if got := string(appendRawToolResult(nil, []byte(c.raw), []byte(info))); got != c.stateless {
			t.Errorf("stateless %s\n got %s\nwant %s", c.raw, got, c.stateless)
		}
	}
}

// TestAppendRawToolResultAllocatesNothing: writing a raw result into a buffer
// with room costs no allocation, in either era, even when members are dropped.
func TestAppendRawToolResultAllocatesNothing(t *testing.T) {
	raw := []byte(`{"content":[{"type":"text","text":"hi"}],"structuredContent":{"n":1},"resultType":"complete","_meta":{"k":"v","io.modelcontextprotocol/serverInfo":{"name":"up"}}}`)
	info := []byte(`{"name":"gw","version":"1"}`)
	buf := make([]byte, 0, 1024)
	for _, in := range [][]byte{nil, info} {
		if n := testing.AllocsPerRun(100, func() { buf = appendRawToolResult(buf[:0], raw, in) }); n != 0 {
			t.Errorf("info %q: %v allocations per result, want 0", in, n)
		}
	}
}

// TestZeroRawToolResult: a RawToolResult the server did not make says so
// instead of panicking.
func TestZeroRawToolResult(t *testing.T) {
	var r RawToolResult
	if r.JSON() != nil {
		t.Error("JSON() of a zero RawToolResult is not nil")
	}
	if _, err := r.Decode(); err == nil {
		t.Error("Decode() of a zero RawToolResult succeeded")
	}
	if _, err := r.MarshalJSON(); err == nil {
		t.Error("MarshalJSON() of a zero RawToolResult succeeded")
	}
}

// FuzzAppendRawToolResult: for any JSON object (without line breaks, which
// RawResult removes first), the writer's output is valid JSON whose members
// are the input's (as a decoder reads them, the last of repeated ones
// winning) but for what the server owns: no resultType and no serverInfo in
// _meta for a legacy client; resultType "complete" and the server's
// serverInfo for a stateless one.
func FuzzAppendRawToolResult(f *testing.F) {
	for _, s := range []string{
		`{}`, `{"content":[]}`, `{"resultType":"x","_meta":{"a":1,"io.modelcontextprotocol/serverInfo":2}}`,
		`{"_meta":null}`, `{"_meta":"s"}`, `{"_meta":{}}`, `{"result\u0054ype":1,"\u005fmeta":{"k":[1,{"x":null}]}}`,
		`{ "content" : [ { "type" : "text" } ] , "_meta" : { "a" : 1 } , "_meta" : { "b" : 2 } }`,
	} {
		f.Add([]byte(s))
	}
	info := []byte(`{"name":"gw","version":"1"}`)
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !jsonscan.EachMember(raw, func([]byte, bool, []byte) bool { return true }) || bytes.ContainsAny(raw, "\r\n") {
			return
		}
		var in map[string]json.RawMessage
		if json.Unmarshal(raw, &in) != nil {
			return // keys that are not valid UTF-8 strings, say
		}
		for _, stamp := range [][]byte{nil, info} {
			out := appendRawToolResult(nil, raw, stamp)
			var got map[string]json.RawMessage
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("%s → %s: not one JSON object: %v", raw, out, err)
			}
			for k, v := range in {
				if k == keyResultType || k == keyMeta {
					continue
				}
				if !bytes.Equal(got[k], v) {
					t.Fatalf("%s → %s: member %q is %s, want %s", raw, out, k, got[k], v)
				}
			}
			if rt, ok := got[keyResultType]; (stamp == nil && ok) || (stamp != nil && string(rt) != `"complete"`) {
				t.Fatalf("%s → %s: resultType %s", raw, out, rt)
			}
			if len(got) != len(in)+boolInt(stamp != nil && in[keyResultType] == nil)-boolInt(stamp == nil && in[keyResultType] != nil)+metaDelta(in[keyMeta], got[keyMeta]) {
				t.Fatalf("%s → %s: members added or lost", raw, out)
			}
			var inMeta, gotMeta map[string]json.RawMessage
			if in[keyMeta] != nil && json.Unmarshal(in[keyMeta], &inMeta) != nil && stamp == nil {
				if !bytes.Equal(got[keyMeta], in[keyMeta]) {
					t.Fatalf("%s → %s: a _meta that is no object changed", raw, out)
				}
				continue // a legacy client gets it as it was
			}
			if got[keyMeta] != nil && json.Unmarshal(got[keyMeta], &gotMeta) != nil {
				t.Fatalf("%s → %s: _meta is not an object", raw, out)
			}
			for k, v := range inMeta {
				if k != protocol.MetaKeyServerInfo && !bytes.Equal(gotMeta[k], v) {
					t.Fatalf("%s → %s: _meta member %q is %s, want %s", raw, out, k, gotMeta[k], v)
				}
			}
			if si, ok := gotMeta[protocol.MetaKeyServerInfo]; (stamp == nil && ok) || (stamp != nil && !bytes.Equal(si, info)) {
				t.Fatalf("%s → %s: serverInfo %s", raw, out, si)
			}
		}
	})
}

// boolInt is 1 for true.
func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// metaDelta is how the number of top-level members changes with _meta: +1
// when one appeared, -1 when one went.
func metaDelta(in, out json.RawMessage) int {
	return boolInt(out != nil) - boolInt(in != nil)
}
