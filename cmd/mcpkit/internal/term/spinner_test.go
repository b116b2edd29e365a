package term

import (
	"bytes"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// The spinner draws at once, turns on each tick, draws nothing while paused,
// and leaves its line clear when it stops; a nil spinner does nothing.
func TestSpinner(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var b bytes.Buffer
		s := NewSpinner(&b)
		out := func() string { s.mu.Lock(); defer s.mu.Unlock(); return b.String() }
		s.Start("running add…")
		if got := out(); got != "\r\x1b[K⠋ running add…" {
			t.Fatalf("first frame %q", got)
		}
		time.Sleep(150 * time.Millisecond)
		synctest.Wait()
		s.Pause()
		if got := out(); !strings.HasSuffix(got, "⠙ running add…\r\x1b[K") {
			t.Fatalf("after a tick and a pause: %q", got)
		}
		n := len(out())
		time.Sleep(time.Second)
		synctest.Wait()
		if got := out(); len(got) != n {
			t.Errorf("drew while paused: %q", got[n:])
		}
		s.Resume()
		s.Stop()
		if !strings.HasSuffix(b.String(), "\r\x1b[K") {
			t.Errorf("the line not cleared: %q", b.String())
		}
		var none *Spinner
		none.Start("x")
		none.Pause()
		none.Resume()
		none.Stop()
	})
}
