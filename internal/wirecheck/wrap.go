package wirecheck

import (
	"context"
	"sync"

	"github.com/mcpkit/mcpkit/transport"
	"github.com/mcpkit/mcpkit/transport/memory"
)

// CheckIncoming makes Wrap validate the messages read from the connection too, not
// only those written. (Read messages are always observed, so that responses written
// later can be paired with their requests.)
func CheckIncoming() Option { return func(c *config) { c.checkIncoming = true } }

// TB is the part of testing.TB that Wrap and Pair use: a *testing.T fits. The
// package does not import testing, so that programs can use a Checker.
type TB interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
	Cleanup(func())
}

// Conn is a transport.Conn that checks the messages crossing it. Make one with Wrap.
type Conn struct {
	inner         transport.Conn
	checker       *Checker
	checkIncoming bool

	t    TB
	mu   sync.Mutex // guards done and serialises reports
	done bool       // the test has finished: reporting to t would panic
}

var _ transport.Conn = (*Conn)(nil)

// Wrap returns conn with every message it writes validated against the schema, as
// seen from side. A violation is reported with t.Errorf (the message, the schema
// definition and the validation error) and the message is written all the same. If
// the schemas cannot be found Wrap calls t.Fatalf. Violations that happen after the
// test has finished (its cleanups have run) are dropped.
func Wrap(t TB, conn transport.Conn, side Side, opts ...Option) *Conn {
	t.Helper()
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	checker, err := newChecker(side, cfg)
	if err != nil {
		t.Fatalf("wirecheck: %v", err)
		return nil
	}
	w := &Conn{inner: conn, checker: checker, checkIncoming: cfg.checkIncoming, t: t}
	t.Cleanup(func() {
		w.mu.Lock()
		w.done = true
		w.mu.Unlock()
	})
	return w
}

// Checker returns the Checker behind the connection, for its accessors
// (UnknownMethods, Version).
func (w *Conn) Checker() *Checker { return w.checker }

// Read reads the next message from the wrapped connection and observes it (checks
// it, with CheckIncoming).
func (w *Conn) Read(ctx context.Context) ([]byte, error) {
	msg, err := w.inner.Read(ctx)
	if err != nil {
		return msg, err
	}
	if w.checkIncoming {
		w.report(w.checker.Check(Incoming, msg))
	} else {
		w.checker.Observe(Incoming, msg)
	}
	return msg, nil
}

// Write checks msg, reports any violation, and writes msg to the wrapped connection.
// The check happens before the write so that a reply cannot overtake its request.
func (w *Conn) Write(ctx context.Context, msg []byte) error {
	w.report(w.checker.Check(Outgoing, msg))
	return w.inner.Write(ctx, msg)
}

// Close closes the wrapped connection.
func (w *Conn) Close() error { return w.inner.Close() }

func (w *Conn) report(err error) {
	if err == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.done {
		w.t.Errorf("%v", err)
	}
}

// Pair returns the two ends of an in-memory connection, each schema-checked as the
// side it plays: what the client end writes is checked as client messages, what the
// server end writes as server messages.
func Pair(t TB, opts ...Option) (client, server *Conn) {
	t.Helper()
	c, s := memory.NewPair()
	return Wrap(t, c, Client, opts...), Wrap(t, s, Server, opts...)
}
