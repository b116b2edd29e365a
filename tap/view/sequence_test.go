package view

import (
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/tap/capture"
)

// TestSequenceOfSession draws one HTTP session: the call and its answer as
// arrows, its SSE stream opened and closed, the standalone stream's resumption,
// each step timed from the session's start and tied to its entry; another
// session's steps stay out.
func TestSequenceOfSession(t *testing.T) {
	b := &recs{}
	h := func(x uint64, method string, status int) *capture.HTTPInfo {
		return &capture.HTTPInfo{Exchange: x, Method: method, Path: "/mcp", Status: status}
	}
	at := func(r *capture.Record, x *capture.HTTPInfo) { r.Transport, r.HTTP = capture.TransportStreamable, x }
	at(b.msg(c2s, "S", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"count"}}`), h(1, "POST", 0))
	b.add(&capture.Record{Kind: capture.KindStreamOpen, Dir: s2c, Transport: capture.TransportStreamable, Session: "S", HTTP: h(1, "POST", 200)})
	at(b.msg(s2c, "S", `{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`), h(1, "POST", 200))
	b.add(&capture.Record{Kind: capture.KindStreamClose, Dir: s2c, Transport: capture.TransportStreamable, Session: "S", HTTP: h(1, "POST", 200), Text: capture.EndEOF, Count: 1})
	at(b.msg(c2s, "other", `{"jsonrpc":"2.0","id":9,"method":"ping"}`), h(2, "POST", 0))
	b.add(&capture.Record{Kind: capture.KindReconnect, Dir: c2s, Transport: capture.TransportStreamable, Session: "S", LastEventID: "ev-7", HTTP: h(3, "GET", 0)})
	seq := SequenceOf(b.snapshot(), "S")
	if seq.Session != "S" || len(seq.Sessions) != 2 || seq.Transport != capture.TransportStreamable {
		t.Fatalf("sequence %+v", seq)
	}
	var got []string
	for _, st := range seq.Steps {
		got = append(got, st.Dir+" "+st.Label+" @"+st.Entry)
	}
	want := []string{
		"c2s tools/call count (id 1) @1",
		"s2c the answer comes as an SSE stream @1",
		"s2c result (id 1) @1",
		"s2c SSE stream closed (eof, 1 events) @1",
		"c2s resumed with Last-Event-ID ev-7 @6",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("steps:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if st := seq.Steps[2]; st.OffsetMs != 4 || st.HTTP != "POST #1 → 200" || st.Transport {
		t.Errorf("the answer's step %+v", st)
	}
}

// TestStderrStackAsLines: a stack logged on one line with literal \n\t is shown
// as lines in the detail, and by its first line in the row.
func TestStderrStackAsLines(t *testing.T) {
	b := &recs{}
	b.add(&capture.Record{Kind: capture.KindStderr, Session: "stdio",
		Text: `level=ERROR msg="tool panicked" stack="goroutine 7 [running]:\nmain.handler(...)\n\t/src/main.go:42 +0x1d"`})
	e := b.snapshot().Entries[0]
	row := RowOf(e, true)
	if row.Method != `[stderr] level=ERROR msg="tool panicked" stack="goroutine 7 [running]: …` {
		t.Errorf("row %q", row.Method)
	}
	d := DetailOf(e)
	text := d.Sections[len(d.Sections)-1].Text
	if lines := strings.Split(text, "\n"); len(lines) != 3 || lines[2] != "\t/src/main.go:42 +0x1d\"" {
		t.Errorf("detail text %q", text)
	}
}
