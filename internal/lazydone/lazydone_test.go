package lazydone

import (
	"sync"
	"testing"
)

func isClosed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

func TestWaitThenClose(t *testing.T) {
	var d Done
	if d.IsClosed() {
		t.Fatal("a new Done is closed")
	}
	w := d.Wait()
	if isClosed(w) || d.Wait() != w {
		t.Fatal("Wait before Close: closed, or a different channel each time")
	}
	d.Close()
	if !isClosed(w) || !d.IsClosed() {
		t.Fatal("Close did not close the channel Wait returned")
	}
}

func TestCloseThenWait(t *testing.T) {
	var d Done
	d.Close()
	if !d.IsClosed() || !isClosed(d.Wait()) {
		t.Fatal("Wait after Close returned an open channel")
	}
}

func TestIsClosedMakesNoChannel(t *testing.T) {
	var d Done
	if n := testing.AllocsPerRun(100, func() { _ = d.IsClosed() }); n != 0 {
		t.Errorf("IsClosed: %v allocations, want 0", n)
	}
	if d.ch.Load() != nil {
		t.Error("IsClosed made a channel")
	}
	ds := make([]Done, 101) // AllocsPerRun runs once more than asked
	i := 0
	if n := testing.AllocsPerRun(100, func() {
		ds[i].Close()
		if !ds[i].IsClosed() {
			t.Fatal("not closed")
		}
		i++
	}); n != 0 {
		t.Errorf("Close with nobody waiting: %v allocations, want 0", n)
	}
}

// TestConcurrent races waiters with Close: every waiter is released.
func TestConcurrent(t *testing.T) {
	for range 200 {
		var d Done
		var wg sync.WaitGroup
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-d.Wait()
			}()
		}
		d.Close()
		wg.Wait()
		if !d.IsClosed() {
			t.Fatal("not closed")
		}
	}
}
