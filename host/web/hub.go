package web

import (
	"encoding/json"
	"sync"
)

// maxHistory bounds the events a page that (re)connects is sent again.
const maxHistory = 20000

// hub keeps the conversation's events and hands them to every page
// listening: those so far when it connects, then each new one.
type hub struct {
	mu      sync.Mutex
	history [][]byte
	base    int // the number of the first event in history
	subs    map[chan struct{}]struct{}
	closed  bool
}

// publish records ev (marshalled to JSON) and wakes the listeners.
func (h *hub) publish(ev any) {
	b, err := json.Marshal(ev)
	if err != nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.history) >= maxHistory {
		drop := len(h.history) - maxHistory/2
		h.history = append([][]byte(nil), h.history[drop:]...)
		h.base += drop
	}
	h.history = append(h.history, b)
	for c := range h.subs {
		select {
		case c <- struct{}{}:
		default: // already woken
		}
	}
}

// since returns the events from number n on (those still kept), the number
// of the next one, and whether the hub is closed.
func (h *hub) since(n int) ([][]byte, int, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	end := h.base + len(h.history)
	if n < h.base || n > end {
		n = h.base
	}
	i := n - h.base
	return h.history[i:len(h.history):len(h.history)], end, h.closed
}

func (h *hub) subscribe() chan struct{} {
	c := make(chan struct{}, 1)
	h.mu.Lock()
	if h.subs == nil {
		h.subs = map[chan struct{}]struct{}{}
	}
	h.subs[c] = struct{}{}
	h.mu.Unlock()
	return c
}

func (h *hub) unsubscribe(c chan struct{}) {
	h.mu.Lock()
	delete(h.subs, c)
	h.mu.Unlock()
}

func (h *hub) close() {
	h.mu.Lock()
	h.closed = true
	for c := range h.subs {
		close(c)
	}
	h.subs = nil
	h.mu.Unlock()
}
