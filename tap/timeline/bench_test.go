package timeline

import (
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/tap/capture"
)

// BenchmarkAdd feeds request/response pairs (a tools/call and its result) as a
// live view would get them: records/s and allocations per record.
func BenchmarkAdd(b *testing.B) {
	t0 := time.Now()
	recs := make([]*capture.Record, 0, 2048)
	for i := range 1024 {
		id := strconv.Itoa(i)
		recs = append(recs,
			&capture.Record{Time: t0, Dir: capture.ClientToServer, Session: "stdio", Transport: capture.TransportStdio,
				Msg: json.RawMessage(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}`)},
			&capture.Record{Time: t0.Add(time.Millisecond), Dir: capture.ServerToClient, Session: "stdio", Transport: capture.TransportStdio,
				Msg: json.RawMessage(`{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[{"type":"text","text":"hi"}]}}`)})
	}
	m := New(Options{Limit: 10_000})
	b.ReportAllocs()
	b.ResetTimer()
	seq := uint64(0)
	for i := 0; i < b.N; i++ {
		r := *recs[i%len(recs)]
		seq++
		r.Seq = seq
		m.Add(&r)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
}
