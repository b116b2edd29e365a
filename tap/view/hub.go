// Package view holds what the live views of `mcpkit tap` share: the Hub that feeds
// a capture's records (live from capture.Recorder.Subscribe, or from a file) to the
// timeline model and tells the views what changed, and the display forms of the
// model (Row, Detail, Panel) that the terminal UI (tap/view/tui) and the web page
// (tap/view/web) both render.
package view

import (
	"context"
	"sync"

	"github.com/mcpkit/mcpkit/tap/capture"
)

// ringSize is how many changes the hub remembers for views that have not caught
// up yet; a view further behind starts again from a fresh snapshot and is told
// how many changes it missed.
const ringSize = 4096

// Hub owns the timeline of one capture: it applies records one at a time (one
// writer) and lets any number of views read it and learn which entries changed.
// Memory is bounded whatever the views do: the model keeps the newest entries,
// and the hub remembers only the last ringSize changes.
type Hub struct {
	header capture.Header
	live   bool

	mu       sync.Mutex
	model    *model
	ring     [ringSize]uint64 // ids of changed entries, by version % ringSize
	version  uint64           // changes so far
	watchers map[chan struct{}]struct{}
	ended    bool
	dropped  int64 // records the capture or the feed dropped
}

// NewHub returns a hub for a capture with header h; live says whether its records
// come from a running tap (rather than a file).
func NewHub(h capture.Header, live bool) *Hub {
	return &Hub{header: h, live: live, model: newModel(), watchers: map[chan struct{}]struct{}{}}
}

// Header returns the capture's header.
func (h *Hub) Header() capture.Header { return h.header }

// Add applies one record. Add is for the hub's single writer (Run, or a caller
// feeding records itself); views only read.
func (h *Hub) Add(r *capture.Record) {
	h.mu.Lock()
	if r.Kind == capture.KindDropped {
		h.dropped += r.Count
	}
	for _, id := range h.model.add(r) {
		h.ring[h.version%ringSize] = id
		h.version++
	}
	h.notifyLocked()
	h.mu.Unlock()
}

// Run applies the records of recs until it is closed (the tap ended, or the file
// was read) or ctx ends, then marks the hub ended.
func (h *Hub) Run(ctx context.Context, recs <-chan *capture.Record) {
	defer h.End()
	for {
		select {
		case <-ctx.Done():
			return
		case r, ok := <-recs:
			if !ok {
				return
			}
			h.Add(r)
		}
	}
}

// Load applies records read from a file and marks the hub ended.
func (h *Hub) Load(recs []*capture.Record) {
	for _, r := range recs {
		h.Add(r)
	}
	h.End()
}

// End marks the feed ended: no record will come any more.
func (h *Hub) End() {
	h.mu.Lock()
	h.ended = true
	h.notifyLocked()
	h.mu.Unlock()
}

func (h *Hub) notifyLocked() {
	for c := range h.watchers {
		select {
		case c <- struct{}{}:
		default: // already signalled: signals coalesce
		}
	}
}

// Watch returns a channel signalled (coalescing) whenever the timeline changes or
// the feed ends, and a function that stops the signals.
func (h *Hub) Watch() (<-chan struct{}, func()) {
	c := make(chan struct{}, 1)
	h.mu.Lock()
	h.watchers[c] = struct{}{}
	h.mu.Unlock()
	return c, func() {
		h.mu.Lock()
		delete(h.watchers, c)
		h.mu.Unlock()
	}
}

// Version returns the number of changes so far: pass it to Since later.
func (h *Hub) Version() uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.version
}

// Since returns the ids of the entries changed after version since (each once, in
// the order of their last change) and the current version. When more than the hub
// remembers changed, ids is nil and missed counts the changes the caller missed:
// it should take a fresh snapshot.
func (h *Hub) Since(since uint64) (ids []uint64, now uint64, missed uint64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	now = h.version
	if since > now {
		since = now
	}
	if now-since > ringSize {
		return nil, now, now - since - ringSize
	}
	seen := make(map[uint64]bool, now-since)
	for v := now; v > since; v-- {
		id := h.ring[(v-1)%ringSize]
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	for i, j := 0, len(ids)-1; i < j; i, j = i+1, j-1 {
		ids[i], ids[j] = ids[j], ids[i]
	}
	return ids, now, 0
}

// State is what a view shows about the feed itself.
type State struct {
	// Source describes the capture: the server command or the upstream URL.
	Source string `json:"source"`
	// Live is true while records still come from a running tap.
	Live bool `json:"live"`
	// Ended is true once no record will come any more.
	Ended bool `json:"ended"`
	// Entries is the number of entries the timeline keeps; Evicted how many older
	// ones it forgot to stay bounded.
	Entries int   `json:"entries"`
	Evicted int64 `json:"evicted"`
	// Dropped counts records lost before the view saw them (the recorder's buffer,
	// or a live feed that fell behind).
	Dropped int64 `json:"dropped"`
}

// State returns the feed's state.
func (h *Hub) State() State {
	h.mu.Lock()
	defer h.mu.Unlock()
	entries, evicted := h.model.size()
	return State{Source: describe(h.header), Live: h.live && !h.ended, Ended: h.ended,
		Entries: entries, Evicted: evicted, Dropped: h.dropped}
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

// Rows returns the newest limit entries that match f, in order, and how many
// match in all.
func (h *Hub) Rows(f *Filter, limit int) (rows []Row, matched int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.model.rows(f, limit)
}

// Row returns entry id as a row, with Match set by f; ok is false when the
// timeline no longer keeps it.
func (h *Hub) Row(id uint64, f *Filter) (row Row, ok bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.model.row(id, f)
}

// Detail returns the detail of entry id; ok is false when the timeline no longer
// keeps it.
func (h *Hub) Detail(id uint64) (Detail, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.model.detail(id)
}

// Panel returns the analysis of everything so far.
func (h *Hub) Panel() Panel {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.model.panel()
}
