package web

import (
	"fmt"
	"testing"
)

// TestHubReplaysFromAnyPoint: a page that reconnects gets the events after
// the last one it saw, also once the oldest were dropped to bound memory.
func TestHubReplaysFromAnyPoint(t *testing.T) {
	var h hub
	for i := range maxHistory + 10 {
		h.publish(i)
	}
	evs, next, closed := h.since(maxHistory + 5)
	if closed || next != maxHistory+10 || len(evs) != 5 || string(evs[0]) != fmt.Sprint(maxHistory+5) {
		t.Fatalf("since(%d): %d events from %s, next %d", maxHistory+5, len(evs), evs[0], next)
	}
	// Number 0 was dropped: the replay starts at the oldest kept.
	evs, _, _ = h.since(0)
	if want := maxHistory + 10 - h.base; len(evs) != want || string(evs[0]) != fmt.Sprint(h.base) {
		t.Fatalf("since(0): %d events from %s, want %d from %d", len(evs), evs[0], want, h.base)
	}
	wake := h.subscribe()
	h.publish("x")
	<-wake
	h.close()
	if _, ok := <-wake; ok {
		t.Fatal("close did not end the subscription")
	}
}
