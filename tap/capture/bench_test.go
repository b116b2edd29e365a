package capture

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// BenchmarkRecorder measures recording the two records of a tools/call over HTTP
// (request and response, with their headers) into a capture file: what the relay
// pays in Record and what the recorder's goroutine pays to write them, per call.
// The headers come as a map, or as SetHeaderLines gives them (as the HTTP tap
// does). The producer waits for the recorder now and then, so that no record is
// dropped: dropping would measure less than recording.
func BenchmarkRecorder(b *testing.B) {
	reqHeaders := map[string][]string{"Host": {"127.0.0.1:1"}, "Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"},
		"Mcp-Protocol-Version": {"2025-06-18"}, "Content-Length": {"103"}}
	respHeaders := map[string][]string{"Content-Type": {"application/json"}, "Date": {"Wed, 25 Nov 2026 13:04:05 GMT"}, "Content-Length": {"120"}}
	const reqLines = "Host:127.0.0.1:1\nContent-Type:application/json\nAccept:application/json, text/event-stream\nMcp-Protocol-Version:2025-06-18\nContent-Length:103\n"
	const respLines = "Content-Type:application/json\nDate:Wed, 25 Nov 2026 13:04:05 GMT\nContent-Length:120\n"
	req := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"message":"bench"}}}`)
	resp := []byte(`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"hello bench"}]}}`)
	for _, form := range []string{"map", "lines"} {
		b.Run("headers="+form, func(b *testing.B) {
			f, err := os.Create(filepath.Join(b.TempDir(), "c.jsonl"))
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			rec, err := NewRecorder(Options{Out: f})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for i := range b.N {
				qi := &HTTPInfo{Exchange: uint64(i), Method: "POST", Path: "/mcp", ContentType: "application/json", Headers: reqHeaders}
				si := &HTTPInfo{Exchange: uint64(i), Method: "POST", Path: "/mcp", Status: 200, ContentType: "application/json", Headers: respHeaders}
				if form == "lines" {
					qi.SetHeaderLines(reqLines)
					si.SetHeaderLines(respLines)
				}
				rec.Record(&Record{Dir: ClientToServer, Transport: TransportStreamable, Session: "conn-1", Msg: json.RawMessage(req), HTTP: qi})
				rec.Record(&Record{Dir: ServerToClient, Transport: TransportStreamable, Session: "conn-1", Msg: json.RawMessage(resp), HTTP: si})
				if i%(DefaultMaxQueue/4) == 0 {
					waitDrained(rec)
				}
			}
			if err := rec.Close(); err != nil {
				b.Fatal(err)
			}
			if s := rec.Summary(); s.Dropped > 0 || s.Records != int64(2*b.N) {
				b.Fatalf("%d records written, %d dropped, of %d", s.Records, s.Dropped, 2*b.N)
			}
		})
	}
}

// BenchmarkRecorderTake measures the work of the recorder's goroutine for the
// two records of a tools/call over HTTP, alone: normalizing, pairing, writing
// the lines, with the headers as a map or as the HTTP tap gives them. (The
// goroutine is stopped; the benchmark does its work.)
func BenchmarkRecorderTake(b *testing.B) {
	const reqLines = "Host:127.0.0.1:1\nContent-Type:application/json\nAccept:application/json, text/event-stream\nMcp-Protocol-Version:2025-06-18\nContent-Length:103\n"
	const respLines = "Content-Type:application/json\nDate:Wed, 25 Nov 2026 13:04:05 GMT\nContent-Length:120\n"
	reqHeaders := (&HTTPInfo{lines: reqLines})
	reqHeaders.buildHeaders()
	respHeaders := (&HTTPInfo{lines: respLines})
	respHeaders.buildHeaders()
	req := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"message":"bench"}}}`)
	resp := []byte(`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"hello bench"}]}}`)
	for _, form := range []string{"map", "lines"} {
		b.Run("headers="+form, func(b *testing.B) {
			f, err := os.Create(filepath.Join(b.TempDir(), "c.jsonl"))
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			rec, err := NewRecorder(Options{Out: f})
			if err != nil {
				b.Fatal(err)
			}
			_ = rec.Close()
			const n = 1024 // records made ahead, outside the timing
			qs, ss := make([]Record, n), make([]Record, n)
			qi, si := make([]HTTPInfo, n), make([]HTTPInfo, n)
			var line []byte
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				k := i % n
				if k == 0 {
					b.StopTimer()
					for j := range n {
						qi[j] = HTTPInfo{Exchange: uint64(i + j), Method: "POST", Path: "/mcp", ContentType: "application/json", Headers: reqHeaders.Headers}
						si[j] = HTTPInfo{Exchange: uint64(i + j), Method: "POST", Path: "/mcp", Status: 200, ContentType: "application/json", Headers: respHeaders.Headers}
						if form == "lines" {
							qi[j].SetHeaderLines(reqLines)
							si[j].SetHeaderLines(respLines)
						}
						qs[j] = Record{Seq: uint64(2*(i+j) + 1), Dir: ClientToServer, Transport: TransportStreamable, Session: "conn-1", Msg: json.RawMessage(req), HTTP: &qi[j]}
						ss[j] = Record{Seq: uint64(2*(i+j) + 2), Dir: ServerToClient, Transport: TransportStreamable, Session: "conn-1", Msg: json.RawMessage(resp), HTTP: &si[j]}
					}
					b.StartTimer()
				}
				line = rec.take(&qs[k], line)
				line = rec.take(&ss[k], line)
			}
			b.StopTimer()
			if s := rec.Summary(); s.Messages != int64(2*b.N) || s.Responses != int64(b.N) || len(s.Unanswered) != 0 {
				b.Fatalf("summary: %s", s.String())
			}
		})
	}
}

// waitDrained waits until the recorder's goroutine has taken every queued record.
func waitDrained(rec *Recorder) {
	for {
		rec.mu.Lock()
		n := len(rec.queue)
		rec.mu.Unlock()
		if n == 0 {
			return
		}
		runtime.Gosched()
	}
}
