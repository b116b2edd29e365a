package timeline

import (
	"errors"
	"io"

	"github.com/mcpkit/mcpkit/tap/capture"
)

// How ReportFrom bounds its memory: the entries it keeps at once, and the items
// of each list of its report (variables: the tests make them small).
var (
	streamWindow = 20_000
	streamKeep   = 10_000
)

// ReportFrom analyses the records next returns, one by one until io.EOF, as
// Snapshot.Report does, without holding the capture: the records go through a
// model that keeps a window of the newest entries, and each entry is folded
// into the report as it leaves the window. The report's lists (failures,
// first-progress delays, lanes, the exchanges of a lane) keep their first
// 10,000 items; Omitted counts the rest. What still grows with the capture is
// small per item: a duration per answered request (the percentiles are exact),
// a lane exchange per HTTP exchange, a few words per request sent on an SSE
// stream. A request answered more than the window's entries after it was made
// is reported unanswered (and its answer as a response to no request).
func ReportFrom(next func() (*capture.Record, error), opts Options, ropts ReportOptions) (*Report, error) {
	if ropts.Slow == 0 {
		ropts.Slow = DefaultSlow
	}
	opts.Limit = streamWindow
	m := New(opts)
	rep := &Report{Failures: []Failure{}, keep: streamKeep}
	acc := newEntryAcc(rep, ropts)
	var lanes laneAcc
	fold := func(e *Entry) {
		acc.add(e)
		lanes.request(e, true)
	}
	m.onEvict = fold
	for {
		r, err := next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		m.Add(r)
		lanes.record(r)
	}
	snap := m.Snapshot()
	for _, e := range snap.Entries {
		fold(e)
	}
	acc.finish()
	rep.Stats, rep.Summary = snap.Stats, snap.Summary
	rep.Stats.Evicted = 0 // folded into the report, not lost
	rep.end(lanes.finish())
	return rep, nil
}
