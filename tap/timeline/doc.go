// Package timeline is the model behind the views and the analysis of `mcpkit tap`:
// a Model fed one capture.Record at a time, live (from capture.Recorder.Subscribe,
// see Model.Follow) or from a file (capture.ReadFile), that turns records into
// Entries: each request paired with its response in either direction, its latency,
// the notifications that belong to it (progress by token, and what the server sent
// on the request's own SSE response), server→client requests, errors and isError
// results, invalid JSON, stderr lines and transport events.
//
// One goroutine adds records while any number read: a Snapshot is a consistent view
// that later records do not change (entries are never modified once published; an
// update replaces the entry). An entry keeps its ID (the seq of the record that
// began it) while the model grows, so a view can keep a selection. The model keeps
// the newest Options.Limit entries and counts those it evicted.
//
// Filter is the one filter of the terminal UI, the web page and the CLI. Report
// (see BuildReport) is the analysis: latency percentiles, time to first progress,
// session lanes and the failures of the field flagged by name.
package timeline
