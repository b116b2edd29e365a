// Package view holds what the live views of `mcpkit tap` share: the Hub that feeds
// a capture's records (live from capture.Recorder.Subscribe, or from a file) to a
// timeline.Model, and the display forms of the
// model (Row, Detail, Panel) that the terminal UI (tap/view/tui) and the web page
// (tap/view/web) both render; the servers' catalog (CatalogOf: tool names more
// than one server lists, the MCP App views the capture read) and what previews
// a view (PreviewOf), which the web page shows (apps.go).
package view

import (
	"context"
	"errors"
	"io"
	"sync"

	"github.com/mcpkit/mcpkit/tap/capture"
	"github.com/mcpkit/mcpkit/tap/timeline"
)

// Hub is the timeline of one capture and its feed: it applies records to a
// timeline.Model (one writer) while any number of views read snapshots of it, and
// says when the feed ended. Memory is bounded whatever the views do: the model
// keeps the newest entries and nothing is queued for a view.
type Hub struct {
	header capture.Header
	live   bool
	model  *timeline.Model
	done   chan struct{}
	end    sync.Once
}

// NewHub returns a hub for a capture with header h; live says whether its records
// come from a running tap (rather than a file); opts configure the model.
func NewHub(h capture.Header, live bool, opts timeline.Options) *Hub {
	return &Hub{header: h, live: live, model: timeline.New(opts), done: make(chan struct{})}
}

// Header returns the capture's header.
func (h *Hub) Header() capture.Header { return h.header }

// Model returns the timeline the hub feeds.
func (h *Hub) Model() *timeline.Model { return h.model }

// Run applies the records of recs (a capture.Subscription's C) until it is closed
// (the tap ended) or ctx ends, then marks the hub ended.
func (h *Hub) Run(ctx context.Context, recs <-chan *capture.Record) {
	defer h.End()
	_ = h.model.Follow(ctx, recs) // it ends only with ctx or recs: both mean the end
}

// Load applies records read from a file and marks the hub ended.
func (h *Hub) Load(recs []*capture.Record) {
	for _, r := range recs {
		h.model.Add(r)
	}
	h.End()
}

// LoadFrom applies the records next returns, one by one until io.EOF, and marks
// the hub ended; the records are not held beyond what the model keeps.
func (h *Hub) LoadFrom(next func() (*capture.Record, error)) error {
	defer h.End()
	for {
		r, err := next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		h.model.Add(r)
	}
}

// End marks the feed ended: no record will come any more.
func (h *Hub) End() { h.end.Do(func() { close(h.done) }) }

// Done is closed when the feed ended.
func (h *Hub) Done() <-chan struct{} { return h.done }

// Ended reports whether the feed ended.
func (h *Hub) Ended() bool {
	select {
	case <-h.done:
		return true
	default:
		return false
	}
}

// State is what a view shows about the feed itself.
type State struct {
	// Source describes the capture: the server command or the upstream URL.
	Source string `json:"source"`
	// Live is true while records still come from a running tap.
	Live bool `json:"live"`
	// Ended is true once no record will come any more.
	Ended bool `json:"ended"`
	// File is true for a capture read from a file (not a running tap); Loading
	// while its records are still being read (OpenFile).
	File    bool `json:"file"`
	Loading bool `json:"loading,omitempty"`
	// Entries is the number of entries the timeline keeps; Evicted how many older
	// ones it forgot to stay bounded.
	Entries int   `json:"entries"`
	Evicted int64 `json:"evicted"`
	// Dropped counts records lost before the view saw them (the recorder's buffer,
	// or a live feed that fell behind).
	Dropped int64 `json:"dropped"`
}

// State returns the feed's state as of snapshot snap.
func (h *Hub) State(snap *timeline.Snapshot) State {
	ended := h.Ended()
	return State{Source: describe(h.header), Live: h.live && !ended, Ended: ended, File: !h.live, Loading: !h.live && !ended,
		Entries: len(snap.Entries), Evicted: snap.Stats.Evicted, Dropped: snap.Stats.Dropped}
}

// describe names what a capture recorded.
func describe(h capture.Header) string {
	switch {
	case h.Upstream != "":
		return h.Listen + " → " + h.Upstream
	case len(h.Command) > 0:
		s := "stdio:"
		for _, a := range h.Command {
			s += " " + a
		}
		return s
	}
	return h.Mode
}
