package sse

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

func TestAppendEvent(t *testing.T) {
	tests := []struct {
		name string
		ev   Event
		want string
	}{
		{name: "data only", ev: Event{Data: []byte("hello")}, want: "data: hello\n\n"},
		{name: "all fields", ev: Event{ID: "7", Type: "message", Data: []byte(`{"a":1}`), Retry: 1500 * time.Millisecond}, want: "id: 7\nevent: message\nretry: 1500\ndata: {\"a\":1}\n\n"},
		{name: "empty data", ev: Event{}, want: "data:\n\n"},
		{name: "priming", ev: Event{ID: "s1-0"}, want: "id: s1-0\ndata:\n\n"},
		{name: "LF split", ev: Event{Data: []byte("a\nb")}, want: "data: a\ndata: b\n\n"},
		{name: "CR split", ev: Event{Data: []byte("a\rb")}, want: "data: a\ndata: b\n\n"},
		{name: "CRLF split once", ev: Event{Data: []byte("a\r\nb")}, want: "data: a\ndata: b\n\n"},
		{name: "LF CR is two line ends", ev: Event{Data: []byte("a\n\rb")}, want: "data: a\ndata:\ndata: b\n\n"},
		{name: "trailing line end", ev: Event{Data: []byte("a\n")}, want: "data: a\ndata:\n\n"},
		{name: "only a line end", ev: Event{Data: []byte("\r\n")}, want: "data:\ndata:\n\n"},
		{name: "leading space kept", ev: Event{ID: " x", Data: []byte(" a")}, want: "id:  x\ndata:  a\n\n"},
		{name: "colon in data", ev: Event{Data: []byte(": not a comment")}, want: "data: : not a comment\n\n"},
		{name: "retry below a millisecond", ev: Event{Retry: time.Microsecond, Data: []byte("x")}, want: "retry: 0\ndata: x\n\n"},
		{name: "negative retry omitted", ev: Event{Retry: -time.Second, Data: []byte("x")}, want: "data: x\n\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := AppendEvent([]byte("prefix|"), tt.ev)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != "prefix|"+tt.want {
				t.Errorf("got %q, want %q", got, "prefix|"+tt.want)
			}
		})
	}
}

func TestAppendEventRejectsBrokenFraming(t *testing.T) {
	for _, ev := range []Event{
		{ID: "a\nb"}, {ID: "a\rb"}, {ID: "a\x00b"}, {Type: "x\n"}, {Type: "\rx"},
	} {
		dst := []byte("keep")
		got, err := AppendEvent(dst, ev)
		if !errors.Is(err, ErrInvalidEvent) {
			t.Errorf("AppendEvent(%+v) error = %v, want ErrInvalidEvent", ev, err)
		}
		if string(got) != "keep" {
			t.Errorf("AppendEvent(%+v) changed dst to %q", ev, got)
		}
	}
}

// countingWriter records each Write call.
type countingWriter struct {
	writes []string
	err    error
}

func (w *countingWriter) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	w.writes = append(w.writes, string(p))
	return len(p), nil
}

func TestEncoderWritesEachEventWhole(t *testing.T) {
	w := &countingWriter{}
	e := NewEncoder(w)
	if err := e.Prime("0"); err != nil {
		t.Fatal(err)
	}
	if err := e.Encode(Event{ID: "1", Type: "message", Data: []byte("line1\nline2")}); err != nil {
		t.Fatal(err)
	}
	if err := e.Comment("keep-alive"); err != nil {
		t.Fatal(err)
	}
	if err := e.Comment("two\nlines"); err != nil {
		t.Fatal(err)
	}
	if err := e.Comment(""); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"id: 0\ndata:\n\n",
		"id: 1\nevent: message\ndata: line1\ndata: line2\n\n",
		": keep-alive\n",
		": two\n: lines\n",
		":\n",
	}
	if strings.Join(w.writes, "|") != strings.Join(want, "|") {
		t.Errorf("writes = %q, want %q", w.writes, want)
	}
}

func TestEncoderErrors(t *testing.T) {
	w := &countingWriter{}
	e := NewEncoder(w)
	if err := e.Prime(""); !errors.Is(err, ErrInvalidEvent) {
		t.Errorf("Prime(\"\") = %v, want ErrInvalidEvent", err)
	}
	if err := e.Encode(Event{ID: "bad\n"}); !errors.Is(err, ErrInvalidEvent) {
		t.Errorf("Encode with a line break in the id = %v, want ErrInvalidEvent", err)
	}
	if len(w.writes) != 0 {
		t.Errorf("invalid events wrote %q", w.writes)
	}
	w.err = io.ErrClosedPipe
	if err := e.Encode(Event{Data: []byte("x")}); !errors.Is(err, io.ErrClosedPipe) {
		t.Errorf("Encode on a failing writer = %v, want it to wrap io.ErrClosedPipe", err)
	}
	if err := e.Comment("x"); !errors.Is(err, io.ErrClosedPipe) {
		t.Errorf("Comment on a failing writer = %v, want it to wrap io.ErrClosedPipe", err)
	}
}

func TestEncoderReleasesLargeBuffers(t *testing.T) {
	w := &countingWriter{}
	e := NewEncoder(w)
	big := bytes.Repeat([]byte("x"), 2*retainLimit)
	if err := e.Encode(Event{Data: big}); err != nil {
		t.Fatal(err)
	}
	if len(w.writes) != 1 || len(w.writes[0]) != len("data: \n\n")+len(big) {
		t.Fatalf("wrote %d times", len(w.writes))
	}
	if cap(e.buf) > retainLimit {
		t.Errorf("encoder keeps a %d-byte buffer after a large event", cap(e.buf))
	}
}

func TestEncoderAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts")
	}
	e := NewEncoder(io.Discard)
	ev := Event{ID: "123", Type: "message", Data: []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`)}
	allocs := testing.AllocsPerRun(1000, func() {
		if err := e.Encode(ev); err != nil {
			t.Fatal(err)
		}
		if err := e.Comment("ping"); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("Encode and Comment allocate %v times, want 0", allocs)
	}
}

// normalizeData is what a receiver sees of data sent by the encoder: line ends become
// LF, and ill-formed UTF-8 is replaced.
func normalizeData(b []byte) []byte {
	b = bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n"))
	b = bytes.ReplaceAll(b, []byte("\r"), []byte("\n"))
	return appendValidUTF8(nil, b)
}

func randomText(rng *rand.Rand, max int) string {
	pieces := []string{"a", "b", " ", ":", "\n", "\r", "\r\n", "é", "🎉", "data: ", "id:", "\x00", "\xff", "\xE2\x82", "{\"k\":1}"}
	var b strings.Builder
	for n := rng.IntN(max + 1); n > 0; n-- {
		b.WriteString(pieces[rng.IntN(len(pieces))])
	}
	return b.String()
}

func TestRoundTripProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		var stream bytes.Buffer
		e := NewEncoder(&stream)
		var want []Event
		var wantRetry time.Duration
		lastID := ""
		for range rng.IntN(20) {
			ev := Event{Data: []byte(randomText(rng, 12))}
			if rng.IntN(2) == 0 {
				ev.ID = strings.NewReplacer("\n", "", "\r", "", "\x00", "").Replace(randomText(rng, 3))
			}
			if rng.IntN(3) == 0 {
				ev.Type = strings.NewReplacer("\n", "", "\r", "").Replace(randomText(rng, 3))
			}
			if rng.IntN(4) == 0 {
				ev.Retry = time.Duration(rng.IntN(100000)) * time.Millisecond
				if ev.Retry > 0 {
					wantRetry = ev.Retry
				}
			}
			if rng.IntN(5) == 0 {
				if err := e.Comment(randomText(rng, 4)); err != nil {
					t.Fatal(err)
				}
			}
			if err := e.Encode(ev); err != nil {
				t.Fatal(err)
			}
			if ev.ID != "" {
				lastID = validString([]byte(ev.ID))
			}
			typ := validString([]byte(ev.Type))
			if typ == "" {
				typ = "message"
			}
			want = append(want, Event{ID: lastID, Type: typ, Data: normalizeData(ev.Data)})
		}
		encoded := stream.String()
		for how, mk := range readers(encoded) {
			r, opts := mk()
			got, tooLarge := decodeAll(t, NewDecoderWithOptions(r, opts))
			if got.err != io.EOF || tooLarge != 0 {
				t.Fatalf("round %d %s: ended with %v", round, how, got.err)
			}
			if !sameEvents(got.events, want) {
				t.Fatalf("round %d %s: stream %q\n got %s\nwant %s", round, how, encoded, fmtEvents(got.events), fmtEvents(want))
			}
			if got.lastID != lastID || got.retry != wantRetry || got.hasRetry != (wantRetry > 0) {
				t.Fatalf("round %d %s: last id %q retry %v, want %q %v", round, how, got.lastID, got.retry, lastID, wantRetry)
			}
		}
	}
}
