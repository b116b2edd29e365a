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
}

// Pending is a request without a response.
type Pending struct {
	Seq     uint64 // the record that carried it
	Dir     string
	Session string
	Method  string
	ID      string // as JSON: 7 or "abc"
}

// String is the summary as the tap prints it on exit: one line, and one more per
// unanswered request (at most ten).
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
	for i, p := range s.Unanswered {
		if i == 10 {
			fmt.Fprintf(&b, "\n  … and %d more", len(s.Unanswered)-10)
			break
		}
		fmt.Fprintf(&b, "\n  unanswered: %s %s id %s (record %d, session %s)", p.Dir, p.Method, p.ID, p.Seq, p.Session)
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
		t.observe(r, d)
	}
	return t.summary()
}

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
}

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

// observe accounts for r; d holds the JSON-RPC messages it carries.
func (t *tally) observe(r *Record, d decoded) {
	t.s.Records++
	switch r.Kind {
	case "":
	case KindHTTPError:
		t.s.HTTPErrors++
		t.refuse(r)
		return
	case KindUpstreamError:
		t.s.UpstreamErrors++
		t.refuse(r)
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
	d.each(func(m *jsonrpc.Message) { t.message(r, exchange, m) })
}

func (t *tally) message(r *Record, exchange uint64, m *jsonrpc.Message) {
	switch {
	case m.IsNotification():
		t.s.Notifications++
	case m.IsRequest():
		t.s.Requests++
		p := &pending{Pending: Pending{Seq: r.Seq, Dir: r.Dir, Session: r.Session, Method: m.Method, ID: m.ID.String()}, exchange: exchange}
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
		if exchange != 0 && take(t, t.byExch, exchangeKey{exchange, id}) {
			return
		}
		if take(t, t.bySession, sessionKey{opposite(r.Dir), r.Session, id}) {
			return
		}
		t.s.Unmatched++
	}
}

// refuse counts the requests still unanswered in the exchange of an HTTP error as
// refused: the error was their answer.
func (t *tally) refuse(r *Record) {
	if r.HTTP == nil || r.HTTP.Exchange == 0 || r.Dir == ClientToServer {
		return
	}
	for _, p := range t.exchReqs[r.HTTP.Exchange] {
		if !p.answered && p.Dir == ClientToServer {
			p.answered = true
			t.answered++
			t.s.Refused++
		}
	}
	delete(t.exchReqs, r.HTTP.Exchange)
}

// take marks the oldest unanswered request under key answered, reporting whether
// there was one.
func take[K comparable](t *tally, m map[K][]*pending, key K) bool {
	list := m[key]
	for len(list) > 0 && list[0].answered {
		list = list[1:]
	}
	if len(list) == 0 {
		delete(m, key)
		return false
	}
	list[0].answered = true
	t.answered++
	if len(list) == 1 {
		delete(m, key)
	} else {
		m[key] = list[1:]
	}
	t.compact()
	return true
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
