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
	stopped chan struct{}        // closed when the clock's goroutine has returned
	watched map[*stream]struct{} // streams whose handler runs on their POST's goroutine
}

// watch asks the clock to call st.slowTick at each tick until unwatch: its
// writer is not running yet, so it does not count ticks itself.
func (k *keepAliveClock) watch(st *stream) {
	if k.every <= 0 {
		return
	}
	k.start()
	k.mu.Lock()
	if k.watched == nil {
		k.watched = make(map[*stream]struct{})
	}
	k.watched[st] = struct{}{}
	k.mu.Unlock()
}

// unwatch undoes watch.
func (k *keepAliveClock) unwatch(st *stream) {
	if k.every <= 0 {
		return
	}
	k.mu.Lock()
	delete(k.watched, st)
	k.mu.Unlock()
}

// start starts the clock's goroutine, once.
func (k *keepAliveClock) start() {
	k.once.Do(func() {
		k.ch, k.stopped = make(chan struct{}), make(chan struct{})
		go k.run()
	})
}

// tick returns the channel closed at the next tick, or nil (never ready) when
// keep-alives are off.
func (k *keepAliveClock) tick() <-chan struct{} {
	if k.every <= 0 {
		return nil
	}
	k.start()
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
		slow := make([]*stream, 0, len(k.watched))
		for st := range k.watched {
			slow = append(slow, st)
		}
		k.mu.Unlock()
		for _, st := range slow {
			st.slowTick()
		}
	}
}
