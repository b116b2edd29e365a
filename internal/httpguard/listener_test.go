package httpguard_test

import (
	"net"
	"testing"
	"testing/synctest"

	"github.com/mcpkit/mcpkit/internal/httpguard"
	"github.com/mcpkit/mcpkit/internal/testkit"
)

// TestLimitListener: with n connections open, a new client waits to be
// accepted until one of them closes (once, however often it is closed), and
// Close ends an Accept that waits for a slot.
func TestLimitListener(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		pn := testkit.NewPipeNet()
		ln := httpguard.LimitListener(pn, 2)
		accepted := make(chan net.Conn, 4)
		acceptErr := make(chan error, 1)
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					acceptErr <- err
					return
				}
				accepted <- c
			}
		}()
		dialed := make(chan net.Conn, 4)
		for range 3 {
			go func() {
				if c, err := pn.Dial(t.Context(), "tcp", ""); err == nil {
					dialed <- c
				}
			}()
		}
		synctest.Wait()
		if len(accepted) != 2 || len(dialed) != 2 {
			t.Fatalf("%d accepted, %d connected; want 2 and 2 (the third waits)", len(accepted), len(dialed))
		}
		first := <-accepted
		first.Close()
		first.Close() // frees one slot, not two
		synctest.Wait()
		if len(accepted) != 2 || len(dialed) != 3 {
			t.Fatalf("after a close: %d accepted, %d connected; want the third in", len(accepted), len(dialed))
		}
		go func() { // a fourth client waits for a slot...
			if c, err := pn.Dial(t.Context(), "tcp", ""); err == nil {
				dialed <- c
			}
		}()
		synctest.Wait()
		if len(accepted) != 2 {
			t.Fatalf("%d accepted, want 2: the cap is full", len(accepted))
		}
		ln.Close() // ... and Accept, which waits for a slot, returns
		if err := <-acceptErr; err == nil {
			t.Fatal("Accept after Close returned no error")
		}
		close(accepted)
		for c := range accepted {
			c.Close()
		}
		close(dialed)
		for c := range dialed {
			c.Close()
		}
	})
}
