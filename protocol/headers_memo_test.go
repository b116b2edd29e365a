package protocol

import (
	"encoding/json"
	"testing"
)

// memoMetas are _meta objects of every kind readMeta meets: complete,
// partial, repeated keys, null, escaped keys, and ones the server cannot
// decode.
var memoMetas = []string{
	`{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`,
	`{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`,
	`{"io.modelcontextprotocol/clientCapabilities":null}`,
	`{"io.modelcontextprotocol/protocolVersion":"a","io.modelcontextprotocol/protocolVersion":null,"io.modelcontextprotocol/clientCapabilities":{}}`,
	`{"io.modelcontextprotocol\/protocolVersion":"y","io.modelcontextprotocol/protocolversion":"x"}`,
	`{"io.modelcontextprotocol/protocolVersion":1,"io.modelcontextprotocol/clientCapabilities":{}}`,
	`{"io.modelcontextprotocol/protocolVersion":"v","io.modelcontextprotocol/clientCapabilities":[]}`,
	`{"io.modelcontextprotocol/protocolVersion":"\ud800"}`,
	`{}`,
}

// scanned is what ReadRequestFields answers for a tools/call with meta,
// read without the memo.
func scanned(meta string) RequestFields {
	lastMeta.Store(nil)
	lastMetaRead.Store(0)
	return ReadRequestFields(MethodToolsCall, json.RawMessage(`{"name":"echo","_meta":`+meta+`}`))
}

// TestReadMetaMemo: reading the same _meta again, and again after others,
// gives what reading it in full gives, and an object met twice in a row is
// kept while one met once is not.
func TestReadMetaMemo(t *testing.T) {
	want := make([]RequestFields, len(memoMetas))
	for i, m := range memoMetas {
		want[i] = scanned(m)
	}
	read := func(i int) {
		t.Helper()
		if got := ReadRequestFields(MethodToolsCall, json.RawMessage(`{"name":"echo","_meta":`+memoMetas[i]+`}`)); got != want[i] {
			t.Fatalf("_meta %s: got %+v, want %+v", memoMetas[i], got, want[i])
		}
	}
	for i, m := range memoMetas {
		for range 3 {
			read(i)
		}
		if k := lastMeta.Load(); k == nil || k.text != m {
			t.Fatalf("_meta %s read 3 times in a row is not kept (%+v)", m, k)
		}
		for j := range memoMetas { // the others once each, then this one
			read(j)
			read(i)
		}
	}
	// Met once each, in turn: nothing new is kept.
	lastMeta.Store(nil)
	for range 2 {
		for i := range memoMetas {
			read(i)
		}
	}
	if k := lastMeta.Load(); k != nil {
		t.Errorf("kept %s, met once in a row only", k.text)
	}
}

// TestReadMetaMemoBounds: an object longer than the memo's bound is never
// kept, and two clients taking turns cost no allocation.
func TestReadMetaMemoBounds(t *testing.T) {
	long := `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","x":"` + string(make([]byte, metaMemoMaxLen)) + `"}`
	for i := range len(long) {
		if long[i] == 0 {
			long = long[:i] + "a" + long[i+1:]
		}
	}
	lastMeta.Store(nil)
	for range 3 {
		if f := ReadRequestFields(MethodToolsCall, json.RawMessage(`{"_meta":`+long+`}`)); f.ProtocolVersion != "2026-07-28" {
			t.Fatalf("fields %+v", f)
		}
	}
	if lastMeta.Load() != nil {
		t.Error("kept a _meta longer than metaMemoMaxLen")
	}
	a := json.RawMessage(`{"_meta":` + memoMetas[0] + `}`)
	b := json.RawMessage(`{"_meta":` + memoMetas[1] + `}`)
	if n := testing.AllocsPerRun(100, func() {
		ReadRequestFields(MethodToolsCall, a)
		ReadRequestFields(MethodToolsCall, b)
	}); n != 0 {
		t.Errorf("%.0f allocations per turn of two clients", n)
	}
}

// FuzzReadMetaMemo: for any _meta object, reading it three times in a row
// (the third from the memo) gives what reading it in full gives.
func FuzzReadMetaMemo(f *testing.F) {
	for _, m := range memoMetas {
		f.Add([]byte(m))
	}
	f.Fuzz(func(t *testing.T, meta []byte) {
		if len(meta) == 0 || meta[0] != '{' || !json.Valid(meta) {
			return
		}
		var full RequestFields
		fullOK := full.scanMeta(meta)
		for i := range 3 {
			var got RequestFields
			if ok := got.readMeta(meta); ok != fullOK || got != full {
				t.Fatalf("read %d of %s: %+v %v, want %+v %v", i+1, meta, got, ok, full, fullOK)
			}
		}
	})
}
