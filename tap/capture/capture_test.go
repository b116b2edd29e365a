package capture

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// readCapture parses a whole capture.
func readCapture(t *testing.T, data []byte) (Header, []*Record) {
	t.Helper()
	cr, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("reading the capture: %v\n%s", err, data)
	}
	recs, err := cr.ReadAll()
	if err != nil {
		t.Fatalf("reading the capture: %v\n%s", err, data)
	}
	return cr.Header(), recs
}

func TestNormalizeKeepsMessagesExactly(t *testing.T) {
	cases := []struct {
		name, in           string
		msg, raw           string
		raw64              []byte
		invalid, truncated bool
	}{
		{name: "compact", in: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, msg: `{"jsonrpc":"2.0","id":1,"method":"ping"}`},
		{name: "spaces kept, CR LF trimmed", in: " { \"jsonrpc\": \"2.0\", \"method\": \"x\" }\r\n", msg: `{ "jsonrpc": "2.0", "method": "x" }`},
		{name: "batch", in: `[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","method":"b"}]`, msg: `[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","method":"b"}]`},
		{name: "html characters untouched", in: `{"jsonrpc":"2.0","method":"<&>\u2028"}`, msg: `{"jsonrpc":"2.0","method":"<&>\u2028"}`},
		{name: "pretty-printed", in: "{\n  \"jsonrpc\": \"2.0\",\n  \"method\": \"x\"\n}", msg: `{"jsonrpc":"2.0","method":"x"}`, raw: "{\n  \"jsonrpc\": \"2.0\",\n  \"method\": \"x\"\n}"},
		{name: "garbage", in: "Starting server...", raw: "Starting server...", invalid: true},
		{name: "truncated JSON", in: `{"jsonrpc":"2.0","id":1,`, raw: `{"jsonrpc":"2.0","id":1,`, invalid: true},
		{name: "not UTF-8", in: "{\"a\":\"\xff\"}", raw64: []byte("{\"a\":\"\xff\"}"), invalid: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := &Record{Dir: ClientToServer, Msg: []byte(c.in)}
			_ = normalize(r)
			if string(r.Msg) != c.msg || r.Raw != c.raw || !bytes.Equal(r.Raw64, c.raw64) || r.Invalid != c.invalid {
				t.Errorf("normalize(%q) = msg %q raw %q raw64 %q invalid %v; want %q %q %q %v",
					c.in, r.Msg, r.Raw, r.Raw64, r.Invalid, c.msg, c.raw, c.raw64, c.invalid)
			}
			if r.Size != int64(len(c.in)) {
				t.Errorf("size %d, want %d", r.Size, len(c.in))
			}
			// The line is one valid JSON object, and reads back the same.
			line := AppendRecord(nil, r)
			if bytes.Count(line, []byte("\n")) != 1 || !json.Valid(line) {
				t.Fatalf("line %q is not one JSON object", line)
			}
			var back Record
			if err := json.Unmarshal(line, &back); err != nil {
				t.Fatal(err)
			}
			if string(back.Msg) != c.msg || back.Raw != c.raw || !bytes.Equal(back.Raw64, c.raw64) || back.Invalid != c.invalid {
				t.Errorf("read back %+v", back)
			}
		})
	}
}

func TestRecordLineRoundTrip(t *testing.T) {
	code := 3
	r := &Record{
		Seq: 7, Time: time.Date(2026, 7, 28, 12, 0, 0, 5, time.FixedZone("x", 3600)),
		Dir: ServerToClient, Transport: TransportStreamable, Session: "s\"1",
		Msg: json.RawMessage(`{"jsonrpc":"2.0","id":"a","result":{}}`),
		HTTP: &HTTPInfo{Exchange: 4, Method: "POST", Path: "/mcp?x=1", Status: 200, ContentType: "text/event-stream",
			Headers: map[string][]string{"Set-Cookie": {"a", "b"}, "Mcp-Session-Id": {"s\"1"}}, EventID: "e1", Event: "message"},
		Text: "line\nbreak", ExitCode: &code, Signal: "SIGTERM", Count: 2, LastEventID: "9", Endpoint: "/m",
	}
	line := AppendRecord(nil, r)
	if !strings.Contains(string(line), `"t":"2026-07-28T11:00:00.000000005Z"`) {
		t.Errorf("time not RFC 3339 UTC with nanoseconds: %s", line)
	}
	var back Record
	if err := json.Unmarshal(line, &back); err != nil {
		t.Fatal(err)
	}
	if back.Seq != 7 || !back.Time.Equal(r.Time) || back.Session != r.Session || string(back.Msg) != string(r.Msg) ||
		back.HTTP == nil || back.HTTP.Exchange != 4 || back.HTTP.Headers["Set-Cookie"][1] != "b" || back.HTTP.EventID != "e1" ||
		back.Text != r.Text || back.ExitCode == nil || *back.ExitCode != 3 || back.Signal != "SIGTERM" || back.Count != 2 ||
		back.LastEventID != "9" || back.Endpoint != "/m" {
		t.Errorf("round trip: %s\ngave %+v", line, back)
	}
}

func TestReaderRefusesOtherFormats(t *testing.T) {
	for _, in := range []string{"", "{}\n", `{"format":"mcpkit-tap/2"}` + "\n", "not json\n"} {
		if _, err := NewReader(strings.NewReader(in)); !errors.Is(err, ErrFormat) {
			t.Errorf("NewReader(%q) = %v, want ErrFormat", in, err)
		}
	}
}

func TestRecorderWritesHeaderAndRecordsInOrder(t *testing.T) {
	var out bytes.Buffer
	rec, err := NewRecorder(Options{Out: &out, Header: Header{Tool: "test", Mode: "stdio", Redacted: true}})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 100 {
				rec.Record(&Record{Dir: ClientToServer, Session: "s", Msg: []byte(`{"jsonrpc":"2.0","method":"n","params":{"g":` + string(rune('0'+g)) + `,"i":` + strconv.Itoa(i) + `}}`)})
			}
		}()
	}
	wg.Wait()
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	h, recs := readCapture(t, out.Bytes())
	if h.Format != Format || h.Tool != "test" || !h.Redacted || h.Time.IsZero() {
		t.Errorf("header %+v", h)
	}
	if len(recs) != 400 {
		t.Fatalf("%d records, want 400", len(recs))
	}
	for i, r := range recs {
		if r.Seq != uint64(i+1) || (i > 0 && r.Time.Before(recs[i-1].Time)) {
			t.Fatalf("record %d: seq %d time %v after %v", i, r.Seq, r.Time, recs[max(i-1, 0)].Time)
		}
	}
	if s := rec.Summary(); s.Messages != 400 || s.Notifications != 400 || s.Dropped != 0 {
		t.Errorf("summary %+v", s)
	}
}

func jsonInt(i int) string { return strconv.Itoa(i) }

// gate is a writer that blocks until opened: a slow disk.
type gate struct {
	open    chan struct{}
	entered chan struct{}
	once    sync.Once
	buf     bytes.Buffer
}

func (g *gate) Write(p []byte) (int, error) {
	g.once.Do(func() { close(g.entered) })
	<-g.open
	return g.buf.Write(p)
}

// TestRecorderDropsAndReports fills the buffer while the writer is stuck: Record
// must not block, must count what it drops, and the capture must say so.
func TestRecorderDropsAndReports(t *testing.T) {
	g := &gate{open: make(chan struct{}), entered: make(chan struct{})}
	rec, err := NewRecorder(Options{Out: &headerPass{g: g}, MaxQueue: 4})
	if err != nil {
		t.Fatal(err)
	}
	msg := []byte(`{"jsonrpc":"2.0","method":"x"}`)
	rec.Record(&Record{Dir: ClientToServer, Msg: msg}) // taken by the writer, which then blocks
	<-g.entered
	for range 10 {
		rec.Record(&Record{Dir: ClientToServer, Msg: msg}) // 4 fit, 6 are dropped
	}
	close(g.open)
	// Whether this one finds room depends on how far the writer got: either way it
	// and the drops must be accounted for.
	rec.Record(&Record{Dir: ClientToServer, Msg: msg})
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	_, recs := readCapture(t, g.buf.Bytes())
	var kinds []string
	var dropped, messages int64
	for i, r := range recs {
		kinds = append(kinds, r.Kind)
		switch r.Kind {
		case KindDropped:
			dropped += r.Count
			if i < 5 {
				t.Errorf("the drop is reported at record %d, before the 5 records that fit", i+1)
			}
		case "":
			messages++
		}
	}
	if dropped < 6 || messages+dropped != 12 {
		t.Fatalf("records %q: %d messages and %d dropped, want 12 in all, at least 6 dropped", kinds, messages, dropped)
	}
	if s := rec.Summary(); s.Dropped != dropped || s.Messages != messages {
		t.Errorf("summary %+v, want %d dropped and %d messages", s, dropped, messages)
	}
}

// headerPass lets the first write (the header) through without waiting.
type headerPass struct {
	g      *gate
	passed bool
}

func (h *headerPass) Write(p []byte) (int, error) {
	if !h.passed {
		h.passed = true
		return h.g.buf.Write(p)
	}
	return h.g.Write(p)
}

func TestRecorderReportsDropsAtClose(t *testing.T) {
	g := &gate{open: make(chan struct{}), entered: make(chan struct{})}
	rec, err := NewRecorder(Options{Out: &headerPass{g: g}, MaxQueue: 1})
	if err != nil {
		t.Fatal(err)
	}
	msg := []byte(`{"jsonrpc":"2.0","method":"x"}`)
	rec.Record(&Record{Dir: ClientToServer, Msg: msg})
	<-g.entered
	rec.Record(&Record{Dir: ClientToServer, Msg: msg}) // queued
	rec.Record(&Record{Dir: ClientToServer, Msg: msg}) // dropped, reported only at Close
	close(g.open)
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	_, recs := readCapture(t, g.buf.Bytes())
	if len(recs) != 3 || recs[2].Kind != KindDropped || recs[2].Count != 1 || recs[2].Seq != 3 {
		t.Fatalf("records %+v, want two messages then dropped 1", recs)
	}
}

func TestSubscriptionSeesRecordsAndMisses(t *testing.T) {
	rec, err := NewRecorder(Options{})
	if err != nil {
		t.Fatal(err)
	}
	slow := rec.Subscribe(2)
	fast := rec.Subscribe(100)
	for range 5 {
		rec.Record(&Record{Kind: KindStderr, Text: "x"})
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	n := 0
	for r := range fast.C {
		n++
		if r.Seq != uint64(n) {
			t.Errorf("fast subscriber: record %d has seq %d", n, r.Seq)
		}
	}
	if n != 5 {
		t.Errorf("fast subscriber got %d records, want 5", n)
	}
	var got []*Record
	for r := range slow.C {
		got = append(got, r)
	}
	if len(got) != 2 || got[0].Seq != 1 || got[1].Seq != 2 {
		t.Errorf("slow subscriber got %+v, want the first two (the rest missed)", got)
	}
	late := rec.Subscribe(1)
	if _, ok := <-late.C; ok {
		t.Error("a subscription after Close received something")
	}
	slow.Close() // already closed by the recorder: no panic
}

func TestSummaryPairsRequestsAcrossExchangesAndSessions(t *testing.T) {
	m := func(dir, session string, exch uint64, msg string) *Record {
		r := &Record{Dir: dir, Session: session, Msg: json.RawMessage(msg)}
		if exch != 0 {
			r.HTTP = &HTTPInfo{Exchange: exch}
		}
		return r
	}
	recs := []*Record{
		// initialize: no session id yet on the request; the reply in the same exchange.
		m(ClientToServer, "conn-1", 1, `{"jsonrpc":"2.0","id":1,"method":"initialize"}`),
		m(ServerToClient, "S", 1, `{"jsonrpc":"2.0","id":1,"result":{}}`),
		// a batch, answered on the GET stream (another exchange, same session)
		m(ClientToServer, "S", 2, `[{"jsonrpc":"2.0","id":2,"method":"a"},{"jsonrpc":"2.0","id":"2","method":"b"},{"jsonrpc":"2.0","method":"n"}]`),
		m(ServerToClient, "S", 3, `{"jsonrpc":"2.0","id":"2","result":{}}`),
		// a server's request answered by the client
		m(ServerToClient, "S", 3, `{"jsonrpc":"2.0","id":0,"method":"roots/list"}`),
		m(ClientToServer, "S", 4, `{"jsonrpc":"2.0","id":0,"result":{"roots":[]}}`),
		// a response to nothing, and garbage
		m(ServerToClient, "S", 5, `{"jsonrpc":"2.0","id":99,"result":{}}`),
		{Dir: ServerToClient, Invalid: true, Raw: "oops"},
		{Kind: KindHTTPError}, {Kind: KindDropped, Count: 3},
	}
	s := Summarize(recs)
	if s.Messages != 8 || s.Requests != 4 || s.Responses != 4 || s.Notifications != 1 || s.Invalid != 1 ||
		s.Unmatched != 1 || s.HTTPErrors != 1 || s.Dropped != 3 || s.C2S != 3 || s.S2C != 5 {
		t.Errorf("summary %+v", s)
	}
	if len(s.Unanswered) != 1 || s.Unanswered[0].Method != "a" || s.Unanswered[0].ID != "2" {
		t.Errorf("unanswered %+v, want only a (id 2: the string id \"2\" is another id)", s.Unanswered)
	}
	if !strings.Contains(s.String(), "1 requests without a response") || !strings.Contains(s.String(), "unanswered: c2s a id 2") {
		t.Errorf("String() = %s", s.String())
	}
}

func TestSummaryForgetsAnsweredRequests(t *testing.T) {
	var ta tally
	for i := range 5000 {
		id := jsonInt(i)
		req := &Record{Dir: ClientToServer, Session: "s", Msg: json.RawMessage(`{"jsonrpc":"2.0","id":` + id + `,"method":"m"}`)}
		ta.observe(req, normalize(req), nil)
		if i != 17 {
			resp := &Record{Dir: ServerToClient, Session: "s", Msg: json.RawMessage(`{"jsonrpc":"2.0","id":` + id + `,"result":{}}`)}
			ta.observe(resp, normalize(resp), nil)
		}
	}
	if len(ta.order) > 2048 {
		t.Errorf("%d requests kept, answered ones are not forgotten", len(ta.order))
	}
	s := ta.summary()
	if len(s.Unanswered) != 1 || s.Unanswered[0].ID != "17" || s.Requests != 5000 || s.Responses != 4999 {
		t.Errorf("summary: %d unanswered %+v, %d requests, %d responses", len(s.Unanswered), s.Unanswered, s.Requests, s.Responses)
	}
}

// TestSummaryCountsRefusedRequests: a request whose exchange ended with an HTTP
// error (a 404 for an expired session, the tap's 502) and no JSON-RPC response is
// refused, not unanswered.
func TestSummaryCountsRefusedRequests(t *testing.T) {
	recs := []*Record{
		{Dir: ClientToServer, Session: "s", Msg: json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`), HTTP: &HTTPInfo{Exchange: 4}},
		{Kind: KindHTTPError, Dir: ServerToClient, HTTP: &HTTPInfo{Exchange: 4, Status: 404}},
		{Dir: ClientToServer, Session: "s", Msg: json.RawMessage(`{"jsonrpc":"2.0","id":2,"method":"ping"}`), HTTP: &HTTPInfo{Exchange: 5}},
		{Kind: KindHTTPError, Dir: ServerToClient, HTTP: &HTTPInfo{Exchange: 6, Status: 500}},
	}
	s := Summarize(recs)
	if s.Refused != 1 || len(s.Unanswered) != 1 || s.Unanswered[0].ID != "2" || !strings.Contains(s.String(), "1 refused with an HTTP error") {
		t.Errorf("summary %s", s.String())
	}
}

// TestRecorderReusesForgottenRequests: the recorder's tally reuses the requests
// it has forgotten (answered, compacted away) without changing what it pairs:
// its summary of thousands of requests, answered late, out of order, under ids
// that repeat, some refused, some never, is the one Summarize makes of the
// capture.
func TestRecorderReusesForgottenRequests(t *testing.T) {
	var out strings.Builder
	rec, err := NewRecorder(Options{Out: &out})
	if err != nil {
		t.Fatal(err)
	}
	msg := func(format string, a ...any) []byte { return []byte(fmt.Sprintf(format, a...)) }
	const n = 6000
	for i := range n + 5 {
		session := fmt.Sprintf("s%d", i%3)
		if i < n {
			rec.Record(&Record{Dir: ClientToServer, Session: session, HTTP: &HTTPInfo{Exchange: uint64(i + 1)},
				Msg: msg(`{"jsonrpc":"2.0","id":%d,"method":"m%d"}`, i%40, i%5)})
		}
		j := i - 5 // answer the request of five exchanges ago
		if j < 0 || j%97 == 0 {
			continue // never answered
		}
		session = fmt.Sprintf("s%d", j%3)
		info := &HTTPInfo{Exchange: uint64(j + 1), Status: 200}
		switch {
		case j%31 == 0:
			info.Status = 404
			rec.Record(&Record{Kind: KindHTTPError, Dir: ServerToClient, Session: session, HTTP: info})
		case j%11 == 0: // on another stream of the session
			rec.Record(&Record{Dir: ServerToClient, Session: session, Msg: msg(`{"jsonrpc":"2.0","id":%d,"result":{}}`, j%40)})
		default:
			rec.Record(&Record{Dir: ServerToClient, Session: session, HTTP: info, Msg: msg(`{"jsonrpc":"2.0","id":%d,"result":{}}`, j%40)})
		}
		if i%1000 == 0 {
			waitDrained(rec) // no record dropped
		}
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	if !rec.tally.reuse || cap(rec.tally.free) == 0 {
		t.Fatalf("the recorder reused no request")
	}
	cr, err := NewReader(strings.NewReader(out.String()))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := cr.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	got, want := rec.Summary(), Summarize(recs)
	if got.Dropped != 0 || !reflect.DeepEqual(got, want) {
		t.Errorf("the recorder's summary:\n%s\nSummarize:\n%s", got.String(), want.String())
	}
	if len(want.Unanswered) < n/97 || want.Refused == 0 || want.Unmatched != 0 {
		t.Errorf("the traffic does not test what it should: %s", want.String())
	}
}
