package view

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/tap/capture"
	"github.com/mcpkit/mcpkit/tap/timeline"
)

// recs builds records of one transport: seq and time filled in, 2 ms apart.
type recs struct {
	list []*capture.Record
	t0   time.Time
}

func (b *recs) add(r *capture.Record) *capture.Record {
	r.Seq = uint64(len(b.list) + 1)
	r.Time = time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC).Add(time.Duration(r.Seq) * 2 * time.Millisecond)
	if r.Transport == "" {
		r.Transport = capture.TransportStdio
	}
	b.list = append(b.list, r)
	return r
}

func (b *recs) msg(dir, session, body string) *capture.Record {
	return b.add(&capture.Record{Dir: dir, Session: session, Msg: json.RawMessage(body)})
}

func (b *recs) snapshot() *timeline.Snapshot {
	return timeline.Build(b.list, timeline.Options{}).Snapshot()
}

func tableByID(p Panel, id string) *Table {
	for i := range p.Tables {
		if p.Tables[i].ID == id {
			return &p.Tables[i]
		}
	}
	return nil
}

const (
	c2s = capture.ClientToServer
	s2c = capture.ServerToClient
)

// TestPanelOf maps a Report: latency by method and direction, time to first
// progress, failures linked to the entries that show them.
func TestPanelOf(t *testing.T) {
	b := &recs{}
	b.msg(c2s, "s", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"count","_meta":{"progressToken":"p"}}}`)
	b.msg(s2c, "s", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1}}`)
	b.msg(s2c, "s", `{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`)
	b.msg(s2c, "s", `{"jsonrpc":"2.0","id":"r","method":"roots/list"}`)
	b.msg(c2s, "s", `{"jsonrpc":"2.0","id":"r","result":{"roots":[]}}`)
	b.msg(c2s, "s", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"hang"}}`)
	p := PanelOf(b.snapshot())

	if !strings.Contains(p.Summary, "3 requests") || !strings.Contains(p.Summary, "1 unanswered") {
		t.Errorf("summary = %q", p.Summary)
	}
	lat := tableByID(p, "latency")
	if lat == nil || len(lat.Rows) != 2 {
		t.Fatalf("latency table = %+v", lat)
	}
	// c2s first; tools/call: 2 calls, 1 unanswered, p50 = the answered one's 4 ms.
	if got := strings.Join(lat.Rows[0], "|"); got != "C→S|tools/call|2|0|0|1|4.00 ms|4.00 ms|4.00 ms|4.00 ms" {
		t.Errorf("tools/call row = %s", got)
	}
	if got := strings.Join(lat.Rows[1], "|"); !strings.HasPrefix(got, "S→C|roots/list|1|") {
		t.Errorf("roots/list row = %s", got)
	}
	if lat.Entries[0] != "1" || lat.Entries[1] != "4" {
		t.Errorf("latency rows lead to %v, want the slowest entries 1 and 4", lat.Entries)
	}
	prog := tableByID(p, "progress")
	if prog == nil || !strings.Contains(prog.Note, "1 requests with progress: p50 2.00 ms") || prog.Entries[0] != "1" {
		t.Errorf("progress table = %+v", prog)
	}
	if len(p.Groups) != 1 || p.FailureCount != 1 || p.Groups[0].Name != timeline.FailUnanswered || !slices.Equal(p.Groups[0].Failures[0].Entries, []string{"6"}) {
		t.Errorf("failures = %+v", p.Groups)
	}
	if tableByID(p, "lane:") != nil {
		t.Error("a stdio capture has no HTTP lanes")
	}
}

// TestPanelLanes: an HTTP session's lane shows its POST and its GET stream, how
// the stream ended and the resumption, and a failure's records lead to the
// entries that hold them (a response leads to its request).
func TestPanelLanes(t *testing.T) {
	b := &recs{}
	h := func(x uint64, method string, status int) *capture.HTTPInfo {
		return &capture.HTTPInfo{Exchange: x, Method: method, Path: "/mcp", Status: status}
	}
	post := func(dir, body string, x uint64, status int) {
		r := b.msg(dir, "sid", body)
		r.Transport, r.HTTP = capture.TransportStreamable, h(x, "POST", status)
	}
	post(c2s, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, 1, 0)
	post(s2c, `{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`, 1, 200)
	b.add(&capture.Record{Kind: capture.KindReconnect, Dir: c2s, Transport: capture.TransportStreamable, Session: "sid", LastEventID: "ev-7", HTTP: h(2, "GET", 0)})
	b.add(&capture.Record{Kind: capture.KindStreamOpen, Dir: s2c, Transport: capture.TransportStreamable, Session: "sid", HTTP: h(2, "GET", 200)})
	b.add(&capture.Record{Kind: capture.KindStreamClose, Dir: s2c, Transport: capture.TransportStreamable, Session: "sid", HTTP: h(2, "GET", 200),
		Text: capture.EndUpstreamLost + ": connection reset", Count: 3, LastEventID: "ev-10"})
	post(c2s, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, 3, 0)
	b.add(&capture.Record{Kind: capture.KindHTTPError, Dir: s2c, Transport: capture.TransportStreamable, Session: "sid", HTTP: h(3, "POST", 404), Text: "session not found"})
	p := PanelOf(b.snapshot())

	lane := tableByID(p, "lane:sid")
	if lane == nil || len(lane.Rows) != 3 {
		t.Fatalf("lane = %+v\ntables %+v", lane, p.Tables)
	}
	if !strings.Contains(lane.Note, "1 GET streams") || !strings.Contains(lane.Note, "1 Last-Event-ID resumptions") {
		t.Errorf("lane note = %q", lane.Note)
	}
	get := strings.Join(lane.Rows[1], "|")
	for _, want := range []string{"GET /mcp", "GET stream", "upstream-lost", "ev-7", "ev-10", "|3|"} {
		if !strings.Contains(get, want) {
			t.Errorf("GET row %q lacks %q", get, want)
		}
	}
	if lane.Entries[0] != "1" || lane.Entries[1] != "3" || lane.Entries[2] != "6" {
		t.Errorf("lane rows lead to %v", lane.Entries)
	}
	names := map[string]Failure{}
	for _, g := range p.Groups {
		names[g.Name] = g.Failures[0]
	}
	lost, cut := names[timeline.FailSessionLost], names[timeline.FailStreamCut]
	// session-lost: the 404 (it refused the request of entry 6), then the last
	// record of the last good exchange (the GET stream's close, entry 5).
	if !slices.Equal(lost.Entries, []string{"6", "5"}) || !slices.Equal(lost.Seqs, []uint64{7, 5}) {
		t.Errorf("session-lost = %+v", lost)
	}
	if !slices.Equal(cut.Entries, []string{"5", "3"}) {
		t.Errorf("stream-cut = %+v (all: %+v)", cut, p.Groups)
	}
}
