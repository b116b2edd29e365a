package redisstore

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/taskstore"
)

// FuzzDecodeTask feeds arbitrary hash fields to the task decoder: it never
// panics, refuses with errBadTask, and whatever it accepts encodes and decodes
// back to the same record.
func FuzzDecodeTask(f *testing.F) {
	rec := &taskstore.Record{
		ID: "t1", Owner: "alice", Method: "tools/call", Name: "slow", ProtocolVersion: protocol.Version20260728,
		Status: protocol.TaskStatusInputRequired, StatusMessage: "waiting", CreatedAt: time.Unix(1785240000, 5), UpdatedAt: time.Unix(1785240001, 0),
		TTL: time.Minute, PollInterval: time.Second, Result: json.RawMessage(`{"content":[]}`),
		Error:          &jsonrpc.Error{Code: -32603, Message: "x", Data: json.RawMessage(`{"a":1}`)},
		InputRequests:  map[string]protocol.InputRequest{"r": protocol.NewListRootsInputRequest()},
		InputResponses: protocol.InputResponses{"old": json.RawMessage(`{"roots":[]}`)},
	}
	data, err := encodeTask(rec)
	if err != nil {
		f.Fatal(err)
	}
	f.Add("1", data)
	f.Add("7", []byte(`{"f":1,"id":"x","status":"working","created":0,"updated":0}`))
	f.Add("01", data)
	f.Add("1", []byte(`{"f":1,"id":"x","status":"working","result":"\u0000"}`))
	f.Add("18446744073709551615", []byte(`{"f":1,"id":"x","status":"failed","ttl":-1}`))
	f.Add("1", []byte(`null`))
	f.Fuzz(func(t *testing.T, rev string, data []byte) {
		rec, err := decodeTask(rev, data)
		if err != nil {
			if !errors.Is(err, errBadTask) {
				t.Fatalf("decodeTask error %v does not wrap errBadTask", err)
			}
			return
		}
		again, err := encodeTask(rec)
		if err != nil {
			t.Fatalf("an accepted record does not encode: %v", err)
		}
		back, err := decodeTask(rev, again)
		if err != nil {
			t.Fatalf("a re-encoded record does not decode: %v\n%s", err, again)
		}
		third, _ := encodeTask(back)
		if !bytes.Equal(again, third) || back.Revision != rec.Revision {
			t.Fatalf("the record changed on a round trip:\n%s\n%s", again, third)
		}
	})
}

// FuzzDecodeChange feeds arbitrary Pub/Sub messages to the change decoder: it
// never panics, and what it accepts is exactly what encodeChange writes.
func FuzzDecodeChange(f *testing.F) {
	for _, s := range []string{"1 o 1 ", "1 o 4 file:///a b", "1 o 5 t", "1 o 9 ", "", "1", "1 o 01 ", "1 o 1 x", "1  4 u"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, msg string) {
		origin, c, err := decodeChange(msg)
		if err != nil {
			return
		}
		if got := encodeChange(origin, c); got != msg {
			t.Fatalf("decodeChange(%q) = %q %+v, which encodes as %q", msg, origin, c, got)
		}
	})
}

// FuzzParseEventID: the event id parser never panics, and what it accepts
// joins back to the same id, with an entry id Redis would accept.
func FuzzParseEventID(f *testing.F) {
	for _, s := range []string{"1_1-0", "a_b_1700000000000-3", "_1-0", "x_", "1_01-0", "1_1-", "1_18446744073709551616-0", "1_+1-0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		stream, entry, ok := parseEventID(id)
		if !ok {
			return
		}
		if stream == "" || stream+"_"+entry != id || !validEntryID(entry) {
			t.Fatalf("parseEventID(%q) = %q, %q", id, stream, entry)
		}
	})
}

// FuzzDecodeRelayMessage feeds arbitrary inbox messages to the relay's
// decoder: it never panics, and what it accepts is exactly "<topic>\n<payload>"
// with a topic free of newlines.
func FuzzDecodeRelayMessage(f *testing.F) {
	f.Add("streamable\n{\"s\":\"S\"}")
	f.Add("\nx")
	f.Add("no newline")
	f.Fuzz(func(t *testing.T, m string) {
		topic, payload, err := decodeRelayMessage(m)
		if err != nil {
			return
		}
		if topic == "" || bytes.ContainsRune([]byte(topic), '\n') || topic+"\n"+string(payload) != m {
			t.Fatalf("%q decoded as %q, %q", m, topic, payload)
		}
	})
}

// FuzzDecodeNotice: a session change notice that decodes is the encoding of
// what it decoded to.
func FuzzDecodeNotice(f *testing.F) {
	for _, s := range []string{"1 o s S1", "1 o.7 d S1", "1 me.1 s S", "1 o. s S", "1 .1 s S", "1 o.1.2 s S", "1 o x S", "1 o s a{b}", "2 o s S", "1 o s "} {
		f.Add(s)
	}
	st := &SessionStore{origin: "me"}
	f.Fuzz(func(t *testing.T, msg string) {
		n, ok := st.decodeNotice(msg)
		if !ok {
			return
		}
		origin, op := n.origin, "s"
		if n.replyTo != "" {
			origin += "." + n.seq
		}
		if n.deleted {
			op = "d"
		}
		if got := invFormat + " " + origin + " " + op + " " + n.id; got != msg || n.own != (n.origin == "me") || len(n.seq) > maxSeqLen {
			t.Fatalf("decodeNotice(%q) = %+v, which encodes as %q", msg, n, got)
		}
	})
}
