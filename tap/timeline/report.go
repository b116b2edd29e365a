package timeline

import (
	"encoding/json"
	"sort"
	"time"

	"github.com/mcpkit/mcpkit/tap/capture"
)

// Names of the failures a Report flags.
const (
	// FailSessionLost: a 404 on a session that had worked (a balancer without
	// shared sessions, a restarted server).
	FailSessionLost = "session-lost"
	// FailStreamCut: an SSE stream ended while requests on it were unanswered, lost
	// upstream, or ended after a time that looks like a proxy's timeout.
	FailStreamCut = "stream-cut"
	// FailUnanswered: a request no response (nor HTTP error) answered.
	FailUnanswered = "unanswered"
	// FailSecondStreamRefused: a standalone GET stream refused (405/409) while the
	// session had one open, or with 409.
	FailSecondStreamRefused = "second-stream-refused"
	// FailSlowRequest: a request answered after more than ReportOptions.Slow.
	FailSlowRequest = "slow-request"
	// FailInvalidJSON: a message that is not valid JSON-RPC.
	FailInvalidJSON = "invalid-json"
	// FailSchemaViolation: a message that breaks the official schema of its
	// session's version.
	FailSchemaViolation = "schema-violation"
	// FailUpstreamError: the tap could not reach or read the server.
	FailUpstreamError = "upstream-error"
	// FailDropped: records the recorder had to drop.
	FailDropped = "dropped"
)

// DefaultSlow is ReportOptions.Slow when zero.
const DefaultSlow = 10 * time.Second

// proxyTimeouts are the idle or response timeouts of common proxies and balancers
// (nginx's 60 s, AWS ALB's 60 s, Cloudflare's 100 s, …): a stream ended within a
// second of one looks cut by a proxy.
var proxyTimeouts = []time.Duration{30 * time.Second, 60 * time.Second, 90 * time.Second, 100 * time.Second, 120 * time.Second, 300 * time.Second, 600 * time.Second}

// ReportOptions tune BuildReport.
type ReportOptions struct {
	// Slow is the latency beyond which a request is flagged slow-request (0:
	// DefaultSlow; negative: never).
	Slow time.Duration
}

// Report is the analysis of a capture: what a person debugging an integration
// asks first.
type Report struct {
	Stats   Stats           `json:"stats"`
	Summary capture.Summary `json:"summary"`
	// Methods are the latency percentiles of each method, per direction.
	Methods []MethodStats `json:"methods"`
	// Progress is the time to first progress over the requests that had any, and
	// FirstProgress those requests.
	Progress      Percentiles     `json:"progress"`
	FirstProgress []ProgressDelay `json:"firstProgress,omitempty"`
	// Lanes are the HTTP sessions with their exchanges and streams.
	Lanes []Lane `json:"lanes,omitempty"`
	// Failures are the failures of the field, flagged by name, in record order.
	// A probe the server refused (Entry.ProbeRefused) is none.
	Failures []Failure `json:"failures"`
	// Probes counts the probes the server refused: clients learning what it
	// speaks, not failures.
	Probes int `json:"probes"`
	// Omitted counts the failures, first-progress delays, lanes and lane
	// exchanges a report read from a stream (ReportFrom) found but did not
	// list, to stay bounded.
	Omitted int64 `json:"omitted,omitempty"`

	keep int // ReportFrom: how many of each list to keep (0: all)
}

// MethodStats are the latencies of one method in one direction.
type MethodStats struct {
	Method     string      `json:"method"`
	Dir        string      `json:"dir"`
	Count      int         `json:"count"`
	Errors     int         `json:"errors"` // JSON-RPC errors and isError results (not a refused probe's)
	Refused    int         `json:"refused"`
	Unanswered int         `json:"unanswered"`
	Latency    Percentiles `json:"latency"` // over the answered and refused ones
}

// Percentiles summarise durations (nearest rank).
type Percentiles struct {
	Count              int
	P50, P90, P99, Max time.Duration
}

// MarshalJSON writes the durations in milliseconds.
func (p Percentiles) MarshalJSON() ([]byte, error) {
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	return json.Marshal(struct {
		Count int     `json:"count"`
		P50   float64 `json:"p50Ms"`
		P90   float64 `json:"p90Ms"`
		P99   float64 `json:"p99Ms"`
		Max   float64 `json:"maxMs"`
	}{p.Count, ms(p.P50), ms(p.P90), ms(p.P99), ms(p.Max)})
}

// percentiles computes the percentiles of ds (sorted in place).
func percentiles(ds []time.Duration) Percentiles {
	if len(ds) == 0 {
		return Percentiles{}
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	rank := func(p int) time.Duration { return ds[max((p*len(ds)+99)/100-1, 0)] }
	return Percentiles{Count: len(ds), P50: rank(50), P90: rank(90), P99: rank(99), Max: ds[len(ds)-1]}
}

// ProgressDelay is the time from a request to its first progress notification.
type ProgressDelay struct {
	ID      EntryID       `json:"-"`
	Entry   string        `json:"entry"`
	Method  string        `json:"method"`
	Session string        `json:"session"`
	Delay   time.Duration `json:"delayNs"`
}

// Failure is a failure of the field found in a capture.
type Failure struct {
	// Name is one of the Fail constants.
	Name    string `json:"name"`
	Session string `json:"session,omitempty"`
	// Detail says what happened, in a sentence.
	Detail string `json:"detail"`
	// Records are the seqs of the records that show it, the main one first.
	Records []uint64 `json:"records"`
	// Count is how many failures this one stands for in a FailureGroup, where
	// those with the same detail are merged (their records put together); 0 in
	// Report.Failures.
	Count int `json:"count,omitempty"`
}

// FailureGroup is the failures of one name, those with the same detail merged.
type FailureGroup struct {
	Name string `json:"name"`
	// Count is the number of failures of the name.
	Count int `json:"count"`
	// Failures are the distinct ones, in record order; each Failure.Count says
	// how many it stands for.
	Failures []Failure `json:"failures"`
}

// maxMergedRecords bounds the records a merged failure lists.
const maxMergedRecords = 50

// severity orders the groups: what breaks a session first, what a server may
// get away with (a slow answer, a schema detail) last.
var severity = []string{FailSessionLost, FailStreamCut, FailUpstreamError, FailUnanswered, FailInvalidJSON,
	FailSecondStreamRefused, FailDropped, FailSlowRequest, FailSchemaViolation}

func rank(name string) int {
	for i, n := range severity {
		if n == name {
			return i
		}
	}
	return len(severity)
}

// Groups returns the failures by name, the gravest kinds first, identical ones
// merged.
func (rep *Report) Groups() []FailureGroup {
	var groups []FailureGroup
	byName := map[string]int{}
	type key struct{ name, detail string }
	merged := map[key]int{}
	for _, f := range rep.Failures {
		gi, ok := byName[f.Name]
		if !ok {
			gi = len(groups)
			byName[f.Name] = gi
			groups = append(groups, FailureGroup{Name: f.Name})
		}
		g := &groups[gi]
		g.Count++
		k := key{f.Name, f.Detail}
		if i, ok := merged[k]; ok {
			m := &g.Failures[i]
			m.Count++
			if m.Session != f.Session {
				m.Session = ""
			}
			for _, r := range f.Records {
				if len(m.Records) < maxMergedRecords {
					m.Records = append(m.Records, r)
				}
			}
			continue
		}
		f.Count = 1
		f.Records = append([]uint64(nil), f.Records...)
		merged[k] = len(g.Failures)
		g.Failures = append(g.Failures, f)
	}
	sort.SliceStable(groups, func(i, j int) bool { return rank(groups[i].Name) < rank(groups[j].Name) })
	return groups
}

// Report analyses the model as it is now.
func (m *Model) Report(opts ReportOptions) *Report { return m.Snapshot().Report(opts) }

// Report analyses the snapshot.
func (s *Snapshot) Report(opts ReportOptions) *Report {
	if opts.Slow == 0 {
		opts.Slow = DefaultSlow
	}
	rep := &Report{Stats: s.Stats, Summary: s.Summary, Failures: []Failure{}}
	rep.methods(s.Entries, opts)
	rep.end(buildLanes(s.Entries))
	return rep
}

// end adds the lanes and their failures, and the dropped records, and puts the
// failures in record order.
func (rep *Report) end(lanes []Lane, fails []Failure) {
	rep.Lanes = lanes
	if rep.keep > 0 {
		if room := max(rep.keep-len(rep.Failures), 0); len(fails) > room {
			rep.Omitted += int64(len(fails) - room)
			fails = fails[:room]
		}
		if len(rep.Lanes) > rep.keep {
			rep.Omitted += int64(len(rep.Lanes) - rep.keep)
			rep.Lanes = rep.Lanes[:rep.keep]
		}
		for i := range rep.Lanes {
			if x := rep.Lanes[i].Exchanges; len(x) > rep.keep {
				rep.Omitted += int64(len(x) - rep.keep)
				rep.Lanes[i].Exchanges = x[:rep.keep]
			}
		}
	}
	rep.Failures = append(rep.Failures, fails...)
	if rep.Stats.Dropped > 0 {
		rep.Failures = append(rep.Failures, Failure{Name: FailDropped, Detail: itoa(rep.Stats.Dropped) + " records were dropped (the recorder or a view fell behind)"})
	}
	sort.SliceStable(rep.Failures, func(i, j int) bool { return first(rep.Failures[i].Records) < first(rep.Failures[j].Records) })
}

func first(seqs []uint64) uint64 {
	if len(seqs) == 0 {
		return 0
	}
	return seqs[0]
}

// methods fills the per-method statistics, the progress delays and the failures
// of single entries.
func (rep *Report) methods(entries []*Entry, opts ReportOptions) {
	a := newEntryAcc(rep, opts)
	for _, e := range entries {
		a.add(e)
	}
	a.finish()
}

type methodKey struct{ dir, method string }

// entryAcc accumulates, entry by entry, the per-method statistics, the progress
// delays and the failures of single entries: from a snapshot's entries, or from
// those a model evicts while a capture streams through it (ReportFrom).
type entryAcc struct {
	rep      *Report
	opts     ReportOptions
	stats    map[methodKey]*MethodStats
	lat      map[methodKey][]time.Duration
	keys     []methodKey
	progress []time.Duration
}

func newEntryAcc(rep *Report, opts ReportOptions) *entryAcc {
	return &entryAcc{rep: rep, opts: opts, stats: map[methodKey]*MethodStats{}, lat: map[methodKey][]time.Duration{}}
}

func (a *entryAcc) add(e *Entry) {
	rep, opts := a.rep, a.opts
	switch {
	case e.Kind == KindInvalid:
		rep.fail(FailInvalidJSON, e, "a message that is not valid JSON-RPC", e.ID.Seq)
	case e.Event == EventUnreadable:
		rep.fail(FailInvalidJSON, e, e.Record.Text, e.ID.Seq)
	case e.Event == capture.KindUpstreamError:
		rep.fail(FailUpstreamError, e, "the tap could not reach the server: "+e.Record.Text, e.ID.Seq)
	case e.Refusal != nil && e.Refusal.Kind == capture.KindUpstreamError:
		rep.fail(FailUpstreamError, e, "the tap could not reach the server: "+e.Refusal.Text, e.Refusal.Seq, e.ID.Seq)
	}
	for _, v := range e.Violations {
		rep.fail(FailSchemaViolation, e, v, e.ID.Seq)
	}
	if e.Kind != KindRequest {
		return
	}
	k := methodKey{e.Dir, e.Method}
	ms := a.stats[k]
	if ms == nil {
		ms = &MethodStats{Method: e.Method, Dir: e.Dir}
		a.stats[k] = ms
		a.keys = append(a.keys, k)
	}
	ms.Count++
	if e.ProbeRefused() {
		rep.Probes++
	}
	switch e.State {
	case StatePending:
		ms.Unanswered++
		rep.fail(FailUnanswered, e, e.Dir+" "+e.Method+" id "+e.Message.ID+" got no response", e.ID.Seq)
	case StateRefused:
		ms.Refused++
	}
	if (e.Error || e.IsError) && !e.ProbeRefused() {
		ms.Errors++
	}
	if e.Latency >= 0 {
		a.lat[k] = append(a.lat[k], e.Latency)
		if opts.Slow > 0 && e.Latency > opts.Slow {
			rep.fail(FailSlowRequest, e, e.Method+" took "+e.Latency.Round(time.Millisecond).String(), e.ID.Seq, respSeq(e))
		}
	}
	if e.FirstProgress >= 0 {
		a.progress = append(a.progress, e.FirstProgress)
		if rep.keep == 0 || len(rep.FirstProgress) < rep.keep {
			rep.FirstProgress = append(rep.FirstProgress, ProgressDelay{ID: e.ID, Entry: e.ID.String(), Method: e.Method, Session: e.Session, Delay: e.FirstProgress})
		}
	}
}

func (a *entryAcc) finish() {
	keys := a.keys
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].dir != keys[j].dir {
			return keys[i].dir < keys[j].dir
		}
		return keys[i].method < keys[j].method
	})
	for _, k := range keys {
		ms := a.stats[k]
		ms.Latency = percentiles(a.lat[k])
		a.rep.Methods = append(a.rep.Methods, *ms)
	}
	a.rep.Progress = percentiles(a.progress)
}

func respSeq(e *Entry) uint64 {
	switch {
	case e.Response != nil:
		return e.Response.Record.Seq
	case e.Refusal != nil:
		return e.Refusal.Seq
	}
	return 0
}

func (rep *Report) fail(name string, e *Entry, detail string, seqs ...uint64) {
	if rep.keep > 0 && len(rep.Failures) >= rep.keep {
		rep.Omitted++
		return
	}
	var recs []uint64
	for _, s := range seqs {
		if s != 0 {
			recs = append(recs, s)
		}
	}
	rep.Failures = append(rep.Failures, Failure{Name: name, Session: e.Session, Detail: detail, Records: recs})
}
