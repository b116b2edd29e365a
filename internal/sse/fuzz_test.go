package sse

import (
	"bytes"
	"errors"
	"io"
	"math"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// referenceDecode is a literal transcription of the WHATWG event stream algorithm,
// written for clarity, not speed, to check the Decoder against: it decodes the whole
// stream as UTF-8 first, splits it into lines, and keeps the data buffer with its
// trailing LF as the standard does. Unless strict, it ends the stream the way the
// Decoder documents (an unterminated last line is processed, then a blank line).
func referenceDecode(input []byte, strict bool) decodeResult {
	text := strings.TrimPrefix(string(appendValidUTF8(nil, input)), "\uFEFF")
	var (
		res                               decodeResult
		data, eventType, idBuffer, lastID string
	)
	dispatch := func() {
		lastID = idBuffer
		if data == "" {
			eventType = ""
			return
		}
		ev := Event{ID: lastID, Type: "message", Data: []byte(strings.TrimSuffix(data, "\n"))}
		if eventType != "" {
			ev.Type = eventType
		}
		res.events = append(res.events, ev)
		data, eventType = "", ""
	}
	processLine := func(line string) {
		if line == "" {
			dispatch()
			return
		}
		if strings.HasPrefix(line, ":") {
			return
		}
		field, value, found := strings.Cut(line, ":")
		if found {
			value = strings.TrimPrefix(value, " ")
		}
		switch field {
		case "event":
			eventType = value
		case "data":
			data += value + "\n"
		case "id":
			if !strings.Contains(value, "\x00") {
				idBuffer = value
			}
		case "retry":
			if value != "" && strings.Trim(value, "0123456789") == "" {
				ms, err := strconv.ParseInt(value, 10, 64)
				d := time.Duration(ms) * time.Millisecond
				if err != nil || ms > math.MaxInt64/int64(time.Millisecond) {
					d = math.MaxInt64
				}
				res.retry, res.hasRetry = d, true
			}
		}
	}
	for {
		i := strings.IndexAny(text, "\r\n")
		if i < 0 {
			break
		}
		processLine(text[:i])
		if strings.HasPrefix(text[i:], "\r\n") {
			i++
		}
		text = text[i+1:]
	}
	if !strict {
		if text != "" {
			processLine(text)
		}
		dispatch()
	}
	res.lastID, res.err = lastID, io.EOF
	return res
}

func sameResult(a, b decodeResult) bool {
	return sameEvents(a.events, b.events) && a.err == b.err && a.lastID == b.lastID &&
		a.retry == b.retry && a.hasRetry == b.hasRetry
}

var fuzzSeeds = []string{
	"data: a\n\n",
	"data: a\r\n\r\n",
	"data: a\r\r",
	"data: a\r\ndata: b\rdata: c\n\r\n",
	"\uFEFFdata: a\n\n",
	"\xEF\xBBdata: a\n\n",
	": ping\n\n:\ndata: a\n: c\ndata: b\n\n",
	"data:x\n\ndata:  x\n\ndata\n\n",
	"event: add\ndata: 1\n\nevent: x\n\ndata: 2\n\n",
	"id: 1\ndata: a\n\ndata: b\n\nid\ndata: c\n\nid: 2\x003\ndata: d\n\n",
	"id: 7\n\n",
	"retry: 1500\n\nretry: 15a\n\nretry:\nretry: 99999999999999999999999\n",
	"foo: bar\nData: x\ndata: a\n\n",
	"data: a\n\ndata: b",
	"data: \xff\xE2\x82\n\n",
	"id: 42\ndata:\n\nid: 43\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n",
	"event: endpoint\r\ndata: /messages?sessionId=abc\r\n\r\n: ping\r\n\r\n",
	"data: 0123456789abcdef0123456789abcdef0123456789\n\ndata: ok\n\n",
}

// FuzzDecoder checks that the Decoder never panics, agrees with the reference
// algorithm, does not depend on how the input is split into reads, never buffers more
// than MaxEventSize, and that re-encoding what it decoded gives the same events back.
func FuzzDecoder(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, input []byte, strict bool) {
		whole, tooLarge := decodeAll(t, NewDecoderWithOptions(bytes.NewReader(input), DecoderOptions{Strict: strict}))
		if tooLarge != 0 {
			t.Fatalf("%d events too large with the default bound", tooLarge)
		}
		if want := referenceDecode(input, strict); !sameResult(whole, want) {
			t.Fatalf("input %q:\n got %s last id %q retry %v %v\nwant %s last id %q retry %v %v", input,
				fmtEvents(whole.events), whole.lastID, whole.retry, whole.hasRetry,
				fmtEvents(want.events), want.lastID, want.retry, want.hasRetry)
		}

		split, _ := decodeAll(t, NewDecoderWithOptions(iotest.OneByteReader(bytes.NewReader(input)),
			DecoderOptions{Strict: strict, BufferSize: 16}))
		if !sameResult(whole, split) {
			t.Fatalf("input %q: one byte per read gives %s, whole input %s", input, fmtEvents(split.events), fmtEvents(whole.events))
		}

		checkBound(t, input, strict, whole)
		checkReencode(t, whole.events)
	})
}

// checkBound decodes input again with a small MaxEventSize.
func checkBound(t *testing.T, input []byte, strict bool, unbounded decodeResult) {
	const max = 24
	d := NewDecoderWithOptions(iotest.HalfReader(bytes.NewReader(input)), DecoderOptions{Strict: strict, MaxEventSize: max})
	var events []Event
	sawTooLarge := false
	for {
		ev, err := d.Next()
		if buffered := len(d.data) + len(d.eventType); buffered > max || len(d.value) > max || cap(d.data) > max {
			t.Fatalf("input %q: decoder buffers %d+%d bytes, over the bound %d", input, buffered, len(d.value), max)
		}
		if errors.Is(err, ErrEventTooLarge) {
			sawTooLarge = true
			continue
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("input %q: unexpected error %v", input, err)
		}
		// Data and type are within the bound as read; replacing ill-formed UTF-8
		// can at most triple them.
		if len(ev.Data)+len(ev.Type) > 3*max+len("message") {
			t.Fatalf("input %q: event of %d bytes passed the bound %d", input, len(ev.Data)+len(ev.Type), max)
		}
		events = append(events, ev)
	}
	if !sawTooLarge && !sameEvents(events, unbounded.events) {
		t.Fatalf("input %q: no event was too large, yet the bound changed the events:\n got %s\nwant %s",
			input, fmtEvents(events), fmtEvents(unbounded.events))
	}
}

// checkReencode encodes decoded events and decodes them again: the result must be the
// same events. An id that goes back to empty cannot be encoded (an empty ID writes no
// id field), so the comparison stops there.
func checkReencode(t *testing.T, events []Event) {
	var comparable []Event
	for i, ev := range events {
		if ev.ID == "" && i > 0 && events[i-1].ID != "" {
			break
		}
		comparable = append(comparable, ev)
	}
	var stream []byte
	for _, ev := range comparable {
		var err error
		if stream, err = AppendEvent(stream, ev); err != nil {
			t.Fatalf("decoded event %+v cannot be encoded: %v", ev, err)
		}
	}
	again, tooLarge := decodeAll(t, NewDecoderWithOptions(bytes.NewReader(stream), DecoderOptions{Strict: true}))
	if tooLarge != 0 || !sameEvents(again.events, comparable) {
		t.Fatalf("re-encoded as %q:\n got %s\nwant %s", stream, fmtEvents(again.events), fmtEvents(comparable))
	}
}

func TestReferenceAgreesOnSeeds(t *testing.T) {
	// The fuzz target runs its seeds in a plain go test, but name the comparison here
	// too so a disagreement on the hand-written cases is reported plainly.
	for _, s := range fuzzSeeds {
		for _, strict := range []bool{false, true} {
			got, _ := decodeAll(t, NewDecoderWithOptions(strings.NewReader(s), DecoderOptions{Strict: strict}))
			if want := referenceDecode([]byte(s), strict); !sameResult(got, want) {
				t.Errorf("%q strict=%v:\n got %s\nwant %s", s, strict, fmtEvents(got.events), fmtEvents(want.events))
			}
		}
	}
}
