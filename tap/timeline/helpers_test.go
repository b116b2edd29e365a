package timeline

import (
	"encoding/json"
	"time"

	"github.com/mcpkit/mcpkit/tap/capture"
)

// recs builds synthetic records: seq and time (1 ms apart) are filled in.
type recs struct {
	list []*capture.Record
	t0   time.Time
}

func newRecs() *recs { return &recs{t0: time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)} }

func (b *recs) add(r *capture.Record) *capture.Record {
	r.Seq = uint64(len(b.list) + 1)
	r.Time = b.t0.Add(time.Duration(len(b.list)) * time.Millisecond)
	if r.Transport == "" {
		r.Transport = capture.TransportStdio
	}
	if r.Session == "" {
		r.Session = "stdio"
	}
	b.list = append(b.list, r)
	return r
}

// msg adds a message record in direction dir.
func (b *recs) msg(dir, session, body string) *capture.Record {
	return b.add(&capture.Record{Dir: dir, Session: session, Msg: json.RawMessage(body)})
}

// http adds a message record of HTTP exchange exch.
func (b *recs) http(dir, session string, exch uint64, method string, status int, body string) *capture.Record {
	return b.add(&capture.Record{Dir: dir, Session: session, Transport: capture.TransportStreamable, Msg: json.RawMessage(body),
		HTTP: &capture.HTTPInfo{Exchange: exch, Method: method, Path: "/mcp", Status: status}})
}

// event adds an event record.
func (b *recs) event(kind, dir, session string, exch uint64, status int, text string) *capture.Record {
	r := &capture.Record{Kind: kind, Dir: dir, Session: session, Text: text}
	if exch != 0 {
		r.Transport = capture.TransportStreamable
		r.HTTP = &capture.HTTPInfo{Exchange: exch, Method: "POST", Path: "/mcp", Status: status}
	}
	return b.add(r)
}

func (b *recs) model(limit int) *Model {
	m := New(Options{Limit: limit})
	for _, r := range b.list {
		m.Add(r)
	}
	return m
}

const (
	c2s = capture.ClientToServer
	s2c = capture.ServerToClient
)

func req(id, method string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `"}`
}

func res(id string) string { return `{"jsonrpc":"2.0","id":` + id + `,"result":{}}` }

// byID returns the entry of the snapshot with id seq (part 0).
func byID(s *Snapshot, seq uint64, part int) *Entry {
	for _, e := range s.Entries {
		if e.ID == (EntryID{seq, part}) {
			return e
		}
	}
	return nil
}
