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
// 10,000 items (the exchanges of lanes: 10,000 over all lanes); Omitted counts
// the rest. What still grows with the capture is small per item: a duration
// per answered request (the percentiles are exact),
// a little per session (its lane's state). HTTP exchanges are settled in the
// order they began once 2,048 newer ones began (a stream once it closed). A
// request answered more than the window's entries after it was made is
// reported unanswered (and its answer as a response to no request).
func ReportFrom(next func() (*capture.Record, error), opts Options, ropts ReportOptions) (*Report, error) {
	if ropts.Slow == 0 {
		ropts.Slow = DefaultSlow
	}
	opts.Limit = streamWindow
	m := New(opts)
	rep := &Report{Failures: []Failure{}, keep: streamKeep}
	acc := newEntryAcc(rep, ropts)
	lanes := laneAcc{model: m, keep: streamKeep}
	m.onEvict = func(e *Entry) {
		acc.add(e)
		lanes.evicted(e)
	}
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
		acc.add(e)
	}
	acc.finish()
	rep.Stats, rep.Summary = snap.Stats, snap.Summary
	rep.Stats.Evicted = 0 // folded into the report, not lost
	rep.end(lanes.finish())
	rep.Omitted += lanes.omitted
	return rep, nil
}
