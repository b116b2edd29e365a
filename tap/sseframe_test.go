package tap

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpkit/mcpkit/internal/sse"
)

// framingVariants are event streams as real servers write them.
var framingVariants = map[string]string{
	"lf":              "event: message\ndata: {\"a\":1}\n\n",
	"no space":        "event:message\ndata:{\"a\":1}\n\n",
	"crlf":            "event: message\r\ndata: {\"a\":1}\r\n\r\n",
	"cr":              "data: {\"a\":1}\r\r",
	"comments":        ": ping\n\n: keep-alive\ndata: x\n\n:\n\n",
	"ids and retry":   "id: 7\nretry: 3000\ndata: a\n\nid: 8\ndata: b\n\ndata: c\n\n",
	"multi-line data": "data: line1\ndata: line2\ndata\n\n",
	"bom":             "\xEF\xBB\xBFdata: first\n\n",
	"unknown fields":  "foo: bar\ndata: x\nbaz\n\n",
	"no final blank":  "data: tail",
	"empty data":      "data:\n\n",
	"event only":      "event: x\n\nid: 5\n\n",
	"endpoint":        "event: endpoint\ndata: /messages?sessionId=abc&x=1\n\n",
	"endpoint crlf":   ": hello\r\nevent:endpoint\r\ndata:http://up.example:8080/messages?sessionId=a\r\n\r\n: ping\r\n\r\n",
	"data first":      "data: /m?s=1\nevent: endpoint\n\n",
	"nul in id":       "id: a\x00b\ndata: x\n\n",
}

// decodeAll is the oracle: mcpkit's WHATWG-exact SSE decoder.
func decodeAll(t *testing.T, stream string) []sseEvent {
	t.Helper()
	d := sse.NewDecoder(strings.NewReader(stream))
	var out []sseEvent
	for {
		ev, err := d.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("decoding %q: %v", stream, err)
		}
		out = append(out, sseEvent{Type: ev.Type, ID: ev.ID, Data: ev.Data})
	}
}

// frameAll feeds stream to a framer in pieces cut at the given points and returns
// what it relayed and the events it reported.
func frameAll(stream string, cuts []int, rewrite func(string) (string, bool)) (string, []sseEvent) {
	var events []sseEvent
	f := &sseFramer{maxKeep: 1 << 20, rewrite: rewrite, onEvent: func(ev sseEvent) { events = append(events, ev) }}
	var out []byte
	prev := 0
	for _, c := range append(cuts, len(stream)) {
		out = f.feed([]byte(stream[prev:c]), out)
		prev = c
	}
	out = f.end(out)
	return string(out), events
}

func sameEvents(a, b []sseEvent) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Type != b[i].Type || a[i].ID != b[i].ID || !bytes.Equal(a[i].Data, b[i].Data) {
			return false
		}
	}
	return true
}

// TestFramerRelaysEveryByteAndAgreesWithTheDecoder cuts each variant at every
// position (and at random sets of positions): what goes out is what came in, and
// the events reported are the decoder's.
func TestFramerRelaysEveryByteAndAgreesWithTheDecoder(t *testing.T) {
	for name, stream := range framingVariants {
		t.Run(name, func(t *testing.T) {
			want := decodeAll(t, stream)
			check := func(cuts []int) {
				out, events := frameAll(stream, cuts, nil)
				if out != stream {
					t.Fatalf("cuts %v: relayed %q, want %q", cuts, out, stream)
				}
				if !sameEvents(events, want) {
					t.Fatalf("cuts %v: events %+v, want %+v", cuts, events, want)
				}
			}
			check(nil)
			for i := 1; i < len(stream); i++ {
				check([]int{i})
			}
			every := make([]int, 0, len(stream))
			for i := 1; i < len(stream); i++ {
				every = append(every, i)
			}
			check(every)
			rng := rand.New(rand.NewPCG(1, uint64(len(stream))))
			for range 50 {
				var cuts []int
				for i := 1; i < len(stream); i++ {
					if rng.IntN(3) == 0 {
						cuts = append(cuts, i)
					}
				}
				check(cuts)
			}
		})
	}
}

// TestFramerRewritesOnlyTheEndpointData: the data value of an endpoint event is
// replaced, every other byte (CRLF, no space after the colon, comments) stays.
func TestFramerRewritesOnlyTheEndpointData(t *testing.T) {
	rewrite := func(data string) (string, bool) {
		return strings.Replace(data, "http://up.example:8080", "http://127.0.0.1:9", 1), true
	}
	stream := framingVariants["endpoint crlf"]
	want := strings.Replace(stream, "http://up.example:8080", "http://127.0.0.1:9", 1)
	for i := range len(stream) + 1 {
		out, events := frameAll(stream, []int{i}, rewrite)
		if out != want {
			t.Fatalf("cut at %d: relayed %q, want %q", i, out, want)
		}
		if len(events) != 1 || events[0].Type != "endpoint" || string(events[0].Data) != "http://up.example:8080/messages?sessionId=a" ||
			events[0].Rewritten != "http://127.0.0.1:9/messages?sessionId=a" {
			t.Fatalf("events %+v", events)
		}
	}
	// The data line may come before the event line.
	out, _ := frameAll(framingVariants["data first"], nil, func(string) (string, bool) { return "/other", true })
	if out != "data: /other\nevent: endpoint\n\n" {
		t.Errorf("data-first endpoint relayed as %q", out)
	}
	// Other events are never rewritten.
	out, _ = frameAll("event: message\ndata: /m\n\n", nil, func(string) (string, bool) { return "/other", true })
	if out != "event: message\ndata: /m\n\n" {
		t.Errorf("a message event was rewritten: %q", out)
	}
}

// TestFramerFlushesPerEvent: an event's bytes go out when the event is complete;
// comments outside events go out at once (keep-alives must not wait).
func TestFramerFlushesPerEvent(t *testing.T) {
	f := &sseFramer{maxKeep: 1 << 20}
	if out := f.feed([]byte(": ping\n"), nil); string(out) != ": ping\n" {
		t.Errorf("a comment was held: %q", out)
	}
	if out := f.feed([]byte("event: message\ndata: {\"a\""), nil); len(out) != 0 {
		t.Errorf("half an event went out: %q", out)
	}
	if out := f.feed([]byte(":1}\n\n"), nil); string(out) != "event: message\ndata: {\"a\":1}\n\n" {
		t.Errorf("the complete event went out as %q", out)
	}
}

// TestFramerPassesHugeEventsThrough: an event larger than holdLimit is not held
// whole; it streams, unchanged, and is reported truncated to maxKeep.
func TestFramerPassesHugeEventsThrough(t *testing.T) {
	var events []sseEvent
	f := &sseFramer{maxKeep: 1000, onEvent: func(ev sseEvent) { events = append(events, ev) }}
	payload := strings.Repeat("x", 3*holdLimit)
	stream := "data: " + payload + "\n\n"
	var relayed bytes.Buffer
	maxHeld := 0
	for i := 0; i < len(stream); i += 4096 {
		out := f.feed([]byte(stream[i:min(i+4096, len(stream))]), nil)
		relayed.Write(out)
		maxHeld = max(maxHeld, len(f.held))
	}
	relayed.Write(f.end(nil))
	if relayed.String() != stream {
		t.Fatal("the huge event was not relayed unchanged")
	}
	if maxHeld > holdLimit+4096 {
		t.Errorf("held %d bytes, more than holdLimit", maxHeld)
	}
	if len(events) != 1 || !events[0].Truncated || len(events[0].Data) != 1000 || events[0].Size != int64(len(payload)) {
		t.Errorf("event: truncated %v, %d bytes kept, size %d", events[0].Truncated, len(events[0].Data), events[0].Size)
	}
}

// FuzzFramer checks the two invariants on any input: every byte is relayed, and
// the events are the decoder's.
func FuzzFramer(f *testing.F) {
	for _, s := range framingVariants {
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, stream string, step int) {
		step = max(step%64, 1)
		var cuts []int
		for i := step; i < len(stream); i += step {
			cuts = append(cuts, i)
		}
		out, events := frameAll(stream, cuts, nil)
		if out != stream {
			t.Fatalf("relayed %q, want %q", out, stream)
		}
		want := decodeAll(t, stream)
		if !utf8.ValidString(stream) {
			// The decoder replaces invalid UTF-8; the framer keeps the bytes as
			// sent (the capture flags them). Only the events' number must agree.
			if len(events) != len(want) {
				t.Fatalf("%d events, want %d", len(events), len(want))
			}
			return
		}
		if !sameEvents(events, want) {
			t.Fatalf("events %+v, want %+v", events, want)
		}
	})
}
