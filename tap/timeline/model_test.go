package timeline

import (
	"strconv"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/tap/capture"
)

func TestPairsInBothDirectionsPerSession(t *testing.T) {
	b := newRecs()
	b.msg(c2s, "a", req("1", "tools/list"))                                              // 1
	b.msg(s2c, "a", req("1", "sampling/createMessage"))                                  // 2: same id, other direction
	b.msg(c2s, "b", req("1", "ping"))                                                    // 3: same id, other session
	b.msg(c2s, "a", res("1"))                                                            // 4 answers 2
	b.msg(s2c, "b", res("1"))                                                            // 5 answers 3
	b.msg(s2c, "a", `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"nope"}}`) // 6 answers 1
	s := b.model(0).Snapshot()
	if len(s.Entries) != 3 {
		t.Fatalf("entries = %d, want 3 (responses attach to their requests)", len(s.Entries))
	}
	want := []struct {
		seq     uint64
		respSeq uint64
		server  bool
		err     bool
	}{{1, 6, false, true}, {2, 4, true, false}, {3, 5, false, false}}
	for _, w := range want {
		e := byID(s, w.seq, 0)
		if e == nil || e.State != StateAnswered || e.Response == nil {
			t.Fatalf("entry %d = %+v, want answered", w.seq, e)
		}
		if e.Response.Record.Seq != w.respSeq || e.ServerRequest != w.server || e.Error != w.err {
			t.Errorf("entry %d: response %d server %v error %v, want %d %v %v", w.seq, e.Response.Record.Seq, e.ServerRequest, e.Error, w.respSeq, w.server, w.err)
		}
		if got := e.Latency; got != time.Duration(w.respSeq-w.seq)*time.Millisecond {
			t.Errorf("entry %d latency = %s", w.seq, got)
		}
	}
	if e := byID(s, 1, 0); e.ErrorCode != -32601 || e.ErrorMessage != "nope" || !e.Failed() {
		t.Errorf("error entry = %+v", e)
	}
}

func TestBatchesProgressAndIsError(t *testing.T) {
	b := newRecs()
	b.msg(c2s, "s", `[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"progressToken":"p1"}}},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":2,"method":"ping"}]`)
	b.msg(s2c, "s", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p1","progress":1}}`)
	b.msg(s2c, "s", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"other","progress":1}}`)
	b.msg(s2c, "s", `[{"jsonrpc":"2.0","id":2,"result":{}},{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":true}}]`)
	s := b.model(0).Snapshot()
	call, ping := byID(s, 1, 0), byID(s, 1, 2)
	if call == nil || ping == nil || byID(s, 1, 1) == nil {
		t.Fatalf("batch entries missing: %v", ids(s))
	}
	if string(ping.Message.Raw) != `{"jsonrpc":"2.0","id":2,"method":"ping"}` || ping.Response == nil || ping.Response.Index != 0 {
		t.Errorf("ping = %s, response %+v", ping.Message.Raw, ping.Response)
	}
	if !call.IsError || call.Error || !call.Failed() || call.Response.Index != 1 {
		t.Errorf("call: IsError %v Error %v", call.IsError, call.Error)
	}
	if len(call.Notifications) != 1 || call.FirstProgress != 1*time.Millisecond {
		t.Errorf("call notifications %d, first progress %s", len(call.Notifications), call.FirstProgress)
	}
	if byID(s, 3, 0) == nil || byID(s, 3, 0).Kind != KindNotification {
		t.Errorf("progress with an unknown token should stand alone: %v", ids(s))
	}
}

func TestRefusedSSEGroupingAndAlias(t *testing.T) {
	b := newRecs()
	b.http(c2s, "conn-1", 1, "POST", 0, req("0", "initialize"))                                                                    // 1
	b.http(s2c, "sess", 1, "POST", 200, `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18"}}`)                      // 2
	b.http(c2s, "sess", 2, "POST", 0, req("1", "tools/call"))                                                                      // 3
	b.event(capture.KindStreamOpen, s2c, "sess", 2, 200, "")                                                                       // 4
	b.http(s2c, "sess", 2, "POST", 200, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`) // 5
	b.http(s2c, "sess", 2, "POST", 200, res("1"))                                                                                  // 6
	b.http(c2s, "sess", 3, "POST", 0, req("2", "tools/list"))                                                                      // 7
	b.event(capture.KindHTTPError, s2c, "sess", 3, 404, "404 Not Found: session not found")                                        // 8
	s := b.model(0).Snapshot()
	if e := byID(s, 1, 0); e.Session != "sess" || e.State != StateAnswered {
		t.Errorf("initialize: session %q state %s, want it moved to the session its reply named", e.Session, e.State)
	}
	if e := byID(s, 3, 0); len(e.Notifications) != 1 || e.Notifications[0].Method != "notifications/message" {
		t.Errorf("a log message on the request's SSE response belongs to it: %+v", e.Notifications)
	}
	e := byID(s, 7, 0)
	if e.State != StateRefused || e.Refusal == nil || e.Refusal.Seq != 8 || e.Latency != time.Millisecond || !e.Failed() {
		t.Errorf("refused request = %+v", e)
	}
	if len(s.Summary.Unanswered) != 0 || s.Summary.Refused != 1 {
		t.Errorf("summary = %+v", s.Summary)
	}
	if ev := byID(s, 8, 0); ev != nil || len(e.Events) != 1 || e.Events[0].Seq != 8 {
		t.Errorf("the http error is folded into the call it refused: entry %+v, events %v", ev, e.Events)
	}
	if ev := byID(s, 4, 0); ev != nil || len(byID(s, 3, 0).Events) != 1 {
		t.Errorf("the call's own stream is folded into its row: %+v", ev)
	}
}

func TestInvalidEventsAndLoneMessages(t *testing.T) {
	b := newRecs()
	b.add(&capture.Record{Dir: s2c, Invalid: true, Raw: "garbage{"})
	b.msg(s2c, "stdio", `{"hello":1}`)
	b.add(&capture.Record{Kind: capture.KindStderr, Text: "boom"})
	b.msg(s2c, "stdio", res("9"))
	b.msg(s2c, "stdio", `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`)
	s := b.model(0).Snapshot()
	kinds := []string{KindInvalid, KindInvalid, KindEvent, KindResponse, KindNotification}
	if len(s.Entries) != len(kinds) {
		t.Fatalf("entries %v", ids(s))
	}
	for i, k := range kinds {
		if s.Entries[i].Kind != k {
			t.Errorf("entry %d kind %s, want %s", i, s.Entries[i].Kind, k)
		}
	}
	if s.Entries[2].Event != capture.KindStderr || !s.Entries[0].Failed() {
		t.Errorf("stderr event %+v", s.Entries[2])
	}
}

func TestEvictionKeepsNewestAndIDsStable(t *testing.T) {
	b := newRecs()
	for i := range 10 {
		b.msg(c2s, "s", req(jsonInt(i), "ping"))
	}
	b.msg(s2c, "s", res("0")) // answers an evicted request
	b.msg(s2c, "s", res("9"))
	m := b.model(3)
	s := m.Snapshot()
	if len(s.Entries) != 3 || s.Stats.Evicted != 8 || s.Stats.Entries != 11 {
		t.Fatalf("entries %v, stats %+v", ids(s), s.Stats)
	}
	if s.Entries[2].Kind != KindResponse || s.Entries[2].ID.Seq != 11 {
		t.Errorf("a response to an evicted request stands alone: %+v", s.Entries[2])
	}
	if e, ok := m.Entry(EntryID{10, 0}); !ok || e.State != StateAnswered {
		t.Errorf("entry 10 = %+v, %v", e, ok)
	}
	if _, ok := m.Entry(EntryID{1, 0}); ok {
		t.Error("entry 1 was evicted")
	}
}

func TestSnapshotIsNotChangedByLaterRecords(t *testing.T) {
	b := newRecs()
	m := New(Options{})
	changed := m.Changed()
	m.Add(b.msg(c2s, "s", req("1", "ping")))
	select {
	case <-changed:
	default:
		t.Fatal("Changed was not closed by Add")
	}
	before := m.Snapshot()
	m.Add(b.msg(s2c, "s", res("1")))
	if before.Entries[0].State != StatePending || before.Entries[0].Response != nil {
		t.Errorf("snapshot entry changed: %+v", before.Entries[0])
	}
	if e, _ := m.Entry(EntryID{1, 0}); e.State != StateAnswered {
		t.Errorf("model entry = %+v", e)
	}
}

func ids(s *Snapshot) []string {
	var out []string
	for _, e := range s.Entries {
		out = append(out, e.ID.String()+":"+e.Kind)
	}
	return out
}

func jsonInt(i int) string { return strconv.Itoa(i) }
