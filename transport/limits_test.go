package transport

import (
	"errors"
	"net/http"
	"testing"
	"time"
)

func TestLimitsDefaults(t *testing.T) {
	l := &Limits{MaxSessions: 20}
	for i := range 2 {
		if err := l.OpenSession("192.0.2.1:1"); err != nil {
			t.Fatalf("session %d: %v", i, err)
		}
	}
	// A tenth of MaxSessions per client by default.
	var le *LimitError
	if err := l.OpenSession("192.0.2.1:2"); !errors.As(err, &le) || le.Status != http.StatusTooManyRequests || le.RetryAfter != "10" {
		t.Fatalf("third session of one client: %v", err)
	}
	l.CloseSession("192.0.2.1:1")
	if err := l.OpenSession("192.0.2.1:3"); err != nil {
		t.Fatalf("after a close: %v", err)
	}
	l.CloseSession("192.0.2.9:1") // never opened: no effect
	if s, _ := l.Open(); s != 2 {
		t.Fatalf("%d sessions counted, want 2", s)
	}

	unlimited := &Limits{MaxSessions: -1, MaxSessionsPerClient: -1, MaxStreams: -1}
	for range DefaultMaxSessions + 1 {
		if err := unlimited.OpenSession("192.0.2.1:1"); err != nil {
			t.Fatal(err)
		}
	}
	for range DefaultMaxStreams + 1 {
		if err := unlimited.OpenStream(); err != nil {
			t.Fatal(err)
		}
	}

	streams := &Limits{RetryAfter: 1500 * time.Millisecond}
	for range DefaultMaxStreams {
		if err := streams.OpenStream(); err != nil {
			t.Fatal(err)
		}
	}
	if err := streams.OpenStream(); !errors.As(err, &le) || le.Status != http.StatusServiceUnavailable || le.RetryAfter != "2" {
		t.Fatalf("a stream beyond the default cap: %v", err)
	}

	var none *Limits // limits nothing
	if none.OpenSession("x") != nil || none.OpenStream() != nil {
		t.Fatal("a nil *Limits refused")
	}
	none.CloseSession("x")
	none.CloseStream()
}

func TestClientKey(t *testing.T) {
	for addr, want := range map[string]string{
		"192.0.2.1:1234":           "192.0.2.1",
		"[2001:db8:1:2:3::4]:1234": "2001:db8:1:2::/64",
		"[::ffff:192.0.2.1]:1":     "::ffff:192.0.2.1",
		"@":                        "@", // a Unix socket's
		"":                         "",
	} {
		if got := clientKey(addr); got != want {
			t.Errorf("clientKey(%q) = %q, want %q", addr, got, want)
		}
	}
}
