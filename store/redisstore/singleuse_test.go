package redisstore_test

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/store/redisstore"
	"github.com/mcpkit/mcpkit/store/redistest"
)

// TestSingleUseAcrossReplicas races 16 uses of one value over two replicas'
// clients: exactly one wins. Other values and namespaces are independent.
func TestSingleUseAcrossReplicas(t *testing.T) {
	srv := redistest.Start(t)
	a := redisstore.NewSingleUse(open(t, srv), nil)
	b := redisstore.NewSingleUse(open(t, srv), nil)
	var wins, replays atomic.Int32
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := a
			if i%2 == 1 {
				s = b
			}
			switch err := s.Use(t.Context(), "sealed-state", time.Minute); {
			case err == nil:
				wins.Add(1)
			case errors.Is(err, redisstore.ErrAlreadyUsed):
				replays.Add(1)
			default:
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if wins.Load() != 1 || replays.Load() != 15 {
		t.Fatalf("%d first uses and %d replays of one value, want 1 and 15", wins.Load(), replays.Load())
	}
	if err := a.Use(t.Context(), "another-state", time.Minute); err != nil {
		t.Fatalf("another value: %v", err)
	}
	other := redisstore.NewSingleUse(open(t, srv), &redisstore.SingleUseOptions{Namespace: "other"})
	if err := other.Use(t.Context(), "sealed-state", time.Minute); err != nil {
		t.Fatalf("the same value in another namespace: %v", err)
	}
}
