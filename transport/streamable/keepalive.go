package streamable

import (
	"sync"
	"time"
)

// keepAliveClock is one clock for every stream of a Handler: each interval it
// closes the channel streams are waiting on and starts a new one. A POST then
// costs no timer of its own (a ticker per POST was a measurable share of a
// short call's allocations), at the price of a first tick anywhere within the
// first interval — which is why a stream counts ticks (see ticks).
type keepAliveClock struct {
	every time.Duration
	done  <-chan struct{} // ends the clock (the Handler's close)

	once    sync.Once
	mu      sync.Mutex
	ch      chan struct{}
	stopped chan struct{} // closed when the clock's goroutine has returned
}

// tick returns the channel closed at the next tick, or nil (never ready) when
// keep-alives are off.
func (k *keepAliveClock) tick() <-chan struct{} {
	if k.every <= 0 {
		return nil
	}
	k.once.Do(func() {
		k.ch, k.stopped = make(chan struct{}), make(chan struct{})
		go k.run()
	})
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.ch
}

func (k *keepAliveClock) run() {
	defer close(k.stopped)
	t := time.NewTicker(k.every)
	defer t.Stop()
	for {
		select {
		case <-t.C:
		case <-k.done:
			return
		}
		k.mu.Lock()
		close(k.ch)
		k.ch = make(chan struct{})
		k.mu.Unlock()
	}
}
