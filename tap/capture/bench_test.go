package capture

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkRecorder measures recording the two records of a tools/call over HTTP
// (request and response, with their headers) into a capture file.
func BenchmarkRecorder(b *testing.B) {
	f, err := os.Create(filepath.Join(b.TempDir(), "c.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	rec, err := NewRecorder(Options{Out: f})
	if err != nil {
		b.Fatal(err)
	}
	reqHeaders := map[string][]string{"Host": {"127.0.0.1:1"}, "Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"},
		"Mcp-Protocol-Version": {"2025-06-18"}, "Content-Length": {"103"}}
	respHeaders := map[string][]string{"Content-Type": {"application/json"}, "Date": {"Wed, 25 Nov 2026 13:04:05 GMT"}, "Content-Length": {"120"}}
	req := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"message":"bench"}}}`)
	resp := []byte(`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"hello bench"}]}}`)
	b.ReportAllocs()
	for i := range b.N {
		rec.Record(&Record{Dir: ClientToServer, Transport: TransportStreamable, Session: "conn-1", Msg: json.RawMessage(req),
			HTTP: &HTTPInfo{Exchange: uint64(i), Method: "POST", Path: "/mcp", ContentType: "application/json", Headers: reqHeaders}})
		rec.Record(&Record{Dir: ServerToClient, Transport: TransportStreamable, Session: "conn-1", Msg: json.RawMessage(resp),
			HTTP: &HTTPInfo{Exchange: uint64(i), Method: "POST", Path: "/mcp", Status: 200, ContentType: "application/json", Headers: respHeaders}})
	}
	if err := rec.Close(); err != nil {
		b.Fatal(err)
	}
	if s := rec.Summary(); s.Dropped > 0 {
		b.Logf("%d dropped", s.Dropped)
	}
}
