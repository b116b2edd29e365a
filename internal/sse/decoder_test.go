package sse

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// decodeResult is everything a decoder reports for one stream.
type decodeResult struct {
	events   []Event
	err      error // the error that ended decoding (io.EOF for a clean end)
	lastID   string
	retry    time.Duration
	hasRetry bool
}

// decodeAll runs d to the end, collecting events. Errors wrapping ErrEventTooLarge are
// collected in tooLarge and decoding continues, as the decoder allows.
func decodeAll(t testing.TB, d *Decoder) (res decodeResult, tooLarge int) {
	t.Helper()
	for i := 0; ; i++ {
		if i > 1<<20 {
			t.Fatal("decoder did not end")
		}
		ev, err := d.Next()
		if errors.Is(err, ErrEventTooLarge) {
			tooLarge++
			continue
		}
		if err != nil {
			res.err = err
			break
		}
		res.events = append(res.events, ev)
	}
	res.lastID = d.LastEventID()
	res.retry, res.hasRetry = d.Retry()
	return res, tooLarge
}

// readers returns the ways the decoder tests feed a stream: whole, one byte per Read
// (which splits every CRLF pair and every BOM), and whole through the smallest buffer.
func readers(input string) map[string]func() (io.Reader, DecoderOptions) {
	return map[string]func() (io.Reader, DecoderOptions){
		"whole": func() (io.Reader, DecoderOptions) { return strings.NewReader(input), DecoderOptions{} },
		"one-byte": func() (io.Reader, DecoderOptions) {
			return iotest.OneByteReader(strings.NewReader(input)), DecoderOptions{}
		},
		"small-buf": func() (io.Reader, DecoderOptions) { return strings.NewReader(input), DecoderOptions{BufferSize: 16} },
	}
}

func msg(id, typ, data string) Event {
	return Event{ID: id, Type: typ, Data: []byte(data)}
}

func sameEvents(a, b []Event) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].ID != b[i].ID || a[i].Type != b[i].Type || !bytes.Equal(a[i].Data, b[i].Data) || a[i].Retry != b[i].Retry {
			return false
		}
	}
	return true
}

func TestDecoderRules(t *testing.T) {
	m := "message"
	tests := []struct {
		name      string
		input     string
		want      []Event
		lastID    string
		retry     time.Duration // expected Retry(); -1 means none
		strict    bool
		initialID string
	}{
		{name: "LF", input: "data: a\n\n", want: []Event{msg("", m, "a")}, retry: -1},
		{name: "CRLF", input: "data: a\r\n\r\n", want: []Event{msg("", m, "a")}, retry: -1},
		{name: "CR", input: "data: a\r\r", want: []Event{msg("", m, "a")}, retry: -1},
		{name: "mixed line ends", input: "data: a\r\ndata: b\rdata: c\n\r\ndata: d\r\r\ndata: e\n\r", want: []Event{msg("", m, "a\nb\nc"), msg("", m, "d"), msg("", m, "e")}, retry: -1},
		{name: "CR CR LF is two line ends", input: "data: a\r\r\ndata: b\n\n", want: []Event{msg("", m, "a"), msg("", m, "b")}, retry: -1},
		{name: "LF CR is two line ends", input: "data: a\n\rdata: b\n\n", want: []Event{msg("", m, "a"), msg("", m, "b")}, retry: -1},
		{name: "BOM skipped", input: "\uFEFFdata: a\n\n", want: []Event{msg("", m, "a")}, retry: -1},
		{name: "BOM only at start", input: "data: a\n\n\uFEFFdata: b\n\n", want: []Event{msg("", m, "a")}, retry: -1},
		{name: "second BOM is part of the field name", input: "\uFEFF\uFEFFdata: a\n\n", retry: -1},
		{name: "partial BOM is content", input: "\xEF\xBBdata: a\n\ndata: b\n\n", want: []Event{msg("", m, "b")}, retry: -1},
		{name: "BOM alone", input: "\uFEFF", retry: -1},
		{name: "BOM then blank line", input: "\uFEFF\ndata: a\n\n", want: []Event{msg("", m, "a")}, retry: -1},
		{name: "comments ignored", input: ": ping\n\n:\ndata: a\n: in the middle\ndata: b\n\n", want: []Event{msg("", m, "a\nb")}, retry: -1},
		{name: "no space after colon", input: "data:x\n\n", want: []Event{msg("", m, "x")}, retry: -1},
		{name: "only one space stripped", input: "data:  x\n\n", want: []Event{msg("", m, " x")}, retry: -1},
		{name: "tab kept", input: "data:\tx\n\n", want: []Event{msg("", m, "\tx")}, retry: -1},
		{name: "colon in value", input: "data: a: b:c\n\n", want: []Event{msg("", m, "a: b:c")}, retry: -1},
		{name: "trailing spaces kept", input: "data: a  \n\n", want: []Event{msg("", m, "a  ")}, retry: -1},
		{name: "field without colon", input: "data\n\n", want: []Event{msg("", m, "")}, retry: -1},
		{name: "two fields without colon", input: "data\ndata\n\n", want: []Event{msg("", m, "\n")}, retry: -1},
		{name: "multi-line data", input: "data: a\ndata: b\ndata: c\n\n", want: []Event{msg("", m, "a\nb\nc")}, retry: -1},
		{name: "trailing empty data line", input: "data: a\ndata:\n\n", want: []Event{msg("", m, "a\n")}, retry: -1},
		{name: "empty data line dispatches", input: "data:\n\n", want: []Event{msg("", m, "")}, retry: -1},
		{name: "event type", input: "event: add\ndata: 1\n\n", want: []Event{msg("", "add", "1")}, retry: -1},
		{name: "event type reset after dispatch", input: "event: add\ndata: 1\n\ndata: 2\n\n", want: []Event{msg("", "add", "1"), msg("", m, "2")}, retry: -1},
		{name: "event type reset without dispatch", input: "event: add\n\ndata: 2\n\n", want: []Event{msg("", m, "2")}, retry: -1},
		{name: "last event type wins", input: "event: a\nevent: b\ndata: 1\n\n", want: []Event{msg("", "b", "1")}, retry: -1},
		{name: "empty event type is message", input: "event\ndata: 1\n\nevent:\ndata: 2\n\n", want: []Event{msg("", m, "1"), msg("", m, "2")}, retry: -1},
		{name: "field names are case-sensitive", input: "Data: a\nDATA: b\nEvent: x\ndata: c\n\n", want: []Event{msg("", m, "c")}, retry: -1},
		{name: "field name with space is unknown", input: "data : a\ndata: b\n\n", want: []Event{msg("", m, "b")}, retry: -1},
		{name: "unknown fields ignored", input: "foo: bar\ndat: x\ndatas: y\nidx: 1\nretryx: 5\neventy: t\ndata: a\n\n", want: []Event{msg("", m, "a")}, retry: -1},
		{name: "id", input: "id: 1\ndata: a\n\n", want: []Event{msg("1", m, "a")}, lastID: "1", retry: -1},
		{name: "id persists", input: "id: 1\ndata: a\n\ndata: b\n\nid: 2\ndata: c\n\ndata: d\n\n", want: []Event{msg("1", m, "a"), msg("1", m, "b"), msg("2", m, "c"), msg("2", m, "d")}, lastID: "2", retry: -1},
		{name: "empty id resets", input: "id: 1\ndata: a\n\nid\ndata: b\n\nid: 2\ndata: c\n\nid:\ndata: d\n\n", want: []Event{msg("1", m, "a"), msg("", m, "b"), msg("2", m, "c"), msg("", m, "d")}, retry: -1},
		{name: "id with NUL ignored", input: "id: 1\ndata: a\n\nid: 2\x003\ndata: b\n\n", want: []Event{msg("1", m, "a"), msg("1", m, "b")}, lastID: "1", retry: -1},
		{name: "id keeps second space", input: "id:  x\ndata: a\n\n", want: []Event{msg(" x", m, "a")}, lastID: " x", retry: -1},
		{name: "id after data applies to the event", input: "data: a\nid: 9\n\n", want: []Event{msg("9", m, "a")}, lastID: "9", retry: -1},
		{name: "id without data updates last id", input: "id: 7\n\n", lastID: "7", retry: -1},
		{name: "id-only event then event", input: "id: 7\n\ndata: x\n\n", want: []Event{msg("7", m, "x")}, lastID: "7", retry: -1},
		{name: "initial last event id", input: "data: a\n\nid: 4\ndata: b\n\n", initialID: "3", want: []Event{msg("3", m, "a"), msg("4", m, "b")}, lastID: "4", retry: -1},
		{name: "retry", input: "retry: 1500\n\n", retry: 1500 * time.Millisecond},
		{name: "retry without space", input: "retry:20\ndata: a\n\n", want: []Event{msg("", m, "a")}, retry: 20 * time.Millisecond},
		{name: "retry zero", input: "retry: 0\n", retry: 0},
		{name: "retry with letter ignored", input: "retry: 15a\n\n", retry: -1},
		{name: "retry empty ignored", input: "retry:\nretry\n\n", retry: -1},
		{name: "retry negative ignored", input: "retry: -1\n\n", retry: -1},
		{name: "retry with inner space ignored", input: "retry: 1 0\n\n", retry: -1},
		{name: "retry with two spaces ignored", input: "retry:  10\n\n", retry: -1},
		{name: "invalid retry keeps previous", input: "retry: 1000\n\nretry: x\n\n", retry: time.Second},
		{name: "last retry wins", input: "retry: 1000\nretry: 2000\n", retry: 2 * time.Second},
		{name: "huge retry saturates", input: "retry: 99999999999999999999999999\n\n", retry: math.MaxInt64},
		{name: "event without data not dispatched", input: "event: x\n\n", retry: -1},
		{name: "blank lines only", input: "\n\n\r\n\r\r", retry: -1},
		{name: "empty stream", input: "", retry: -1},
		{name: "final event without blank line", input: "data: a\n\ndata: b\n", want: []Event{msg("", m, "a"), msg("", m, "b")}, retry: -1},
		{name: "final line without line end", input: "id: 5\nevent: e\ndata: b", want: []Event{msg("5", "e", "b")}, lastID: "5", retry: -1},
		{name: "final line ends with CR", input: "data: b\r", want: []Event{msg("", m, "b")}, retry: -1},
		{name: "final id without blank line", input: "data: a\n\nid: 5\n", want: []Event{msg("", m, "a")}, lastID: "5", retry: -1},
		{name: "strict: final event discarded", input: "data: a\n\ndata: b\n", strict: true, want: []Event{msg("", m, "a")}, retry: -1},
		{name: "strict: final line discarded", input: "data: b", strict: true, retry: -1},
		{name: "strict: final id discarded", input: "data: a\n\nid: 5\n", strict: true, want: []Event{msg("", m, "a")}, retry: -1},
		{name: "strict: complete event kept", input: "data: a\r\n\r\n", strict: true, want: []Event{msg("", m, "a")}, retry: -1},
		{name: "invalid UTF-8 replaced", input: "id: \xff1\nevent: \xc3\ndata: a\xE2\x82b\xF0\x9F\x98\n\n", want: []Event{msg("\uFFFD1", "\uFFFD", "a\uFFFDb\uFFFD")}, lastID: "\uFFFD1", retry: -1},
		{name: "valid UTF-8 kept", input: "event: café\ndata: 日本 🎉\n\n", want: []Event{msg("", "café", "日本 🎉")}, retry: -1},
		{name: "NUL in data kept", input: "data: a\x00b\n\n", want: []Event{msg("", m, "a\x00b")}, retry: -1},
		{name: "MCP priming event", input: "id: 42\ndata:\n\nid: 43\nevent: message\ndata: {\"jsonrpc\":\"2.0\"}\n\n", want: []Event{msg("42", m, ""), msg("43", m, `{"jsonrpc":"2.0"}`)}, lastID: "43", retry: -1},
		{name: "legacy endpoint event", input: "event: endpoint\r\ndata: /messages?sessionId=abc\r\n\r\n: ping\r\n\r\n", want: []Event{msg("", "endpoint", "/messages?sessionId=abc")}, retry: -1},
	}
	for _, tt := range tests {
		for how, mk := range readers(tt.input) {
			t.Run(tt.name+"/"+how, func(t *testing.T) {
				r, opts := mk()
				opts.Strict = tt.strict
				opts.LastEventID = tt.initialID
				got, tooLarge := decodeAll(t, NewDecoderWithOptions(r, opts))
				if tooLarge != 0 || got.err != io.EOF {
					t.Fatalf("ended with %v after %d too-large errors; want io.EOF", got.err, tooLarge)
				}
				if !sameEvents(got.events, tt.want) {
					t.Errorf("events:\n got %s\nwant %s", fmtEvents(got.events), fmtEvents(tt.want))
				}
				if got.lastID != tt.lastID {
					t.Errorf("LastEventID() = %q, want %q", got.lastID, tt.lastID)
				}
				if wantHas := tt.retry >= 0; got.hasRetry != wantHas || (wantHas && got.retry != tt.retry) {
					t.Errorf("Retry() = %v, %v; want %v, %v", got.retry, got.hasRetry, tt.retry, wantHas)
				}
			})
		}
	}
}

func fmtEvents(evs []Event) string {
	var b strings.Builder
	for _, ev := range evs {
		fmt.Fprintf(&b, "{id %q type %q data %q} ", ev.ID, ev.Type, ev.Data)
	}
	return b.String()
}

// chunkReader returns its chunks one per Read call.
type chunkReader struct{ chunks []string }

func (r *chunkReader) Read(p []byte) (int, error) {
	if len(r.chunks) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.chunks[0])
	if n < len(r.chunks[0]) {
		r.chunks[0] = r.chunks[0][n:]
	} else {
		r.chunks = r.chunks[1:]
	}
	return n, nil
}

func TestDecoderCRLFSplitAcrossReads(t *testing.T) {
	// Each CR ends one Read and its LF starts the next: one line end each, not two.
	r := &chunkReader{chunks: []string{"data: a\r", "\ndata: b\r", "\n\r", "\nid: 1\r", "\n\r", "\ndata: c\r", "\r", "\n"}}
	got, _ := decodeAll(t, NewDecoder(r))
	want := []Event{msg("", "message", "a\nb"), msg("1", "message", "c")}
	if !sameEvents(got.events, want) || got.err != io.EOF {
		t.Fatalf("got %s (%v), want %s", fmtEvents(got.events), got.err, fmtEvents(want))
	}
}

func TestDecoderNextReturnsEventsAsTheyComplete(t *testing.T) {
	// The decoder must hand out an event as soon as its blank line arrives, without
	// waiting for more input: a Read after that point fails the test.
	r := &chunkReader{chunks: []string{"data: first\n", "\n"}}
	d := NewDecoder(io.MultiReader(r, iotest.ErrReader(errors.New("read past the event"))))
	ev, err := d.Next()
	if err != nil || string(ev.Data) != "first" {
		t.Fatalf("Next() = %q, %v", ev.Data, err)
	}
}

func TestDecoderComments(t *testing.T) {
	var comments []string
	d := NewDecoderWithOptions(iotest.OneByteReader(strings.NewReader(
		": ping\r\n:\n:  two spaces\rdata: a\n:x:y\n\n:"+strings.Repeat("z", 40)+"\n")),
		DecoderOptions{MaxEventSize: 32, OnComment: func(text []byte) { comments = append(comments, string(text)) }})
	got, tooLarge := decodeAll(t, d)
	if tooLarge != 0 || !sameEvents(got.events, []Event{msg("", "message", "a")}) {
		t.Fatalf("events %s, %d too large", fmtEvents(got.events), tooLarge)
	}
	want := []string{"ping", "", " two spaces", "x:y", strings.Repeat("z", 32)}
	if strings.Join(comments, "|") != strings.Join(want, "|") {
		t.Errorf("comments = %q, want %q (the last one truncated to MaxEventSize)", comments, want)
	}
}

func TestDecoderEventTooLarge(t *testing.T) {
	const max = 10
	tests := []struct {
		name     string
		input    string
		want     []Event
		tooLarge int
		lastID   string
	}{
		{name: "data at the limit", input: "data: 0123456789\n\n", want: []Event{msg("", "message", "0123456789")}},
		{name: "data over the limit", input: "data: 0123456789a\n\ndata: next\n\n", tooLarge: 1, want: []Event{msg("", "message", "next")}},
		{name: "joined lines at the limit", input: "data: 01234\ndata: 5678\n\n", want: []Event{msg("", "message", "01234\n5678")}},
		{name: "joined lines over the limit", input: "data: 01234\ndata: 56789\n\ndata: ok\n\n", tooLarge: 1, want: []Event{msg("", "message", "ok")}},
		{name: "empty data lines over the limit", input: strings.Repeat("data\n", 12) + "\ndata: ok\n\n", tooLarge: 1, want: []Event{msg("", "message", "ok")}},
		{name: "type and data over the limit", input: "event: abcdef\ndata: 012345\n\n", tooLarge: 1},
		{name: "type after data over the limit", input: "data: 012345\nevent: abcdef\n\n", tooLarge: 1},
		{name: "type and data at the limit", input: "event: abcd\ndata: 012345\n\n", want: []Event{msg("", "abcd", "012345")}},
		{name: "rest of an oversized event ignored", input: "data: 0123456789a\ndata: more\nevent: x\nid: 3\n\ndata: next\n\n", tooLarge: 1, want: []Event{msg("3", "message", "next")}, lastID: "3"},
		{name: "id over the limit", input: "id: 1\n\nid: 0123456789a\ndata: x\n\n", tooLarge: 1, lastID: "1"},
		{name: "unknown field is not buffered", input: "foo: " + strings.Repeat("x", 100) + "\ndata: ok\n\n", want: []Event{msg("", "message", "ok")}},
		{name: "comment is not buffered", input: ":" + strings.Repeat("x", 100) + "\ndata: ok\n\n", want: []Event{msg("", "message", "ok")}},
		{name: "long retry is not buffered", input: "retry: " + strings.Repeat("1", 100) + "\ndata: ok\n\n", want: []Event{msg("", "message", "ok")}},
		{name: "oversized final line without colon at EOF", input: "data: 0123456789\ndata", tooLarge: 1},
		{name: "oversized final event at EOF", input: "data: ok\n\ndata: 0123456789a", tooLarge: 1, want: []Event{msg("", "message", "ok")}},
	}
	for _, tt := range tests {
		for how, mk := range readers(tt.input) {
			t.Run(tt.name+"/"+how, func(t *testing.T) {
				r, opts := mk()
				opts.MaxEventSize = max
				got, tooLarge := decodeAll(t, NewDecoderWithOptions(r, opts))
				if got.err != io.EOF || tooLarge != tt.tooLarge {
					t.Fatalf("ended with %v after %d too-large errors, want io.EOF after %d", got.err, tooLarge, tt.tooLarge)
				}
				if !sameEvents(got.events, tt.want) {
					t.Errorf("events:\n got %s\nwant %s", fmtEvents(got.events), fmtEvents(tt.want))
				}
				if got.lastID != tt.lastID {
					t.Errorf("LastEventID() = %q, want %q", got.lastID, tt.lastID)
				}
			})
		}
	}
}

func TestDecoderEventTooLargeError(t *testing.T) {
	d := NewDecoderWithOptions(strings.NewReader("data: 0123456789a\n\n"), DecoderOptions{MaxEventSize: 10})
	_, err := d.Next()
	if !errors.Is(err, ErrEventTooLarge) || !strings.Contains(err.Error(), "10 bytes") {
		t.Fatalf("Next() error = %v, want ErrEventTooLarge naming the limit", err)
	}
}

// endlessReader repeats one line forever.
type endlessReader struct {
	line []byte
	off  int
}

func (r *endlessReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c := copy(p[n:], r.line[r.off:])
		n += c
		r.off = (r.off + c) % len(r.line)
	}
	return n, nil
}

func TestDecoderBoundsAnEndlessEvent(t *testing.T) {
	// A stream that never sends a blank line must end in ErrEventTooLarge, with the
	// buffered data never past the bound, rather than in unbounded memory use.
	for _, line := range []string{"data: 0123456789abcdef\n", "data: " + strings.Repeat("x", 10000)} {
		d := NewDecoderWithOptions(&endlessReader{line: []byte(line)}, DecoderOptions{MaxEventSize: 1 << 20})
		_, err := d.Next()
		if !errors.Is(err, ErrEventTooLarge) {
			t.Fatalf("Next() error = %v, want ErrEventTooLarge", err)
		}
		if len(d.data)+len(d.eventType) > 1<<20 {
			t.Errorf("buffered %d bytes, over the bound", len(d.data)+len(d.eventType))
		}
	}
}

func TestDecoderReadError(t *testing.T) {
	boom := errors.New("connection reset")
	for _, strict := range []bool{false, true} {
		r := io.MultiReader(strings.NewReader("data: a\n\nid: 2\ndata: partial\n"), iotest.ErrReader(boom))
		d := NewDecoderWithOptions(r, DecoderOptions{Strict: strict})
		got, _ := decodeAll(t, d)
		if !errors.Is(got.err, boom) || got.err == boom {
			t.Fatalf("error = %v, want it to wrap %v", got.err, boom)
		}
		// The pending event may be truncated: it is discarded and its id not taken.
		if !sameEvents(got.events, []Event{msg("", "message", "a")}) || got.lastID != "" {
			t.Errorf("events %s, last id %q; want only the complete event", fmtEvents(got.events), got.lastID)
		}
		if _, err := d.Next(); !errors.Is(err, boom) {
			t.Errorf("Next after the error = %v, want the same error again", err)
		}
	}
}

func TestDecoderUnexpectedEOFDiscardsPending(t *testing.T) {
	r := io.MultiReader(strings.NewReader("data: {\"jsonrpc\""), iotest.ErrReader(io.ErrUnexpectedEOF))
	ev, err := NewDecoder(r).Next()
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("Next() = %q, %v; want io.ErrUnexpectedEOF", ev.Data, err)
	}
}

func TestDecoderEOFIsSticky(t *testing.T) {
	d := NewDecoder(strings.NewReader("data: a"))
	if ev, err := d.Next(); err != nil || string(ev.Data) != "a" {
		t.Fatalf("Next() = %q, %v", ev.Data, err)
	}
	for range 2 {
		if _, err := d.Next(); err != io.EOF {
			t.Fatalf("Next() after the end = %v, want io.EOF", err)
		}
	}
}

func TestDecoderDataIsOwnedByCaller(t *testing.T) {
	d := NewDecoder(strings.NewReader("data: first\n\ndata: second\n\n"))
	first, _ := d.Next()
	second, _ := d.Next()
	if string(first.Data) != "first" || string(second.Data) != "second" {
		t.Fatalf("events %q, %q: decoding the second changed the first", first.Data, second.Data)
	}
}

func TestDecoderBufferSize(t *testing.T) {
	d := NewDecoder(strings.NewReader(""))
	if d.r.Size() != DefaultBufferSize {
		t.Errorf("read buffer is %d bytes, want %d", d.r.Size(), DefaultBufferSize)
	}
	d = NewDecoderWithOptions(strings.NewReader(""), DecoderOptions{BufferSize: 512})
	if d.r.Size() != 512 {
		t.Errorf("read buffer is %d bytes, want 512", d.r.Size())
	}
}

func TestDecoderReleasesLargeBuffers(t *testing.T) {
	big := strings.Repeat("x", 4*retainLimit)
	d := NewDecoder(strings.NewReader("data: " + big + "\n\ndata: small\n\n"))
	if ev, err := d.Next(); err != nil || len(ev.Data) != len(big) {
		t.Fatalf("Next() = %d bytes, %v", len(ev.Data), err)
	}
	if cap(d.data) > retainLimit {
		t.Errorf("decoder keeps a %d-byte data buffer after a large event", cap(d.data))
	}
}

func TestDecoderAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts")
	}
	stream := "id: 7\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\n: ping\n\n"
	d := NewDecoder(&endlessReader{line: []byte(stream)})
	if _, err := d.Next(); err != nil { // warm the buffers
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(1000, func() {
		if _, err := d.Next(); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 1 {
		t.Errorf("Next allocates %v times per event, want 1 (the Data copy)", allocs)
	}
}

func TestAppendValidUTF8(t *testing.T) {
	// Expected outputs follow the WHATWG UTF-8 decoder: one U+FFFD per maximal subpart.
	const r = "\uFFFD"
	tests := []struct{ in, want string }{
		{"abc", "abc"},
		{"é日🎉", "é日🎉"},
		{"\xff", r},
		{"\x80\x80", r + r},
		{"\xE2\x82", r},              // truncated 3-byte sequence: one replacement
		{"\xE2\x82a", r + "a"},       // cut short by ASCII, which is kept
		{"\xF0\x9F\x98", r},          // truncated 4-byte sequence
		{"\xF0\x9F\x98\n", r + "\n"}, // line end survives
		{"\xC0\xAF", r + r},          // overlong lead byte is never valid
		{"\xE0\x80\x80", r + r + r},  // overlong 3-byte form
		{"\xED\xA0\x80", r + r + r},  // surrogate
		{"\xF4\x90\x80\x80", r + r + r + r},
		{"\xF5", r},
		{"a\xC3", "a" + r},
		{"\xC3\xC3\xA9", r + "é"},
	}
	for _, tt := range tests {
		if got := string(appendValidUTF8(nil, []byte(tt.in))); got != tt.want {
			t.Errorf("appendValidUTF8(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
