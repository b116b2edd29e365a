package timeline

import (
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"time"

	"github.com/mcpkit/mcpkit/tap/capture"
)

// Lane is one HTTP session: every exchange that carried its id (Mcp-Session-Id,
// or the HTTP+SSE session of the endpoint URL), in order.
type Lane struct {
	// Session is the session id; "" gathers the exchanges without one (2026-07-28
	// stateless requests, sessionless servers).
	Session   string `json:"session"`
	Transport string `json:"transport"`
	// Exchanges are the POST, GET and DELETE exchanges of the session.
	Exchanges []LaneExchange `json:"exchanges"`
	// Streams counts the SSE responses, Resumptions the requests that carried
	// Last-Event-ID.
	Streams     int `json:"streams"`
	Resumptions int `json:"resumptions"`
}

// LaneExchange is one HTTP exchange of a lane.
type LaneExchange struct {
	Exchange uint64 `json:"exchange"`
	Method   string `json:"method"`
	Path     string `json:"path"`
	Status   int    `json:"status,omitempty"`
	// Start is the time of its first record; Duration runs to its last (the
	// stream's close for a stream).
	Start    time.Time     `json:"start"`
	Duration time.Duration `json:"durationNs"`
	// Stream marks an SSE response; Standalone a GET stream (the server's own
	// stream, or the HTTP+SSE stream).
	Stream     bool `json:"stream,omitempty"`
	Standalone bool `json:"standalone,omitempty"`
	// End is how the stream ended (capture.EndEOF, "upstream-lost: …" …); "" while
	// open or for a plain response.
	End string `json:"end,omitempty"`
	// Events is the number of events the stream carried; LastEventID the last id.
	Events      int64  `json:"events,omitempty"`
	LastEventID string `json:"lastEventId,omitempty"`
	// Resumed is the Last-Event-ID this request carried (a resumption).
	Resumed string `json:"resumed,omitempty"`
	// Requests counts the client's requests it carried; Messages all messages.
	Requests int `json:"requests"`
	Messages int `json:"messages"`
	// Error is the text of an HTTP or upstream error that ended it.
	Error string `json:"error,omitempty"`
	// First and Last are the seqs of its first and last records.
	First uint64 `json:"first"`
	Last  uint64 `json:"last"`

	closeSeq  uint64
	closeRec  *capture.Record
	errRec    *capture.Record
	session   string
	transport string
	requests  []*Entry
	reqIDs    []EntryID // a streaming laneAcc's: the requests it carried
	parked    bool      // settled in order, completed when it closes
}

// records returns every HTTP record the entries hold, in seq order, once each
// (a stdio capture has none: the lanes are HTTP's).
func records(entries []*Entry) []*capture.Record {
	seen := map[*capture.Record]bool{}
	var out []*capture.Record
	add := func(r *capture.Record) {
		if r != nil && r.HTTP != nil && !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	for _, e := range entries {
		add(e.Record)
		if e.Response != nil {
			add(e.Response.Record)
		}
		for _, n := range e.Notifications {
			add(n.Record)
		}
		add(e.Refusal)
		for _, r := range e.Events {
			add(r)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Seq < out[j].Seq })
	return out
}

// buildLanes groups the HTTP exchanges of entries into session lanes and flags
// the failures they show.
func buildLanes(entries []*Entry) ([]Lane, []Failure) {
	var l laneAcc
	for _, r := range records(entries) {
		l.record(r)
	}
	for _, e := range entries {
		l.request(e)
	}
	return l.finish()
}

// laneAcc gathers the exchanges of lanes record by record, and flags their
// failures exchange by exchange in the order they began: from a snapshot's
// entries (everything at the end), or from a capture streaming through
// ReportFrom, where an exchange is settled once maxOpen newer ones began (a
// stream once it closed) and only its lane's state stays.
type laneAcc struct {
	exch   map[uint64]*LaneExchange // begun and not settled
	queue  []*LaneExchange          // the same (and parked streams), in the order they began
	lanes  []laneState
	laneOf map[string]int

	// Streaming (ReportFrom) only.
	model   *Model // the entries of requests on exchanges
	keep    int    // the exchanges listed, over all lanes
	kept    int
	omitted int64
}

// maxOpen is how many exchanges a streaming laneAcc keeps unsettled.
const maxOpen = 2048

// laneState is a lane being built, and what its failure checks remember.
type laneState struct {
	Lane
	fails      []Failure
	lastGood   *LaneExchange   // the last exchange that succeeded, in order
	standalone []*LaneExchange // its standalone streams (the newest, in a stream)
	first      uint64          // the seq of its first exchange
}

// record accounts for one record of an exchange.
func (l *laneAcc) record(r *capture.Record) {
	if r.HTTP == nil || r.HTTP.Exchange == 0 {
		return
	}
	if l.exch == nil {
		l.exch = map[uint64]*LaneExchange{}
	}
	x := l.exch[r.HTTP.Exchange]
	if x == nil {
		x = &LaneExchange{Exchange: r.HTTP.Exchange, Method: r.HTTP.Method, Path: r.HTTP.Path, Start: r.Time, First: r.Seq, transport: r.Transport}
		l.exch[r.HTTP.Exchange] = x
		l.queue = append(l.queue, x)
	}
	x.Last, x.Duration = r.Seq, r.Time.Sub(x.Start)
	if x.session == "" || (isConn(x.session) && r.Session != "" && !isConn(r.Session)) {
		x.session = r.Session
	}
	if r.Dir == capture.ServerToClient && r.HTTP.Status != 0 && x.Status == 0 {
		x.Status = r.HTTP.Status
	}
	switch r.Kind {
	case "":
		x.Messages++
		if l.model != nil && r.Dir == capture.ClientToServer {
			l.requestsOf(x, r)
		}
	case capture.KindStreamOpen:
		x.Stream = true
		x.Standalone = x.Method == http.MethodGet
	case capture.KindStreamClose:
		x.End, x.Events, x.LastEventID, x.closeSeq, x.closeRec = r.Text, r.Count, r.LastEventID, r.Seq, r
		if x.parked {
			l.complete(x)
		}
	case capture.KindReconnect:
		x.Resumed = r.LastEventID
	case capture.KindHTTPError, capture.KindUpstreamError:
		x.Error, x.errRec = r.Text, r
	}
	if l.model != nil {
		for len(l.queue) > maxOpen {
			l.settle(l.queue[0])
			l.queue[0] = nil
			l.queue = l.queue[1:]
		}
	}
}

// requestsOf counts the client's requests the message record r carried on x
// (a streaming laneAcc: the model has just made their entries).
func (l *laneAcc) requestsOf(x *LaneExchange, r *capture.Record) {
	for part := 0; ; part++ {
		e, ok := l.model.Entry(EntryID{r.Seq, part})
		if !ok {
			return
		}
		if e.Kind == KindRequest && e.Exchange == x.Exchange {
			x.Requests++
			x.reqIDs = append(x.reqIDs, e.ID)
		}
	}
}

// request accounts for a client's request entry on its exchange (a snapshot's).
func (l *laneAcc) request(e *Entry) {
	if e.Kind != KindRequest || e.Dir != capture.ClientToServer || e.Exchange == 0 {
		return
	}
	if x := l.exch[e.Exchange]; x != nil {
		x.Requests++
		x.requests = append(x.requests, e)
	}
}

// evicted hears of an entry a streaming model forgets: a request on an
// exchange not yet settled keeps what the stream-cut check reads of it.
func (l *laneAcc) evicted(e *Entry) {
	if e.Kind != KindRequest || e.Exchange == 0 {
		return
	}
	if x := l.exch[e.Exchange]; x != nil && x.Stream {
		x.requests = append(x.requests, slimRequest(e))
	}
}

// slimRequest is what the stream-cut check reads of a request entry.
func slimRequest(e *Entry) *Entry {
	s := &Entry{ID: e.ID, Kind: e.Kind, Method: e.Method, Message: &Message{ID: e.Message.ID}}
	if seq := respSeq(e); seq != 0 {
		s.Refusal = &capture.Record{Seq: seq}
	}
	return s
}

// settle runs the checks of x that need the exchanges before it, then, unless
// x is a stream still open (parked until it closes), completes it.
func (l *laneAcc) settle(x *LaneExchange) {
	ls := l.lane(x)
	ls.inOrder(x)
	if l.model != nil && x.Stream && x.closeRec == nil {
		x.parked = true
		return
	}
	l.complete(x)
}

// complete runs the stream-cut check of x and adds it to its lane.
func (l *laneAcc) complete(x *LaneExchange) {
	delete(l.exch, x.Exchange)
	if l.model != nil {
		for _, id := range x.reqIDs {
			if e, ok := l.model.Entry(id); ok {
				x.requests = append(x.requests, slimRequest(e))
			}
		}
		x.reqIDs = nil
	}
	ls := l.lane(x)
	if x.closeRec != nil {
		if d, cut := streamCut(x); cut {
			ls.fail(FailStreamCut, d, x.closeSeq, x.First)
		}
	}
	x.requests = nil
	if l.keep > 0 && l.kept >= l.keep {
		l.omitted++
		return
	}
	l.kept++
	ls.Exchanges = append(ls.Exchanges, *x)
}

// lane returns the lane of x.
func (l *laneAcc) lane(x *LaneExchange) *laneState {
	s := x.session
	if isConn(s) {
		s = ""
	}
	if l.laneOf == nil {
		l.laneOf = map[string]int{}
	}
	i, ok := l.laneOf[s]
	if !ok {
		i = len(l.lanes)
		l.laneOf[s] = i
		l.lanes = append(l.lanes, laneState{Lane: Lane{Session: s, Transport: x.transport}, first: x.First})
	}
	return &l.lanes[i]
}

// finish settles what is left, in order, and returns the lanes (in the order
// they began, their exchanges too) and their failures.
func (l *laneAcc) finish() ([]Lane, []Failure) {
	model := l.model
	for _, x := range l.queue {
		if x.parked {
			continue
		}
		l.settle(x)
	}
	l.model = nil // nothing parks any more
	for _, x := range l.queue {
		if x.parked {
			x.parked = false
			l.model = model
			l.complete(x)
			l.model = nil
		}
	}
	l.queue = nil
	sort.SliceStable(l.lanes, func(i, j int) bool { return l.lanes[i].first < l.lanes[j].first })
	lanes := make([]Lane, len(l.lanes))
	var fails []Failure
	for i := range l.lanes {
		ls := &l.lanes[i]
		sort.SliceStable(ls.Exchanges, func(a, b int) bool { return ls.Exchanges[a].First < ls.Exchanges[b].First })
		lanes[i] = ls.Lane
		fails = append(fails, ls.fails...)
	}
	return lanes, fails
}

// inOrder runs the checks of x that need the lane's earlier exchanges
// (session-lost, second-stream-refused), and counts it.
func (ls *laneState) inOrder(x *LaneExchange) {
	if x.Stream {
		ls.Streams++
	}
	if x.Resumed != "" {
		ls.Resumptions++
	}
	if x.Status == http.StatusNotFound && ls.lastGood != nil && ls.Session != "" {
		ls.fail(FailSessionLost, fmt.Sprintf("%s %s got 404 after the session had worked (exchange %d, %d): sessions not shared behind a balancer, or the server restarted",
			x.Method, x.Path, ls.lastGood.Exchange, ls.lastGood.Status), errSeq(x), ls.lastGood.Last)
	}
	if x.Method == http.MethodGet && (x.Status == http.StatusConflict || x.Status == http.StatusMethodNotAllowed) {
		if other := ls.openStream(x); other != nil || x.Status == http.StatusConflict {
			seqs := []uint64{errSeq(x)}
			detail := fmt.Sprintf("a standalone GET stream was refused with %d", x.Status)
			if other != nil {
				seqs = append(seqs, other.First)
				detail += fmt.Sprintf(" while stream %d was open", other.Exchange)
			}
			ls.fail(FailSecondStreamRefused, detail, seqs...)
		}
	}
	if x.Standalone {
		if len(ls.standalone) >= 64 { // forget the closed ones
			open := ls.standalone[:0]
			for _, o := range ls.standalone {
				if o.closeSeq == 0 {
					open = append(open, o)
				}
			}
			clear(ls.standalone[len(open):])
			ls.standalone = open
		}
		ls.standalone = append(ls.standalone, x)
	}
	if x.Status >= 200 && x.Status < 300 {
		ls.lastGood = x
	}
}

func (ls *laneState) fail(name, detail string, seqs ...uint64) {
	ls.fails = append(ls.fails, Failure{Name: name, Session: ls.Session, Detail: detail, Records: seqs})
}

func errSeq(x *LaneExchange) uint64 {
	if x.errRec != nil {
		return x.errRec.Seq
	}
	return x.First
}

// openStream returns another standalone stream of the lane open when x began.
func (ls *laneState) openStream(x *LaneExchange) *LaneExchange {
	for _, o := range ls.standalone {
		if o != x && o.First < x.First && (o.closeSeq == 0 || o.closeSeq > x.First) {
			return o
		}
	}
	return nil
}

// streamCut reports whether a closed stream was cut, and how.
func streamCut(x *LaneExchange) (string, bool) {
	var pending []string
	for _, e := range x.requests {
		if r := respSeq(e); r == 0 || r > x.closeSeq {
			pending = append(pending, e.Method+" id "+e.Message.ID)
		}
	}
	what := fmt.Sprintf("%s stream %d", x.Method, x.Exchange)
	switch {
	case isCut(x.End):
		d := fmt.Sprintf("%s was cut (%s) after %s and %d events", what, x.End, x.Duration.Round(time.Millisecond), x.Events)
		if len(pending) > 0 {
			d += fmt.Sprintf("; unanswered on it: %v", pending)
		}
		if x.LastEventID != "" {
			d += "; a client can resume with Last-Event-ID " + x.LastEventID
		}
		return d, true
	case x.End == capture.EndEOF && len(pending) > 0:
		return fmt.Sprintf("%s ended before answering %v (a proxy or the server closed it)", what, pending), true
	case x.End == capture.EndEOF && x.Standalone:
		for _, t := range proxyTimeouts {
			if d := x.Duration - t; d > -time.Second && d < time.Second {
				return fmt.Sprintf("%s ended after %s, a typical proxy timeout (%s)", what, x.Duration.Round(time.Millisecond), t), true
			}
		}
	}
	return "", false
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
