package timeline

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/mcpkit/mcpkit/tap/capture"
)

// DefaultLimit is the number of entries a model keeps when Options.Limit is 0.
const DefaultLimit = 100_000

// Options configure a Model.
type Options struct {
	// Limit is the number of entries kept: beyond it the oldest are evicted (and
	// counted). 0 means DefaultLimit; a negative value keeps everything (reading
	// a file).
	Limit int
	// Schema validates every message against the official schema of the version
	// negotiated on its session (Entry.Violations).
	Schema bool
}

// Model is the timeline of a capture. Add feeds it; Snapshot, Entry and Changed
// read it. One goroutine may add while any number read.
type Model struct {
	mu        sync.RWMutex
	limit     int
	entries   []*Entry // oldest first
	first     int64    // the absolute position of entries[0]
	index     map[EntryID]int64
	byToken   map[string]EntryID  // session + "\x00" + progress token → its request
	byExch    map[uint64]EntryID  // an HTTP exchange → the client's request it carries
	alias     map[string]string   // "conn-N" → the session its initialize reply named
	pairer    capture.Pairer      // the pairing rules shared with capture.Summarize
	schema    *schemaChecks       // nil unless Options.Schema
	onMatch   func(capture.Match) // m.match, made once
	cur       *capture.Record     // the record being added
	parts     []json.RawMessage   // the elements of cur's batch
	seen      int                 // messages of cur matched so far
	touched   EntryID             // the entry that holds cur's first message
	touchedOK bool
	stats     Stats
	changed   chan struct{} // closed at the next change; nil until asked for
	onEvict   func(*Entry)  // ReportFrom's: hears of each entry evicted
}

// Stats counts what a model saw.
type Stats struct {
	// Records is the number of records added; Entries the number of entries
	// made; Evicted those dropped to stay within the limit.
	Records, Entries, Evicted int64
	// Dropped counts records the recorder (or a slow subscription) dropped.
	Dropped int64
	// Version increases with every change.
	Version uint64
	// Last is the time of the newest record.
	Last time.Time
}

// New returns an empty model.
func New(opts Options) *Model {
	m := &Model{
		limit:   opts.Limit,
		index:   map[EntryID]int64{},
		byToken: map[string]EntryID{},
		byExch:  map[uint64]EntryID{},
		alias:   map[string]string{},
	}
	if m.limit == 0 {
		m.limit = DefaultLimit
	}
	if opts.Schema {
		m.schema = newSchemaChecks()
	}
	m.onMatch = m.match
	return m
}

// Build returns a model holding all of recs (no limit), with opts otherwise.
func Build(recs []*capture.Record, opts Options) *Model {
	opts.Limit = -1
	m := New(opts)
	for _, r := range recs {
		m.Add(r)
	}
	return m
}

// Follow adds the records of c (a capture.Subscription's C) until c is closed or
// ctx is done.
func (m *Model) Follow(ctx context.Context, c <-chan *capture.Record) error {
	for {
		select {
		case <-ctx.Done():
			return fmt.Errorf("timeline: follow: %w", context.Cause(ctx))
		case r, ok := <-c:
			if !ok {
				return nil
			}
			m.Add(r)
		}
	}
}

// Add feeds the model one record. The record must not be modified afterwards.
func (m *Model) Add(r *capture.Record) {
	if r == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.stats.Records++
	m.stats.Version++
	if r.Time.After(m.stats.Last) {
		m.stats.Last = r.Time
	}
	if r.Kind == capture.KindDropped {
		m.stats.Dropped += r.Count
	}
	m.cur, m.seen, m.touchedOK = r, 0, false
	m.parts = m.parts[:0]
	if r.IsMessage() && len(r.Msg) > 0 && r.Msg[0] == '[' && !r.Invalid {
		_ = json.Unmarshal(r.Msg, &m.parts) // on failure the pairer sees no message either
	}
	m.pairer.Add(r, m.onMatch)
	switch {
	case !r.IsMessage():
		if !m.fold(r) {
			m.push(&Entry{Kind: KindEvent, Event: r.Kind, Latency: -1, FirstProgress: -1}, r, 0)
		}
	case m.seen == 0:
		m.touch(m.push(&Entry{Kind: KindInvalid, Latency: -1, FirstProgress: -1}, r, 0))
	}
	if m.schema != nil && r.IsMessage() {
		m.checkSchema(r)
	}
	m.cur = nil
	clear(m.parts)
	if m.changed != nil {
		close(m.changed)
		m.changed = nil
	}
}

// match handles one message (or refusal) of the record being added.
func (m *Model) match(x capture.Match) {
	r := m.cur
	if x.Refused {
		m.update(EntryID{x.Request.Seq, x.Request.Index}, func(e *Entry) {
			e.State, e.Refusal, e.Latency = StateRefused, r, r.Time.Sub(e.Time)
		})
		return
	}
	m.seen++
	msg := m.message(r, x)
	switch {
	case x.Message.IsRequest():
		e := &Entry{Kind: KindRequest, Method: msg.Method, Message: msg, State: StatePending,
			ServerRequest: r.Dir == capture.ServerToClient, Latency: -1, FirstProgress: -1,
			Target: targetOf(msg.Method, msg.Params), Probe: probeOf(r, msg.Method)}
		id := m.push(e, r, x.Index)
		m.touch(id)
		if tok := msg.ProgressToken(); tok != "" {
			e.tokenKey = r.Session + "\x00" + tok
			m.byToken[e.tokenKey] = id
		}
		if e.Exchange != 0 && r.Dir == capture.ClientToServer {
			if _, taken := m.byExch[e.Exchange]; !taken {
				m.byExch[e.Exchange] = id
			}
		}
	case x.Message.IsNotification():
		if id, ok := m.attach(r, msg); ok {
			m.touch(id)
			return
		}
		id := m.push(&Entry{Kind: KindNotification, Method: msg.Method, Message: msg, Latency: -1, FirstProgress: -1}, r, x.Index)
		m.touch(id)
		if r.HTTP != nil && r.HTTP.Exchange != 0 && r.Dir == capture.ClientToServer {
			if _, taken := m.byExch[r.HTTP.Exchange]; !taken {
				m.byExch[r.HTTP.Exchange] = id // its 202 folds into it
			}
		}
	default: // a response
		if x.Request != nil {
			if id := (EntryID{x.Request.Seq, x.Request.Index}); m.answer(id, r, msg) {
				m.touch(id)
				return
			}
		}
		if id, ok := m.unreadable(r, msg); ok && m.answer(id, r, msg) {
			m.touch(id)
			return
		}
		e := &Entry{Kind: KindResponse, Message: msg, Latency: -1, FirstProgress: -1}
		setError(e, msg)
		m.touch(m.push(e, r, x.Index))
	}
}

// touch notes id as the entry that holds the first message of the record being
// added, for its schema flags.
func (m *Model) touch(id EntryID) {
	if !m.touchedOK {
		m.touched, m.touchedOK = id, true
	}
}

// message copies what the pairer decoded into a Message.
func (m *Model) message(r *capture.Record, x capture.Match) *Message {
	msg := &Message{Record: r, Index: x.Index, Raw: r.Msg, Method: x.Message.Method,
		Params: x.Message.Params, Result: x.Message.Result, Error: x.Message.Error}
	if x.Index < len(m.parts) {
		msg.Raw = m.parts[x.Index]
	}
	if !x.Message.ID.IsAbsent() {
		msg.ID = string(x.Message.ID.AppendJSON(nil))
	}
	if msg.Error != nil {
		cp := *msg.Error
		msg.Error = &cp
	}
	return msg
}

// attach puts a notification under its request: progress by token, anything the
// server sent on a request's own HTTP response.
func (m *Model) attach(r *capture.Record, msg *Message) (EntryID, bool) {
	id, ok := EntryID{}, false
	if msg.Method == "notifications/progress" {
		if tok := msg.ProgressToken(); tok != "" {
			id, ok = m.byToken[r.Session+"\x00"+tok]
		}
	}
	if !ok && r.HTTP != nil && r.HTTP.Exchange != 0 && r.Dir == capture.ServerToClient {
		id, ok = m.byExch[r.HTTP.Exchange]
	}
	if !ok {
		return id, false
	}
	return id, m.update(id, func(e *Entry) {
		e.Notifications = append(e.Notifications[:len(e.Notifications):len(e.Notifications)], msg)
		if e.FirstProgress < 0 && msg.Method == "notifications/progress" {
			e.FirstProgress = r.Time.Sub(e.Time)
		}
	})
}

// answer gives a response to its request; false when the model no longer has
// the request.
func (m *Model) answer(id EntryID, r *capture.Record, msg *Message) bool {
	return m.update(id, func(e *Entry) {
		e.State, e.Response, e.Latency = StateAnswered, msg, r.Time.Sub(e.Time)
		setError(e, msg)
		if e.Session != r.Session && isConn(e.Session) && r.Session != "" && !isConn(r.Session) {
			m.alias[e.Session] = r.Session
			e.Session = r.Session
		}
	})
}

// unreadable returns the pending request a response with id null answers: the
// client's request of the same HTTP exchange (a server that could not read, or
// would not take, the request answers with id null, as JSON-RPC says).
func (m *Model) unreadable(r *capture.Record, msg *Message) (EntryID, bool) {
	if msg.ID != "null" || r.HTTP == nil || r.HTTP.Exchange == 0 || r.Dir != capture.ServerToClient {
		return EntryID{}, false
	}
	id, ok := m.byExch[r.HTTP.Exchange]
	if !ok {
		return id, false
	}
	pos, ok := m.index[id]
	if !ok || m.entries[pos-m.first].State != StatePending {
		return id, false
	}
	return id, true
}

// fold puts a transport record of a message's own HTTP exchange (its SSE
// response opened or closed, the HTTP or upstream error that ended it, the 202
// that took a notification) into the message's entry; false when r belongs to no
// entry the model has.
func (m *Model) fold(r *capture.Record) bool {
	switch r.Kind {
	case capture.KindStreamOpen, capture.KindStreamClose, capture.KindHTTPError, capture.KindUpstreamError, capture.KindHTTP:
	default:
		return false
	}
	if r.HTTP == nil || r.HTTP.Exchange == 0 || r.Dir == capture.ClientToServer {
		return false
	}
	id, ok := m.byExch[r.HTTP.Exchange]
	if !ok {
		return false
	}
	return m.update(id, func(e *Entry) {
		e.Events = append(e.Events[:len(e.Events):len(e.Events)], r)
		if (r.Kind == capture.KindHTTPError || r.Kind == capture.KindUpstreamError) && e.Refusal == nil {
			e.Refusal = r
			if e.State == StatePending {
				e.State, e.Latency = StateRefused, r.Time.Sub(e.Time)
			}
		}
	})
}

// probeOf names the probe a request is (Entry.Probe), or "".
func probeOf(r *capture.Record, method string) string {
	if r.Dir != capture.ClientToServer {
		return ""
	}
	switch {
	case method == "server/discover":
		return ProbeEra
	case method == "ping" && r.Transport != capture.TransportStdio && (r.Session == "" || isConn(r.Session)):
		return ProbeSessionless
	}
	return ""
}

func setError(e *Entry, msg *Message) {
	if msg.Error != nil {
		e.Error, e.ErrorCode, e.ErrorMessage = true, msg.Error.Code, msg.Error.Message
	}
	e.IsError = msg.IsErrorResult()
}

func isConn(session string) bool { return len(session) > 5 && session[:5] == "conn-" }

// push adds e, made from r (the part-th message of its batch), and returns its id.
func (m *Model) push(e *Entry, r *capture.Record, part int) EntryID {
	e.Record, e.Time, e.Dir, e.Transport, e.Session = r, r.Time, r.Dir, r.Transport, r.Session
	if a, ok := m.alias[e.Session]; ok {
		e.Session = a
	}
	if r.HTTP != nil {
		e.Exchange = r.HTTP.Exchange
	}
	e.ID = EntryID{r.Seq, part}
	for {
		if _, dup := m.index[e.ID]; !dup {
			break
		}
		e.ID.Part++ // a seq seen twice (a subscription's dropped notes carry seq 0)
	}
	m.index[e.ID] = m.first + int64(len(m.entries))
	m.entries = append(m.entries, e)
	m.stats.Entries++
	if m.limit > 0 && len(m.entries) > m.limit {
		m.evict()
	}
	return e.ID
}

// evict forgets the oldest entry.
func (m *Model) evict() {
	old := m.entries[0]
	m.entries[0] = nil
	m.entries = m.entries[1:]
	m.first++
	m.stats.Evicted++
	if m.onEvict != nil {
		m.onEvict(old)
	}
	delete(m.index, old.ID)
	if old.tokenKey != "" && m.byToken[old.tokenKey] == old.ID {
		delete(m.byToken, old.tokenKey)
	}
	if old.Exchange != 0 && m.byExch[old.Exchange] == old.ID {
		delete(m.byExch, old.Exchange)
	}
}

// update replaces the entry id with a copy changed by f; false when the model
// does not have it.
func (m *Model) update(id EntryID, f func(*Entry)) bool {
	pos, ok := m.index[id]
	if !ok {
		return false
	}
	i := int(pos - m.first)
	e := *m.entries[i]
	f(&e)
	m.entries[i] = &e
	return true
}

// Snapshot is a consistent view of a model: later records do not change it.
type Snapshot struct {
	// Entries are the entries kept, oldest first. They are shared: do not modify.
	Entries []*Entry
	// Stats are the model's counters at the time of the snapshot.
	Stats Stats
	// Summary is capture.Summarize's account of every record added (evicted
	// entries included).
	Summary capture.Summary
}

// Snapshot returns the model as it is now.
func (m *Model) Snapshot() *Snapshot {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return &Snapshot{Entries: append([]*Entry(nil), m.entries...), Stats: m.stats, Summary: m.pairer.Summary()}
}

// Stats returns the model's counters.
func (m *Model) Stats() Stats {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.stats
}

// Entry returns the entry id as it is now.
func (m *Model) Entry(id EntryID) (*Entry, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	pos, ok := m.index[id]
	if !ok {
		return nil, false
	}
	return m.entries[pos-m.first], true
}

// Changed returns a channel closed at the model's next change: a view waits on
// it, then takes a Snapshot.
func (m *Model) Changed() <-chan struct{} {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.changed == nil {
		m.changed = make(chan struct{})
	}
	return m.changed
}
