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

	closeSeq uint64
	closeRec *capture.Record
	errRec   *capture.Record
	session  string
	requests []*Entry
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
	exch := map[uint64]*LaneExchange{}
	var order []*LaneExchange
	transport := map[uint64]string{}
	for _, r := range records(entries) {
		if r.HTTP == nil || r.HTTP.Exchange == 0 {
			continue
		}
		x := exch[r.HTTP.Exchange]
		if x == nil {
			x = &LaneExchange{Exchange: r.HTTP.Exchange, Method: r.HTTP.Method, Path: r.HTTP.Path, Start: r.Time, First: r.Seq}
			exch[r.HTTP.Exchange] = x
			order = append(order, x)
			transport[x.Exchange] = r.Transport
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
		case capture.KindStreamOpen:
			x.Stream = true
			x.Standalone = x.Method == http.MethodGet
		case capture.KindStreamClose:
			x.End, x.Events, x.LastEventID, x.closeSeq, x.closeRec = r.Text, r.Count, r.LastEventID, r.Seq, r
		case capture.KindReconnect:
			x.Resumed = r.LastEventID
		case capture.KindHTTPError, capture.KindUpstreamError:
			x.Error, x.errRec = r.Text, r
		}
	}
	for _, e := range entries {
		if e.Kind == KindRequest && e.Dir == capture.ClientToServer && e.Exchange != 0 {
			if x := exch[e.Exchange]; x != nil {
				x.Requests++
				x.requests = append(x.requests, e)
			}
		}
	}
	var lanes []Lane
	laneOf := map[string]int{}
	for _, x := range order {
		s := x.session
		if isConn(s) {
			s = ""
		}
		i, ok := laneOf[s]
		if !ok {
			i = len(lanes)
			laneOf[s] = i
			lanes = append(lanes, Lane{Session: s, Transport: transport[x.Exchange]})
		}
		l := &lanes[i]
		l.Exchanges = append(l.Exchanges, *x)
		if x.Stream {
			l.Streams++
		}
		if x.Resumed != "" {
			l.Resumptions++
		}
	}
	var fails []Failure
	for i := range lanes {
		fails = append(fails, laneFailures(&lanes[i])...)
	}
	return lanes, fails
}

// laneFailures flags session-lost, second-stream-refused and stream-cut in a
// lane.
func laneFailures(l *Lane) []Failure {
	var fails []Failure
	add := func(name, detail string, seqs ...uint64) {
		fails = append(fails, Failure{Name: name, Session: l.Session, Detail: detail, Records: seqs})
	}
	var lastGood *LaneExchange
	for i := range l.Exchanges {
		x := &l.Exchanges[i]
		good := x.Status >= 200 && x.Status < 300
		if x.Status == http.StatusNotFound && lastGood != nil && l.Session != "" {
			add(FailSessionLost, fmt.Sprintf("%s %s got 404 after the session had worked (exchange %d, %d): sessions not shared behind a balancer, or the server restarted",
				x.Method, x.Path, lastGood.Exchange, lastGood.Status), errSeq(x), lastGood.Last)
		}
		if x.Method == http.MethodGet && (x.Status == http.StatusConflict || x.Status == http.StatusMethodNotAllowed) {
			if other := openStream(l, x); other != nil || x.Status == http.StatusConflict {
				seqs := []uint64{errSeq(x)}
				detail := fmt.Sprintf("a standalone GET stream was refused with %d", x.Status)
				if other != nil {
					seqs = append(seqs, other.First)
					detail += fmt.Sprintf(" while stream %d was open", other.Exchange)
				}
				add(FailSecondStreamRefused, detail, seqs...)
			}
		}
		if x.closeRec != nil {
			if d, cut := streamCut(x); cut {
				add(FailStreamCut, d, x.closeSeq, x.First)
			}
		}
		if good {
			lastGood = x
		}
	}
	return fails
}

func errSeq(x *LaneExchange) uint64 {
	if x.errRec != nil {
		return x.errRec.Seq
	}
	return x.First
}

// openStream returns another standalone stream of l open when x began.
func openStream(l *Lane, x *LaneExchange) *LaneExchange {
	for i := range l.Exchanges {
		o := &l.Exchanges[i]
		if o != x && o.Standalone && o.First < x.First && (o.closeSeq == 0 || o.closeSeq > x.First) {
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
