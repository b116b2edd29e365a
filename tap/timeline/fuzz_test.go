package timeline

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/tap/capture"
)

// FuzzAdd feeds a small model arbitrary records: no panic, ids unique, the limit
// kept, every entry's state consistent with its response.
func FuzzAdd(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), uint8(0), uint8(0), uint64(1), uint16(0))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`), uint8(1), uint8(0), uint64(1), uint16(200))
	f.Add([]byte(`[{"jsonrpc":"2.0","id":"a","method":"x","params":{"_meta":{"progressToken":1}}}]`), uint8(0), uint8(1), uint64(2), uint16(0))
	f.Add([]byte(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1}}`), uint8(1), uint8(1), uint64(2), uint16(200))
	f.Add([]byte(`garbage`), uint8(2), uint8(2), uint64(3), uint16(404))
	f.Add([]byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Bad Request: No valid session ID provided"}}`), uint8(1), uint8(2), uint64(1), uint16(400))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}}`), uint8(0), uint8(2), uint64(1), uint16(0))
	f.Fuzz(func(t *testing.T, msg []byte, dirKind, session uint8, exch uint64, status uint16) {
		m := New(Options{Limit: 8})
		kinds := []string{"", capture.KindHTTPError, capture.KindStreamClose, capture.KindUpstreamError, capture.KindDropped, capture.KindStderr}
		for i := range 24 {
			r := &capture.Record{
				Seq:     uint64(i % 7), // repeated seqs on purpose
				Time:    time.Unix(int64(i), 0),
				Kind:    kinds[(int(dirKind)+i)%len(kinds)],
				Dir:     []string{capture.ClientToServer, capture.ServerToClient}[(int(dirKind)>>4+i)%2],
				Session: []string{"a", "b", "conn-1"}[(int(session)+i)%3],
				Count:   int64(i),
			}
			if r.Kind == "" {
				if json.Valid(msg) {
					r.Msg = msg
				} else {
					r.Invalid, r.Raw = true, string(msg)
				}
			}
			if exch != 0 {
				r.HTTP = &capture.HTTPInfo{Exchange: exch + uint64(i%2), Method: "POST", Status: int(status)}
			}
			m.Add(r)
		}
		s := m.Snapshot()
		if len(s.Entries) > 8 || int64(len(s.Entries))+s.Stats.Evicted != s.Stats.Entries {
			t.Fatalf("%d entries, stats %+v", len(s.Entries), s.Stats)
		}
		seen := map[EntryID]bool{}
		for _, e := range s.Entries {
			if seen[e.ID] {
				t.Fatalf("duplicate id %s", e.ID)
			}
			seen[e.ID] = true
			if got, ok := m.Entry(e.ID); !ok || got != e {
				t.Fatalf("Entry(%s) = %v, %v", e.ID, got, ok)
			}
			if (e.State == StateAnswered) != (e.Response != nil) || (e.State == StateRefused) != (e.Refusal != nil) {
				t.Fatalf("entry %s: state %s, response %v, refusal %v", e.ID, e.State, e.Response, e.Refusal)
			}
		}
		_ = s.Report(ReportOptions{}) // must not panic either
		var b []byte
		if _, err := json.Marshal(s.Report(ReportOptions{})); err != nil {
			t.Fatal(err, b)
		}
	})
}
