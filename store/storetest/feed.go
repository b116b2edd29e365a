package storetest

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/mcp"
)

// deliveryTimeout bounds how long a test waits for a change to arrive before
// failing; changes on a healthy feed arrive in milliseconds.
const deliveryTimeout = 10 * time.Second

// FeedPair returns two handles on one new feed, as two replicas of a server
// would hold them: a change published on either reaches the subscribers of
// both. An in-process feed returns the same feed twice. Both must be ready
// (subscribed) when FeedPair returns.
type FeedPair func(t *testing.T) (a, b mcp.ChangeFeed)

// RunChangeFeed runs the mcp.ChangeFeed contract against the feeds newPair
// makes.
func RunChangeFeed(t *testing.T, newPair FeedPair) {
	tests := []struct {
		name string
		fn   func(*testing.T, FeedPair)
	}{
		{"EveryKindReachesBothReplicas", testFeedKinds},
		{"EachSubscriberOnce", testFeedOnce},
		{"StopEndsDelivery", testFeedStop},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, newPair) })
	}
}

// Recorder collects the changes delivered to one subscriber. Its Deliver never
// blocks.
type Recorder struct {
	mu   sync.Mutex
	got  []mcp.Change
	more chan struct{} // gets a value (coalesced) at each delivery
}

// NewRecorder returns an empty recorder.
func NewRecorder() *Recorder { return &Recorder{more: make(chan struct{}, 1)} }

// Deliver records c; pass it to ChangeFeed.Subscribe.
func (r *Recorder) Deliver(c mcp.Change) {
	r.mu.Lock()
	r.got = append(r.got, c)
	r.mu.Unlock()
	select {
	case r.more <- struct{}{}:
	default:
	}
}

// Changes returns what was delivered so far.
func (r *Recorder) Changes() []mcp.Change {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]mcp.Change(nil), r.got...)
}

// WaitFor waits until a change equal to c has been delivered and returns
// everything delivered so far; it fails the test after a generous bound.
func (r *Recorder) WaitFor(t testing.TB, c mcp.Change) []mcp.Change {
	t.Helper()
	timer := time.NewTimer(deliveryTimeout)
	defer timer.Stop()
	for {
		got := r.Changes()
		for _, g := range got {
			if g == c {
				return got
			}
		}
		select {
		case <-r.more:
		case <-timer.C:
			t.Fatalf("change %+v not delivered within %v; got %+v", c, deliveryTimeout, got)
		}
	}
}

// sentinel returns a change used as a barrier: once it has arrived, every
// change published before it by the same publisher has arrived too.
func sentinel(n int) mcp.Change {
	return mcp.Change{Kind: mcp.TaskUpdated, TaskID: "sentinel-" + strconv.Itoa(n)}
}

func publish(t *testing.T, f mcp.ChangeFeed, cs ...mcp.Change) {
	t.Helper()
	for _, c := range cs {
		if err := f.Publish(context.Background(), c); err != nil {
			t.Fatalf("Publish(%+v): %v", c, err)
		}
	}
}

var allKinds = []mcp.Change{
	{Kind: mcp.ToolsChanged},
	{Kind: mcp.PromptsChanged},
	{Kind: mcp.ResourcesChanged},
	{Kind: mcp.ResourceUpdated, URI: "file:///a b/ü?x=1"},
	{Kind: mcp.TaskUpdated, TaskID: "task 1"},
}

func testFeedKinds(t *testing.T, newPair FeedPair) {
	a, b := newPair(t)
	ra, rb := NewRecorder(), NewRecorder()
	defer a.Subscribe(ra.Deliver)()
	defer b.Subscribe(rb.Deliver)()
	publish(t, a, allKinds...)
	publish(t, a, sentinel(1))
	for name, r := range map[string]*Recorder{"publisher's replica": ra, "other replica": rb} {
		got := r.WaitFor(t, sentinel(1))
		if fmt.Sprint(got) != fmt.Sprint(append(allKinds, sentinel(1))) {
			t.Errorf("%s got %+v, want %+v in order", name, got, allKinds)
		}
	}
	// And from the other replica.
	publish(t, b, mcp.Change{Kind: mcp.ResourceUpdated, URI: "mem://b"}, sentinel(2))
	for _, r := range []*Recorder{ra, rb} {
		got := r.WaitFor(t, sentinel(2))
		if got[len(got)-2] != (mcp.Change{Kind: mcp.ResourceUpdated, URI: "mem://b"}) {
			t.Errorf("a change published on the other replica: got %+v", got)
		}
	}
}

func testFeedOnce(t *testing.T, newPair FeedPair) {
	a, b := newPair(t)
	r1, r2, r3 := NewRecorder(), NewRecorder(), NewRecorder()
	defer a.Subscribe(r1.Deliver)()
	defer a.Subscribe(r2.Deliver)()
	defer b.Subscribe(r3.Deliver)()
	publish(t, a, mcp.Change{Kind: mcp.ToolsChanged})
	publish(t, b, mcp.Change{Kind: mcp.PromptsChanged})
	publish(t, a, sentinel(1))
	publish(t, b, sentinel(2))
	for i, r := range []*Recorder{r1, r2, r3} {
		r.WaitFor(t, sentinel(1))
		got := r.WaitFor(t, sentinel(2))
		count := map[mcp.Change]int{}
		for _, c := range got {
			count[c]++
		}
		if len(got) != 4 || count[mcp.Change{Kind: mcp.ToolsChanged}] != 1 || count[mcp.Change{Kind: mcp.PromptsChanged}] != 1 {
			t.Errorf("subscriber %d got %+v, want each change once", i+1, got)
		}
	}
}

func testFeedStop(t *testing.T, newPair FeedPair) {
	a, b := newPair(t)
	stopped, kept := NewRecorder(), NewRecorder()
	stop := b.Subscribe(stopped.Deliver)
	defer b.Subscribe(kept.Deliver)()
	publish(t, a, sentinel(1))
	stopped.WaitFor(t, sentinel(1))
	stop()
	stop() // stopping twice is harmless
	publish(t, a, mcp.Change{Kind: mcp.ToolsChanged}, sentinel(2))
	kept.WaitFor(t, sentinel(2))
	if got := stopped.Changes(); len(got) != 1 {
		t.Errorf("a stopped subscriber got %+v after stop", got[1:])
	}
}
