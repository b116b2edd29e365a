package view

import (
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/mcpkit/mcpkit/tap/timeline"
)

// Bounds of a Panel: the analysis of a long capture stays readable (and cheap to
// send every second); what is left out is counted.
const (
	maxFailures     = 200
	maxProgressRows = 50
	maxLanes        = 50
	maxLaneRows     = 200
)

// Panel is the analysis of a timeline (timeline.Report) as both views show it:
// a summary line, the failures by name, then tables.
type Panel struct {
	// Summary counts records, messages and requests.
	Summary string `json:"summary"`
	// Groups are the failures of the field by kind, the gravest first, the same
	// failure repeated merged into one with its count (at most maxFailures in
	// all; FailuresOmitted counts the rest). FailureCount counts them all.
	Groups          []FailureGroup `json:"groups"`
	FailureCount    int            `json:"failureCount"`
	FailuresOmitted int            `json:"failuresOmitted,omitempty"`
	// Probes counts the probes the server refused: not failures, said apart.
	Probes int `json:"probes,omitempty"`
	// Tables are the latency by method and direction, the time to first
	// progress, then one table per session lane.
	Tables []Table `json:"tables"`
	// ToolsVersion changes when a tools/list answer arrives: a view that shows
	// the token panel (TokensOf) refreshes it then.
	ToolsVersion string `json:"toolsVersion"`
	// CatalogVersion changes when an answer the catalog (CatalogOf) reads
	// arrives: a view refreshes its duplicate-tool warning and app list then.
	CatalogVersion string `json:"catalogVersion"`
}

// FailureGroup is the failures of one kind.
type FailureGroup struct {
	// Name is one of timeline's Fail constants ("session-lost", …).
	Name string `json:"name"`
	// Count is how many failures of the kind the capture holds.
	Count    int       `json:"count"`
	Failures []Failure `json:"failures"`
}

// Failure is a failure of the field the analysis found, by name.
type Failure struct {
	// Count is how many times it happened (the same detail, merged).
	Count int `json:"count"`
	// Name is one of timeline's Fail constants ("session-lost", …).
	Name string `json:"name"`
	// Session is the session it happened on ("" when none).
	Session string `json:"session,omitempty"`
	// Text says what happened.
	Text string `json:"text"`
	// Seqs are the records that show it, the main one first.
	Seqs []uint64 `json:"seqs,omitempty"`
	// Entries are the ids of the timeline entries that hold those records, the
	// main one first: where a view jumps to show it.
	Entries []string `json:"entries,omitempty"`
}

// Table is a titled table of text cells.
type Table struct {
	// ID names the table for a view or a test: "latency", "progress", or
	// "lane:" and the session id.
	ID    string `json:"id"`
	Title string `json:"title"`
	// Note is a line under the title (percentiles, counts, what was left out).
	Note    string     `json:"note,omitempty"`
	Columns []string   `json:"columns"`
	Rows    [][]string `json:"rows"`
	// Entries holds, for each row, the id of the entry a view jumps to from it
	// ("" for none).
	Entries []string `json:"entries,omitempty"`
}

// PanelOf returns the analysis of snap: timeline's Report mapped to what the
// views show, with every failure and row linked to its entries.
func PanelOf(snap *timeline.Snapshot) Panel {
	rep := snap.Report(timeline.ReportOptions{})
	p := Panel{Summary: summaryLine(rep), Groups: []FailureGroup{}, ToolsVersion: ToolsVersion(snap),
		CatalogVersion: CatalogVersion(snap),
		FailureCount:   len(rep.Failures), Probes: rep.Probes}

	// The records the panel links to, and then the entries that hold them.
	want := map[uint64]string{}
	groups := rep.Groups()
	kept := 0
	for gi := range groups {
		g := &groups[gi]
		if kept+len(g.Failures) > maxFailures {
			n := max(maxFailures-kept, 0)
			for _, f := range g.Failures[n:] {
				p.FailuresOmitted += f.Count
			}
			g.Failures = g.Failures[:n]
		}
		kept += len(g.Failures)
		for _, f := range g.Failures {
			for _, s := range f.Records {
				want[s] = ""
			}
		}
	}
	lanes := rep.Lanes
	if len(lanes) > maxLanes {
		lanes = lanes[len(lanes)-maxLanes:]
	}
	for _, l := range lanes {
		for _, x := range lastN(l.Exchanges, maxLaneRows) {
			want[x.First] = ""
		}
	}
	entriesOf(snap, want)

	for _, g := range groups {
		pg := FailureGroup{Name: g.Name, Count: g.Count}
		for _, f := range g.Failures {
			pf := Failure{Count: f.Count, Name: f.Name, Session: f.Session, Text: f.Detail, Seqs: f.Records}
			for _, s := range f.Records {
				if id := want[s]; id != "" && !slices.Contains(pf.Entries, id) {
					pf.Entries = append(pf.Entries, id)
				}
			}
			pg.Failures = append(pg.Failures, pf)
		}
		p.Groups = append(p.Groups, pg)
	}
	p.Tables = append(p.Tables, latencyTable(snap, rep))
	if t, ok := progressTable(rep); ok {
		p.Tables = append(p.Tables, t)
	}
	if len(lanes) < len(rep.Lanes) {
		p.Tables = append(p.Tables, Table{ID: "lanes-omitted", Title: "older sessions",
			Note: fmt.Sprintf("%d older session lanes not shown", len(rep.Lanes)-len(lanes))})
	}
	for i := range lanes {
		p.Tables = append(p.Tables, laneTable(&lanes[i], want))
	}
	return p
}

func summaryLine(rep *timeline.Report) string {
	s := rep.Summary
	line := fmt.Sprintf("%d records, %d messages (%d C→S, %d S→C); %d requests, %d refused, %d unanswered",
		rep.Stats.Records, s.Messages, s.C2S, s.S2C, s.Requests, s.Refused, len(s.Unanswered))
	if rep.Probes > 0 {
		line += fmt.Sprintf(" (%d of them client probes: not failures)", rep.Probes)
	}
	if rep.Stats.Evicted > 0 || rep.Stats.Dropped > 0 {
		line += fmt.Sprintf("; %d entries evicted, %d records dropped", rep.Stats.Evicted, rep.Stats.Dropped)
	}
	return line
}

// entriesOf fills want (record seq → "") with the id of the entry holding each
// record.
func entriesOf(snap *timeline.Snapshot, want map[uint64]string) {
	if len(want) == 0 {
		return
	}
	mark := func(seq uint64, id timeline.EntryID) {
		if v, ok := want[seq]; ok && v == "" {
			want[seq] = id.String()
		}
	}
	for _, e := range snap.Entries {
		mark(e.Record.Seq, e.ID)
		if e.Response != nil {
			mark(e.Response.Record.Seq, e.ID)
		}
		for _, n := range e.Notifications {
			mark(n.Record.Seq, e.ID)
		}
		if e.Refusal != nil {
			mark(e.Refusal.Seq, e.ID)
		}
		for _, r := range e.Events {
			mark(r.Seq, e.ID)
		}
	}
}

// latencyTable is the latency percentiles of each method in each direction;
// each row links to the method's slowest entry.
func latencyTable(snap *timeline.Snapshot, rep *timeline.Report) Table {
	type key struct{ dir, method string }
	slowest := map[key]*timeline.Entry{}
	for _, e := range snap.Entries {
		if e.Kind == timeline.KindRequest {
			k := key{e.Dir, e.Method}
			if s := slowest[k]; s == nil || e.Latency > s.Latency {
				slowest[k] = e
			}
		}
	}
	t := Table{ID: "latency", Title: "latency by method",
		Note:    "percentiles over the answered and refused requests (nearest rank)",
		Columns: []string{"dir", "method", "count", "errors", "refused", "unanswered", "p50", "p90", "p99", "max"}}
	for _, m := range rep.Methods {
		l := m.Latency
		t.Rows = append(t.Rows, []string{DirLabel(m.Dir), m.Method, strconv.Itoa(m.Count), strconv.Itoa(m.Errors),
			strconv.Itoa(m.Refused), strconv.Itoa(m.Unanswered),
			millisOf(l.P50, l.Count), millisOf(l.P90, l.Count), millisOf(l.P99, l.Count), millisOf(l.Max, l.Count)})
		id := ""
		if e := slowest[key{m.Dir, m.Method}]; e != nil {
			id = e.ID.String()
		}
		t.Entries = append(t.Entries, id)
	}
	if len(t.Rows) == 0 {
		t.Note = "no requests yet"
	}
	return t
}

func millisOf(d time.Duration, n int) string {
	if n == 0 {
		return "-"
	}
	return Millis(d)
}

// progressTable is the time to first progress: percentiles, then the requests,
// slowest first.
func progressTable(rep *timeline.Report) (Table, bool) {
	p := rep.Progress
	if p.Count == 0 {
		return Table{}, false
	}
	t := Table{ID: "progress", Title: "time to first progress",
		Note: fmt.Sprintf("%d requests with progress: p50 %s, p90 %s, p99 %s, max %s",
			p.Count, Millis(p.P50), Millis(p.P90), Millis(p.P99), Millis(p.Max)),
		Columns: []string{"entry", "method", "session", "first progress"}}
	delays := append([]timeline.ProgressDelay(nil), rep.FirstProgress...)
	sort.SliceStable(delays, func(i, j int) bool { return delays[i].Delay > delays[j].Delay })
	if len(delays) > maxProgressRows {
		t.Note += fmt.Sprintf(" (the %d slowest shown)", maxProgressRows)
		delays = delays[:maxProgressRows]
	}
	for _, d := range delays {
		t.Rows = append(t.Rows, []string{d.Entry, d.Method, d.Session, Millis(d.Delay)})
		t.Entries = append(t.Entries, d.Entry)
	}
	return t, true
}

// laneTable is one session's HTTP exchanges: its POSTs, its GET streams and how
// each ended, and the Last-Event-ID resumptions.
func laneTable(l *timeline.Lane, entries map[uint64]string) Table {
	name := l.Session
	if name == "" {
		name = "(none: stateless or sessionless)"
	}
	posts, gets := 0, 0
	for _, x := range l.Exchanges {
		switch {
		case x.Method == http.MethodPost:
			posts++
		case x.Standalone:
			gets++
		}
	}
	t := Table{ID: "lane:" + l.Session, Title: "session " + name + " (" + l.Transport + ")",
		Note: fmt.Sprintf("%d exchanges: %d POST, %d GET streams; %d SSE streams; %d Last-Event-ID resumptions",
			len(l.Exchanges), posts, gets, l.Streams, l.Resumptions),
		Columns: []string{"#", "request", "status", "kind", "requests", "messages", "events", "ended", "duration", "resumed from", "last event id"}}
	xs := lastN(l.Exchanges, maxLaneRows)
	if len(xs) < len(l.Exchanges) {
		t.Note += fmt.Sprintf(" (the last %d shown)", len(xs))
	}
	for _, x := range xs {
		kind := "response"
		switch {
		case x.Standalone:
			kind = "GET stream"
		case x.Stream:
			kind = "SSE reply"
		}
		status, end, events, dur := "", "", "", Millis(x.Duration)
		if x.Status != 0 {
			status = strconv.Itoa(x.Status)
		}
		if x.Stream {
			end = x.End
			if end == "" {
				end = "open"
			}
			events = strconv.FormatInt(x.Events, 10)
		}
		if x.Error != "" {
			end = oneLine(x.Error, 60)
		}
		t.Rows = append(t.Rows, []string{strconv.FormatUint(x.Exchange, 10), x.Method + " " + x.Path, status, kind,
			strconv.Itoa(x.Requests), strconv.Itoa(x.Messages), events, end, dur, x.Resumed, x.LastEventID})
		t.Entries = append(t.Entries, entries[x.First])
	}
	return t
}

func lastN[T any](s []T, n int) []T {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
