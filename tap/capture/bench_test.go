package capture

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// The records of the benchmarks: a tools/call over HTTP, request and response,
// with their headers.
const (
	benchReqLines  = "Host:127.0.0.1:1\nContent-Type:application/json\nAccept:application/json, text/event-stream\nMcp-Protocol-Version:2025-06-18\nContent-Length:103\n"
	benchRespLines = "Content-Type:application/json\nDate:Wed, 25 Nov 2026 13:04:05 GMT\nContent-Length:120\n"
)

var (
	benchReq  = json.RawMessage(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"message":"bench"}}}`)
	benchResp = json.RawMessage(`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"hello bench"}]}}`)
)

// benchCall sets q and s to the records of call i, and their HTTPInfo qi and
// si, with the headers given as a map (shared by every call) or as lines.
func benchCall(i int, lines bool, q, s *Record, qi, si *HTTPInfo) {
	*qi = HTTPInfo{Exchange: uint64(i), Method: "POST", Path: "/mcp", ContentType: "application/json"}
	*si = HTTPInfo{Exchange: uint64(i), Method: "POST", Path: "/mcp", Status: 200, ContentType: "application/json"}
	if lines {
		qi.SetHeaderLines(benchReqLines)
		si.SetHeaderLines(benchRespLines)
	} else {
		qi.Headers, si.Headers = benchReqHeaders.Headers, benchRespHeaders.Headers
	}
	*q = Record{Dir: ClientToServer, Transport: TransportStreamable, Session: "conn-1", Msg: benchReq, HTTP: qi}
	*s = Record{Dir: ServerToClient, Transport: TransportStreamable, Session: "conn-1", Msg: benchResp, HTTP: si}
}

var benchReqHeaders, benchRespHeaders = func() (*HTTPInfo, *HTTPInfo) {
	q, s := &HTTPInfo{lines: benchReqLines}, &HTTPInfo{lines: benchRespLines}
	q.buildHeaders()
	s.buildHeaders()
	return q, s
}()

// benchRecorder returns a recorder writing to a file of the benchmark's.
func benchRecorder(b *testing.B) *Recorder {
	f, err := os.Create(filepath.Join(b.TempDir(), "c.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = f.Close() })
	rec, err := NewRecorder(Options{Out: f})
	if err != nil {
		b.Fatal(err)
	}
	return rec
}

// BenchmarkRecorder measures recording the two records of a tools/call over HTTP
// (request and response, with their headers) into a capture file: what the relay
// pays in Record and what the recorder's goroutine pays to write them, per call.
// The headers come as a map, or as SetHeaderLines gives them (as the HTTP tap
// does). The producer waits for the recorder now and then, so that no record is
// dropped: dropping would measure less than recording.
func BenchmarkRecorder(b *testing.B) {
	for _, form := range []string{"map", "lines"} {
		b.Run("headers="+form, func(b *testing.B) {
			rec := benchRecorder(b)
			b.ReportAllocs()
			for i := range b.N {
				q, s, qi, si := new(Record), new(Record), new(HTTPInfo), new(HTTPInfo)
				benchCall(i, form == "lines", q, s, qi, si)
				rec.Record(q)
				rec.Record(s)
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
	for _, form := range []string{"map", "lines"} {
		b.Run("headers="+form, func(b *testing.B) {
			rec := benchRecorder(b)
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
						benchCall(i+j, form == "lines", &qs[j], &ss[j], &qi[j], &si[j])
						qs[j].Seq, ss[j].Seq = uint64(2*(i+j)+1), uint64(2*(i+j)+2)
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
