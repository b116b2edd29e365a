package redisstore

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/rueidis"

	"github.com/mcpkit/mcpkit/mcp"
)

// DefaultFeedQueue is how many distinct changes a ChangeFeed holds for Redis
// while Redis is slow or away.
const DefaultFeedQueue = 1024

// ErrFeedFull is returned by ChangeFeed.Publish when the queue of changes not
// yet sent to Redis is full (Redis has been away for long): the change still
// reached this replica's listeners, but not the other replicas'.
var ErrFeedFull = errors.New("redisstore: change feed queue full; the change reaches this replica only")

// ChangeFeedOptions configures NewChangeFeed. The zero value gives the defaults.
type ChangeFeedOptions struct {
	// Channel is the Pub/Sub channel; replicas of one server share it. Empty
	// means the client's prefix followed by "changes".
	Channel string
	// Queue bounds the distinct changes waiting to be sent; zero or less means
	// DefaultFeedQueue.
	Queue int
	// Logger receives the feed's diagnostics. Nil means slog.Default().
	Logger *slog.Logger
	// OnSubscribed, if set, is called each time the feed's subscription to the
	// channel is in place: at start and after every reconnection.
	OnSubscribed func()
}

// ChangeFeed is an mcp.ChangeFeed over Redis Pub/Sub. Publish hands a change
// to this replica's subscribers at once and queues it for Redis; a goroutine
// sends the queue (one round trip per batch), and another receives the other
// replicas' changes and hands them to this replica's subscribers. Publish
// never waits for Redis. Delivery to other replicas is at least once (a batch
// whose reply timed out is sent again) and in publishing order; changes are
// idempotent signals, so a repeat costs a redundant notification at most.
//
// Pub/Sub keeps nothing: a replica whose subscription broke misses what was
// published meanwhile. So after each reconnection the feed tells its
// subscribers that every list changed (tools, prompts, resources), which makes
// listen streams send list_changed and clients list again. Changes of one
// resource or task published during the gap are not recovered.
//
// Close stops the goroutines; call it when the server shuts down.
type ChangeFeed struct {
	c       *Client
	channel string
	origin  string // this feed's id: its own messages come back and are skipped
	log     *slog.Logger
	junk    junkWarner // of the messages onMessage ignores
	onSub   func()
	max     int

	local mcp.ChangeFeed // this replica's subscribers: an in-process feed

	qmu     sync.Mutex
	queue   []mcp.Change
	queued  map[mcp.Change]struct{}
	wake    chan struct{}
	dropped bool // the queue overflowed since the last successful send

	cancel context.CancelFunc
	wg     sync.WaitGroup
}

var _ mcp.ChangeFeed = (*ChangeFeed)(nil)

// NewChangeFeed starts a change feed on c. opts may be nil.
func NewChangeFeed(c *Client, opts *ChangeFeedOptions) *ChangeFeed {
	var o ChangeFeedOptions
	if opts != nil {
		o = *opts
	}
	if o.Channel == "" {
		o.Channel = c.prefix + "changes"
	}
	if o.Queue <= 0 {
		o.Queue = DefaultFeedQueue
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	ctx, cancel := context.WithCancel(context.Background())
	f := &ChangeFeed{
		c: c, channel: o.Channel, origin: rand.Text(), log: o.Logger, onSub: o.OnSubscribed, max: o.Queue,
		local: mcp.NewMemoryChangeFeed(), queued: make(map[mcp.Change]struct{}),
		wake: make(chan struct{}, 1), cancel: cancel,
	}
	f.wg.Add(2)
	go f.send(ctx)
	go f.receive(ctx)
	return f
}

// Close stops the feed's goroutines and waits for them. Changes still queued
// are not sent.
func (f *ChangeFeed) Close() {
	f.cancel()
	f.wg.Wait()
}

// Publish implements mcp.ChangeFeed: it delivers c to this replica's
// subscribers and queues it for the others. A change already queued is not
// queued twice (changes are idempotent signals). It fails only with
// ErrFeedFull.
func (f *ChangeFeed) Publish(_ context.Context, c mcp.Change) error {
	f.deliver(c)
	f.qmu.Lock()
	if _, ok := f.queued[c]; ok {
		f.qmu.Unlock()
		return nil
	}
	if len(f.queue) >= f.max {
		f.dropped = true
		f.qmu.Unlock()
		return ErrFeedFull
	}
	f.queue = append(f.queue, c)
	f.queued[c] = struct{}{}
	f.qmu.Unlock()
	select {
	case f.wake <- struct{}{}:
	default:
	}
	return nil
}

// Subscribe implements mcp.ChangeFeed.
func (f *ChangeFeed) Subscribe(deliver func(mcp.Change)) (stop func()) {
	return f.local.Subscribe(deliver)
}

// deliver hands c to this replica's subscribers (the in-process feed cannot fail).
func (f *ChangeFeed) deliver(c mcp.Change) { _ = f.local.Publish(context.Background(), c) }

// send publishes the queued changes, in order, one batch per round trip. When
// Redis fails, the batch goes back to the front of the queue and is tried
// again after a pause.
func (f *ChangeFeed) send(ctx context.Context) {
	defer f.wg.Done()
	var back backoff
	for {
		select {
		case <-ctx.Done():
			return
		case <-f.wake:
		}
		for {
			f.qmu.Lock()
			batch := f.queue
			f.queue = nil
			f.qmu.Unlock()
			if len(batch) == 0 {
				break
			}
			cmds := make(rueidis.Commands, len(batch))
			for i, c := range batch {
				cmds[i] = f.c.rc.B().Publish().Channel(f.channel).Message(encodeChange(f.origin, c)).Build()
			}
			var err error
			for _, res := range f.c.rc.DoMulti(ctx, cmds...) {
				if _, e := f.c.result(ctx, res); e != nil && err == nil {
					err = e
				}
			}
			if err == nil {
				f.sent(batch)
				back.reset()
				continue
			}
			if ctx.Err() != nil {
				return
			}
			f.requeue(batch)
			if back.n == 0 {
				f.log.Warn("redisstore: cannot publish changes to the other replicas; retrying", "channel", f.channel, "error", err)
			}
			if !back.wait(ctx) {
				return
			}
		}
	}
}

// sent forgets a batch that reached Redis.
func (f *ChangeFeed) sent(batch []mcp.Change) {
	f.qmu.Lock()
	for _, c := range batch {
		delete(f.queued, c)
	}
	dropped := f.dropped
	f.dropped = false
	f.qmu.Unlock()
	if dropped {
		f.log.Warn("redisstore: some changes were not sent to the other replicas (queue full)", "channel", f.channel)
	}
}

// requeue puts a batch that failed back in front of what was queued since.
func (f *ChangeFeed) requeue(batch []mcp.Change) {
	f.qmu.Lock()
	f.queue = append(batch, f.queue...)
	f.qmu.Unlock()
}

// receive holds the subscription, re-subscribing after every failure.
func (f *ChangeFeed) receive(ctx context.Context) {
	defer f.wg.Done()
	var back backoff
	var subscribed atomic.Int64 // the hook runs on the client's goroutine
	var up atomic.Bool
	hook := rueidis.WithOnSubscriptionHook(ctx, func(e rueidis.PubSubSubscription) {
		if e.Kind != "subscribe" {
			return
		}
		up.Store(true)
		if subscribed.Add(1) > 1 {
			// Whatever was published while the subscription was down is lost:
			// have every listener list again.
			for _, k := range []mcp.ChangeKind{mcp.ToolsChanged, mcp.PromptsChanged, mcp.ResourcesChanged} {
				f.deliver(mcp.Change{Kind: k})
			}
		}
		if f.onSub != nil {
			f.onSub()
		}
	})
	for {
		err := f.c.rc.Receive(hook, f.c.rc.B().Subscribe().Channel(f.channel).Build(), f.onMessage)
		if ctx.Err() != nil {
			return
		}
		if up.Swap(false) {
			back.reset() // it had worked: this is a new outage
		}
		if back.n == 0 {
			f.log.Warn("redisstore: change feed subscription lost; reconnecting", "channel", f.channel, "error", err)
		}
		if !back.wait(ctx) {
			return
		}
	}
}

func (f *ChangeFeed) onMessage(m rueidis.PubSubMessage) {
	origin, c, err := decodeChange(m.Message)
	if err != nil {
		f.junk.ignore(f.log, "redisstore: ignoring messages on the change feed channel", "channel", f.channel, "error", err)
		return
	}
	if origin != f.origin {
		f.deliver(c)
	}
}

// A change on the wire: "1 <origin> <kind> <argument>", where the argument is
// the URI (ResourceUpdated), the task id (TaskUpdated) or empty, and runs to
// the end of the message.
const changeFormat = "1"

func encodeChange(origin string, c mcp.Change) string {
	arg := ""
	switch c.Kind {
	case mcp.ResourceUpdated:
		arg = c.URI
	case mcp.TaskUpdated:
		arg = c.TaskID
	}
	return changeFormat + " " + origin + " " + strconv.Itoa(int(c.Kind)) + " " + arg
}

// decodeChange reads what encodeChange wrote; anything else is an error.
func decodeChange(msg string) (origin string, c mcp.Change, err error) {
	parts := strings.SplitN(msg, " ", 4)
	if len(parts) != 4 || parts[0] != changeFormat || parts[1] == "" {
		return "", c, fmt.Errorf("not a change (%q)", truncate(msg))
	}
	kind, err := strconv.Atoi(parts[2])
	if err != nil || strconv.Itoa(kind) != parts[2] || kind < int(mcp.ToolsChanged) || kind > int(mcp.TaskUpdated) {
		return "", c, fmt.Errorf("change kind %q", truncate(parts[2]))
	}
	c.Kind = mcp.ChangeKind(kind)
	switch c.Kind {
	case mcp.ToolsChanged, mcp.PromptsChanged, mcp.ResourcesChanged:
		if parts[3] != "" {
			return "", c, fmt.Errorf("a list change with an argument (%q)", truncate(msg))
		}
	case mcp.ResourceUpdated:
		c.URI = parts[3]
	case mcp.TaskUpdated:
		c.TaskID = parts[3]
	default:
		return "", c, fmt.Errorf("unknown change kind %d", kind)
	}
	return parts[1], c, nil
}

// backoff spaces retries: 50 ms, doubling, at most 2 s.
type backoff struct{ n int }

func (b *backoff) reset() { b.n = 0 }

// wait pauses before the next retry; false if ctx ended first.
func (b *backoff) wait(ctx context.Context) bool {
	d := min(50*time.Millisecond<<min(b.n, 6), 2*time.Second)
	b.n++
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
