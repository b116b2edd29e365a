package mcp

import (
	"testing"
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
