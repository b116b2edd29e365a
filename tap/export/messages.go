// Package export turns a capture of `mcpkit tap` (package tap/capture) into other
// formats: HAR 1.2 (HAR), for browser devtools and HTTP debuggers, and a readable
// Markdown transcript (Markdown).
//
// Exports only read a capture: what the capture redacted stays redacted.
package export

import (
	"github.com/mcpkit/mcpkit/tap/capture"
	"github.com/mcpkit/mcpkit/tap/timeline"
)

// pairRequests pairs every request of recs with its response and attaches the
// notifications that belong to it, by the timeline's rules (package
// tap/timeline, which shares its pairing with capture.Summarize). It returns the
// requests in order, and the messages no request took (lone notifications,
// responses to no request).
func pairRequests(recs []*capture.Record) (pairs []*timeline.Entry, loose []*timeline.Entry) {
	for _, e := range timeline.Build(recs, timeline.Options{}).Snapshot().Entries {
		switch e.Kind {
		case timeline.KindRequest:
			pairs = append(pairs, e)
		case timeline.KindNotification, timeline.KindResponse:
			loose = append(loose, e)
		}
	}
	return pairs, loose
}
