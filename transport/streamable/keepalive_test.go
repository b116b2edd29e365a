package streamable

import (
	"testing"
	"time"
)

func TestKeepAliveClockTicksAndStops(t *testing.T) {
	done := make(chan struct{})
	k := &keepAliveClock{every: 5 * time.Millisecond, done: done}
	first := k.tick()
	select {
	case <-first:
	case <-time.After(5 * time.Second):
		t.Fatal("no tick")
	}
	second := k.tick()
	if second == first {
		t.Fatal("the clock handed out a channel that already ticked")
	}
	close(done)
	<-k.stopped // the clock's goroutine ends with its handler
	last := k.tick()
	select {
	case <-last:
		t.Fatal("the clock's current channel is closed although the clock has stopped")
	default:
	}
	if (&keepAliveClock{}).tick() != nil {
		t.Error("a clock without an interval should never tick")
	}
}
