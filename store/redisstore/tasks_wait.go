package redisstore

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/redis/rueidis"

	"github.com/mcpkit/mcpkit/taskstore"
)

// Wait implements taskstore.Store. It subscribes to the task's channel first
// and then reads the task, so no change between the two is missed; it reads
// again at every message, and when the task's TTL elapses. When the
// subscription breaks (Redis went away), Wait fails with an error wrapping
// store.ErrUnavailable.
func (s *TaskStore) Wait(ctx context.Context, id string, after uint64) (*taskstore.Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	sub, err := s.subscribe(ctx, s.channel(id))
	if err != nil {
		return nil, fmt.Errorf("redisstore: waiting for task %q: %w", id, err)
	}
	defer sub.close()
	for {
		rec, err := s.get(ctx, id)
		if err != nil {
			return nil, err
		}
		if rec.Revision > after {
			return rec, nil
		}
		if err := s.waitChange(ctx, sub, rec); err != nil {
			return nil, fmt.Errorf("redisstore: waiting for task %q: %w", id, err)
		}
	}
}

// waitChange returns when sub sees a message or rec's TTL elapses (so that
// Wait reports it gone), or with an error when the subscription or ctx ends.
func (s *TaskStore) waitChange(ctx context.Context, sub *subscription, rec *taskstore.Record) error {
	var expire <-chan time.Time
	if exp := rec.ExpiresAt(); !exp.IsZero() {
		timer := time.NewTimer(exp.Sub(s.now()))
		defer timer.Stop()
		expire = timer.C
	}
	select {
	case <-sub.changed:
	case <-expire:
	case err := <-sub.ended:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
	return nil
}

// subscription is one SUBSCRIBE held for the length of a Wait.
type subscription struct {
	changed chan struct{} // gets a value (coalesced) at each message
	ended   chan error    // gets the error that ended the subscription
	cancel  context.CancelFunc
	done    chan struct{} // closed when the receiving goroutine has returned
}

// subscribe subscribes to channel and returns once Redis has confirmed it.
func (s *TaskStore) subscribe(ctx context.Context, channel string) (*subscription, error) {
	rctx, cancel := context.WithCancel(ctx)
	sub := &subscription{changed: make(chan struct{}, 1), ended: make(chan error, 1), cancel: cancel, done: make(chan struct{})}
	confirmed := make(chan struct{})
	var once sync.Once
	hooked := rueidis.WithOnSubscriptionHook(rctx, func(e rueidis.PubSubSubscription) {
		if e.Kind == "subscribe" {
			once.Do(func() { close(confirmed) })
		}
	})
	go func() {
		// Owned by the subscription: returns when close cancels rctx.
		defer close(sub.done)
		err := s.c.rc.Receive(hooked, s.c.rc.B().Subscribe().Channel(channel).Build(), func(rueidis.PubSubMessage) {
			select {
			case sub.changed <- struct{}{}:
			default:
			}
		})
		if rctx.Err() == nil {
			sub.ended <- classify(rctx, errOrClosed(err), err)
		}
	}()
	select {
	case <-confirmed:
		return sub, nil
	case err := <-sub.ended:
		sub.close()
		return nil, err
	case <-ctx.Done():
		sub.close()
		return nil, ctx.Err()
	}
}

// close ends the subscription and waits for its goroutine.
func (sub *subscription) close() {
	sub.cancel()
	<-sub.done
}

// errOrClosed returns err as a connection-level error; a Receive that ended
// without one (the server dropped the subscription) still means it is gone.
func errOrClosed(err error) error {
	if err == nil {
		return errSubscriptionEnded
	}
	if _, ok := rueidis.IsRedisErr(err); ok {
		return nil
	}
	return err
}

var errSubscriptionEnded = fmt.Errorf("the subscription ended")
