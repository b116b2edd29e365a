package timeline

import (
	"encoding/json"
	"io"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/tap/capture"
)

// feed returns a next function over list.
func feed(list []*capture.Record) func() (*capture.Record, error) {
	i := 0
	return func() (*capture.Record, error) {
		if i == len(list) {
			return nil, io.EOF
		}
		i++
		return list[i-1], nil
	}
}

// TestReportFromMatchesSnapshotReport: a capture read as a stream gives the
// report of the whole capture held in memory, both for one within the window
// and for one well beyond it (every entry evicted and folded in on the way).
func TestReportFromMatchesSnapshotReport(t *testing.T) {
	smallWindow(t)
	for _, calls := range []int{200, 6 * streamWindow} {
		b := newRecs()
		// A standalone GET stream open throughout (then cut), second streams
		// refused, POST streams cut with requests on them.
		const get = uint64(1 << 40)
		b.event(capture.KindStreamOpen, s2c, "s0", get, 200, "").HTTP.Method = "GET"
		for i := range calls {
			if i%500 == 9 {
				b.event(capture.KindHTTPError, s2c, "s0", get+uint64(i), 409, "409 Conflict").HTTP.Method = "GET"
			}
			if i%900 == 13 {
				x := get + 1<<20 + uint64(i)
				b.http(c2s, "s1", x, "POST", 0, req("\"p"+strconv.Itoa(i)+"\"", "tools/call"))
				b.event(capture.KindStreamOpen, s2c, "s1", x, 200, "")
				b.event(capture.KindStreamClose, s2c, "s1", x, 200, capture.EndUpstreamLost+": reset")
			}
			id := strconv.Itoa(i)
			exch := uint64(i + 1)
			session := "s" + strconv.Itoa(i%7)
			b.http(c2s, session, exch, "POST", 0, req(id, "tools/call"))
			switch {
			case i%50 == 3: // refused
				b.event(capture.KindHTTPError, s2c, session, exch, 404, "404 Not Found")
			case i%97 == 5: // never answered
			default:
				b.http(s2c, session, exch, "POST", 200, res(id))
			}
			if i%1000 == 7 {
				b.msg(c2s, "stdio", "not json")
			}
		}
		b.event(capture.KindStreamClose, s2c, "s0", get, 200, capture.EndUpstreamLost+": reset").HTTP.Method = "GET"
		want := Build(b.list, Options{}).Report(ReportOptions{})
		names := map[string]int{}
		for _, f := range want.Failures {
			names[f.Name]++
		}
		if names[FailStreamCut] < 2 || names[FailSecondStreamRefused] == 0 || names[FailSessionLost] == 0 {
			t.Fatalf("%d calls: the capture shows too few failures to compare: %v", calls, names)
		}
		got, err := ReportFrom(feed(b.list), Options{}, ReportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got.Omitted != 0 {
			t.Errorf("%d calls: %d omitted", calls, got.Omitted)
		}
		want.Stats.Evicted = 0
		wj, _ := json.Marshal(want)
		gj, _ := json.Marshal(got)
		if string(wj) != string(gj) {
			t.Errorf("%d calls: the streamed report differs:\n got  %.600s\n want %.600s", calls, gj, wj)
		}
	}
}

// TestReportFromBoundedMemory: what ReportFrom holds does not grow with the
// records it read, beyond a few bytes per call (the latencies kept for exact
// percentiles): the heap in use at the last record, for four times as many
// calls, grows by less than 100 bytes per extra call, where the records
// themselves are several hundred bytes each (break-it review T9: `tap stats`
// held a 1.42 GB capture in 10.3 GB).
func TestReportFromBoundedMemory(t *testing.T) {
	smallWindow(t)
	heapAtEnd := func(calls int) uint64 {
		var heap uint64
		params := `{"name":"echo","arguments":{"message":"0123456789012345678901234567890123456789012345678901234567890123456789"}}`
		n := 0
		next := func() (*capture.Record, error) {
			if n == 2*calls {
				runtime.GC()
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				heap = ms.HeapAlloc
				return nil, io.EOF
			}
			i := n / 2
			id := strconv.Itoa(i)
			r := &capture.Record{Seq: uint64(n + 1), Session: "stdio", Transport: capture.TransportStdio}
			r.Time = r.Time.Add(int64Duration(n))
			if n%2 == 0 {
				r.Dir, r.Msg = c2s, json.RawMessage(`{"jsonrpc":"2.0","id":`+id+`,"method":"tools/call","params":`+params+`}`)
			} else {
				r.Dir, r.Msg = s2c, json.RawMessage(`{"jsonrpc":"2.0","id":`+id+`,"result":{"content":[{"type":"text","text":"hello"}]}}`)
			}
			n++
			return r, nil
		}
		rep, err := ReportFrom(next, Options{}, ReportOptions{})
		if err != nil || rep.Summary.Requests != int64(calls) {
			t.Fatalf("%d calls: %v, %+v", calls, err, rep.Summary)
		}
		return heap
	}
	small, large := heapAtEnd(10*streamWindow), heapAtEnd(40*streamWindow)
	extra := 30 * streamWindow
	if per := (int64(large) - int64(small)) / int64(extra); per > 100 {
		t.Errorf("the heap grew by %d bytes per extra call (%d → %d bytes): records are kept", per, small, large)
	}
}

func int64Duration(n int) time.Duration { return time.Duration(n) * time.Microsecond }

// smallWindow makes ReportFrom's window small for the test, so that a small
// capture goes well beyond it.
func smallWindow(t *testing.T) {
	w, k := streamWindow, streamKeep
	streamWindow, streamKeep = 1000, 10_000
	t.Cleanup(func() { streamWindow, streamKeep = w, k })
}
