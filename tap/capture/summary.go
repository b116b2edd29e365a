package capture

import (
	"fmt"
	"strings"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

// Summary is the account of a capture: what passed, what was never answered, what
// was lost. Recorder.Summary returns it; Summarize computes it from records.
type Summary struct {
	// Records is the number of records after the header, dropped ones not counted.
	Records int64
	// Messages counts message records, by direction in C2S and S2C; Invalid those
	// that were not valid JSON.
	Messages, C2S, S2C, Invalid int64
	// Requests, Notifications and Responses count the JSON-RPC messages inside
	// (a batch counts each of its elements).
	Requests, Notifications, Responses int64
	// Unanswered lists the requests (in either direction) that no response matched,
	// in the order they were sent. Requests the HTTP exchange answered with an error
	// status and no JSON-RPC response (a 404 for an expired session, a 502 of the
	// tap) are not in it: Refused counts them.
	Unanswered []Pending
	Refused    int64
	// Unmatched counts responses that matched no request.
	Unmatched int64
	// HTTPErrors, UpstreamErrors and StderrLines count those records.
	HTTPErrors, UpstreamErrors, StderrLines int64
	// Dropped counts records the recorder had to drop (its buffer was full).
	Dropped int64
	// Unwritten counts records the recorder took but could not write to its
	// output, whose writing failed (a full disk): the capture lacks them
	// (Recorder.Err says why). Summarize, reading a capture, leaves it 0.
	Unwritten int64
}

// Pending is a request without a response.
type Pending struct {
	Seq     uint64 // the record that carried it
	Index   int    // its place in that record's batch (0 for a single message)
	Dir     string
	Session string
	Method  string
	ID      string // as JSON: 7 or "abc"
}

// String is the summary as the tap prints it on exit: one line, and one more per
// unanswered request (at most ten). What the peers chose (methods, ids,
// sessions) is escaped for a terminal (TermSafe).
func (s *Summary) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d messages (%d client→server, %d server→client", s.Messages, s.C2S, s.S2C)
	if s.Invalid > 0 {
		fmt.Fprintf(&b, ", %d not valid JSON", s.Invalid)
	}
	fmt.Fprintf(&b, "): %d requests, %d responses, %d notifications; %d requests without a response",
		s.Requests, s.Responses, s.Notifications, len(s.Unanswered))
	if s.Refused > 0 {
		fmt.Fprintf(&b, ", %d refused with an HTTP error", s.Refused)
	}
	if s.Unmatched > 0 {
		fmt.Fprintf(&b, ", %d responses to no request", s.Unmatched)
	}
	if s.HTTPErrors > 0 || s.UpstreamErrors > 0 {
		fmt.Fprintf(&b, "; %d HTTP errors, %d upstream errors", s.HTTPErrors, s.UpstreamErrors)
	}
	fmt.Fprintf(&b, "; %d records dropped", s.Dropped)
	if s.Unwritten > 0 {
		fmt.Fprintf(&b, ", %d not written to the capture (its writing failed)", s.Unwritten)
	}
	for i, p := range s.Unanswered {
		if i == 10 {
			fmt.Fprintf(&b, "\n  … and %d more", len(s.Unanswered)-10)
			break
		}
		fmt.Fprintf(&b, "\n  unanswered: %s %s id %s (record %d, session %s)", p.Dir, TermSafe(p.Method), TermSafe(p.ID), p.Seq, TermSafe(p.Session))
	}
	return b.String()
}

// Summarize computes the summary of records (as a Reader returns them).
func Summarize(records []*Record) Summary {
	var t tally
	for _, r := range records {
		var d decoded
		if r.IsMessage() && r.Msg != nil && !r.Invalid {
			d, _ = decodeMessages(r.Msg)
		}
		t.observe(r, d, nil)
	}
	return t.summary()
}

// Pairer pairs requests with their responses record by record, by the rules of
// Summarize (tap/FORMAT.md, "Pairing"): the one implementation the summary, the
// timeline of the views and the exports share. The zero value is ready to use; a
// Pairer is not safe for concurrent use.
type Pairer struct{ t tally }

// Match is what a Pairer found in a record: one JSON-RPC message of it, or a
// request the record refused.
type Match struct {
	// Message is a JSON-RPC message the record carries (nil for a refusal). It is
	// valid only during the call: copy what you keep. Its Params, Result and
	// Error.Data alias the record's Msg.
	Message *jsonrpc.Message
	// Index is the message's place in the record's batch (0 for a single message).
	Index int
	// Request is, for a response, the request it answers (nil when it answers
	// none); for a refusal, the request the HTTP error refused. Nil for requests
	// and notifications.
	Request *Pending
	// Refused marks a refusal: r is an http-error or upstream-error record that
	// ended the exchange of Request without a JSON-RPC response.
	Refused bool
}

// Add accounts for r and calls f (when not nil) with each JSON-RPC message r
// carries, in order, and with each request r refuses.
func (p *Pairer) Add(r *Record, f func(Match)) {
	var d decoded
	if r.IsMessage() && r.Msg != nil && !r.Invalid {
		d, _ = decodeMessages(r.Msg)
	}
	p.t.observe(r, d, f)
}

// Summary returns the summary of the records added so far.
func (p *Pairer) Summary() Summary { return p.t.summary() }

// tally pairs requests with responses as records go by. A response matches the
// request with its id sent the other way in the same HTTP exchange (a POST and its
// reply) or, failing that, in the same session (a reply on a GET stream or the
// HTTP+SSE stream, a client's answer to a server's request).
type tally struct {
	s         Summary
	bySession map[sessionKey][]*pending
	byExch    map[exchangeKey][]*pending
	exchReqs  map[uint64][]*pending // the requests of each HTTP exchange
	order     []*pending            // every request, answered or not, in order
	answered  int

	// reuse lets compact keep the requests it forgets in free, for message to
	// reuse: only when nothing outside the tally holds them (the recorder's
	// tally; a Pairer hands them to its callback).
	reuse bool
	free  []*pending
}

// maxFree bounds the forgotten requests a tally keeps for reuse.
const maxFree = 4096

type sessionKey struct{ dir, session, id string }

type exchangeKey struct {
	exchange uint64
	id       string
}

type pending struct {
	Pending
	exchange uint64
	answered bool
	// self holds the request itself: the backing array of a list of one (by
	// far the common case) in the tally's three maps, which so cost no
	// allocation of their own. Its capacity is 1, so appending to such a list
	// copies it; filtering one in place rewrites only self[0] with itself.
	self [1]*pending
}

// addPending appends p to the list of m under key.
func addPending[K comparable](m map[K][]*pending, key K, p *pending) {
	if list := m[key]; len(list) > 0 {
		m[key] = append(list, p)
		return
	}
	p.self[0] = p
	m[key] = p.self[:]
}

// observe accounts for r; d holds the JSON-RPC messages it carries. f, when not
// nil, hears of each message and refusal (Pairer.Add).
func (t *tally) observe(r *Record, d decoded, f func(Match)) {
	t.s.Records++
	switch r.Kind {
	case "":
	case KindHTTPError:
		t.s.HTTPErrors++
		t.refuse(r, f)
		return
	case KindUpstreamError:
		t.s.UpstreamErrors++
		t.refuse(r, f)
		return
	case KindStderr:
		t.s.StderrLines++
		return
	case KindDropped:
		t.s.Dropped += r.Count
		t.s.Records--
		return
	default:
		return
	}
	t.s.Messages++
	if r.Dir == ClientToServer {
		t.s.C2S++
	} else {
		t.s.S2C++
	}
	if r.Invalid || r.Msg == nil {
		if r.Invalid {
			t.s.Invalid++
		}
		return
	}
	var exchange uint64
	if r.HTTP != nil {
		exchange = r.HTTP.Exchange
	}
	if f == nil { // the recorder's case: d stays on the stack
		if d.ok {
			t.message(r, exchange, 0, &d.single)
		}
		for i, m := range d.batch {
			if m != nil {
				t.message(r, exchange, i, m)
			}
		}
		return
	}
	if d.ok {
		m := d.single // f may keep what it is given: a copy, not d
		f(Match{Message: &m, Request: t.message(r, exchange, 0, &m)})
	}
	for i, m := range d.batch {
		if m != nil {
			f(Match{Message: m, Index: i, Request: t.message(r, exchange, i, m)})
		}
	}
}

// message accounts for m, the i-th message of r; for a response, it returns the
// request it answers.
func (t *tally) message(r *Record, exchange uint64, i int, m *jsonrpc.Message) *Pending {
	switch {
	case m.IsNotification():
		t.s.Notifications++
	case m.IsRequest():
		t.s.Requests++
		var p *pending
		if n := len(t.free); n > 0 {
			p, t.free = t.free[n-1], t.free[:n-1]
		} else {
			p = new(pending)
		}
		*p = pending{Pending: Pending{Seq: r.Seq, Index: i, Dir: r.Dir, Session: r.Session, Method: m.Method, ID: m.ID.String()}, exchange: exchange}
		if t.bySession == nil {
			t.bySession = map[sessionKey][]*pending{}
			t.byExch = map[exchangeKey][]*pending{}
			t.exchReqs = map[uint64][]*pending{}
		}
		addPending(t.bySession, sessionKey{p.Dir, p.Session, p.ID}, p)
		if exchange != 0 {
			addPending(t.byExch, exchangeKey{exchange, p.ID}, p)
			addPending(t.exchReqs, exchange, p)
		}
		t.order = append(t.order, p)
	default:
		t.s.Responses++
		id := m.ID.String()
		if exchange != 0 {
			if p := take(t, t.byExch, exchangeKey{exchange, id}); p != nil {
				return &p.Pending
			}
		}
		if p := take(t, t.bySession, sessionKey{opposite(r.Dir), r.Session, id}); p != nil {
			return &p.Pending
		}
		t.s.Unmatched++
	}
	return nil
}

// refuse counts the requests still unanswered in the exchange of an HTTP error as
// refused: the error was their answer.
func (t *tally) refuse(r *Record, f func(Match)) {
	if r.HTTP == nil || r.HTTP.Exchange == 0 || r.Dir == ClientToServer {
		return
	}
	for _, p := range t.exchReqs[r.HTTP.Exchange] {
		if !p.answered && p.Dir == ClientToServer {
			p.answered = true
			t.answered++
			t.s.Refused++
			if f != nil {
				f(Match{Request: &p.Pending, Refused: true})
			}
		}
	}
	delete(t.exchReqs, r.HTTP.Exchange)
}

// take marks the oldest unanswered request under key answered and returns it, or
// nil when there was none.
func take[K comparable](t *tally, m map[K][]*pending, key K) *pending {
	list := m[key]
	for len(list) > 0 && list[0].answered {
		list = list[1:]
	}
	if len(list) == 0 {
		delete(m, key)
		return nil
	}
	p := list[0]
	p.answered = true
	t.answered++
	if len(list) == 1 {
		delete(m, key)
	} else {
		m[key] = list[1:]
	}
	t.compact()
	return p
}

// compact forgets answered requests once they are most of those kept.
func (t *tally) compact() {
	if t.answered < 1024 || t.answered*2 < len(t.order) {
		return
	}
	kept := t.order[:0]
	for _, p := range t.order {
		if !p.answered {
			kept = append(kept, p)
		} else if t.reuse && len(t.free) < maxFree {
			// Forgotten: after this compaction no list of the maps holds p.
			t.free = append(t.free, p)
		}
	}
	clear(t.order[len(kept):])
	t.order = kept
	t.answered = 0
	for k, list := range t.bySession {
		if list = unanswered(list); len(list) == 0 {
			delete(t.bySession, k)
		} else {
			t.bySession[k] = list
		}
	}
	for k, list := range t.byExch {
		if list = unanswered(list); len(list) == 0 {
			delete(t.byExch, k)
		} else {
			t.byExch[k] = list
		}
	}
	for k, list := range t.exchReqs {
		if list = unanswered(list); len(list) == 0 {
			delete(t.exchReqs, k)
		} else {
			t.exchReqs[k] = list
		}
	}
}

func unanswered(list []*pending) []*pending {
	out := list[:0]
	for _, p := range list {
		if !p.answered {
			out = append(out, p)
		}
	}
	return out
}

func (t *tally) summary() Summary {
	s := t.s
	s.Unanswered = nil
	for _, p := range t.order {
		if !p.answered {
			s.Unanswered = append(s.Unanswered, p.Pending)
		}
	}
	return s
}

func opposite(dir string) string {
	if dir == ClientToServer {
		return ServerToClient
	}
	return ClientToServer
}
